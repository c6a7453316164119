/**
 * What the digest and alert publishers both do on Slack's Web API: post a rendered message to a
 * channel (link previews off, its ts back); post a digest or alert once, keyed in its message
 * metadata, and find that key in the channel's history (digest/posted-once.ts); and send one
 * message to each admin in the admin's own language, where one admin's failure is logged and
 * never stops the others.
 */
import { LogLevel, type MessageMetadata, type WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Words } from '../blocks/i18n/words.js';
import type { RenderedMessage } from '../blocks/kit.js';
import {
  HistoryDeferredError,
  HistoryUnreadableError,
  type PostFence,
  type PostKey,
  PostOutcomeUnknownError,
  PostRefusedError,
} from '../digest/posted-once.js';
import { clientLike } from './clients.js';
import type { LocaleResolver } from './locale-resolver.js';
import { LIMITED_READ_PAGE_SIZE, type ReadMethod, type SlackReadBudget } from './read-budget.js';
import { FenceRefusedError, fencedSlackFetch } from './web-fetch.js';

/** Posts to a channel (or a DM by user id), or in the thread of `threadTs`, and returns the message's ts. */
export async function postMessage(
  client: WebClient,
  channel: string,
  m: RenderedMessage,
  metadata?: MessageMetadata,
  threadTs?: string,
): Promise<string> {
  const posted = await client.chat.postMessage({
    channel,
    text: m.text,
    blocks: m.blocks,
    unfurl_links: false,
    unfurl_media: false,
    ...(metadata ? { metadata } : {}),
    ...(threadTs ? { thread_ts: threadTs } : {}),
  });
  if (!posted.ts) throw new Error('chat.postMessage answered without a ts');
  return posted.ts;
}

/** Past this, a keyed post's outcome is unknown (and its key is looked for in the history). */
export const KEYED_POST_TIMEOUT_MS = 20_000;

/**
 * How keyed posts read a channel's history (issue 33 finding 10): the messages a request asks for,
 * the requests one history check may make in all (a window holding more cannot tell), and the
 * workspace's shared allowance of requests (read-budget.ts; null: Slack's normal tier, none kept).
 */
export interface HistoryReads {
  pageSize: number;
  maxPages: number;
  budget: SlackReadBudget | null;
}

/** Slack's normal tier (internal and Marketplace apps): pages of 200, ten at most. */
export const NORMAL_READS: HistoryReads = { pageSize: 200, maxPages: 10, budget: null };

/**
 * A commercially distributed app not approved for the Marketplace: 15 messages a request, one
 * request a minute per workspace and method (read-budget.ts). Eight requests (120 messages around
 * the post, over eight minutes at least) is as far as one check goes before it asks the admins.
 */
export function limitedReads(budget: SlackReadBudget): HistoryReads {
  return { pageSize: LIMITED_READ_PAGE_SIZE, maxPages: 8, budget };
}

/** The metadata a keyed post carries (https://docs.slack.dev/messaging/message-metadata). */
export const metadataOf = (key: PostKey): MessageMetadata => ({
  event_type: key.eventType,
  event_payload: { key: key.key },
});

/**
 * Slack's `ok: false` answers that say the call may have partly succeeded
 * (https://docs.slack.dev/reference/methods/chat.postMessage, "Errors"): not a sure refusal.
 */
const MAYBE_DONE = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/**
 * Whether Slack surely did not accept the message: it answered `ok: false` with a definite error,
 * it rate-limited the call (refused before any work), or no connection was made. Anything else
 * (a timeout, a 5xx, a connection cut after the request went out) leaves the outcome unknown.
 */
export function surelyRefused(error: unknown): boolean {
  const e = error as {
    code?: unknown;
    data?: { error?: unknown };
    original?: { cause?: { code?: unknown } };
  };
  switch (e?.code) {
    case 'slack_webapi_platform_error':
      return !MAYBE_DONE.has(String(e.data?.error));
    case 'slack_webapi_rate_limited_error':
      return true;
    case 'slack_webapi_request_error':
      return e.original?.cause?.code === 'ECONNREFUSED';
    default:
      return false;
  }
}

