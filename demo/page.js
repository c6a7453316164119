// The demo page: polls /api/state and renders, from the Block Kit the app sent, #support, the DM,
// the App Home, the open modal and a Work Object's details panel, as Slack draws them: tables with
// their column settings, images by slack_file (the stand-in keeps the uploads), rich text and
// markdown blocks, files, streamed replies with their task cards and plans. Every text goes
// through textContent (never innerHTML), so nothing the app or the plat API wrote can become
// markup. A block, element or emoji this page cannot draw is listed in `window.demoUnknown` (the
// browser test fails on it) and shown in red, never silently as a grey placeholder.

const SUPPORT = 'C1234';
const DM = 'D1234';
const USERS = [
  { id: 'U1234', name: 'agent (you)' },
  { id: 'U5678', name: 'agent2' },
  { id: 'UADMIN', name: 'admin' },
];
// The message shortcuts' names are manifest.yml's: Slack shows them as written, in any language.
const SHORTCUTS = [
  { callbackId: 'platdesk.shortcut.items', label: 'Look up items' },
  { callbackId: 'platdesk.shortcut.waybills', label: 'Look up waybills' },
  { callbackId: 'platdesk.shortcut.shops', label: 'Find shop' },
];
const SAMPLES = [
  '/item 680001234501',
  '/orders 2200001001',
  '/shop ww beeclothing',
  '/waybill SF1234567890123 shop:57301234',
  'https://item.taobao.com/item.htm?id=680001234501',
  '/orders digest add 2200001001 here 23:59',
  '/orders digest run 1',
  '/orders alert add 2200001004 here within:6 hours:00:00-23:59',
  '/platdesk usage',
  '/platdesk help',
];

// Slack's own words around the app's (its client follows the person's language).
const CHROME = {
  en: {
    you: 'agent (you)',
    onlyYou: 'Only visible to you',
    optional: ' (optional)',
    close: 'Close',
    send: 'Send',
    placeholder: 'Type /item 680001234501, or paste an item link',
    home: '🏠 App Home',
    homeTitle: 'platdesk · Home',
    dmTitle: 'platdesk (direct message)',
    openingHome: 'Opening the App Home…',
    reply: 'reply',
    replies: 'replies',
    download: 'Download',
    details: 'Details',
    streaming: 'writing…',
    metadata: 'metadata',
    language: 'Language',
    calls: 'Sandbox calls',
    try: 'Try:',
    note: 'A local Slack stand-in: no Slack account, the plat sandbox, nothing leaves this machine.',
  },
  'zh-CN': {
    you: 'agent（你）',
    onlyYou: '仅你可见',
    optional: '（可选）',
    close: '关闭',
    send: '发送',
    placeholder: '输入 /item 680001234501，或粘贴商品链接',
    home: '🏠 App 主页',
    homeTitle: 'platdesk · 主页',
    dmTitle: 'platdesk（私信）',
    openingHome: '正在打开 App 主页…',
    reply: '条回复',
    replies: '条回复',
    download: '下载',
    details: '详情',
    streaming: '正在输入…',
    metadata: '元数据',
    language: '语言',
    calls: '沙盒调用次数',
    try: '试试：',
    note: '本地的 Slack 替身：不需要 Slack 账号，使用 plat 沙盒，数据不离开本机。',
  },
};
const chrome = (key) => (CHROME[document.getElementById('locale')?.value] ?? CHROME.en)[key];

let current = SUPPORT;
let state = { version: -1, channels: [], messages: [], modals: [], home: null, panel: null, sandboxCalls: 0 };
let shownVersion = -1;
let shownModal = '';
let shownHome = '';
let shownPanel = '';

// Panes other scripts of the page add beside the conversations and the App Home (demo/page-messages.js):
// { id, button, section, title(), chrome(), opened(), render(state) }; each draws only when its own
// part of the state changed.
const panes = () => window.demoPanes ?? [];
const paneOf = (where) => panes().find((p) => p.id === where);

// What this page could not draw: the browser test fails on any of it.
window.demoUnknown = [];
function unknown(what) {
  if (!window.demoUnknown.includes(what)) window.demoUnknown.push(what);
  return el('span', 'unknown', `[${what}]`);
}

// ---------------------------------------------------------------------------------------------
// DOM helpers

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The emoji shortcodes platdesk writes; an unknown name outside code is a failure of this page.
const EMOJI = {
  warning: '⚠️',
  white_check_mark: '✅',
  no_entry: '⛔',
  hourglass_flowing_sand: '⏳',
  money_with_wings: '💸',
  rotating_light: '🚨',
  x: '❌',
  repeat: '🔁',
  receipt: '🧾',
  moneybag: '💰',
  wastebasket: '🗑️',
  shopping_bags: '🛍️',
  recycle: '♻️',
  lock: '🔒',
  link: '🔗',
  hourglass: '⌛',
  alarm_clock: '⏰',
  thread: '🧵',
  robot_face: '🤖',
  raising_hand: '🙋',
  package: '📦',
  no_entry_sign: '🚫',
  mag: '🔍',
  information_source: 'ℹ️',
  grey_question: '❔',
  bar_chart: '📊',
  chart_with_upwards_trend: '📈',
  calendar: '📅',
  busts_in_silhouette: '👥',
  gear: '⚙️',
  bell: '🔔',
  bulb: '💡',
};
const emoji = (s) =>
  s.replace(/:([a-z0-9_+-]+):/g, (all, name) => {
    if (EMOJI[name]) return EMOJI[name];
    // A time such as 09:00:00 is not an emoji; a name like :sparkles: the page does not know is.
    if (/^[a-z][a-z0-9_+-]*$/.test(name)) unknown(`emoji :${name}:`);
    return all;
  });
