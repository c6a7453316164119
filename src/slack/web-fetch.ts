/**
 * The `fetch` every Slack Web client of platdesk uses (WebClient's `fetch` option, and so Bolt's
 * `respond` to a response_url): one request on node:http / node:https, which the app has loaded
 * anyway, instead of Node's global `fetch`. The global one compiles Node's whole bundled undici and
 * web streams on its first call, the start-up auth.test: the largest single item of start's CPU
 * (docs/architecture.md, "What start costs").
 *
 * It does what @slack/web-api 8 and Bolt 5 ask of a fetch, no more: `method`, `headers` (a plain
 * object), a body that is a string (form-encoded or JSON) or a FormData (a file upload: web-api
 * puts each file in as a Blob), `redirect: 'error'` (a redirect then rejects, as fetch does),
 * `signal` (a timeout or abort ends the request and rejects with the signal's reason). The answer
 * is read whole before it resolves (Slack's answers are small): `status`, `statusText`, `ok`,
 * `url`, `headers.get/has/entries`, `text()`, `json()`, `arrayBuffer()`. No redirect is followed and
 * no compression is asked for.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

type Body = string | FormData | null | undefined;

export interface SlackFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: Body;
  redirect?: 'error' | 'follow' | 'manual';
  signal?: AbortSignal | null;
  /**
   * Called at the last moment before the request is opened (after the body is encoded); a throw
   * rejects the fetch with nothing sent. A fenced post checks its lease here (fencedSlackFetch).
   */
  beforeSend?: () => void;
}

/** The answer's headers, as fetch's Headers reads them (names case-insensitive). */
class AnswerHeaders {
  readonly #values = new Map<string, string>();

  constructor(raw: IncomingHttpHeaders) {
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined) continue;
      // fetch joins a repeated header with ", " (set-cookie aside, which Slack's API does not use).
      this.#values.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
    }
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  entries(): IterableIterator<[string, string]> {
    return this.#values.entries();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#values.entries();
  }
}

export class SlackFetchResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly headers: AnswerHeaders;
  readonly #body: Buffer;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ) {
    this.ok = status >= 200 && status < 300;
    this.headers = new AnswerHeaders(headers);
    this.#body = body;
  }

  async text(): Promise<string> {
    return this.#body.toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.#body.toString('utf8'));
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const copy = new Uint8Array(this.#body.byteLength);
    copy.set(this.#body);
    return copy.buffer;
  }
}

/** A form field's name or file name in a multipart header, escaped as the HTML standard does. */
const escapeName = (name: string) => name.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');

/** multipart/form-data of a FormData (strings and Blobs), with its Content-Type. */
async function multipart(form: FormData): Promise<{ bytes: Buffer; contentType: string }> {
  const boundary = `----platdesk${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of form.entries()) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"`;
    if (typeof value === 'string') {
      parts.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(value.replace(/\r?\n|\r/g, '\r\n')));
    } else {
      head += `; filename="${escapeName(value.name)}"\r\nContent-Type: ${value.type || 'application/octet-stream'}`;
      parts.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(await value.arrayBuffer()));
    }
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { bytes: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function encodeBody(
  body: Body,
  headers: Record<string, string>,
): Promise<{ bytes: Buffer | null; headers: Record<string, string> }> {
  if (body === null || body === undefined) return { bytes: null, headers };
  if (typeof body === 'string') {
    const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
    return {
      bytes: Buffer.from(body, 'utf8'),
      headers: hasType ? headers : { ...headers, 'Content-Type': 'text/plain;charset=UTF-8' },
    };
  }
  const { bytes, contentType } = await multipart(body);
  // The boundary is ours: a Content-Type given for a FormData would name another (fetch ignores it too).
  const rest = Object.fromEntries(
    Object.entries(headers).filter(([h]) => h.toLowerCase() !== 'content-type'),
  );
  return { bytes, headers: { ...rest, 'Content-Type': contentType } };
}

/** fetch, as far as Slack's Web API clients use it (see the module's comment). */
export async function slackFetch(
  input: string | URL,
  init: SlackFetchInit = {},
): Promise<SlackFetchResponse> {
  const url = new URL(String(input));
  const signal = init.signal ?? null;
  signal?.throwIfAborted();
  const encoded = await encodeBody(init.body, init.headers ?? {});
  signal?.throwIfAborted();
  const headers: Record<string, string | number> = { ...encoded.headers };
  if (encoded.bytes) headers['Content-Length'] = encoded.bytes.byteLength;
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError(`fetch failed: unsupported protocol ${url.protocol}`);
  // The CommonJS exports, not an ESM import: `import … from 'node:http'` builds the module's
  // namespace, which reads node:http's lazy `WebSocket` export and so loads Node's whole bundled
  // undici, the very cost this module avoids. node:https (TLS) is loaded with the first https call.
  const send = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http').request;
  init.beforeSend?.();
  signal?.throwIfAborted();

  return new Promise<SlackFetchResponse>((resolve, reject) => {
    const req = send(url, { method: init.method ?? 'GET', headers });
    const onAbort = () => {
      const reason: unknown = signal?.reason;
      req.destroy(reason instanceof Error ? reason : new Error(String(reason)));
      reject(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    req.on('error', (error) => {
      done();
      reject(new TypeError('fetch failed', { cause: error }));
    });
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location !== undefined && init.redirect === 'error') {
        res.resume();
        done();
        reject(new TypeError('fetch failed', { cause: new Error(`redirect to ${res.headers.location}`) }));
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => {
        done();
        reject(new TypeError('fetch failed', { cause: error }));
      });
      // A connection cut mid-answer: not every Node version says so with an 'error'.
      res.on('close', () => {
        if (res.complete) return;
        done();
        reject(new TypeError('fetch failed', { cause: new Error('the answer was cut off') }));
      });
      res.on('end', () => {
        done();
        resolve(
          new SlackFetchResponse(
            url.href,
            status,
            res.statusMessage ?? '',
            res.headers,
            Buffer.concat(chunks),
          ),
        );
      });
    });
    req.end(encoded.bytes ?? undefined);
  });
}

