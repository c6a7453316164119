// The AI-client panel of the demo page (issue 37; server side: mcp-panel.ts). Beside the DM with
// platdesk it shows what an AI client sees when it calls platdesk's MCP tools: its request, the
// progress while the token's owner has not clicked, then the structured result or the tool
// error. The DM on the left is the page's own conversation view (page.js), drawn from what the
// app sent: the charge, Confirm and Deny. Every text goes through textContent; a state this panel
// does not know is reported through page.js's `unknown` (window.demoUnknown: the browser test
// fails on it). Its own module: it adds its tab, panel and stylesheet to the page itself.
(() => {
  const WORDS = {
    en: {
      tab: '🤖 AI client (MCP)',
      title: '🤖 AI client (MCP)',
      intro:
        'An MCP client (the official SDK’s, as Claude or Cursor use it) calls platdesk’s tools at /mcp. Each paid call waits for your Confirm in the DM on the left; its result appears here.',
      connect: 'Connect the AI client',
      connectNote:
        'Types /platdesk mcp token in your DM with platdesk: the answer, shown only to you, holds the token the client uses.',
      connecting: 'Connecting…',
      connected: 'Connected as {client}. Call a tool:',
      noCalls: 'No tool calls yet.',
      request: 'tools/call',
      waiting: '⏳ Waiting for your Confirm in Slack (the DM on the left)…',
      done: '✅ Result',
      error: '⛔ Tool error',
      structured: 'Structured content',
      close: 'Close',
    },
    'zh-CN': {
      tab: '🤖 AI 客户端（MCP）',
      title: '🤖 AI 客户端（MCP）',
      intro:
        'MCP 客户端（官方 SDK，与 Claude、Cursor 所用相同）调用 platdesk 在 /mcp 提供的工具。每次收费调用都会等你在左边的私信里确认；结果显示在这里。',
      connect: '连接 AI 客户端',
      connectNote:
        '会在你和 platdesk 的私信里输入 /platdesk mcp token：只有你能看到的答复里有客户端使用的令牌。',
      connecting: '正在连接…',
      connected: '已作为 {client} 连接。调用一个工具：',
      noCalls: '还没有工具调用。',
      request: 'tools/call',
      waiting: '⏳ 正在等你在 Slack 中确认（左边的私信）…',
      done: '✅ 结果',
      error: '⛔ 工具错误',
      structured: '结构化内容',
      close: '关闭',
    },
  };
  const words = (key) => (WORDS[document.getElementById('locale')?.value] ?? WORDS.en)[key];

  // What the panel offers to call: the sandbox's sample ids (docs/sandbox.md).
  const SAMPLES = [
    { tool: 'item_prices', arguments: { item: '680001234501' } },
    {
      tool: 'lookup_waybill',
      arguments: { waybills: '773012345678901', owner_id: '2200001001', carrier: 'ZTO' },
    },
    { tool: 'orders_page', arguments: { shop: '2200001001', size: 5 } },
    { tool: 'spend', arguments: { period: 'today' } },
  ];
  const STATES = ['waiting', 'done', 'error'];

  let panelState = { version: -1, connected: false, problem: null, client: '', tools: [], calls: [] };
  let drawn = '';
  let connecting = false;

  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = '/mcp-page.css';
  document.head.append(link);

  const tab = el('button', 'nav', '');
  tab.type = 'button';
  tab.id = 'mcp-tab';
  document.getElementById('home-tab').after(tab);

  const box = document.createElement('aside');
  box.id = 'mcp-client';
  box.hidden = true;
  document.querySelector('main').after(box);

  function argsText(args) {
    return Object.entries(args)
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ');
  }

  function callNode(c) {
    const item = el('li', `mcp-call ${c.state}`);
    item.dataset.callId = String(c.id);
    item.dataset.tool = c.tool;
    const request = el('div', 'mcp-request');
    request.append(
      el('code', '', `${words('request')} ${c.tool}`),
      el('span', 'mcp-args', argsText(c.arguments)),
    );
    item.append(request);
    if (!STATES.includes(c.state)) {
      item.append(unknown(`mcp call state ${c.state}`));
      return item;
    }
    item.append(el('div', 'mcp-status', words(c.state)));
    if (c.progress.length > 0) {
      const list = el('ul', 'mcp-progress');
      for (const p of c.progress) list.append(el('li', '', p));
      item.append(list);
    }
    if (c.state !== 'waiting') {
      item.append(el('div', 'mcp-text', c.text));
      if (c.structured) {
        const details = el('details', 'mcp-structured');
        details.open = true;
        details.append(
          el('summary', '', words('structured')),
          el('pre', '', JSON.stringify(c.structured, null, 2)),
        );
        item.append(details);
      }
    }
    return item;
  }

  function draw() {
    tab.textContent = words('tab');
    const key = `${panelState.version}|${document.getElementById('locale')?.value}|${connecting}|${box.hidden}`;
    if (key === drawn) return;
    drawn = key;
    box.replaceChildren();
    if (box.hidden) return;
    const head = el('div', 'panel-head');
    const close = el('button', 'el', '✕');
    close.type = 'button';
    close.setAttribute('aria-label', words('close'));
    close.addEventListener('click', () => {
      box.hidden = true;
      tab.classList.remove('active');
      draw();
    });
    head.append(el('h2', '', words('title')), close);
    box.append(head, el('p', 'mcp-intro', words('intro')));

    if (!panelState.connected) {
      const connect = el(
        'button',
        'el primary mcp-connect',
        connecting ? words('connecting') : words('connect'),
      );
      connect.type = 'button';
      connect.disabled = connecting;
      connect.addEventListener('click', async () => {
        connecting = true;
        draw();
        try {
          panelState = await post('/api/mcp/connect', {});
        } finally {
          connecting = false;
          draw();
        }
      });
      box.append(connect, el('p', 'meta', words('connectNote')));
      if (panelState.problem) box.append(el('p', 'panel-error', panelState.problem));
      return;
    }

    box.append(el('p', 'mcp-connected', words('connected').replace('{client}', panelState.client)));
    const tools = el('div', 'mcp-tools');
    for (const sample of SAMPLES) {
      if (!panelState.tools.includes(sample.tool)) {
        tools.append(unknown(`mcp tool ${sample.tool}`));
        continue;
      }
      const b = el('button', 'el mcp-tool');
      b.type = 'button';
      b.dataset.tool = sample.tool;
      b.append(el('code', '', sample.tool), el('span', 'mcp-args', argsText(sample.arguments)));
      b.addEventListener('click', () => post('/api/mcp/call', sample));
      tools.append(b);
    }
    box.append(tools);
    const calls = el('ol', 'mcp-calls');
    // The newest call first: it is the one waiting for a click.
    for (const c of [...panelState.calls].reverse()) calls.append(callNode(c));
    box.append(panelState.calls.length > 0 ? calls : el('p', 'meta', words('noCalls')));
  }

  let polling = false;
  async function pollPanel() {
    if (box.hidden || polling) return;
    polling = true;
    try {
      panelState = await (await fetch('/api/mcp')).json();
      draw();
    } catch {
      // the demo stopped; try again on the next tick
    } finally {
      polling = false;
    }
  }

  tab.addEventListener('click', () => {
    box.hidden = false;
    tab.classList.add('active');
    // The other half: the DM with platdesk, where the Confirm arrives.
    show(DM);
    draw();
    pollPanel();
  });
  document.getElementById('locale').addEventListener('change', draw);
  setInterval(pollPanel, 500);
  draw();
})();