const decodeEntities = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const decode = (s) => emoji(decodeEntities(s));
const channelName = (id) => state.channels.find((c) => c.id === id)?.name ?? `#${id}`;
const userName = (id) => USERS.find((u) => u.id === id)?.name ?? id;

// ---------------------------------------------------------------------------------------------
// mrkdwn → DOM (https://docs.slack.dev/messaging/formatting-message-text)

const INLINE =
  /```([\s\S]+?)```|`([^`\n]+)`|<([^<>|\s][^<>|]*)(?:\|([^<>]*))?>|(?<![\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])|(?<![\w_])_(?!\s)([^_\n]+?)_(?![\w_])|(?<![\w~])~(?!\s)([^~\n]+?)~(?![\w~])|\n/g;

function link(target, label) {
  if (target.startsWith('#')) {
    const [id, name] = target.slice(1).split('|');
    return el('span', 'mention', label ? `#${decode(label)}` : name ? `#${name}` : channelName(id));
  }
  if (target.startsWith('@')) return el('span', 'mention', `@${userName(target.slice(1))}`);
  if (target.startsWith('!')) {
    if (label) return el('span', 'mention', decode(label));
    return el('span', 'mention', `@${target.slice(1).split('^')[0]}`);
  }
  const url = decodeEntities(target);
  return anchor(url, label ? decode(label) : url);
}

/** A link, only for http(s) and mailto targets: any other scheme stays text. */
function anchor(url, label) {
  const a = el('a', '', label);
  if (/^(https?:|mailto:)/i.test(url)) {
    a.href = url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
  }
  return a;
}

function mrkdwn(text, into) {
  const parent = into ?? el('span');
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) parent.append(decode(text.slice(last, m.index)));
    last = m.index + m[0].length;
    // Slack shows code as written: no emoji, no formatting inside.
    if (m[1] !== undefined) parent.append(el('pre', '', decodeEntities(m[1].replace(/^\n/, ''))));
    else if (m[2] !== undefined) parent.append(el('code', '', decodeEntities(m[2])));
    else if (m[3] !== undefined) parent.append(link(m[3], m[4]));
    else if (m[5] !== undefined) parent.append(mrkdwn(m[5], el('b')));
    else if (m[6] !== undefined) parent.append(mrkdwn(m[6], el('i')));
    else if (m[7] !== undefined) parent.append(mrkdwn(m[7], el('s')));
    else parent.append(el('br'));
  }
  if (last < text.length) parent.append(decode(text.slice(last)));
  return parent;
}

function textObject(t) {
  if (!t || typeof t.text !== 'string') return el('span');
  return t.type === 'mrkdwn' ? mrkdwn(t.text) : el('span', '', plain(t));
}
const plain = (t) => (t && typeof t.text === 'string' ? (t.emoji === false ? t.text : emoji(t.text)) : '');

// ---------------------------------------------------------------------------------------------
// Markdown (the `markdown` block and streamed markdown_text: standard Markdown, as Slack takes it,
// https://docs.slack.dev/reference/block-kit/blocks/markdown-block)

const MD_INLINE =
  /`([^`\n]+)`|\*\*(?=\S)([^\n]+?\S)\*\*|__(?=\S)([^\n]+?\S)__|~~(?=\S)([^\n]+?\S)~~|(?<![\w*])\*(?=\S)([^*\n]+?)\*(?![\w*])|(?<![\w_])_(?=\S)([^_\n]+?)_(?![\w_])|\[([^\]\n]+)\]\(([^)\s]+)\)|<(https?:\/\/[^>\s]+)>|(https?:\/\/[^\s<>()]+)/g;

function markdownInline(text, into) {
  const parent = into ?? el('span');
  let last = 0;
  for (const m of text.matchAll(MD_INLINE)) {
    if (m.index > last) parent.append(emoji(text.slice(last, m.index)));
    last = m.index + m[0].length;
    if (m[1] !== undefined) parent.append(el('code', '', m[1]));
    else if (m[2] !== undefined || m[3] !== undefined) parent.append(markdownInline(m[2] ?? m[3], el('b')));
    else if (m[4] !== undefined) parent.append(markdownInline(m[4], el('s')));
    else if (m[5] !== undefined || m[6] !== undefined) parent.append(markdownInline(m[5] ?? m[6], el('i')));
    else if (m[7] !== undefined) parent.append(anchor(m[8], m[7]));
    else parent.append(anchor(m[9] ?? m[10], m[9] ?? m[10]));
  }
  if (last < text.length) parent.append(emoji(text.slice(last)));
  return parent;
}

function markdown(text) {
  const box = el('div', 'markdown');
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let list = null;
  let paragraph = null;
  const close = () => {
    list = null;
    paragraph = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^```/.test(line)) {
      close();
      const code = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) code.push(lines[i]);
      box.append(el('pre', '', code.join('\n')));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    const quote = /^>\s?(.*)$/.exec(line);
    if (line.trim() === '') close();
    else if (/^(-{3,}|\*{3,}|_{3,})\s*$/.test(line)) {
      close();
      box.append(el('hr'));
    } else if (heading) {
      close();
      box.append(markdownInline(heading[2], el(`h${Math.min(6, heading[1].length + 2)}`, 'md-heading')));
    } else if (item) {
      const tag = item[2] !== undefined ? 'ol' : 'ul';
      if (!list || list.tagName.toLowerCase() !== tag) {
        paragraph = null;
        list = el(tag);
        box.append(list);
      }
      list.append(markdownInline(item[3], el('li')));
    } else if (quote) {
      close();
      box.append(markdownInline(quote[1], el('blockquote')));
    } else {
      list = null;
      if (paragraph) paragraph.append(el('br'));
      else {
        paragraph = el('p');
        box.append(paragraph);
      }
      markdownInline(line, paragraph);
    }
  }
  return box;
}

