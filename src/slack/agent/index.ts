/**
 * The agent's Slack surfaces (issue 36), thin as Slack's support-agent sample keeps them:
 * - the Messages tab (Bolt's Assistant): a new thread gets suggested prompts in the person's
 *   language; a message in it is a question;
 * - a direct message outside an assistant thread, and a mention in a channel: a question too,
 *   answered in its thread;
 * - the plan's Confirm, Cancel and feedback buttons (plan-clicks.ts).
 * Messages from bots (platdesk's own included) are never answered; an edit is told that only new
 * messages are read; a deletion needs no answer. All end in answer-question.ts, which charges nothing.
 */
import { type App, Assistant, type SayStreamFn, type SetStatusFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { renderAgentNotice, suggestedPrompts } from '../../blocks/agent.js';
import type { SlackDeps } from '../deps.js';
import { answerQuestion } from './answer-question.js';
import { registerPlanClicks } from './plan-clicks.js';

type Json = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** A person's new message, or null (a bot's, a subtype, no user). */
function personMessage(
  event: Json,
): { text: string; user: string; ts: string; threadTs: string | null } | null {
  if (event.bot_id !== undefined || event.subtype !== undefined) return null;
  const user = str(event.user);
  const ts = str(event.ts);
  if (!user || !ts) return null;
  return { text: typeof event.text === 'string' ? event.text : '', user, ts, threadTs: str(event.thread_ts) };
}

/** A mention's text without the mentions of platdesk (the question is what is left). */
const withoutMentions = (text: string, botUserId: string | undefined): string =>
  botUserId ? text.replaceAll(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g'), ' ') : text;

async function ask(
  deps: SlackDeps,
  client: WebClient,
  input: {
    event: Json;
    teamId: string | null;
    channelId: string;
    text: string;
    sayStream: SayStreamFn | undefined;
    setStatus: SetStatusFn | undefined;
  },
): Promise<void> {
  const m = personMessage(input.event);
  if (!m || !input.sayStream) return;
  await answerQuestion(deps, client, {
    text: input.text,
    userId: m.user,
    teamId: input.teamId,
    channelId: input.channelId,
    threadTs: m.threadTs ?? m.ts,
    messageTs: m.ts,
    sayStream: input.sayStream,
    setStatus: input.setStatus ?? null,
  });
}

export function registerAgent(app: App, deps: SlackDeps): void {
  app.assistant(
    new Assistant({
      threadStarted: async ({ event, setSuggestedPrompts }) => {
        const w = await deps.language.user(event.assistant_thread.user_id);
        await setSuggestedPrompts(suggestedPrompts(w));
      },
      // The channel the person is viewing is not used: platdesk's answers do not depend on it.
      threadContextChanged: async () => {},
      userMessage: async ({ event, body, client, sayStream, setStatus }) => {
        const e = event as unknown as Json;
        await ask(deps, client, {
          event: e,
          teamId: body.team_id ?? null,
          channelId: String(e.channel),
          text: typeof e.text === 'string' ? e.text : '',
          sayStream,
          setStatus,
        });
      },
    }),
  );

  // Direct messages outside an assistant thread (the Assistant took those), and edits there.
  app.event('message', async ({ event, body, client, context, sayStream, setStatus }) => {
    const e = event as unknown as Json;
    if (e.channel_type !== 'im') return;
    const channelId = String(e.channel);
    if (e.subtype === 'message_changed') {
      // An edit by the person (Slack also sends message_changed when it adds a link preview, or
      // for platdesk's own streamed replies: those carry no `edited`, or are a bot's).
      const edited = (e.message ?? {}) as Json;
      if (edited.edited === undefined || edited.bot_id !== undefined || edited.user === context.botUserId)
        return;
      const ts = str(edited.ts);
      if (!ts) return;
      const w = await deps.language.user(String(edited.user));
      const notice = renderAgentNotice(w, { kind: 'edited' });
      await client.chat.postMessage({
        channel: channelId,
        thread_ts: str(edited.thread_ts) ?? ts,
        text: notice.text,
        blocks: notice.blocks,
      });
      return;
    }
    await ask(deps, client, {
      event: e,
      teamId: body.team_id ?? null,
      channelId,
      text: typeof e.text === 'string' ? e.text : '',
      sayStream,
      setStatus,
    });
  });

  app.event('app_mention', async ({ event, body, client, context, sayStream, setStatus }) => {
    const e = event as unknown as Json;
    await ask(deps, client, {
      event: e,
      teamId: body.team_id ?? null,
      channelId: String(e.channel),
      text: withoutMentions(typeof e.text === 'string' ? e.text : '', context.botUserId),
      sayStream,
      setStatus,
    });
  });

  registerPlanClicks(app, deps);
}
