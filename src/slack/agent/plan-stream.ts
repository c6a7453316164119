/**
 * The Slack side of a confirmed plan's run (issue 36): its streamed reply (task cards, then the
 * closing summary), its status, and its answers in the thread — kept off the money path. Every
 * call goes through a client of its own with a deadline and no automatic retry (the app's client
 * retries a 5xx or a cut connection, which would append a chunk or post an answer twice, and has
 * no deadline, so a Slack that never answers would hold the plan and its claims), and nothing
 * Slack answers, or fails to, stops a step or its ledger rows.
 *
 * What Slack did not confirm is said, never guessed: after an update of the stream that failed or
 * whose outcome is unclear (a deadline passed, a 5xx, a connection cut after Slack may have taken
 * it) no more cards are sent, and the summary lists every step as the store and the ledger hold it;
 * a summary whose stop was not confirmed is looked for in the thread before it is posted again;
 * answers not confirmed are counted and the summary says they may be missing.
 */
import type { AnyChunk } from '@slack/types';
import { LogLevel, type WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { ACTIONS } from '../../blocks/action-ids.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { clientLike } from '../clients.js';
import { isPrivate } from './agent-deps.js';

/** How long one Slack call of a plan's run may take before its outcome is taken as unclear. */
export const AGENT_SLACK_TIMEOUT_MS = 10_000;

export interface PlanStreamTarget {
  channelId: string;
  threadTs: string;
  userId: string;
  teamId: string | null;
}

export interface PlanStream {
  /** Task cards; after an update Slack did not confirm, nothing more is streamed. */
  append(chunks: AnyChunk[]): Promise<void>;
  /** The thread's status ('' clears it); a courtesy, never an error. */
  status(text: string): Promise<void>;
  /**
   * An answer in the thread; `personal` in a channel: only the person sees it. False when Slack
   * did not confirm it (it may be missing).
   */
  post(rendered: RenderedMessage, personal: boolean): Promise<boolean>;
  /** Closes the reply with the summary: stopped into the stream, or posted when that cannot be confirmed. */
  finish(summary: RenderedMessage): Promise<void>;
  /** Whether an update of the stream was not confirmed (its cards may not show every step's end). */
  readonly unclear: boolean;
}

/** The summary carries the feedback buttons: found on the stream's message, the stop landed. */
function holdsSummary(message: Record<string, unknown> | undefined): boolean {
  return JSON.stringify(message?.blocks ?? []).includes(`"${ACTIONS.agentFeedback}"`);
}

export function createPlanStream(
  appClient: WebClient,
  target: PlanStreamTarget,
  deps: { logger: Pick<Logger, 'warn' | 'error'>; timeoutMs?: number },
): PlanStream {
  const client = clientLike(appClient, {
    slackApiUrl: appClient.slackApiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: deps.timeoutMs ?? AGENT_SLACK_TIMEOUT_MS,
    // Outcomes are logged here (pino); the client's own console lines would be noise.
    logLevel: LogLevel.ERROR,
  });
  const { channelId, threadTs, userId } = target;
  const stream = client.chatStream({
    channel: channelId,
    thread_ts: threadTs,
    // The plan's steps together, ticking from pending to done (Slack's plan display).
    task_display_mode: 'plan',
    recipient_user_id: userId,
    ...(target.teamId ? { recipient_team_id: target.teamId } : {}),
  });
  let unclear = false;
  let stopped = false;

  async function post(rendered: RenderedMessage, personal: boolean): Promise<boolean> {
    try {
      if (personal && !isPrivate(channelId))
        await client.chat.postEphemeral({
          channel: channelId,
          user: userId,
          thread_ts: threadTs,
          text: rendered.text,
          blocks: rendered.blocks,
        });
      else
        await client.chat.postMessage({
          channel: channelId,
          thread_ts: threadTs,
          text: rendered.text,
          blocks: rendered.blocks,
        });
      return true;
    } catch (err) {
      // Charged and in the ledger either way; the summary says an answer may be missing.
      deps.logger.warn({ err, channelId }, 'agent answer not confirmed by Slack');
      return false;
    }
  }

  /** Whether the stream's message already holds the summary (a stop Slack took without saying so). */
  async function summaryLanded(ts: string): Promise<boolean> {
    try {
      const read = await client.conversations.replies({ channel: channelId, ts, limit: 200 });
      return holdsSummary(read.messages?.find((m) => m.ts === ts) as Record<string, unknown> | undefined);
    } catch (err) {
      deps.logger.warn({ err, channelId }, 'agent reply not read back');
      return false;
    }
  }

  return {
    get unclear() {
      return unclear;
    },
    async append(chunks) {
      if (unclear || stopped) return;
      try {
        await stream.append({ chunks });
      } catch (err) {
        unclear = true;
        deps.logger.warn({ err, channelId }, 'agent stream update not confirmed by Slack: no more cards');
      }
    },
    async status(text) {
      try {
        await client.assistant.threads.setStatus({
          channel_id: channelId,
          thread_ts: threadTs,
          status: text,
        });
      } catch (err) {
        deps.logger.warn({ err }, 'agent status not set');
      }
    },
    post,
    async finish(summary) {
      if (stopped) return;
      stopped = true;
      try {
        if (!unclear) {
          await stream.stop({ blocks: summary.blocks });
          return;
        }
        // A stream left unclear may still be open: stopped with the summary if Slack takes it.
        if (stream.ts) {
          await client.chat.stopStream({ channel: channelId, ts: stream.ts, blocks: summary.blocks });
          return;
        }
      } catch (err) {
        deps.logger.warn({ err, channelId }, 'agent summary not confirmed by Slack');
        const ts = stream.ts;
        if (ts && (await summaryLanded(ts))) return;
      }
      // No stream to stop, or its stop not confirmed and not found: the summary as a message.
      if (!(await post(summary, false)))
        deps.logger.error({ channelId }, 'agent summary not delivered: the ledger holds what was charged');
    },
  };
}