// ---------------------------------------------------------------------------------------------
// Rich text (https://docs.slack.dev/reference/block-kit/blocks/rich-text-block)

function richInline(e) {
  let node;
  switch (e.type) {
    case 'text':
      node = el('span', '', e.text ?? '');
      break;
    case 'link':
      node = anchor(e.url ?? '', e.text || e.url || '');
      break;
    case 'emoji':
      node = el(
        'span',
        '',
        e.unicode
          ? String.fromCodePoint(...e.unicode.split('-').map((h) => parseInt(h, 16)))
          : emoji(`:${e.name}:`),
      );
      break;
    case 'user':
      node = el('span', 'mention', `@${userName(e.user_id)}`);
      break;
    case 'channel':
      node = el('span', 'mention', channelName(e.channel_id));
      break;
    case 'usergroup':
      node = el('span', 'mention', `@${e.usergroup_id}`);
      break;
    case 'broadcast':
      node = el('span', 'mention', `@${e.range}`);
      break;
    case 'date':
      node = el('span', '', e.fallback ?? new Date((e.timestamp ?? 0) * 1000).toLocaleString());
      break;
    case 'color':
      node = el('span', '', e.value ?? '');
      break;
    default:
      return unknown(`rich_text element ${e.type}`);
  }
  const style = e.style ?? {};
  if (style.code) node = wrap(node, 'code');
  if (style.bold) node = wrap(node, 'b');
  if (style.italic) node = wrap(node, 'i');
  if (style.strike) node = wrap(node, 's');
  return node;
}
const wrap = (node, tag) => {
  const outer = el(tag);
  outer.append(node);
  return outer;
};

function richText(b) {
  const box = el('div', 'rich-text');
  for (const part of b.elements ?? []) box.append(richPart(part));
  return box;
}

