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
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SLACK } from './slack-payloads.js';

export interface SlackCall {
  /** The Web API method (`chat.postMessage`), `response_url` or `file_upload`. */
  method: string;
  /** The decoded body; JSON-holding form fields (`blocks`, `view`…) are parsed. */
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
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

/** A fixed answer, or one computed from the call; `ok: true` is added unless the answer sets `ok`. */
export type SlackAnswer = Record<string, unknown> | ((call: SlackCall) => Record<string, unknown>);

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
  /** Replaces the default answer of `method` until `reset()`. */
  setResponse(method: string, answer: SlackAnswer): void;
  /** Delays the answers of `method` by `ms` until `reset()` (a slow Slack). */
  setDelay(method: string, ms: number): void;
  /** Forgets calls, pending failures, answers and delays. */
  reset(): void;
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
]);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  return message;
}

export async function startSlackApiServer(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const failures = new Map<string, SlackFailure[]>();
  const answers = new Map<string, SlackAnswer>();
  const delays = new Map<string, number>();
  const waiters = new Set<Waiter>();
  let seq = 0;
  let responseSeq = 0;
  /** Message ts values increase with every message posted, as Slack's do. */
  const nextTs = () => `1700000000.${String(++seq).padStart(6, '0')}`;
  const nextId = (prefix: string) => `${prefix}${String(++seq).padStart(8, '0')}`;
  let origin = '';

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
      return { channel: str(call.body.channel, SLACK.channelId), ts, message: messageOf(call, ts) };
    },
    'chat.postEphemeral': () => ({ message_ts: nextTs() }),
    'chat.update': (call) => {
      const ts = str(call.body.ts, SLACK.messageTs);
      return {
        channel: str(call.body.channel, SLACK.channelId),
        ts,
        text: str(call.body.text, ''),
        message: messageOf(call, ts),
      };
    },
    'chat.delete': (call) => ({
      channel: str(call.body.channel, SLACK.channelId),
      ts: str(call.body.ts, ''),
    }),
    'chat.unfurl': () => ({}),
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
          profile: { display_name: name, real_name: name },
        },
      };
    },
    'usergroups.users.list': () => ({ users: [SLACK.userId, SLACK.secondUserId] }),
    'files.getUploadURLExternal': () => {
      const fileId = nextId('F');
      return { upload_url: `${origin}/upload/${fileId}`, file_id: fileId };
    },
    'files.completeUploadExternal': (call) => {
      const files = Array.isArray(call.body.files)
        ? (call.body.files as { id?: unknown; title?: unknown }[])
        : [];
      return { files: files.map((f) => ({ id: f.id, title: f.title ?? '' })) };
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
    const call: SlackCall = { method, body: decoded.body, headers: req.headers, raw, at: Date.now() };
    if (id !== undefined) call.id = id;
    if (method === 'file_upload') call.bytes = decoded.file ?? raw;
    record(call);

    const delay = delays.get(method);
    if (delay !== undefined) await sleep(delay);

    const failure = takeFailure(method);
    if (failure !== undefined) {
      const status = failure.status ?? (failure.error === 'ratelimited' ? 429 : 200);
      const headers: Record<string, string> = {};
      if (status === 429 || failure.retryAfter !== undefined)
        headers['retry-after'] = String(failure.retryAfter ?? 1);
      send(res, status, { ok: false, error: failure.error }, headers);
      return;
    }

    if (method === 'file_upload') {
      // Slack's upload URL answers 200 with a plain text body.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`OK - ${call.bytes?.length ?? 0}`);
      return;
    }
    const answer = answers.get(method);
    const computed = typeof answer === 'function' ? answer(call) : (answer ?? defaults[method]?.(call) ?? {});
    send(res, 200, { ok: true, ...computed });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { ok: false, error: 'fake_slack_error', detail: String(error) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

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
    setResponse: (method, answer) => void answers.set(method, answer),
    setDelay: (method, ms) => void delays.set(method, ms),
    reset() {
      calls.length = 0;
      failures.clear();
      answers.clear();
      delays.clear();
    },
    close() {
      for (const waiter of waiters)
        waiter.reject(new Error(`fake Slack closed while waiting for ${waiter.method}`));
      waiters.clear();
      // fetch keeps connections alive; close them so close() does not wait for their idle timeout.
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