/** The error of a keyed post or update Slack answered: a sure refusal, or an unknown outcome. */
export function postFailure(error: unknown, what: string): Error {
  if (surelyRefused(error)) return new PostRefusedError({ cause: error });
  return new PostOutcomeUnknownError(`Slack's answer to ${what} was unclear: ${String(error)}`, {
    cause: error,
  });
}

export interface KeyedPosts {
  /**
   * Posts a message carrying `key` once, with no automatic retry: a sure refusal rejects with
   * PostRefusedError, an unclear outcome with PostOutcomeUnknownError. With a fence, it is checked
   * right before the request is sent, and its signal ends the request (issue 33 finding 5).
   */
  post(channel: string, m: RenderedMessage, key: PostKey, fence?: PostFence): Promise<string>;
  /**
   * Posts a message without a key once, as `post` does: no automatic retry (a retry after an
   * unclear outcome would post it twice), the same timeout and the same errors. "Run now"'s
   * progress message: the run goes on without it when its outcome is unclear.
   */
  postOnce(channel: string, m: RenderedMessage): Promise<string>;
  /** As `post`, as a reply in the thread of `threadTs` (never broadcast to the channel). */
  reply(
    channel: string,
    threadTs: string,
    m: RenderedMessage,
    key: PostKey,
    fence?: PostFence,
  ): Promise<string>;
  /**
   * The keys (`event_payload.key`) of `eventType` the replies in the thread of `threadTs` carry;
   * HistoryUnreadableError when the thread cannot be read whole, HistoryDeferredError when the
   * rate limit puts the rest off (`progress`, given back, goes on from there).
   */
  threadKeys(
    channel: string,
    threadTs: string,
    eventType: PostKey['eventType'],
    progress?: string | null,
  ): Promise<Set<string>>;
  /**
   * The message carrying `key` in the channel's history between `key.since` and `key.until`, or
   * null when surely absent; HistoryUnreadableError when the window cannot be read whole,
   * HistoryDeferredError when the rate limit puts the rest off (`progress` goes on from there).
   */
  find(channel: string, key: PostKey, progress?: string | null): Promise<KeyedMessage | null>;
}

export interface KeyedMessage {
  ts: string;
  /** Replies in its thread, as the history counts them. */
  replyCount: number;
}