function richPart(part) {
  switch (part.type) {
    case 'rich_text_section': {
      const p = el('div', 'rt-section');
      for (const e of part.elements ?? []) p.append(richInline(e));
      return p;
    }
    case 'rich_text_preformatted': {
      const pre = el('pre');
      for (const e of part.elements ?? []) pre.append(richInline(e));
      return pre;
    }
    case 'rich_text_quote': {
      const q = el('blockquote');
      for (const e of part.elements ?? []) q.append(richInline(e));
      return q;
    }
    case 'rich_text_list': {
      const list = el(part.style === 'ordered' ? 'ol' : 'ul');
      list.style.marginLeft = `${(part.indent ?? 0) * 20}px`;
      for (const section of part.elements ?? []) {
        const li = el('li');
        li.append(richPart(section));
        list.append(li);
      }
      return list;
    }
    default:
      return unknown(`rich_text part ${part.type}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Interactive elements. `where` is { channel, ts } for a message or { viewId } for a view.

async function post(path, body) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  setTimeout(poll, 50);
  return res.json();
}

function act(where, action) {
  const values = where.viewId ? collectState(document.querySelector(`[data-view-id="${where.viewId}"]`)) : {};
  return post('/api/click', { ...where, action, values });
}

function confirmed(element) {
  if (!element.confirm) return true;
  const c = element.confirm;
  return window.confirm(`${plain(c.title)}\n\n${plain(c.text)}`);
}

function optionsOf(element) {
  if (Array.isArray(element.options)) return element.options;
  if (Array.isArray(element.option_groups)) return element.option_groups.flatMap((g) => g.options ?? []);
  return [];
}

function selectOf(element, onChoose, placeholder) {
  const select = el('select', 'el');
  select.append(el('option', '', placeholder ?? (plain(element.placeholder) || '…')));
  select.firstChild.value = '';
  for (const option of optionsOf(element)) {
    const o = el('option', '', plain(option.text));
    o.value = option.value;
    select.append(o);
  }
  if (element.initial_option) select.value = element.initial_option.value;
  select.addEventListener('change', () => {
    const option = optionsOf(element).find((o) => o.value === select.value);
    if (option) onChoose(option);
  });
  return select;
}

function interactive(element, blockId, where) {
  const base = { action_id: element.action_id, block_id: blockId };
  if (element.type === 'button') {
    const button = el('button', `el ${element.style ?? ''}`.trim(), plain(element.text));
    button.type = 'button';
    button.dataset.actionId = element.action_id ?? '';
    button.addEventListener('click', () => {
      if (!confirmed(element)) return;
      if (element.url) window.open(element.url, '_blank', 'noopener');
      act(where, { ...base, type: 'button', value: element.value, text: plain(element.text) });
    });
    return button;
  }
  if (element.type === 'static_select' || element.type === 'overflow') {
    const chooseLabel = element.type === 'overflow' ? '⋯' : undefined;
    return selectOf(
      element,
      (option) =>
        act(where, {
          ...base,
          type: element.type,
          selected_option: { text: option.text, value: option.value },
        }),
      chooseLabel,
    );
  }
  if (element.type === 'image') return imageOf(element, 'thumb');
  return unknown(`element ${element.type}`);
}

/**
 * An image by its public image_url, or by slack_file: a file uploaded to Slack, which the stand-in
 * keeps and serves (`/files/<id>`) as Slack serves its own files to the person's client.
 */
function imageSource(element) {
  if (element.slack_file) {
    const f = element.slack_file;
    const id = f.id ?? /\/files\/([^/?#]+)/.exec(f.url ?? '')?.[1];
    return id ? `/files/${encodeURIComponent(id)}` : (f.url ?? '');
  }
  return element.image_url ?? '';
}

function imageOf(element, className) {
  const img = el('img', className);
  img.src = imageSource(element);
  img.alt = element.alt_text ?? '';
  img.title = element.alt_text ?? '';
  if (element.slack_file) {
    // A slack_file the stand-in cannot serve is a failure: Slack would show the picture.
    img.addEventListener('error', () => img.replaceWith(unknown(`slack_file ${img.src}`)));
  } else {
    // A sandbox item's image_url points at a host this machine cannot reach: Slack's client would
    // show it; the page shows its alt text in a frame instead of a broken picture.
    img.addEventListener('error', () =>
      img.replaceWith(el('span', 'image-offline', `🖼 ${img.alt || 'image'}`)),
    );
  }
  return img;
}

// ---------------------------------------------------------------------------------------------
// Blocks

/** A table block (https://docs.slack.dev/reference/block-kit/blocks/table-block): the first row is the header. */
function table(b) {
  const wrapBox = el('div', 'table-wrap');
  const t = el('table');
  const settings = b.column_settings ?? [];
  (b.rows ?? []).forEach((row, r) => {
    const tr = el('tr');
    row.forEach((cell, c) => {
      const td = el(r === 0 ? 'th' : 'td');
      const setting = settings[c] ?? {};
      td.style.textAlign = setting.align ?? 'left';
      td.classList.toggle('nowrap', setting.is_wrapped !== true);
      if (cell.type === 'raw_text') td.textContent = cell.text ?? '';
      else if (cell.type === 'rich_text') td.append(richText(cell));
      else td.append(unknown(`table cell ${cell.type}`));
      tr.append(td);
    });
    t.append(tr);
  });
  wrapBox.append(t);
  return wrapBox;
}

function block(b, where, view) {
  const node = el('div', `block ${b.type}`);
  const blockId = b.block_id ?? '';
  switch (b.type) {
    case 'section': {
      const body = el('div');
      if (b.text) body.append(textObject(b.text));
      if (Array.isArray(b.fields)) {
        const fields = el('div', 'fields');
        for (const f of b.fields) fields.append(textObject(f));
        body.append(fields);
      }
      node.append(body);
      if (b.accessory) node.append(interactive(b.accessory, blockId, where));
      break;
    }
    case 'header':
      node.append(el('h3', 'header', plain(b.text)));
      break;
    case 'divider':
      node.append(el('hr'));
      break;
    case 'context':
      for (const e of b.elements ?? [])
        node.append(
          e.type === 'image'
            ? imageOf(e)
            : e.type === 'plain_text' || e.type === 'mrkdwn'
              ? textObject(e)
              : unknown(`context element ${e.type}`),
        );
      break;
    case 'image':
      if (b.title) node.append(el('div', 'image-title', plain(b.title)));
      node.append(imageOf(b, 'image'));
      break;
    case 'actions':
      for (const e of b.elements ?? []) node.append(interactive(e, blockId, where));
      break;
    case 'input':
      node.append(inputBlock(b, view));
      break;
    case 'table':
      node.append(table(b));
      break;
    case 'rich_text':
      node.append(richText(b));
      break;
    case 'markdown':
      node.append(markdown(b.text ?? ''));
      break;
    case 'context_actions':
      for (const e of b.elements ?? [])
        node.append(
          e.type === 'feedback_buttons'
            ? feedbackButtons(e, blockId, where)
            : unknown(`context_actions element ${e.type}`),
        );
      break;
    default:
      node.append(unknown(`${b.type} block`));
  }
  return node;
}

/** Slack's feedback buttons (👍 / 👎) under an answer: a click sends the chosen button's value. */
function feedbackButtons(e, blockId, where) {
  const box = el('span', 'feedback');
  for (const [kind, b] of [
    ['positive', e.positive_button],
    ['negative', e.negative_button],
  ]) {
    if (!b) continue;
    const button = el('button', 'el feedback-button', plain(b.text));
    button.type = 'button';
    button.dataset.actionId = e.action_id ?? '';
    button.dataset.feedback = kind;
    if (b.accessibility_label) button.setAttribute('aria-label', b.accessibility_label);
    button.addEventListener('click', () =>
      act(where, { action_id: e.action_id, block_id: blockId, type: 'feedback_buttons', value: b.value }),
    );
    box.append(button);
  }
  return box;
}

function blocks(list, where, view) {
  const box = el('div', 'blocks');
  // Slack gives a block without a block_id one of its own.
  (list ?? []).forEach((b, i) => {
    box.append(block({ block_id: `b${i}`, ...b }, where, view));
  });
  return box;
}

// ---------------------------------------------------------------------------------------------
// Files, streamed replies, Work Object cards

function fileTile(f) {
  const box = el('div', 'file');
  if (f.mimetype?.startsWith('image/')) {
    const img = imageOf({ slack_file: { id: f.id }, alt_text: f.title || f.name }, 'image');
    box.append(img);
  }
  const line = el('div', 'file-line');
  line.append(el('span', 'file-icon', '📄'));
  line.append(el('span', 'file-name', f.title || f.name));
  line.append(el('span', 'meta', ` ${f.name} · ${formatSize(f.size)} `));
  const a = el('a', 'file-download', chrome('download'));
  a.href = `/files/${encodeURIComponent(f.id)}?download=1`;
  a.download = f.name;
  line.append(a);
  box.append(line);
  return box;
}
const formatSize = (n) => (n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`);

const TASK_ICON = { pending: '○', in_progress: '◔', complete: '✓', error: '✕' };

function taskCard(task) {
  const card = el('div', `task ${task.status}`);
  const head = el('div', 'task-head');
  const icon = TASK_ICON[task.status];
  head.append(icon ? el('span', 'task-icon', icon) : unknown(`task status ${task.status}`));
  head.append(el('span', 'task-title', task.title ?? ''));
  card.append(head);
  if (task.details) card.append(el('div', 'task-details', task.details));
  if (task.output) card.append(el('div', 'task-output', task.output));
  for (const source of task.sources ?? []) {
    if (source.type !== 'url') card.append(unknown(`task source ${source.type}`));
    else card.append(anchor(source.url, source.text || source.url));
  }
  return card;
}

/**
 * A streamed reply: its markdown as one text, its tasks as cards where they first came
 * (timeline) or together under the plan's title (plan), the latest state of each task shown.
 */
function streamed(m) {
  const box = el('div', 'stream');
  const s = m.stream;
  const tasks = new Map();
  for (const c of s.chunks) if (c.type === 'task_update') tasks.set(c.id, { ...tasks.get(c.id), ...c });
  const parts = [];
  let text = null;
  let plan = null;
  const placed = new Set();
  for (const c of s.chunks) {
    if (c.type === 'markdown_text') {
      if (text === null) {
        text = { kind: 'text', text: '' };
        parts.push(text);
      }
      text.text += c.text ?? '';
    } else if (c.type === 'task_update' || c.type === 'plan_update') {
      text = null;
      if (s.taskDisplayMode === 'plan') {
        if (!plan) {
          plan = { kind: 'plan', title: '' };
          parts.push(plan);
        }
        if (c.type === 'plan_update') plan.title = c.title ?? '';
      } else if (c.type === 'task_update' && !placed.has(c.id)) {
        placed.add(c.id);
        parts.push({ kind: 'task', id: c.id });
      } else if (c.type === 'plan_update') parts.push({ kind: 'title', title: c.title ?? '' });
    } else if (c.type === 'blocks') {
      text = null;
      parts.push({ kind: 'blocks', blocks: c.blocks ?? [] });
    } else parts.push({ kind: 'unknown', type: c.type });
  }
  for (const part of parts) {
    if (part.kind === 'text') box.append(markdown(part.text));
    else if (part.kind === 'task') box.append(taskCard(tasks.get(part.id)));
    else if (part.kind === 'title') box.append(el('div', 'plan-title', part.title));
    else if (part.kind === 'blocks') box.append(blocks(part.blocks, { channel: m.channel, ts: m.ts }));
    else if (part.kind === 'plan') {
      const planBox = el('div', 'plan');
      planBox.append(el('div', 'plan-title', part.title));
      for (const task of tasks.values()) planBox.append(taskCard(task));
      box.append(planBox);
    } else box.append(unknown(`stream chunk ${part.type}`));
  }
  if (s.state === 'streaming') box.append(el('div', 'meta typing', chrome('streaming')));
  return box;
}

/** A Work Object's card (https://docs.slack.dev/messaging/work-objects-overview): opens its details panel. */
function entityCard(m, unfurl, entity) {
  const payload = entity.entity_payload ?? {};
  const attributes = payload.attributes ?? {};
  const card = el('button', 'entity-card');
  card.type = 'button';
  card.dataset.entity = entity.external_ref?.id ?? '';
  const head = el('div', 'entity-head');
  head.append(el('span', 'entity-type', attributes.display_type ?? ''));
  if (attributes.display_id) head.append(el('span', 'meta', ` ${attributes.display_id}`));
  card.append(head);
  card.append(el('div', 'entity-title', attributes.title?.text ?? ''));
  card.append(entityFields(payload.custom_fields ?? []));
  const foot = el('div', 'meta', `${attributes.product_name ?? ''} · ${chrome('details')} ›`);
  card.append(foot);
  card.addEventListener('click', () =>
    post('/api/entity/open', { channel: m.channel, ts: m.ts, url: unfurl.url }),
  );
  return card;
}

function entityFields(fields) {
  const list = el('dl', 'entity-fields');
  for (const f of fields) {
    if (f.type !== 'string') {
      list.append(unknown(`entity field ${f.type}`));
      continue;
    }
    list.append(el('dt', '', f.label ?? f.key));
    list.append(el('dd', '', f.value ?? ''));
  }
  return list;
}

// ---------------------------------------------------------------------------------------------
// Input blocks (modals) and their state, in Slack's view.state.values shape

function inputBlock(b, view) {
  const box = el('div', 'input');
  const e = b.element ?? {};
  box.dataset.blockId = b.block_id ?? '';
  box.dataset.actionId = e.action_id ?? '';
  box.dataset.type = e.type ?? '';
  // Slack adds "(optional)" in the person's own language.
  box.append(el('span', 'label', plain(b.label) + (b.optional ? chrome('optional') : '')));
  let control;
  switch (e.type) {
    case 'plain_text_input':
      control = el(e.multiline ? 'textarea' : 'input');
      if (!e.multiline) control.type = 'text';
      control.value = e.initial_value ?? '';
      control.placeholder = plain(e.placeholder);
      break;
    case 'number_input':
      control = el('input');
      control.type = 'number';
      control.step = e.is_decimal_allowed ? 'any' : '1';
      control.value = e.initial_value ?? '';
      break;
    case 'static_select':
      control = selectOf(e, () => {});
      break;
    case 'radio_buttons':
    case 'checkboxes': {
      control = el('div');
      const initial = [e.initial_option, ...(e.initial_options ?? [])].filter(Boolean).map((o) => o.value);
      for (const option of e.options ?? []) {
        const label = el('label');
        const box2 = el('input');
        box2.type = e.type === 'radio_buttons' ? 'radio' : 'checkbox';
        box2.name = `${b.block_id}.${e.action_id}`;
        box2.value = option.value;
        box2.checked = initial.includes(option.value);
        label.append(box2, ' ', textObject(option.text));
        control.append(label, el('br'));
      }
      break;
    }
    case 'timepicker':
      control = el('input');
      control.type = 'time';
      control.value = e.initial_time ?? '';
      break;
    case 'datetimepicker':
      control = el('input');
      control.type = 'datetime-local';
      if (e.initial_date_time)
        control.value = new Date(e.initial_date_time * 1000).toISOString().slice(0, 16);
      break;
    case 'conversations_select':
    case 'multi_conversations_select':
    case 'multi_users_select':
    case 'users_select': {
      control = el('select');
      control.multiple = e.type.startsWith('multi_');
      const list = e.type.includes('users') ? USERS : state.channels;
      if (!control.multiple) {
        const none = el('option', '', '…');
        none.value = '';
        control.append(none);
      }
      for (const item of list) {
        const o = el('option', '', item.name);
        o.value = item.id;
        control.append(o);
      }
      const initial = [
        e.initial_conversation,
        e.initial_user,
        ...(e.initial_conversations ?? []),
        ...(e.initial_users ?? []),
      ].filter(Boolean);
      for (const o of control.options) o.selected = initial.includes(o.value);
      break;
    }
    default:
      control = unknown(`input element ${e.type}`);
  }
  control.classList.add('control');
  box.append(control);
  if (b.dispatch_action && view) dispatchOnChange(box, control, e, view.id);
  if (b.hint) box.append(el('div', 'hint', plain(b.hint)));
  const error = view?.errors?.[b.block_id];
  if (error) box.append(el('div', 'error', error));
  box.optionsOf = optionsOf(e);
  return box;
}

// An input block with dispatch_action sends block_actions as its element changes (a text input:
// when Enter is pressed), carrying the element's new state and the view's.
function dispatchOnChange(box, control, element, viewId) {
  const send = () => {
    const form = box.closest('[data-view-id]');
    const values = collectState(form);
    const own = values[box.dataset.blockId]?.[box.dataset.actionId] ?? {};
    act({ viewId }, { ...own, action_id: element.action_id, block_id: box.dataset.blockId });
  };
  if (element.type === 'plain_text_input' || element.type === 'number_input')
    control.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' || element.multiline) return;
      event.preventDefault();
      send();
    });
  else control.addEventListener('change', send);
}

