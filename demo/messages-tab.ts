/**
 * The demo's Messages tab (issue 36): platdesk's agent view, as Slack shows an app with
 * `agent_view`. Opening it sends what Slack sends when a person opens the tab and starts a chat
 * (`app_home_opened` with `tab: "messages"`, then `assistant_thread_started` for a new thread);
 * what the app sets for that thread through the Web API (suggested prompts, its status while it
 * plans and while the plat service answers, a title) is kept here as Slack keeps it; a question
 * typed there, or a suggested prompt clicked, is a person's message in that thread (a `message`
 * event, `channel_type: "im"`, with the thread's ts), which the app answers with its streamed,
 * priced plan. The thread's messages themselves (the person's, the app's streams and answers) are
 * the world's, like every other message of the DM. Its own module, beside the page's other panels.
 */
import { randomUUID } from 'node:crypto';
import type { FakeSlack, SlackCall } from '../test/helpers/slack-api-server.js';
import { postEvent } from '../test/helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK } from '../test/helpers/slack-payloads.js';
import { DM, type World } from './world.js';

type Json = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface MessagesTabState {
  /** Bumped on every change the page must draw. */
  version: number;
  /** The open assistant thread (null: the tab was not opened yet). */
  threadTs: string | null;
  /** assistant.threads.setTitle, or the title given with the suggested prompts. */
  title: string;
  /** assistant.threads.setSuggestedPrompts: at most four, each a title and the message it sends. */
  prompts: { title: string; message: string }[];
  /** assistant.threads.setStatus ('' when cleared): "platdesk is planning…". */
  status: string;
}

export interface MessagesTab {
  state(): MessagesTabState;
  /** The page's calls: `/api/messages/open` and `/api/messages/ask`; null for any other path. */
  route(path: string, body: Json): Promise<{ status: number } | null>;
}

export function createMessagesTab(
  fake: FakeSlack,
  world: World,
  eventsUrl: string,
  signingSecret: string,
): MessagesTab {
  const tab: MessagesTabState = { version: 0, threadTs: null, title: '', prompts: [], status: '' };
  const changed = () => {
    tab.version += 1;
  };
  const ofThisThread = (call: SlackCall) =>
    str(call.body.channel_id) === DM && str(call.body.thread_ts) === tab.threadTs;

  // What the app sets for the thread, answered as Slack answers (the fake's default).
  fake.setResponse('assistant.threads.setSuggestedPrompts', (call) => {
    const answer = fake.defaultAnswer(call);
    if (answer.ok !== false && ofThisThread(call)) {
      const prompts = Array.isArray(call.body.prompts) ? (call.body.prompts as Json[]) : [];
      tab.prompts = prompts.map((p) => ({ title: str(p.title), message: str(p.message) }));
      if (str(call.body.title) !== '') tab.title = str(call.body.title);
      changed();
    }
    return answer;
  });
  fake.setResponse('assistant.threads.setStatus', (call) => {
    const answer = fake.defaultAnswer(call);
    if (answer.ok !== false && ofThisThread(call)) {
      tab.status = str(call.body.status);
      changed();
    }
    return answer;
  });
  fake.setResponse('assistant.threads.setTitle', (call) => {
    const answer = fake.defaultAnswer(call);
    if (answer.ok !== false && ofThisThread(call)) {
      tab.title = str(call.body.title);
      changed();
    }
    return answer;
  });

  const send = (event: Json & { type: string }) =>
    postEvent(eventsUrl, signingSecret, eventCallback(event, { eventId: `Ev${randomUUID()}` }));

  async function open(): Promise<number> {
    const opened = await send(appHomeOpened(SLACK.userId, 'messages') as unknown as Json & { type: string });
    if (tab.threadTs) return opened.status;
    // A new chat: Slack makes the thread and tells the app, which sets its suggested prompts.
    tab.threadTs = `${Math.floor(Date.now() / 1000)}.${String(800_000 + tab.version).padStart(6, '0')}`;
    changed();
    const ts = `${Math.floor(Date.now() / 1000)}.000700`;
    const started = await send({
      type: 'assistant_thread_started',
      assistant_thread: { user_id: SLACK.userId, channel_id: DM, thread_ts: tab.threadTs, context: {} },
      event_ts: ts,
    });
    return started.status;
  }

  async function ask(text: string): Promise<number> {
    if (!tab.threadTs) await open();
    const threadTs = tab.threadTs as string;
    const ts = world.addUserMessage(DM, text, { threadTs });
    const sent = await send({
      type: 'message',
      channel: DM,
      channel_type: 'im',
      user: SLACK.userId,
      text,
      ts,
      event_ts: ts,
      thread_ts: threadTs,
    });
    return sent.status;
  }

  return {
    state: () => ({ ...tab, prompts: [...tab.prompts] }),
    async route(path, body) {
      if (path === '/api/messages/open') return { status: await open() };
      if (path === '/api/messages/ask') {
        const text = str(body.text).trim();
        if (text === '') return { status: 400 };
        return { status: await ask(text) };
      }
      return null;
    },
  };
}
