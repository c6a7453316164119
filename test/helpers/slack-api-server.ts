/**
 * A local Slack-compatible Web API server (CONVENTIONS.md item 10: Slack is tested through the real
 * Bolt app against a server like this, reached through `SLACK_API_URL` / `clientOptions.slackApiUrl`).
 *
 * @slack/web-api 8 POSTs every method to `${slackApiUrl}${method}` (WebClient.js `deriveRequestUrl`),
 * so `apiUrl` ends with `/api/`. Bodies are `application/x-www-form-urlencoded` with objects
 * JSON-encoded in a field (`blocks`, `view`, `unfurls`…), multipart when a value is a Buffer (the file
 * upload), and we also accept JSON. Every request is recorded, decoded, in `calls`.
 *
 * Rate limits: on HTTP 429 with `Retry-After` the WebClient waits that many seconds and retries, by
 * default up to ten times (`retryConfig: tenRetriesInAboutThirtyMinutes`); a 429 without a parsable
 * `Retry-After` rejects at once. To see the 429 as an error, construct the client with
 * `rejectRateLimitedCalls: true` (rejects with code `slack_webapi_rate_limited_error` and `retryAfter`),
 * or use `retryAfter: 0` with `retryConfig: { retries: 1, minTimeout: 0 }` (p-retry otherwise waits
 * at least 1 s between attempts) to exercise the retry path quickly.
 *
 * Messages: chat.postMessage stores the message (with its `metadata`) in its channel (a DM by user
 * id in `D…`, the id conversations.open answers), chat.update and chat.delete change it, and
 * conversations.history answers from the store as Slack documents it
 * (https://docs.slack.dev/reference/methods/conversations.history): newest first, `oldest` /
 * `latest` / `inclusive`, `limit` and a `next_cursor`, only channel-level messages (a thread's
 * parent carries `reply_count`), and `metadata` only with `include_all_metadata=true`. Message ts
 * values are the server clock's seconds (`options.now`, default Date.now) and a sequence number.
 * conversations.replies answers a thread (parent first, replies oldest first; metadata likewise).
 * `fault(method, kind)` injects what a post with an unclear outcome meets: the message is stored,
 * then the connection is cut, or a 500 is answered, or nothing is answered at all.
 *
 * Slack's limited tier for reading history (Slack's docs "Rate limits" and its changelog of
 * 2025-05-29: commercially distributed apps not approved for the Marketplace), when
 * told to (`limitReads`): conversations.history and conversations.replies answer at most
 * `perMinute` requests in any 60 s of this server's clock per workspace (token) and method, and
 * any more with HTTP 429 `ratelimited` and a Retry-After of the seconds until one is free; a page
 * holds at most `pageSize` messages whatever `limit` asks.
 *
 * Work Objects: `entityTrigger(entityId)` issues a trigger_id tied to an entity, as Slack does for
 * `entity_details_requested` and for a click on the details panel's action; entity.presentDetails
 * checks it as Slack documents (unknown or older than 3 s: invalid_trigger_id; metadata of another
 * entity: entity_metadata_does_not_match_trigger; not an entity: invalid_metadata) and
 * `presentedDetails()` lists the panels it accepted.
 *
 * Socket Mode (`fake.socket`): `apps.connections.open`, called with an app-level token (`Bearer xapp-…`),
 * answers `{ ok: true, url: 'ws://127.0.0.1:PORT/socket' }`, a `ws` WebSocketServer on this server.
 * What @slack/socket-mode 3 (SocketModeClient.js, SlackWebSocket.js) expects of that socket:
 * - it is connected only once it receives `{ type: 'hello' }` (start() resolves then), sent on connect;
 * - `{ type: 'disconnect', reason }` makes it close the socket (code 1000) and, with auto-reconnect on,
 *   call apps.connections.open again after 5 s × consecutive failures;
 * - every other message is an envelope `{ envelope_id, type, payload, accepts_response_payload,
 *   retry_attempt?, retry_reason? }`; it emits `type` (`events_api` as the event's own type) and
 *   Bolt's SocketModeReceiver hands `payload` to app.processEvent as the request body;
 * - ack() sends `{ envelope_id, payload: { ...ackBody } }` back (payload `{}` for a bare ack());
 * - heartbeat is WebSocket ping/pong frames, not JSON: it pings every clientPingTimeout / 3 ms and drops
 *   the link after 4 pings unanswered (`ws` answers pings itself); server pings are optional.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { blockKitProblemsOfCall, payloadsOfCall } from './block-kit/check.js';
import { SLACK } from './slack-payloads.js';
import { payloadWordingProblems } from './wording.js';

export interface SlackCall {
  /** The Web API method (`chat.postMessage`), `response_url` or `file_upload`. */
  method: string;
  /** The decoded body; JSON-holding form fields (`blocks`, `view`…) are parsed. */
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The token the call was made with (`Authorization: Bearer …`, or a `token` field), if any. */
  token: string | null;
  /** The raw request body. */
  raw: Buffer;
  /** For `response_url`: the id in `/response/<id>`; for `file_upload`: the file id. */
  id?: string;
  /** For `file_upload`: the uploaded file's bytes (the multipart file part, else the raw body). */
  bytes?: Buffer;
  /** Milliseconds since the epoch at arrival. */
  at: number;
}

export type SlackFailure =
  /** HTTP 429 with `Retry-After` (default 1 s) and `{ ok: false, error: 'ratelimited' }`. */
  | { error: 'ratelimited'; status?: 429; retryAfter?: number }
  /** `{ ok: false, error }` with HTTP 200 (how Slack reports method errors), or `status` if given. */
  | { error: string; status?: number; retryAfter?: number };

/**
 * What happens after the method did its work (a message is stored): the connection is cut with no
 * answer, HTTP 500 `internal_error` is answered, or no answer comes at all (the client times out).
 */
export type SlackFault = 'accept-then-cut' | 'store-then-500' | 'timeout';

/** A message as conversations.history answers it. */
export interface StoredMessage extends Record<string, unknown> {
  ts: string;
  text: string;
  thread_ts?: string;
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  /** A streamed message's state (chat.startStream). */
  stream?: StreamState;
  /** A file message's files (files.completeUploadExternal with a channel). */
  files?: Record<string, unknown>[];
}

/**
 * A file as Slack keeps it after files.getUploadURLExternal (name, length), the POST of its bytes
 * to the upload URL, and files.completeUploadExternal (title, and the channels it was shared to).
 */
export interface StoredFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  /** The bytes posted to the upload URL (null until they arrive). */
  bytes: Buffer | null;
  /** Whether files.completeUploadExternal completed it. */
  completed: boolean;
  /** Where it was shared (channel_id / channels): a file message was posted there. */
  channels: string[];
}