function collectState(root) {
  const values = {};
  if (!root) return values;
  for (const box of root.querySelectorAll('.input')) {
    const { blockId, actionId, type } = box.dataset;
    const control = box.querySelector('.control');
    const option = (value) => {
      const o = box.optionsOf.find((x) => x.value === value);
      return o ? { text: o.text, value: o.value } : null;
    };
    let value;
    switch (type) {
      case 'plain_text_input':
      case 'number_input':
        value = { type, value: control.value === '' ? null : control.value };
        break;
      case 'static_select':
        value = { type, selected_option: option(control.value) };
        break;
      case 'radio_buttons': {
        const checked = control.querySelector('input:checked');
        value = { type, selected_option: checked ? option(checked.value) : null };
        break;
      }
      case 'checkboxes':
        value = {
          type,
          selected_options: [...control.querySelectorAll('input:checked')].map((c) => option(c.value)),
        };
        break;
      case 'timepicker':
        value = { type, selected_time: control.value || null };
        break;
      case 'datetimepicker':
        value = {
          type,
          selected_date_time: control.value
            ? Math.floor(new Date(`${control.value}Z`).getTime() / 1000)
            : null,
        };
        break;
      case 'conversations_select':
        value = { type, selected_conversation: control.value || null };
        break;
      case 'users_select':
        value = { type, selected_user: control.value || null };
        break;
      case 'multi_conversations_select':
        value = { type, selected_conversations: [...control.selectedOptions].map((o) => o.value) };
        break;
      case 'multi_users_select':
        value = { type, selected_users: [...control.selectedOptions].map((o) => o.value) };
        break;
      default:
        continue;
    }
    values[blockId] = { ...(values[blockId] ?? {}), [actionId]: value };
  }
  return values;
}

