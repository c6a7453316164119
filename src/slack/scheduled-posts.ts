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
import { HistoryUnreadableError, type PostKey, PostOutcomeUnknownError } from '../digest/posted-once.js';
import { clientLike } from './clients.js';
import type { LocaleResolver } from './locale-resolver.js';

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
/** History pages read for a key (200 messages each); more than that in the window is "cannot tell". */
const HISTORY_PAGES = 10;
const HISTORY_PAGE_SIZE = 200;

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

export interface KeyedPosts {
  /**
   * Posts a message carrying `key` once, with no automatic retry: a sure refusal rejects with
   * Slack's error, an unclear outcome with PostOutcomeUnknownError.
   */
  post(channel: string, m: RenderedMessage, key: PostKey): Promise<string>;
  /** As `post`, as a reply in the thread of `threadTs` (never broadcast to the channel). */
  reply(channel: string, threadTs: string, m: RenderedMessage, key: PostKey): Promise<string>;
  /**
   * The keys (`event_payload.key`) of `eventType` the replies in the thread of `threadTs` carry;
   * HistoryUnreadableError when the thread cannot be read whole.
   */
  threadKeys(channel: string, threadTs: string, eventType: PostKey['eventType']): Promise<Set<string>>;
  /**
   * The message carrying `key` in the channel's history since `key.since`, or null when surely
   * absent; HistoryUnreadableError when the history cannot be read whole.
   */
  find(channel: string, key: PostKey): Promise<KeyedMessage | null>;
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
 * Keyed posts on Slack's Web API. The posts go through a client of their own with automatic
 * retries off (the app's client retries 5xx and timeouts, which would post twice) and a timeout;
 * the history is read with the app's client (reads may be retried).
 */
export function createKeyedPosts(deps: { client: WebClient; timeoutMs?: number }): KeyedPosts {
  const { client } = deps;
  const once = clientLike(client, {
    slackApiUrl: client.slackApiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: deps.timeoutMs ?? KEYED_POST_TIMEOUT_MS,
    // Outcomes are logged by the caller (pino); the client's own console lines would be noise.
    logLevel: LogLevel.ERROR,
  });

  /** A DM by user id lives in the app's IM channel with that user: its history is read there. */
  async function historyChannel(channel: string): Promise<string> {
    if (!/^[UW]/.test(channel)) return channel;
    const opened = await client.conversations.open({ users: channel });
    if (!opened.channel?.id) throw new Error('conversations.open answered without a channel');
    return opened.channel.id;
  }

  async function postKeyed(channel: string, m: RenderedMessage, key: PostKey, threadTs?: string) {
    try {
      return await postMessage(once, channel, m, metadataOf(key), threadTs);
    } catch (error) {
      if (surelyRefused(error)) throw error;
      throw new PostOutcomeUnknownError(`Slack's answer to chat.postMessage was unclear: ${String(error)}`, {
        cause: error,
      });
    }
  }

  return {
    post: (channel, m, key) => postKeyed(channel, m, key),
    reply: (channel, threadTs, m, key) => postKeyed(channel, m, key, threadTs),
    async threadKeys(channel, threadTs, eventType) {
      try {
        const conversation = await historyChannel(channel);
        const keys = new Set<string>();
        let cursor: string | undefined;
        for (let page = 0; page < HISTORY_PAGES; page++) {
          const answer = await client.conversations.replies({
            channel: conversation,
            ts: threadTs,
            include_all_metadata: true,
            limit: HISTORY_PAGE_SIZE,
            ...(cursor ? { cursor } : {}),
          });
          for (const m of (answer.messages ?? []) as HistoryMessage[]) {
            const key = m.metadata?.event_payload?.key;
            if (m.ts !== threadTs && m.metadata?.event_type === eventType && typeof key === 'string')
              keys.add(key);
          }
          cursor = answer.response_metadata?.next_cursor || undefined;
          if (!answer.has_more || !cursor) return keys;
        }
        throw new Error(`more than ${HISTORY_PAGES * HISTORY_PAGE_SIZE} replies in the thread`);
      } catch (error) {
        throw new HistoryUnreadableError(`the thread's replies could not be read: ${String(error)}`, {
          cause: error,
        });
      }
    },
    async find(channel, key) {
      try {
        const history = await historyChannel(channel);
        let cursor: string | undefined;
        for (let page = 0; page < HISTORY_PAGES; page++) {
          const answer = await client.conversations.history({
            channel: history,
            oldest: (key.since.getTime() / 1000).toFixed(6),
            inclusive: true,
            include_all_metadata: true,
            limit: HISTORY_PAGE_SIZE,
            ...(cursor ? { cursor } : {}),
          });
          const messages = (answer.messages ?? []) as HistoryMessage[];
          const found = messages.find(
            (m) => m.metadata?.event_type === key.eventType && m.metadata.event_payload?.key === key.key,
          );
          if (found?.ts) return { ts: found.ts, replyCount: found.reply_count ?? 0 };
          cursor = answer.response_metadata?.next_cursor || undefined;
          if (!answer.has_more || !cursor) return null;
        }
        throw new Error(`more than ${HISTORY_PAGES * HISTORY_PAGE_SIZE} messages since the post began`);
      } catch (error) {
        throw new HistoryUnreadableError(`the channel's history could not be read: ${String(error)}`, {
          cause: error,
        });
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