interface HistoryMessage {
  ts?: string;
  reply_count?: number;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

/**
 * Where a history check stopped (a run's checkProgress): which method, the cursor of its next page,
 * the pages read so far, and for a thread its parent and the keys already seen. Opaque to the
 * layers below (they store and give it back).
 */
type Progress =
  | { m: 'history'; c: string | null; n: number }
  | { m: 'replies'; t: string; c: string | null; n: number; k: string[] };

function decodeProgress(text: string | null | undefined): Progress | null {
  if (!text) return null;
  try {
    const p = JSON.parse(text) as Progress;
    return p.m === 'history' || p.m === 'replies' ? p : null;
  } catch {
    return null;
  }
}

/** The thread a check had got to (a found threaded message whose replies are being read), if any. */
export function progressThread(progress: string | null | undefined): string | null {
  const p = decodeProgress(progress);
  return p?.m === 'replies' ? p.t : null;
}

/** Seconds Slack's 429 asked to wait (web-api's rate-limited error carries them), as ms. */
function retryAfterMs(error: unknown): number | null {
  const e = error as { code?: unknown; retryAfter?: unknown };
  if (e?.code !== 'slack_webapi_rate_limited_error') return null;
  const seconds = Number(e.retryAfter);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000;
}

/** A read that may be tried again later (no answer, a 5xx): not a refusal of the history. */
function transient(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'slack_webapi_request_error' || code === 'slack_webapi_http_error';
}

/** A transient read failure is tried again this much later (one page of the check's bound spent). */
const TRANSIENT_RETRY_MS = 60_000;
/** An allowance that could not be asked (its store or Redis unreachable) is asked again this much later. */
const ALLOWANCE_RETRY_MS = 10_000;

/**
 * Keyed posts on Slack's Web API. The posts go through a client of their own with automatic
 * retries off (the app's client retries 5xx and timeouts, which would post twice) and a timeout;
 * the history is read through one that sees a rate limit as an error (it is put off, never
 * waited for inside a check) and, under Slack's limited tier, never retries by itself (a retry is
 * another request of the minute's one).
 */
export function createKeyedPosts(deps: {
  client: WebClient;
  timeoutMs?: number;
  /** How the history is read (default Slack's normal tier). */
  reads?: HistoryReads;
}): KeyedPosts {
  const { client } = deps;
  const reads = deps.reads ?? NORMAL_READS;
  const onceOptions = {
    slackApiUrl: client.slackApiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: deps.timeoutMs ?? KEYED_POST_TIMEOUT_MS,
    // Outcomes are logged by the caller (pino); the client's own console lines would be noise.
    logLevel: LogLevel.ERROR,
  };
  // Made on first use: most workspaces' parts post nothing before they are let go (issue 39),
  // and a Web client is some 26 KB of heap and a few hundred µs to make.
  let onceClient: WebClient | null = null;
  const once = () => (onceClient ??= clientLike(client, onceOptions));
  let readerClient: WebClient | null = null;
  const reader = () =>
    (readerClient ??= clientLike(client, {
      slackApiUrl: client.slackApiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: reads.budget ? { retries: 0 } : { retries: 2, factor: 2, minTimeout: 500 },
      logLevel: LogLevel.ERROR,
    }));

  /** A DM by user id lives in the app's IM channel with that user: its history is read there. */
  async function historyChannel(channel: string): Promise<string> {
    if (!/^[UW]/.test(channel)) return channel;
    const opened = await client.conversations.open({ users: channel });
    if (!opened.channel?.id) throw new Error('conversations.open answered without a channel');
    return opened.channel.id;
  }

  async function postKeyed(
    channel: string,
    m: RenderedMessage,
    key: PostKey,
    threadTs?: string,
    fence?: PostFence,
  ) {
    // Checked before anything is built: a holder past its lease sends nothing (issue 33 finding 5).
    fence?.check();
    const sender = fence ? clientLike(client, { ...onceOptions, fetch: fencedSlackFetch(fence) }) : once();
    try {
      return await postMessage(sender, channel, m, metadataOf(key), threadTs);
    } catch (error) {
      // The fence refused at the last moment, before anything was sent: the holder stops.
      const original = (error as { original?: unknown })?.original;
      if (original instanceof FenceRefusedError) throw original.cause;
      throw postFailure(error, 'chat.postMessage');
    }
  }

  /**
   * One page of a history read, within the workspace's allowance: refused, or rate-limited by
   * Slack, the check is put off with `progress` (where it stands before this page).
   */
  async function page<T>(method: ReadMethod, progress: Progress, read: () => Promise<T>): Promise<T> {
    if (progress.n >= reads.maxPages)
      throw new HistoryUnreadableError(
        `more than ${reads.maxPages * reads.pageSize} messages to read (${reads.maxPages} requests of ${reads.pageSize})`,
        { reason: 'too_busy' },
      );
    let wait = 0;
    try {
      wait = reads.budget ? await reads.budget.take(method) : 0;
    } catch (error) {
      // The allowance cannot be asked (Redis or the store unreachable): no request, try again soon.
      throw new HistoryDeferredError(ALLOWANCE_RETRY_MS, JSON.stringify(progress), { cause: error });
    }
    if (wait > 0) throw new HistoryDeferredError(wait, JSON.stringify(progress));
    try {
      return await read();
    } catch (error) {
      const after = retryAfterMs(error);
      if (after !== null) throw new HistoryDeferredError(after, JSON.stringify(progress), { cause: error });
      // No answer or a 5xx: tried again later, the request counted against the check's bound.
      if (transient(error))
        throw new HistoryDeferredError(
          TRANSIENT_RETRY_MS,
          JSON.stringify({ ...progress, n: progress.n + 1 }),
          {
            cause: error,
          },
        );
      throw error;
    }
  }

  /** Errors of a read, as the caller sees them: deferred and unreadable as they are, anything else unreadable. */
  const asReadError = (error: unknown, what: string): Error =>
    error instanceof HistoryDeferredError || error instanceof HistoryUnreadableError
      ? error
      : new HistoryUnreadableError(`${what} could not be read: ${String(error)}`, { cause: error });

  return {
    post: (channel, m, key, fence) => postKeyed(channel, m, key, undefined, fence),
    async postOnce(channel, m) {
      try {
        return await postMessage(once(), channel, m);
      } catch (error) {
        throw postFailure(error, 'chat.postMessage');
      }
    },
    reply: (channel, threadTs, m, key, fence) => postKeyed(channel, m, key, threadTs, fence),
    async threadKeys(channel, threadTs, eventType, progressText) {
      const resumed = decodeProgress(progressText);
      let at: Extract<Progress, { m: 'replies' }> =
        resumed?.m === 'replies' && resumed.t === threadTs
          ? resumed
          : { m: 'replies', t: threadTs, c: null, n: 0, k: [] };
      try {
        const conversation = await historyChannel(channel);
        const keys = new Set(at.k);
        for (;;) {
          const cursor = at.c;
          const answer = await page('conversations.replies', at, () =>
            reader().conversations.replies({
              channel: conversation,
              ts: threadTs,
              include_all_metadata: true,
              limit: reads.pageSize,
              ...(cursor ? { cursor } : {}),
            }),
          );
          for (const m of (answer.messages ?? []) as HistoryMessage[]) {
            const key = m.metadata?.event_payload?.key;
            if (m.ts !== threadTs && m.metadata?.event_type === eventType && typeof key === 'string')
              keys.add(key);
          }
          if (!answer.has_more) return keys;
          const next = answer.response_metadata?.next_cursor;
          // More, and no way to ask for it: the thread cannot be read whole (never "surely absent").
          if (!next) throw new HistoryUnreadableError('Slack answered has_more without a cursor');
          at = { m: 'replies', t: threadTs, c: next, n: at.n + 1, k: [...keys] };
        }
      } catch (error) {
        throw asReadError(error, "the thread's replies");
      }
    },
    async find(channel, key, progressText) {
      const resumed = decodeProgress(progressText);
      let at: Extract<Progress, { m: 'history' }> =
        resumed?.m === 'history' ? resumed : { m: 'history', c: null, n: 0 };
      try {
        const history = await historyChannel(channel);
        for (;;) {
          const cursor = at.c;
          const answer = await page('conversations.history', at, () =>
            reader().conversations.history({
              channel: history,
              oldest: (key.since.getTime() / 1000).toFixed(6),
              ...(key.until ? { latest: (key.until.getTime() / 1000).toFixed(6) } : {}),
              inclusive: true,
              include_all_metadata: true,
              limit: reads.pageSize,
              ...(cursor ? { cursor } : {}),
            }),
          );
          const messages = (answer.messages ?? []) as HistoryMessage[];
          const found = messages.find(
            (m) => m.metadata?.event_type === key.eventType && m.metadata.event_payload?.key === key.key,
          );
          if (found?.ts) return { ts: found.ts, replyCount: found.reply_count ?? 0 };
          if (!answer.has_more) return null;
          const next = answer.response_metadata?.next_cursor;
          // More, and no way to ask for it: the window cannot be read whole (never "surely absent").
          if (!next) throw new HistoryUnreadableError('Slack answered has_more without a cursor');
          at = { m: 'history', c: next, n: at.n + 1 };
        }
      } catch (error) {
        throw asReadError(error, "the channel's history");
      }
    },
  };
}

/** Renders the message in each admin's language and sends it to each by DM. */
export type AdminMessenger = (render: (w: Words) => RenderedMessage) => Promise<void>;

export function createAdminMessenger(deps: {
  client: WebClient;
  admins: () => Promise<readonly string[]>;
  language: Pick<LocaleResolver, 'user'>;
  logger: Pick<Logger, 'error'>;
  /** Names the message in the log line of an admin not reached, e.g. 'digest message'. */
  what: string;
}): AdminMessenger {
  return async (render) => {
    await Promise.all(
      (await deps.admins()).map(async (admin) => {
        try {
          const m = render(await deps.language.user(admin));
          await deps.client.chat.postMessage({ channel: admin, text: m.text, blocks: m.blocks });
        } catch (err) {
          deps.logger.error({ err, admin }, `${deps.what} to an admin not delivered`);
        }
      }),
    );
  };
}