// ---------------------------------------------------------------------------------------------
// Conversations, Home, modal, details panel

function messageNode(m) {
  const node = el('div', `msg${m.ephemeral ? ' ephemeral' : ''}${m.command ? ' command' : ''}`);
  node.dataset.ts = m.ts;
  const head = el('div');
  head.append(el('span', 'who', m.author === 'you' ? chrome('you') : 'platdesk'));
  if (m.ephemeral && !m.command) head.append(el('span', 'meta', chrome('onlyYou')));
  if (m.metadata?.event_type) {
    // Message metadata is not shown in Slack's client; here it is named, small, because the app
    // relies on it (a scheduled post's key is how an unclear post is found, never sent twice).
    const tag = el('span', 'meta metadata', ` · ${chrome('metadata')}: ${m.metadata.event_type}`);
    tag.title = JSON.stringify(m.metadata.event_payload ?? {});
    head.append(tag);
  }
  node.append(head);
  if (m.command) node.append(el('div', '', m.text));
  else if (m.stream) node.append(streamed(m));
  else if (m.blocks.length > 0) node.append(blocks(m.blocks, { channel: m.channel, ts: m.ts }));
  else if (m.text !== '') node.append(mrkdwn(m.text, el('div')));
  if (m.stream && m.blocks.length > 0) node.append(blocks(m.blocks, { channel: m.channel, ts: m.ts }));
  for (const f of m.files ?? []) node.append(fileTile(f));
  for (const u of m.unfurls) {
    const box = el('div', 'unfurl');
    // A client that shows Work Objects shows the entity's card; the blocks are the fallback.
    if (u.entities.length > 0) for (const entity of u.entities) box.append(entityCard(m, u, entity));
    else box.append(blocks(u.blocks, { channel: m.channel, ts: m.ts }));
    node.append(box);
  }
  if (!m.command) node.append(shortcutMenu(m));
  return node;
}

