// The Messages tab (demo/messages-tab.ts, its server side): platdesk's agent view, as Slack shows an app with
// agent_view. Opening it starts a chat; the app's suggested prompts are buttons; the chat is the
// assistant thread of the DM, drawn by page.js's messageNode (streamed replies with their task
// cards, the plan with its Confirm, answers, feedback buttons); the app's status shows while it
// plans and while the plat service answers. A question typed here, or a prompt clicked, goes into
// that thread. A pane of page.js (window.demoPanes): it is drawn only while its tab is shown.

(() => {
  const WORDS = {
    en: {
      tab: '💬 Messages',
      title: 'platdesk · Messages',
      placeholder:
        'Ask platdesk in plain words, e.g. Which orders of 2200001004 must ship in the next 6 hours?',
      send: 'Send',
      opening: 'Opening a new chat…',
    },
    'zh-CN': {
      tab: '💬 消息',
      title: 'platdesk · 消息',
      placeholder: '直接问 platdesk，例如：2200001004 六小时内要发的单有哪些？',
      send: '发送',
      opening: '正在打开新对话…',
    },
  };
  const words = (key) => (WORDS[document.getElementById('locale')?.value] ?? WORDS.en)[key];

  const button = el('button', 'nav', words('tab'));
  button.type = 'button';
  button.id = 'messages-tab-button';
  document.getElementById('home-tab').after(button);

  const section = el('section');
  section.id = 'messages-tab';
  section.hidden = true;
  const prompts = el('div', 'prompts');
  prompts.id = 'messages-prompts';
  const thread = el('div', 'messages-thread');
  thread.id = 'messages-thread';
  const status = el('div', 'meta typing');
  status.id = 'messages-status';
  const form = el('form');
  form.id = 'messages-form';
  const input = el('input');
  input.id = 'messages-input';
  input.autocomplete = 'off';
  const send = el('button', '', words('send'));
  send.type = 'submit';
  form.append(input, send);
  section.append(prompts, thread, status, form);
  document.querySelector('main').insertBefore(section, document.getElementById('composer-form'));

  const ask = (text) => post('/api/messages/ask', { text });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text === '') return;
    input.value = '';
    ask(text);
  });

  let shown = '';
  const pane = {
    id: 'messages',
    button,
    section,
    title: () => words('title'),
    chrome() {
      button.textContent = words('tab');
      input.placeholder = words('placeholder');
      send.textContent = words('send');
      shown = '';
    },
    opened() {
      post('/api/messages/open', {});
    },
    render(s) {
      const tab = s.messagesTab ?? { threadTs: null, title: '', prompts: [], status: '' };
      const mine = s.messages.filter((m) => m.channel === DM && tab.threadTs && m.threadTs === tab.threadTs);
      const key = JSON.stringify([tab, mine]);
      if (key === shown) return;
      shown = key;
      const stick = thread.scrollTop + thread.clientHeight >= thread.scrollHeight - 40;
      prompts.replaceChildren();
      if (!tab.threadTs) prompts.append(el('p', 'meta', words('opening')));
      if (tab.prompts.length > 0) {
        if (tab.title) prompts.append(el('div', 'prompts-title', tab.title));
        tab.prompts.forEach((p, i) => {
          const b = el('button', 'prompt', p.title);
          b.type = 'button';
          b.title = p.message;
          b.dataset.prompt = String(i);
          b.addEventListener('click', () => ask(p.message));
          prompts.append(b);
        });
      }
      thread.replaceChildren(...mine.map((m) => messageNode(m)));
      // Slack shows the app's status under the chat while it works: "platdesk is planning…".
      status.textContent = tab.status ? `platdesk ${tab.status}` : '';
      status.hidden = !tab.status;
      if (stick) thread.scrollTop = thread.scrollHeight;
    },
  };
  window.demoPanes = [...(window.demoPanes ?? []), pane];
  pane.chrome();
  button.addEventListener('click', () => show('messages'));
})();