/**
 * A streamed message (chat.startStream → appendStream… → stopStream,
 * https://docs.slack.dev/messaging/sending-and-scheduling-messages#text-streaming): its markdown so
 * far and its chunks in the order they came, and whether it was stopped.
 */
export interface StreamState {
  state: 'streaming' | 'stopped';
  /** `timeline` (task cards between the text) or `plan` (the tasks together in one plan). */
  taskDisplayMode: 'timeline' | 'plan';
  chunks: Record<string, unknown>[];
}

/** A details panel entity.presentDetails accepted: the trigger it answered and what it showed. */
export interface PresentedDetails {
  triggerId: string;
  entityId: string;
  metadata?: Record<string, unknown>;
  error?: Record<string, unknown>;
  at: number;
}

/**
 * A trigger_id lives 3 seconds (https://docs.slack.dev/interactivity/handling-user-interaction:
 * "trigger_id … expires 3 seconds after it's sent to your app"); used later Slack refuses it.
 */
export const TRIGGER_LIFETIME_MS = 3000;

/** A fixed answer, or one computed from the call; `ok: true` is added unless the answer sets `ok`. */
/** A fixed answer, or one computed per call (undefined: the method's default answer). */
export type SlackAnswer =
  | Record<string, unknown>
  | ((call: SlackCall) => Record<string, unknown> | undefined);

/** A Socket Mode envelope Slack pushes over the WebSocket (https://docs.slack.dev/apis/events-api/using-socket-mode). */
export interface SocketEnvelope {
  /** Generated by `socket.send` when missing. */
  envelope_id?: string;
  /** `slash_commands`, `interactive`, `events_api`… */
  type: string;
  /** The body Bolt processes: slash command fields as an object, an interaction payload, an event_callback. */
  payload?: unknown;
  accepts_response_payload?: boolean;
  retry_attempt?: number;
  retry_reason?: string;
  [key: string]: unknown;
}

/** A client's acknowledgement of an envelope: `{ envelope_id, payload }` (SocketModeClient.send). */
export interface SocketAck {
  envelope_id: string;
  payload?: Record<string, unknown>;
  /** Milliseconds since the epoch at arrival. */
  at: number;
}

export interface FakeSocketMode {
  /** `ws://127.0.0.1:PORT/socket`, the URL `apps.connections.open` answers. */
  readonly url: string;
  /** Every message the clients sent, JSON-parsed (kept as the string when it is not JSON), in order. */
  readonly received: unknown[];
  /** WebSocket connections accepted so far. */
  readonly connectionCount: number;
  /** WebSocket connections open now. */
  readonly openConnections: number;
  /** Resolves once a client is connected and has been sent `hello`. */
  waitForConnection(timeoutMs?: number): Promise<void>;
  /** Resolves once no client is connected (after at least one was). */
  waitForDisconnect(timeoutMs?: number): Promise<void>;
  /**
   * Pushes an envelope to the newest open connection (as Slack delivers each envelope to one
   * connection); returns its envelope_id. Throws when no client is connected.
   */
  send(envelope: SocketEnvelope): string;
  /** Resolves with the ack (already received or yet to come) of that envelope. */
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<SocketAck>;
  /** Every ack received, or those of one envelope. */
  acks(envelopeId?: string): SocketAck[];
  /**
   * Slack's `disconnect` message: the client closes the link (and reconnects if it may). Slack
   * recycles each connection on its own schedule: `which: 'oldest'` sends it to one connection only.
   */
  requestDisconnect(
    reason?: 'warning' | 'refresh_requested' | 'link_disabled',
    which?: 'all' | 'oldest',
  ): void;
  /** Cuts the oldest connection without a close handshake (a reset link, as when Slack's end goes away). */
  cut(): void;
}

export interface FakeSlack {
  /** `http://127.0.0.1:PORT/api/`: pass as `clientOptions.slackApiUrl` / `SLACK_API_URL`. */
  readonly apiUrl: string;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly calls: SlackCall[];
  callsTo(method: string): SlackCall[];
  /** Resolves with the first call (already received or yet to come) to `method` that matches. */
  waitFor(method: string, predicate?: (call: SlackCall) => boolean, timeoutMs?: number): Promise<SlackCall>;
  /** A response_url on this server; POSTs to it are recorded as method `response_url` with `id`. */
  responseUrl(id?: string): string;
  /**
   * The next `times` calls to `method` (a Web API method or `response_url`/`file_upload`) fail.
   * `{ ok: false }` answers (HTTP 200) are not retried by the WebClient; an HTTP error status (5xx)
   * IS retried by its default policy (up to 10 times over ~30 min): give such a test client
   * `retryConfig: { retries: 0 }`.
   */
  failNext(method: string, failure: SlackFailure, times?: number): void;
  /**
   * The next `times` calls to `method` (those `when` picks, e.g. a thread reply) do their work,
   * then meet `fault` (see SlackFault).
   */
  fault(method: string, fault: SlackFault, times?: number, when?: (call: SlackCall) => boolean): void;
  /** The channel-level messages of a channel (a DM: the `D…` id or the user id), oldest first. */
  messages(channel: string): StoredMessage[];
  /** The replies in the thread of `ts` in a channel, oldest first. */
  replies(channel: string, ts: string): StoredMessage[];
  /** One stored message (a thread's reply too) by its ts, as it is now. */
  message(channel: string, ts: string): StoredMessage | undefined;
  /**
   * A trigger Slack issues for a Work Object (an `entity_details_requested` event or a click on
   * the details panel's action), tied to that entity's `external_ref.id` and usable for
   * TRIGGER_LIFETIME_MS from `issuedAt` (default: now, on this server's clock).
   */
  entityTrigger(entityId: string, options?: { issuedAt?: number }): string;
  /** What entity.presentDetails accepted (the panel a person sees), oldest first. */
  presentedDetails(): PresentedDetails[];
  /** Replaces the default answer of `method` until `reset()`. */
  setResponse(method: string, answer: SlackAnswer): void;
  /**
   * What the method answers by default (its documented behaviour, messages stored): for an answer
   * set with `setResponse` that watches what the app does and lets Slack's own answer stand.
   */
  defaultAnswer(call: SlackCall): Record<string, unknown>;
  /** A person's message in a channel (kept for conversations.history); returns its ts. */
  postAsUser(channel: string, text: string, options?: { user?: string; threadTs?: string }): string;
  /** A file uploaded with files.getUploadURLExternal and its upload URL (bytes, name, title). */
  file(id: string): StoredFile | undefined;
  /** The link the fake serves a file's bytes at (`GET /files/<id>`), as Slack's url_private. */
  fileUrl(id: string): string;
  /** Delays the answers of `method` by `ms` until `reset()` (a slow Slack). */
  setDelay(method: string, ms: number): void;
  /**
   * Slack's limited tier for conversations.history and conversations.replies (see the file
   * comment): e.g. `{ perMinute: 1, pageSize: 15 }`; null lifts it. Kept until `reset()`.
   */
  limitReads(limits: { perMinute: number; pageSize: number } | null): void;
  /** The reads the limit refused (answered 429), oldest first. */
  rateLimited(): SlackCall[];
  /**
   * A user's Slack language, as users.info answers it with `include_locale` (default `en-US`,
   * as Slack answers for an English workspace) until `reset()`.
   */
  setLocale(userId: string, locale: string): void;
  /** Forgets calls, pending failures and faults, answers, delays and messages. */
  reset(): void;
  /** The Socket Mode WebSocket endpoint (see the file comment). */
  readonly socket: FakeSocketMode;
  close(): Promise<void>;
}

