// The demo page: polls /api/state and renders, from the Block Kit the app sent, #support, the DM,
// the App Home and the open modal. Every text goes through textContent (never innerHTML), so
// nothing the app or the plat API wrote can become markup.

const SUPPORT = 'C1234';
const DM = 'D1234';
const USERS = [
  { id: 'U1234', name: 'agent (you)' },
  { id: 'U5678', name: 'agent2' },
  { id: 'UADMIN', name: 'admin' },
];
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

let current = SUPPORT;
let state = { version: -1, channels: [], messages: [], modals: [], home: null, sandboxCalls: 0 };
let shownVersion = -1;
let shownModal = '';
let shownHome = '';

// ---------------------------------------------------------------------------------------------
// DOM helpers

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The emoji shortcodes platdesk writes; any other :name: stays as typed.
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
};
const emoji = (s) => s.replace(/:([a-z0-9_+-]+):/g, (all, name) => EMOJI[name] ?? all);
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
  const url = decode(target);
  const a = el('a', '', label ? decode(label) : url);
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
    if (m[1] !== undefined) parent.append(el('pre', '', decode(m[1].replace(/^\n/, ''))));
    else if (m[2] !== undefined) parent.append(el('code', '', decode(m[2])));
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
  return el('span', 'unknown', `[${element.type}]`);
}

function imageOf(element, className) {
  const img = el('img', className);
  img.src = element.image_url ?? '';
  img.alt = element.alt_text ?? '';
  // Sandbox images point nowhere: show the alt text instead of a broken image.
  img.addEventListener('error', () => img.replaceWith(el('span', 'unknown', `[${img.alt || 'image'}]`)));
  return img;
}

// ---------------------------------------------------------------------------------------------
// Blocks

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
      for (const e of b.elements ?? []) node.append(e.type === 'image' ? imageOf(e) : textObject(e));
      break;
    case 'image':
      if (b.title) node.append(el('div', '', plain(b.title)));
      node.append(imageOf(b, 'image'));
      break;
    case 'actions':
      for (const e of b.elements ?? []) node.append(interactive(e, blockId, where));
      break;
    case 'input':
      node.append(inputBlock(b, view));
      break;
    default:
      node.append(el('span', 'unknown', `[${b.type} block]`));
  }
  return node;
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
// Input blocks (modals) and their state, in Slack's view.state.values shape

function inputBlock(b, view) {
  const box = el('div', 'input');
  const e = b.element ?? {};
  box.dataset.blockId = b.block_id ?? '';
  box.dataset.actionId = e.action_id ?? '';
  box.dataset.type = e.type ?? '';
  box.append(el('span', 'label', plain(b.label) + (b.optional ? ' (optional)' : '')));
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
      control = el('span', 'unknown', `[${e.type}]`);
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
// Conversations, Home, modal

function messageNode(m) {
  const node = el('div', `msg${m.ephemeral ? ' ephemeral' : ''}${m.command ? ' command' : ''}`);
  node.dataset.ts = m.ts;
  const head = el('div');
  head.append(el('span', 'who', m.author === 'you' ? 'agent (you)' : 'platdesk'));
  if (m.ephemeral && !m.command) head.append(el('span', 'meta', 'Only visible to you'));
  node.append(head);
  if (m.command) node.append(el('div', '', m.text));
  else if (m.blocks.length > 0) node.append(blocks(m.blocks, { channel: m.channel, ts: m.ts }));
  else node.append(mrkdwn(m.text, el('div')));
  for (const u of m.unfurls) {
    const box = el('div', 'unfurl');
    box.append(blocks(u.blocks, { channel: m.channel, ts: m.ts }));
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
      thread.append(el('div', 'meta', `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`));
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
  document.getElementById('title').textContent =
    current === 'home'
      ? 'platdesk · Home'
      : current === DM
        ? 'platdesk (direct message)'
        : channelName(current);
}

function renderHome() {
  const box = document.getElementById('home');
  const key = JSON.stringify(state.home);
  if (key === shownHome) return;
  shownHome = key;
  box.replaceChildren();
  if (!state.home) {
    box.append(el('p', 'meta', 'Opening the App Home…'));
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
  const close = el('button', 'el', plain(v.close) || 'Close');
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

function render() {
  document.getElementById('calls').textContent = String(state.sandboxCalls);
  renderModal();
  if (current === 'home') renderHome();
  if (state.version === shownVersion) return;
  shownVersion = state.version;
  renderChannels();
  if (current !== 'home') renderConversation();
}

function show(where) {
  current = where;
  const home = where === 'home';
  document.getElementById('conversation').hidden = home;
  document.getElementById('home').hidden = !home;
  document.getElementById('composer-form').hidden = home;
  shownVersion = -1;
  shownHome = '';
  if (home) post('/api/home', {});
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
    if (current === 'home') show(SUPPORT);
    const input = document.getElementById('composer');
    input.value = sample;
    input.focus();
  });
  li.append(b);
  document.getElementById('samples').append(li);
}
setInterval(poll, 500);
poll();