function shortcutMenu(m) {
  const menu = el('details', 'menu');
  menu.append(el('summary', '', '⋯'));
  const list = el('div');
  for (const s of SHORTCUTS) {
    const b = el('button', '', `⚡ ${s.label}`);
    b.type = 'button';
    b.addEventListener('click', () => {
      menu.open = false;
      post('/api/shortcut', { channel: m.channel, ts: m.ts, callbackId: s.callbackId });
    });
    list.append(b);
  }
  menu.append(list);
  return menu;
}

function renderConversation() {
  const box = document.getElementById('conversation');
  const stick = box.scrollTop + box.clientHeight >= box.scrollHeight - 40;
  box.replaceChildren();
  const here = state.messages.filter((m) => m.channel === current);
  for (const m of here.filter((x) => !x.threadTs || !here.some((p) => p.ts === x.threadTs))) {
    box.append(messageNode(m));
    const replies = here.filter((r) => r.threadTs === m.ts && r.ts !== m.ts);
    if (replies.length > 0) {
      const thread = el('div', 'thread');
      thread.append(
        el('div', 'meta', `${replies.length} ${replies.length === 1 ? chrome('reply') : chrome('replies')}`),
      );
      for (const r of replies) thread.append(messageNode(r));
      box.append(thread);
    }
  }
  if (stick) box.scrollTop = box.scrollHeight;
}

function renderChannels() {
  const nav = document.getElementById('channels');
  nav.replaceChildren();
  for (const c of state.channels) {
    const b = el('button', current === c.id ? 'active' : '', c.id === DM ? '💬 platdesk' : c.name);
    b.type = 'button';
    b.addEventListener('click', () => show(c.id));
    nav.append(b);
  }
  document.getElementById('home-tab').classList.toggle('active', current === 'home');
  for (const p of panes()) p.button.classList.toggle('active', current === p.id);
  const pane = paneOf(current);
  document.getElementById('title').textContent = pane
    ? pane.title()
    : current === 'home'
      ? chrome('homeTitle')
      : current === DM
        ? chrome('dmTitle')
        : channelName(current);
}

function renderChrome() {
  document.documentElement.lang = document.getElementById('locale').value === 'zh-CN' ? 'zh-CN' : 'en';
  document.getElementById('home-tab').textContent = chrome('home');
  document.getElementById('send').textContent = chrome('send');
  document.getElementById('composer').placeholder = chrome('placeholder');
  document.getElementById('calls-label').textContent = chrome('calls');
  document.getElementById('try-label').textContent = chrome('try');
  document.getElementById('locale-label').textContent = chrome('language');
  document.getElementById('note').textContent = chrome('note');
  for (const p of panes()) p.chrome();
}

function renderHome() {
  const box = document.getElementById('home');
  const key = JSON.stringify(state.home);
  if (key === shownHome) return;
  shownHome = key;
  box.replaceChildren();
  if (!state.home) {
    box.append(el('p', 'meta', chrome('openingHome')));
    return;
  }
  const view = el('div');
  view.dataset.viewId = state.home.id;
  view.append(blocks(state.home.view.blocks, { viewId: state.home.id }, state.home));
  box.append(view);
}