/** Form fields @slack/web-api JSON-encodes because their values are objects or arrays. */
const JSON_FIELDS = new Set([
  'blocks',
  'attachments',
  'unfurls',
  'view',
  'files',
  'metadata',
  'user_auth_blocks',
  'outputs',
  'inputs',
  'error',
  'chunks',
  'prompts',
]);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const SOCKET_PATH = '/socket';
/** What Slack sends first on every Socket Mode connection; the client is connected only after it. */
const HELLO = {
  type: 'hello',
  num_connections: 1,
  connection_info: { app_id: SLACK.apiAppId },
  debug_info: { host: 'fake', approximate_connection_time: 18060 },
};

function decodeJsonFields(fields: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(fields)) {
    if (JSON_FIELDS.has(key) && typeof value === 'string') {
      try {
        fields[key] = JSON.parse(value);
      } catch {
        // not JSON after all: keep the string as sent
      }
    }
  }
  return fields;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface Decoded {
  body: Record<string, unknown>;
  /** The first file part of a multipart body. */
  file?: Buffer;
}

async function decodeBody(
  raw: Buffer,
  contentType: string | undefined,
  query: URLSearchParams,
): Promise<Decoded> {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const body: Record<string, unknown> = Object.fromEntries(query);
  if (raw.length === 0) return { body: decodeJsonFields(body) };
  if (type === 'application/json') {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) Object.assign(body, parsed);
    else body.json = parsed;
    return { body };
  }
  if (type === 'multipart/form-data' && contentType !== undefined) {
    // Node's fetch Response parses multipart bodies (the WebClient builds them with FormData).
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    let file: Buffer | undefined;
    for (const [key, value] of form) {
      if (typeof value === 'string') body[key] = value;
      else {
        const bytes = Buffer.from(await value.arrayBuffer());
        file ??= bytes;
        body[key] = { filename: value.name, size: bytes.length };
      }
    }
    return file === undefined ? { body: decodeJsonFields(body) } : { body: decodeJsonFields(body), file };
  }
  if (type === 'application/x-www-form-urlencoded' || type === '') {
    Object.assign(body, Object.fromEntries(new URLSearchParams(raw.toString('utf8'))));
    return { body: decodeJsonFields(body) };
  }
  // Anything else (an upload of raw bytes): keep only the raw body.
  return { body };
}

interface Waiter {
  method: string;
  predicate: (call: SlackCall) => boolean;
  resolve: (call: SlackCall) => void;
  reject: (error: Error) => void;
}

/**
 * Block Kit the app sent that Slack would refuse, from every fake in this test worker, until taken:
 * test/helpers/block-kit/guard.ts fails the test that caused them (vitest `setupFiles`).
 */
const blockKitRejections: string[] = [];

/** Takes (and clears) the Block Kit problems the fakes of this worker have refused so far. */
export function takeBlockKitRejections(): string[] {
  return blockKitRejections.splice(0);
}

/**
 * What a bilingual editor would mark in the messages, views and unfurls the app sent any fake of
 * this worker (test/helpers/wording.ts; issue 35), until taken: the guard fails the test that
 * sent them. Slack takes such a message, so the call is answered as usual. Bounded, for the demo.
 */
const wordingProblems: string[] = [];

/** Takes (and clears) the wording problems of the messages the fakes of this worker received. */
export function takeWordingProblems(): string[] {
  return wordingProblems.splice(0);
}

function str(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function messageOf(call: SlackCall, ts: string): Record<string, unknown> {
  const { body } = call;
  const message: Record<string, unknown> = {
    type: 'message',
    user: SLACK.botUserId,
    bot_id: SLACK.botId,
    app_id: SLACK.apiAppId,
    team: SLACK.teamId,
    text: str(body.text, ''),
    ts,
  };
  if (body.blocks !== undefined) message.blocks = body.blocks;
  if (body.attachments !== undefined) message.attachments = body.attachments;
  if (typeof body.thread_ts === 'string') message.thread_ts = body.thread_ts;
  if (isMetadata(body.metadata)) message.metadata = body.metadata;
  return message;
}

function isMetadata(value: unknown): value is NonNullable<StoredMessage['metadata']> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { event_type?: unknown }).event_type === 'string' &&
    typeof (value as { event_payload?: unknown }).event_payload === 'object'
  );
}

/** Where Slack keeps a message sent to a user id: the app's DM with them (as conversations.open answers). */
const conversationOf = (channel: string) => (/^[UW]/.test(channel) ? `D${channel.slice(1)}` : channel);

const tsValue = (ts: string) => Number(ts);