/**
 * The longest one request to Slack's Web API may take before it is given up (web-api's `timeout`,
 * each attempt): web-api's default is none, and a request Slack never answers would hold what
 * waits for it (a "Run now" on its progress message, a listener) for ever (DESIGN rule 10).
 */
export const SLACK_CALL_TIMEOUT_MS = 20_000;

/**
 * `options` for a WebClient (or Bolt's `clientOptions`, or Socket Mode's), with platdesk's fetch
 * and a timeout: every Slack Web client the app builds gets its options from here.
 */
export function slackClientOptions<T extends object>(
  options: T,
): T & { fetch: typeof fetch; timeout: number } {
  const given = options as { fetch?: typeof fetch; timeout?: number };
  return {
    ...options,
    fetch: given.fetch ?? (slackFetch as unknown as typeof fetch),
    timeout: given.timeout ?? SLACK_CALL_TIMEOUT_MS,
  };
}

/** What fences a request: a check that throws when it may not be sent, and a signal that ends it. */
export interface RequestFence {
  readonly signal: AbortSignal;
  check(): void;
}

/** The fence refused a request before it was opened: nothing was sent (`cause`: the fence's error). */
export class FenceRefusedError extends Error {
  readonly code = 'fence_refused';
  constructor(options: { cause: unknown }) {
    super(`not sent: ${String(options.cause)}`, options);
    this.name = 'FenceRefusedError';
  }
}

/**
 * platdesk's fetch for one fenced request (a keyed post of a held run, issue 33 finding 5): the
 * fence is checked right before the request is opened, and its signal ends the request as the
 * client's own timeout does (a request cut that way may have reached Slack: its outcome is unknown).
 */
export function fencedSlackFetch(fence: RequestFence): typeof fetch {
  const fenced = (input: string | URL, init: SlackFetchInit = {}) =>
    slackFetch(input, {
      ...init,
      signal: init.signal ? AbortSignal.any([init.signal, fence.signal]) : fence.signal,
      beforeSend: () => {
        init.beforeSend?.();
        try {
          fence.check();
        } catch (error) {
          throw new FenceRefusedError({ cause: error });
        }
      },
    });
  return fenced as unknown as typeof fetch;
}