function renderModal() {
  const top = state.modals.at(-1);
  const key = JSON.stringify(top ?? null);
  if (key === shownModal) return;
  shownModal = key;
  const modal = document.getElementById('modal');
  modal.replaceChildren();
  modal.hidden = !top;
  if (!top) return;
  const v = top.view;
  const dialog = el('form', 'dialog');
  dialog.dataset.viewId = top.id;
  dialog.append(el('h2', '', plain(v.title)));
  dialog.append(blocks(v.blocks, { viewId: top.id }, top));
  const foot = el('div', 'foot');
  const close = el('button', 'el', plain(v.close) || chrome('close'));
  close.type = 'button';
  close.addEventListener('click', () => post('/api/close', { viewId: top.id }));
  foot.append(close);
  if (v.submit) {
    const submit = el('button', 'el primary', plain(v.submit));
    submit.type = 'submit';
    foot.append(submit);
  }
  dialog.addEventListener('submit', (event) => {
    event.preventDefault();
    post('/api/submit', { viewId: top.id, values: collectState(dialog) });
  });
  dialog.append(foot);
  modal.append(dialog);
}

/** The details panel of a Work Object (entity.presentDetails): its fields, its actions or its error. */
function renderPanel() {
  const key = JSON.stringify(state.panel);
  if (key === shownPanel) return;
  shownPanel = key;
  const box = document.getElementById('panel');
  box.replaceChildren();
  box.hidden = !state.panel;
  if (!state.panel) return;
  const head = el('div', 'panel-head');
  const close = el('button', 'el', '✕');
  close.type = 'button';
  close.setAttribute('aria-label', chrome('close'));
  close.addEventListener('click', () => post('/api/entity/close', {}));
  const { metadata, error } = state.panel;
  const payload = metadata?.entity_payload ?? {};
  head.append(el('h2', '', payload.attributes?.title?.text ?? state.panel.entityId), close);
  box.append(head);
  if (!metadata && !error) {
    box.append(el('p', 'meta', '…'));
    return;
  }
  if (error) {
    box.append(el('h3', 'panel-error', error.custom_title ?? error.status ?? ''));
    if (error.custom_message) box.append(el('p', '', error.custom_message));
    return;
  }
  if (payload.attributes?.display_type) box.append(el('div', 'entity-type', payload.attributes.display_type));
  box.append(entityFields(payload.custom_fields ?? []));
  const actions = payload.actions ?? {};
  for (const kind of Object.keys(actions))
    if (kind !== 'primary_actions' && kind !== 'overflow_actions')
      box.append(unknown(`entity actions ${kind}`));
  const row = el('div', 'actions');
  for (const a of [...(actions.primary_actions ?? []), ...(actions.overflow_actions ?? [])]) {
    const b = el('button', `el ${a.style ?? ''}`.trim(), a.text ?? '');
    b.type = 'button';
    b.dataset.actionId = a.action_id ?? '';
    b.addEventListener('click', () => {
      b.disabled = true;
      if (a.processing_state?.enabled) b.textContent = a.processing_state.interstitial_text ?? '…';
      post('/api/entity/action', { action: { action_id: a.action_id, value: a.value } });
    });
    row.append(b);
  }
  box.append(row);
}

function render() {
  document.getElementById('calls').textContent = String(state.sandboxCalls);
  renderModal();
  renderPanel();
  if (current === 'home') renderHome();
  const pane = paneOf(current);
  if (pane) pane.render(state);
  if (state.version === shownVersion) return;
  shownVersion = state.version;
  renderChannels();
  if (current !== 'home' && !pane) renderConversation();
}

function show(where) {
  current = where;
  const home = where === 'home';
  const pane = paneOf(where);
  document.getElementById('conversation').hidden = home || Boolean(pane);
  document.getElementById('home').hidden = !home;
  document.getElementById('composer-form').hidden = home || Boolean(pane);
  for (const p of panes()) p.section.hidden = p !== pane;
  shownVersion = -1;
  shownHome = '';
  if (home) post('/api/home', {});
  pane?.opened();
  render();
}

let polling = false;
async function poll() {
  if (polling) return;
  polling = true;
  try {
    state = await (await fetch('/api/state')).json();
    render();
  } catch {
    // the demo stopped; try again on the next tick
  } finally {
    polling = false;
  }
}

document.getElementById('composer-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = document.getElementById('composer');
  const text = input.value.trim();
  if (text === '') return;
  input.value = '';
  post('/api/say', { channel: current, text });
});
document.getElementById('home-tab').addEventListener('click', () => show('home'));
document.getElementById('locale').addEventListener('change', (event) => {
  renderChrome();
  shownVersion = -1;
  shownModal = '';
  shownHome = '';
  post('/api/language', { locale: event.target.value });
});
document.getElementById('global-shortcut').addEventListener('click', () => {
  post('/api/shortcut', { callbackId: 'platdesk.shortcut.global' });
});
for (const sample of SAMPLES) {
  const li = el('li');
  const b = el('button', '', sample);
  b.type = 'button';
  b.addEventListener('click', () => {
    if (current === 'home' || paneOf(current)) show(SUPPORT);
    const input = document.getElementById('composer');
    input.value = sample;
    input.focus();
  });
  li.append(b);
  document.getElementById('samples').append(li);
}
renderChrome();
setInterval(poll, 500);
poll();