export async function startSlackApiServer(
  options: {
    now?: () => number;
    /**
     * How long an idle keep-alive connection stays open (Node's default: 5 s). A test that pauses
     * a client process (SIGSTOP) longer than that keeps it open, as Slack's edge does for longer:
     * otherwise the paused client's next request meets a connection closed under it.
     */
    keepAliveMs?: number;
  } = {},
): Promise<FakeSlack> {
  const clock = options.now ?? Date.now;
  const calls: SlackCall[] = [];
  const faults = new Map<string, { fault: SlackFault; when?: (call: SlackCall) => boolean }[]>();
  /** Messages by conversation, oldest first; replies are kept beside their parents. */
  const stored = new Map<string, StoredMessage[]>();
  const held = new Set<ServerResponse>();
  const failures = new Map<string, SlackFailure[]>();
  const answers = new Map<string, SlackAnswer>();
  const delays = new Map<string, number>();
  const locales = new Map<string, string>();
  const waiters = new Set<Waiter>();
  let readLimits: { perMinute: number; pageSize: number } | null = null;
  /** Answered reads by workspace (token) and method: their times on this server's clock. */
  const readTimes = new Map<string, number[]>();
  const refusedReads: SlackCall[] = [];
  /** Work Object triggers issued by the tests: trigger_id → the entity and when it was issued. */
  const triggers = new Map<string, { entityId: string; issuedAt: number }>();
  const presented: PresentedDetails[] = [];
  let seq = 0;
  let responseSeq = 0;
  let triggerSeq = 0;
  /**
   * entity.presentDetails as https://docs.slack.dev/reference/methods/entity.presentDetails
   * documents it: `trigger_id` required (a trigger Slack issued for a Work Object, not expired),
   * then `metadata` (an entity whose external_ref.id is the trigger's entity, else
   * entity_metadata_does_not_match_trigger; not an entity: invalid_metadata) or `error` (a status
   * from the documented list), and `user_auth_url` whenever `user_auth_required` is set.
   */
  const presentDetails = (call: SlackCall): Record<string, unknown> => {
    const b = call.body;
    const fail = (error: string) => ({ ok: false, error });
    if (typeof b.trigger_id !== 'string' || b.trigger_id === '') return fail('invalid_arguments');
    const trigger = triggers.get(b.trigger_id);
    // Slack's documented answer for a trigger it does not know or that has expired.
    if (!trigger || clock() - trigger.issuedAt > TRIGGER_LIFETIME_MS) return fail('invalid_trigger_id');
    const authRequired = String(b.user_auth_required) === 'true' || String(b.user_auth_required) === '1';
    if (authRequired && (typeof b.user_auth_url !== 'string' || b.user_auth_url === ''))
      return fail('user_auth_url_missing');
    if (b.metadata !== undefined) {
      const m = b.metadata as Record<string, unknown> | string;
      if (typeof m !== 'object' || m === null || Array.isArray(m)) return fail('invalid_metadata');
      const ref = m.external_ref as { id?: unknown } | undefined;
      const payload = m.entity_payload as { attributes?: { title?: { text?: unknown } } } | undefined;
      if (
        typeof m.entity_type !== 'string' ||
        typeof m.url !== 'string' ||
        typeof ref?.id !== 'string' ||
        typeof payload?.attributes?.title?.text !== 'string'
      )
        return fail('invalid_metadata');
      if (ref.id !== trigger.entityId) return fail('entity_metadata_does_not_match_trigger');
      presented.push({ triggerId: b.trigger_id, entityId: ref.id, metadata: m, at: clock() });
      return {};
    }
    if (typeof b.error === 'object' && b.error !== null) {
      const error = b.error as Record<string, unknown>;
      const statuses = [
        'restricted',
        'internal_error',
        'not_found',
        'custom',
        'custom_partial_view',
        'timeout',
        'edit_error',
      ];
      if (typeof error.status !== 'string' || !statuses.includes(error.status))
        return fail('invalid_arguments');
      presented.push({ triggerId: b.trigger_id, entityId: trigger.entityId, error, at: clock() });
      return {};
    }
    return fail('invalid_arguments');
  };
  /** Message ts values increase with every message posted, as Slack's do (the clock's seconds). */
  const nextTs = () => `${Math.floor(clock() / 1000)}.${String(++seq).padStart(6, '0')}`;
  const conversation = (channel: string): StoredMessage[] => {
    const id = conversationOf(channel);
    const list = stored.get(id) ?? [];
    stored.set(id, list);
    return list;
  };
  const history = (call: SlackCall): Record<string, unknown> => {
    const b = call.body;
    const inclusive = String(b.inclusive) === 'true' || String(b.inclusive) === '1';
    const oldest = b.oldest === undefined ? Number.NEGATIVE_INFINITY : Number(b.oldest);
    const latest = b.latest === undefined ? Number.POSITIVE_INFINITY : Number(b.latest);
    const withMetadata = String(b.include_all_metadata) === 'true' || String(b.include_all_metadata) === '1';
    const limit = Math.min(readLimits?.pageSize ?? 999, Math.max(1, Number(b.limit ?? 100) || 100));
    const offset =
      typeof b.cursor === 'string' && b.cursor !== ''
        ? Number(Buffer.from(b.cursor, 'base64').toString())
        : 0;
    const all = conversation(str(b.channel, SLACK.channelId));
    const inWindow = all
      .filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts)
      .filter((m) => {
        const t = tsValue(m.ts);
        return (inclusive ? t >= oldest : t > oldest) && (inclusive ? t <= latest : t < latest);
      })
      .reverse();
    const page = inWindow.slice(offset, offset + limit).map((m) => {
      const replies = all.filter((r) => r.thread_ts === m.ts && r.ts !== m.ts).length;
      const { metadata, ...rest } = m;
      return {
        ...rest,
        ...(replies > 0 ? { thread_ts: m.ts, reply_count: replies } : {}),
        ...(withMetadata && metadata ? { metadata } : {}),
      };
    });
    const more = offset + limit < inWindow.length;
    return {
      messages: page,
      has_more: more,
      pin_count: 0,
      response_metadata: { next_cursor: more ? Buffer.from(String(offset + limit)).toString('base64') : '' },
    };
  };
  /**
   * conversations.replies as Slack documents it (https://docs.slack.dev/reference/methods/conversations.replies):
   * the thread of `ts` (a parent, or any reply in it), parent first, then its replies oldest first,
   * paged by `cursor`/`limit`; `metadata` only with `include_all_metadata=true`; `thread_not_found`
   * when there is no such message.
   */
  const replies = (call: SlackCall): Record<string, unknown> => {
    const b = call.body;
    const withMetadata = String(b.include_all_metadata) === 'true' || String(b.include_all_metadata) === '1';
    const limit = Math.min(readLimits?.pageSize ?? 1000, Math.max(1, Number(b.limit ?? 100) || 100));
    const offset =
      typeof b.cursor === 'string' && b.cursor !== ''
        ? Number(Buffer.from(b.cursor, 'base64').toString())
        : 0;
    const all = conversation(str(b.channel, SLACK.channelId));
    const asked = all.find((m) => m.ts === str(b.ts, ''));
    if (!asked) return { ok: false, error: 'thread_not_found' };
    const parentTs = asked.thread_ts ?? asked.ts;
    const thread = all.filter((m) => m.ts === parentTs || m.thread_ts === parentTs);
    const count = thread.length - 1;
    const page = thread.slice(offset, offset + limit).map((m) => {
      const { metadata, ...rest } = m;
      return {
        ...rest,
        thread_ts: parentTs,
        ...(m.ts === parentTs ? { reply_count: count } : { parent_user_id: SLACK.botUserId }),
        ...(withMetadata && metadata ? { metadata } : {}),
      };
    });
    const more = offset + limit < thread.length;
    return {
      messages: page,
      has_more: more,
      response_metadata: { next_cursor: more ? Buffer.from(String(offset + limit)).toString('base64') : '' },
    };
  };
  const nextId = (prefix: string) => `${prefix}${String(++seq).padStart(8, '0')}`;
  let origin = '';
  /** Files by id, from files.getUploadURLExternal on. */
  const uploads = new Map<string, StoredFile>();
  const MIME: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    json: 'application/json',
    csv: 'text/csv',
    txt: 'text/plain',
  };
  const extOf = (name: string) => (/\.([a-z0-9]+)$/i.exec(name)?.[1] ?? '').toLowerCase();
  /** A file object as files.completeUploadExternal and a file message carry it. */
  const fileObject = (f: StoredFile): Record<string, unknown> => ({
    id: f.id,
    created: Math.floor(clock() / 1000),
    name: f.name,
    title: f.title,
    mimetype: f.mimetype,
    filetype: extOf(f.name) || 'binary',
    size: f.bytes?.length ?? 0,
    user: SLACK.botUserId,
    url_private: `${origin}/files/${f.id}`,
    url_private_download: `${origin}/files/${f.id}?download=1`,
    permalink: `https://${SLACK.teamDomain}.slack.com/files/${SLACK.botUserId}/${f.id}/${encodeURIComponent(f.name)}`,
  });
  /**
   * files.completeUploadExternal (https://docs.slack.dev/reference/methods/files.completeUploadExternal):
   * completes each uploaded file with its title; with `channel_id` (or `channels`) the files are
   * shared there in one message, whose text is `initial_comment` (in `thread_ts`'s thread if given).
   */
  const completeUpload = (call: SlackCall): Record<string, unknown> => {
    const b = call.body;
    const listed = Array.isArray(b.files) ? (b.files as { id?: unknown; title?: unknown }[]) : [];
    if (listed.length === 0) return { ok: false, error: 'invalid_arguments' };
    const files = listed.map((entry) => {
      const id = str(entry.id, '');
      const known = uploads.get(id);
      if (known === undefined && id !== '') {
        const f: StoredFile = {
          id,
          name: id,
          title: '',
          mimetype: 'application/octet-stream',
          bytes: null,
          completed: false,
          channels: [],
        };
        uploads.set(id, f);
      }
      const f = uploads.get(id) as StoredFile;
      f.completed = true;
      if (typeof entry.title === 'string' && entry.title !== '') f.title = entry.title;
      else f.title ||= f.name;
      return f;
    });
    const channels = [
      ...(typeof b.channel_id === 'string' && b.channel_id !== '' ? [b.channel_id] : []),
      ...(typeof b.channels === 'string' && b.channels !== '' ? b.channels.split(',') : []),
    ];
    for (const channel of channels) {
      const message: StoredMessage = {
        type: 'message',
        user: SLACK.botUserId,
        bot_id: SLACK.botId,
        upload: true,
        text: str(b.initial_comment, ''),
        ts: nextTs(),
        files: files.map(fileObject),
      };
      if (typeof b.thread_ts === 'string' && b.thread_ts !== '') message.thread_ts = b.thread_ts;
      conversation(channel).push(message);
      for (const f of files) f.channels.push(conversationOf(channel));
    }
    return { files: files.map((f) => ({ id: f.id, title: f.title })) };
  };
  /**
   * Streamed messages (https://docs.slack.dev/reference/methods/chat.startStream, …/chat.appendStream,
   * …/chat.stopStream): started with optional `markdown_text` or `chunks` (outside a DM only with
   * `recipient_user_id` and `recipient_team_id`), appended to (`markdown_text` or `chunks`
   * required) while streaming, then stopped (more text, `blocks` below it, `metadata`). The
   * message's text is its markdown so far; its chunks keep the order they came in.
   */
  const streamChunks = (b: Record<string, unknown>): Record<string, unknown>[] => [
    ...(typeof b.markdown_text === 'string' && b.markdown_text !== ''
      ? [{ type: 'markdown_text', text: b.markdown_text }]
      : []),
    ...(Array.isArray(b.chunks)
      ? (b.chunks as unknown[]).filter(
          (c): c is Record<string, unknown> => typeof c === 'object' && c !== null && !Array.isArray(c),
        )
      : []),
  ];
  const appendTo = (message: StoredMessage, chunks: Record<string, unknown>[]) => {
    const stream = message.stream as StreamState;
    stream.chunks.push(...chunks);
    message.text += chunks
      .filter((c) => c.type === 'markdown_text' && typeof c.text === 'string')
      .map((c) => c.text as string)
      .join('');
  };
  const streamed = (call: SlackCall): StoredMessage | { error: string } => {
    const ts = str(call.body.ts, '');
    const message = conversation(str(call.body.channel, SLACK.channelId)).find((m) => m.ts === ts);
    if (!message) return { error: 'message_not_found' };
    if (message.stream?.state !== 'streaming') return { error: 'message_not_in_streaming_state' };
    return message;
  };

  const defaults: Record<string, (call: SlackCall) => Record<string, unknown>> = {
    'auth.test': () => ({
      url: `https://${SLACK.teamDomain}.slack.com/`,
      team: 'platdesk test',
      user: 'platdesk',
      team_id: SLACK.teamId,
      user_id: SLACK.botUserId,
      bot_id: SLACK.botId,
      is_enterprise_install: false,
    }),
    'chat.postMessage': (call) => {
      const ts = nextTs();
      const channel = conversationOf(str(call.body.channel, SLACK.channelId));
      const message = messageOf(call, ts);
      conversation(channel).push(message as StoredMessage);
      return { channel, ts, message };
    },
    'conversations.history': (call) => history(call),
    'conversations.replies': (call) => replies(call),
    'chat.postEphemeral': () => ({ message_ts: nextTs() }),
    'chat.update': (call) => {
      const ts = str(call.body.ts, SLACK.messageTs);
      const kept = conversation(str(call.body.channel, SLACK.channelId)).find((m) => m.ts === ts);
      if (kept) {
        kept.text = str(call.body.text, '');
        if (call.body.blocks !== undefined) kept.blocks = call.body.blocks;
        if (isMetadata(call.body.metadata)) kept.metadata = call.body.metadata;
      }
      return {
        channel: str(call.body.channel, SLACK.channelId),
        ts,
        text: str(call.body.text, ''),
        message: messageOf(call, ts),
      };
    },
    'chat.delete': (call) => {
      const list = conversation(str(call.body.channel, SLACK.channelId));
      const at = list.findIndex((m) => m.ts === call.body.ts);
      if (at >= 0) list.splice(at, 1);
      return { channel: str(call.body.channel, SLACK.channelId), ts: str(call.body.ts, '') };
    },
    'chat.unfurl': () => ({}),
    // https://docs.slack.dev/reference/methods/assistant.threads.setStatus: "" clears it.
    'assistant.threads.setStatus': (call) =>
      typeof call.body.channel_id === 'string' &&
      typeof call.body.thread_ts === 'string' &&
      typeof call.body.status === 'string'
        ? {}
        : { ok: false, error: 'invalid_arguments' },
    // https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts: 1 to 4
    // prompts, each with a title and a message.
    'assistant.threads.setSuggestedPrompts': (call) => {
      const prompts = call.body.prompts;
      const valid =
        typeof call.body.channel_id === 'string' &&
        typeof call.body.thread_ts === 'string' &&
        Array.isArray(prompts) &&
        prompts.length >= 1 &&
        prompts.length <= 4 &&
        prompts.every(
          (p) =>
            typeof p === 'object' &&
            p !== null &&
            typeof (p as { title?: unknown }).title === 'string' &&
            typeof (p as { message?: unknown }).message === 'string',
        );
      return valid ? {} : { ok: false, error: 'invalid_arguments' };
    },
    'assistant.threads.setTitle': () => ({}),
    // Workflow steps (https://docs.slack.dev/reference/methods/functions.completeSuccess): the
    // execution id, and outputs as an object (completeError: an error string).
    'functions.completeSuccess': (call) =>
      typeof call.body.function_execution_id === 'string' &&
      typeof call.body.outputs === 'object' &&
      call.body.outputs !== null
        ? {}
        : { ok: false, error: 'invalid_arguments' },
    'functions.completeError': (call) =>
      typeof call.body.function_execution_id === 'string' &&
      typeof call.body.error === 'string' &&
      call.body.error !== ''
        ? {}
        : { ok: false, error: 'invalid_arguments' },
    'entity.presentDetails': (call) => presentDetails(call),
    'chat.getPermalink': (call) => ({
      channel: str(call.body.channel, SLACK.channelId),
      permalink: `https://${SLACK.teamDomain}.slack.com/archives/${str(call.body.channel, SLACK.channelId)}/p${str(call.body.message_ts, SLACK.messageTs).replace('.', '')}`,
    }),
    'views.open': (call) => ({ view: viewOf(call, nextId('V')) }),
    'views.push': (call) => ({ view: viewOf(call, nextId('V')) }),
    'views.update': (call) => ({ view: viewOf(call, str(call.body.view_id, nextId('V'))) }),
    'views.publish': (call) => ({ view: viewOf(call, nextId('V')) }),
    // The app's direct message with a user (platdesk sends files there).
    'conversations.open': (call) => ({
      channel: { id: `D${str(call.body.users, SLACK.userId).replace(/^U/, '')}` },
    }),
    'conversations.info': (call) => {
      const id = str(call.body.channel, SLACK.channelId);
      const isIm = id.startsWith('D');
      const isPrivate = id.startsWith('G');
      return {
        channel: {
          id,
          name: id === SLACK.channelId ? SLACK.channelName : `channel-${id.toLowerCase()}`,
          is_channel: !isIm && !isPrivate,
          is_group: isPrivate,
          is_im: isIm,
          is_private: isPrivate || isIm,
          is_archived: false,
          is_member: true,
          context_team_id: SLACK.teamId,
          created: 1_600_000_000,
        },
      };
    },
    'users.info': (call) => {
      const id = str(call.body.user, SLACK.userId);
      // Slack adds `locale` only when asked (https://docs.slack.dev/reference/methods/users.info).
      const withLocale = String(call.body.include_locale) === 'true';
      const name =
        id === SLACK.adminId ? SLACK.adminName : id === SLACK.secondUserId ? SLACK.secondUserName : 'agent';
      return {
        user: {
          id,
          team_id: SLACK.teamId,
          name,
          real_name: name,
          deleted: false,
          is_admin: id === SLACK.adminId,
          is_owner: false,
          is_bot: id === SLACK.botUserId,
          tz: 'Asia/Shanghai',
          tz_offset: 28_800,
          ...(withLocale ? { locale: locales.get(id) ?? 'en-US' } : {}),
          profile: { display_name: name, real_name: name },
        },
      };
    },
    'usergroups.users.list': () => ({ users: [SLACK.userId, SLACK.secondUserId] }),
    // Socket Mode: only an app-level token may open a connection (as Slack answers a bot token).
    'apps.connections.open': (call) => {
      const auth = String(call.headers.authorization ?? '');
      if (auth === '' || auth === 'Bearer') return { ok: false, error: 'not_authed' };
      if (!auth.startsWith('Bearer xapp-')) return { ok: false, error: 'not_allowed_token_type' };
      return { url: `${origin.replace(/^http/, 'ws')}${SOCKET_PATH}` };
    },
    'files.getUploadURLExternal': (call) => {
      const fileId = nextId('F');
      const name = str(call.body.filename, fileId);
      uploads.set(fileId, {
        id: fileId,
        name,
        title: '',
        mimetype: MIME[extOf(name)] ?? 'application/octet-stream',
        bytes: null,
        completed: false,
        channels: [],
      });
      return { upload_url: `${origin}/upload/${fileId}`, file_id: fileId };
    },
    'files.completeUploadExternal': (call) => completeUpload(call),
    'chat.startStream': (call) => {
      const b = call.body;
      const channel = str(b.channel, '');
      if (channel === '') return { ok: false, error: 'channel_not_found' };
      const inDm = /^[DUW]/.test(channel);
      if (!inDm && (str(b.recipient_user_id, '') === '' || str(b.recipient_team_id, '') === ''))
        return { ok: false, error: 'invalid_arguments' };
      const mode = b.task_display_mode === 'plan' ? 'plan' : 'timeline';
      const message: StoredMessage = {
        type: 'message',
        user: SLACK.botUserId,
        bot_id: SLACK.botId,
        app_id: SLACK.apiAppId,
        text: '',
        ts: nextTs(),
        stream: { state: 'streaming', taskDisplayMode: mode, chunks: [] },
      };
      if (typeof b.thread_ts === 'string' && b.thread_ts !== '') message.thread_ts = b.thread_ts;
      appendTo(message, streamChunks(b));
      conversation(channel).push(message);
      return { channel: conversationOf(channel), ts: message.ts };
    },
    'chat.appendStream': (call) => {
      const chunks = streamChunks(call.body);
      if (chunks.length === 0) return { ok: false, error: 'invalid_arguments' };
      const message = streamed(call);
      if ('error' in message) return { ok: false, error: message.error };
      appendTo(message, chunks);
      return { channel: str(call.body.channel, ''), ts: message.ts };
    },
    'chat.stopStream': (call) => {
      const message = streamed(call);
      if ('error' in message) return { ok: false, error: message.error };
      appendTo(message, streamChunks(call.body));
      if (Array.isArray(call.body.blocks)) message.blocks = call.body.blocks;
      if (isMetadata(call.body.metadata)) message.metadata = call.body.metadata;
      (message.stream as StreamState).state = 'stopped';
      return { channel: str(call.body.channel, ''), ts: message.ts, message: { ...message } };
    },
  };

  function viewOf(call: SlackCall, id: string): Record<string, unknown> {
    const view = (call.body.view ?? {}) as Record<string, unknown>;
    return {
      ...view,
      id,
      team_id: SLACK.teamId,
      app_id: SLACK.apiAppId,
      bot_id: SLACK.botId,
      hash: `1700000000.${id}`,
      state: { values: {} },
      root_view_id: id,
      previous_view_id: null,
    };
  }

  function record(call: SlackCall): void {
    calls.push(call);
    for (const waiter of waiters) {
      if (waiter.method === call.method && waiter.predicate(call)) {
        waiters.delete(waiter);
        waiter.resolve(call);
      }
    }
  }

  function send(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(text);
  }

  /**
   * The limited tier: null when this read may be answered (it is counted), else the ms until one
   * may be (the oldest answered read of the last 60 s leaves the window then).
   */
  function readWait(call: SlackCall): number | null {
    if (!readLimits) return null;
    if (call.method !== 'conversations.history' && call.method !== 'conversations.replies') return null;
    const key = `${call.method}:${call.token ?? ''}`;
    const now = clock();
    const recent = (readTimes.get(key) ?? []).filter((t) => t > now - 60_000);
    if (recent.length >= readLimits.perMinute) {
      readTimes.set(key, recent);
      return Math.max(1000, (recent[0] ?? now) + 60_000 - now);
    }
    recent.push(now);
    readTimes.set(key, recent);
    return null;
  }

  function takeFailure(method: string): SlackFailure | undefined {
    const queue = failures.get(method);
    const failure = queue?.shift();
    if (queue?.length === 0) failures.delete(method);
    return failure;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const raw = await readBody(req);
    const [, kind, name = ''] = url.pathname.split('/');
    let method: string;
    let id: string | undefined;
    if (kind === 'api' && name !== '') method = decodeURIComponent(name);
    else if (kind === 'response' && name !== '') {
      method = 'response_url';
      id = decodeURIComponent(name);
    } else if (kind === 'upload' && name !== '') {
      method = 'file_upload';
      id = decodeURIComponent(name);
    } else if (kind === 'files' && name !== '' && req.method === 'GET') {
      // A file's url_private: its bytes, as uploaded (not a Web API call: not recorded).
      const f = uploads.get(decodeURIComponent(name));
      if (!f?.bytes) {
        send(res, 404, { ok: false, error: 'file_not_found' });
        return;
      }
      res.writeHead(200, { 'content-type': f.mimetype, 'content-length': String(f.bytes.length) });
      res.end(f.bytes);
      return;
    } else {
      send(res, 404, { ok: false, error: 'unknown_path' });
      return;
    }

    let decoded: Decoded;
    try {
      decoded = await decodeBody(raw, req.headers['content-type'], url.searchParams);
    } catch {
      decoded = { body: {} };
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    const token = bearer ?? (typeof decoded.body.token === 'string' ? decoded.body.token : null);
    const call: SlackCall = { method, body: decoded.body, headers: req.headers, token, raw, at: Date.now() };
    if (id !== undefined) call.id = id;
    if (method === 'file_upload') call.bytes = decoded.file ?? raw;
    record(call);

    const delay = delays.get(method);
    if (delay !== undefined) await sleep(delay);

    const wait = readWait(call);
    if (wait !== null) {
      refusedReads.push(call);
      send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(Math.ceil(wait / 1000)) });
      return;
    }

    const failure = takeFailure(method);
    if (failure !== undefined) {
      const status = failure.status ?? (failure.error === 'ratelimited' ? 429 : 200);
      const headers: Record<string, string> = {};
      if (status === 429 || failure.retryAfter !== undefined)
        headers['retry-after'] = String(failure.retryAfter ?? 1);
      send(res, status, { ok: false, error: failure.error }, headers);
      return;
    }

    // Slack validates Block Kit before anything else and refuses the whole call.
    const invalid = blockKitProblemsOfCall(method, call.body);
    if (invalid.length > 0) {
      blockKitRejections.push(...invalid);
      const error = method.startsWith('views.') ? 'invalid_arguments' : 'invalid_blocks';
      send(res, 200, { ok: false, error, response_metadata: { messages: invalid } });
      return;
    }

    if (wordingProblems.length < 1000)
      for (const { name, payload } of payloadsOfCall(method, call.body))
        wordingProblems.push(...payloadWordingProblems(payload).map((p) => `${method} ${name}: ${p}`));

    if (method === 'file_upload') {
      const f = uploads.get(id ?? '');
      if (f) f.bytes = call.bytes ?? null;
      // Slack's upload URL answers 200 with a plain text body.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`OK - ${call.bytes?.length ?? 0}`);
      return;
    }
    const answer = answers.get(method);
    const computed = (typeof answer === 'function' ? answer(call) : answer) ?? defaults[method]?.(call) ?? {};
    const queue = faults.get(method) ?? [];
    const at = queue.findIndex((f) => !f.when || f.when(call));
    const fault = at >= 0 ? queue.splice(at, 1)[0]?.fault : undefined;
    if (queue.length === 0) faults.delete(method);
    switch (fault) {
      case 'accept-then-cut':
        res.socket?.destroy();
        return;
      case 'store-then-500':
        send(res, 500, { ok: false, error: 'internal_error' });
        return;
      case 'timeout':
        // Never answered; ended by close().
        held.add(res);
        return;
      default:
        send(res, 200, { ok: true, ...computed });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { ok: false, error: 'fake_slack_error', detail: String(error) });
      else res.destroy();
    });
  });
  if (options.keepAliveMs !== undefined) server.keepAliveTimeout = options.keepAliveMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  const socket = startSocketMode(server, `ws://127.0.0.1:${port}${SOCKET_PATH}`);

  return {
    apiUrl: `${origin}/api/`,
    origin,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    waitFor(method, predicate = () => true, timeoutMs = 3000) {
      const found = calls.find((c) => c.method === method && predicate(c));
      if (found) return Promise.resolve(found);
      return new Promise<SlackCall>((resolve, reject) => {
        const waiter: Waiter = {
          method,
          predicate,
          resolve: (c) => {
            clearTimeout(timer);
            resolve(c);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const seen = calls.map((c) => c.method).join(', ') || 'none';
          reject(new Error(`fake Slack: no matching ${method} call within ${timeoutMs} ms (calls: ${seen})`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    responseUrl: (id = `R${String(++responseSeq).padStart(4, '0')}`) =>
      `${origin}/response/${encodeURIComponent(id)}`,
    failNext(method, failure, times = 1) {
      const queue = failures.get(method) ?? [];
      for (let i = 0; i < times; i++) queue.push(failure);
      failures.set(method, queue);
    },
    fault(method, fault, times = 1, when) {
      const queue = faults.get(method) ?? [];
      for (let i = 0; i < times; i++) queue.push(when ? { fault, when } : { fault });
      faults.set(method, queue);
    },
    messages: (channel) =>
      conversation(channel)
        .filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts)
        .map((m) => ({ ...m })),
    replies: (channel, ts) =>
      conversation(channel)
        .filter((m) => m.thread_ts === ts && m.ts !== ts)
        .map((m) => ({ ...m })),
    message(channel, ts) {
      const found = conversation(channel).find((m) => m.ts === ts);
      return found ? { ...found } : undefined;
    },
    entityTrigger(entityId, triggerOptions = {}) {
      const id = `${Math.floor(clock() / 1000)}.${String(++triggerSeq).padStart(10, '0')}.entity${triggerSeq.toString(16).padStart(24, '0')}`;
      triggers.set(id, { entityId, issuedAt: triggerOptions.issuedAt ?? clock() });
      return id;
    },
    presentedDetails: () => presented.map((p) => ({ ...p })),
    setResponse: (method, answer) => void answers.set(method, answer),
    defaultAnswer: (call) => defaults[call.method]?.(call) ?? {},
    postAsUser(channel, text, postOptions = {}) {
      const message: StoredMessage = {
        type: 'message',
        user: postOptions.user ?? SLACK.userId,
        text,
        ts: nextTs(),
      };
      if (postOptions.threadTs) message.thread_ts = postOptions.threadTs;
      conversation(channel).push(message);
      return message.ts;
    },
    file: (id) => uploads.get(id),
    fileUrl: (id) => `${origin}/files/${encodeURIComponent(id)}`,
    setDelay: (method, ms) => void delays.set(method, ms),
    limitReads(limits) {
      readLimits = limits;
      readTimes.clear();
    },
    rateLimited: () => [...refusedReads],
    setLocale: (userId, locale) => void locales.set(userId, locale),
    reset() {
      locales.clear();
      calls.length = 0;
      failures.clear();
      faults.clear();
      stored.clear();
      uploads.clear();
      answers.clear();
      delays.clear();
      triggers.clear();
      presented.length = 0;
      readLimits = null;
      readTimes.clear();
      refusedReads.length = 0;
    },
    socket: socket.api,
    close() {
      for (const waiter of waiters)
        waiter.reject(new Error(`fake Slack closed while waiting for ${waiter.method}`));
      waiters.clear();
      // Upgraded sockets keep the HTTP server open: end the WebSocket links first.
      socket.close();
      for (const res of held) res.destroy();
      held.clear();
      // fetch keeps connections alive; close them so close() does not wait for their idle timeout.
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

interface SocketWaiter {
  check: () => boolean;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The Socket Mode WebSocket endpoint on `server` at SOCKET_PATH (see the file comment). */
function startSocketMode(server: Server, url: string): { api: FakeSocketMode; close(): void } {
  const wss = new WebSocketServer({ noServer: true });
  const open: WebSocket[] = [];
  const received: unknown[] = [];
  const acks: SocketAck[] = [];
  const waiters = new Set<SocketWaiter>();
  let connectionCount = 0;
  let envelopeSeq = 0;

  const poke = () => {
    for (const waiter of waiters) {
      if (waiter.check()) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };
  const waitUntil = (check: () => boolean, what: string, timeoutMs: number) => {
    if (check()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: SocketWaiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`fake Slack socket: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  };

  server.on('upgrade', (req, stream, head) => {
    if (new URL(req.url ?? '/', 'http://fake').pathname !== SOCKET_PATH) {
      stream.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, stream, head, (ws) => {
      connectionCount += 1;
      open.push(ws);
      ws.on('message', (data, isBinary) => {
        const text = isBinary ? '' : data.toString();
        let message: unknown = text;
        try {
          message = JSON.parse(text);
        } catch {
          // not JSON: kept as the string
        }
        received.push(message);
        if (typeof message === 'object' && message !== null && 'envelope_id' in message) {
          const m = message as { envelope_id: unknown; payload?: unknown };
          const ack: SocketAck = { envelope_id: String(m.envelope_id), at: Date.now() };
          if (typeof m.payload === 'object' && m.payload !== null)
            ack.payload = m.payload as Record<string, unknown>;
          acks.push(ack);
        }
        poke();
      });
      ws.on('close', () => {
        const index = open.indexOf(ws);
        if (index >= 0) open.splice(index, 1);
        poke();
      });
      ws.on('error', () => {
        // a reset link ends in 'close' too
      });
      ws.send(JSON.stringify(HELLO), () => poke());
    });
  });

  const api: FakeSocketMode = {
    url,
    received,
    get connectionCount() {
      return connectionCount;
    },
    get openConnections() {
      return open.length;
    },
    waitForConnection: (timeoutMs = 3000) =>
      waitUntil(() => open.length > 0, 'Socket Mode connection', timeoutMs),
    waitForDisconnect: (timeoutMs = 3000) =>
      waitUntil(() => connectionCount > 0 && open.length === 0, 'Socket Mode disconnect', timeoutMs),
    send(envelope) {
      const ws = open.at(-1);
      if (!ws) throw new Error('fake Slack socket: no Socket Mode client is connected');
      const envelopeId = envelope.envelope_id ?? `env-${String(++envelopeSeq).padStart(6, '0')}`;
      ws.send(JSON.stringify({ ...envelope, envelope_id: envelopeId }));
      return envelopeId;
    },
    async waitForAck(envelopeId, timeoutMs = 3000) {
      const find = () => acks.find((a) => a.envelope_id === envelopeId);
      await waitUntil(() => find() !== undefined, `ack of envelope ${envelopeId}`, timeoutMs);
      return find() as SocketAck;
    },
    acks: (envelopeId) =>
      envelopeId === undefined ? [...acks] : acks.filter((a) => a.envelope_id === envelopeId),
    cut() {
      open[0]?.terminate();
    },
    requestDisconnect(reason = 'warning', which = 'all') {
      for (const ws of which === 'all' ? open : open.slice(0, 1))
        ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake' } }));
    },
  };

  return {
    api,
    close() {
      for (const waiter of waiters) waiter.reject(new Error('fake Slack closed while waiting on the socket'));
      waiters.clear();
      for (const ws of [...open]) ws.terminate();
      wss.close();
    },
  };
}
