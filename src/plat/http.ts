/**
 * The one HTTP path to the plat API: an undici Pool per origin, Bearer auth, explicit
 * connect/headers/body timeouts plus a total deadline. No global dispatcher (it would change
 * the global fetch that @slack/web-api uses) and no undici retry interceptor (retries would
 * bypass the shared limiter): notes.md, "Library facts".
 *
 * undici is loaded with the first call, not at start (it is the largest part of the bundle, and a
 * process that makes no call never needs it); that call waits for it once.
 */
import type { FormData, Pool } from 'undici';
import { FORBIDDEN_ADDRESS } from './address-guard.js';
import {
  PlatAbortedError,
  PlatBadResponseError,
  PlatConnectionError,
  PlatTimeoutError,
  redact,
} from './errors.js';
import { OPERATIONS, type Operation } from './operations.js';
import { loadUndici, type Undici } from './undici.js';

export interface HttpTimeouts {
  /** TCP/TLS connect. */
  connectMs: number;
  /** Inactivity until response headers (undici's headersTimeout). */
  headersMs: number;
  /** Inactivity between body chunks (undici's bodyTimeout). */
  bodyMs: number;
  /** Whole call, start to parsed body: undici's timeouts are inactivity timers, not a deadline. */
  deadlineMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = {
  connectMs: 3_000,
  headersMs: 10_000,
  bodyMs: 10_000,
  deadlineMs: 15_000,
};

export type RequestParams = Record<string, string | number | undefined>;

export interface PlatRequest {
  operation: Operation;
  /** Query parameters (GET) or body fields (POST). */
  params: RequestParams | Record<string, unknown>;
  signal?: AbortSignal | undefined;
  /** Called as the response's headers are read: the request has reached the service (the limiter). */
  onAnswered?: (() => void) | undefined;
  /**
   * Called once the whole request was written to the connection (undici's onRequestSent): from
   * then on it may reach the service even if this process dies; before, it cannot have.
   */
  onSent?: (() => void) | undefined;
}

export interface PlatHttpResponse {
  status: number;
  body: unknown;
}

export interface PlatHttp {
  send(request: PlatRequest): Promise<PlatHttpResponse>;
  /** Loads what the first send needs (undici and the pool); resolves at once after that. */
  warm?(): Promise<void>;
  /**
   * Closes the pool once the calls in flight have finished; with `force`, cuts them off first
   * (shutdown past its bound): they fail as timeouts, since the service may have counted them.
   */
  close(options?: { force?: boolean }): Promise<void>;
}

export interface PlatHttpOptions {
  /** The spec's {base_url}; /papi/tool/... is appended. */
  baseUrl: string;
  token: string;
  timeouts?: Partial<HttpTimeouts>;
  /** Sockets kept per origin; 10 calls/s rarely needs more than a few. */
  connections?: number;
  /**
   * A pool of the origin shared with other accounts (lookups/plat-accounts.ts: one pool per base
   * URL, whatever the token), made by its owner from the undici module loaded with the first
   * call; its owner closes it. Without it this PlatHttp has a pool of its own.
   */
  pool?: (undici: Undici) => Pool;
}

export function createPlatHttp(options: PlatHttpOptions): PlatHttp {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const shared = options.pool ?? null;
  let loaded: Promise<{ undici: Undici; pool: Pool }> | undefined;
  // undici is loaded with the first call (start does not pay for it); a shared pool is made by
  // its owner from the same module.
  const load = () =>
    (loaded ??= loadUndici().then((undici) => ({
      undici,
      pool:
        shared?.(undici) ??
        new undici.Pool(base.origin, {
          connections: options.connections ?? 16,
          connect: { timeout: timeouts.connectMs },
          headersTimeout: timeouts.headersMs,
          bodyTimeout: timeouts.bodyMs,
          keepAliveTimeout: 30_000,
        }),
    })));
  const secrets = [options.token];
  const shutdown = new AbortController();
  /** What the interceptor below does for each request, found by its signal (one per request). */
  const writeHooks = new WeakMap<AbortSignal, WriteHooks>();
  let composed: { pool: Pool; requests: Pool } | undefined;
  /**
   * The pool with an interceptor that watches each request's write: it is not written once its
   * deadline has passed (a request queued for a connection, or for a process that could not run,
   * would otherwise go out after its caller gave up on it, its answer charged and never read), and
   * its `sent` hook is told when undici has written it whole. Built once per pool (a shared pool
   * is the owner's; only this view is ours).
   */
  const withWriteHooks = (undici: Undici, pool: Pool): Pool => {
    if (composed?.pool === pool) return composed.requests;
    // undici's DecoratorHandler forwards every callback, onRequestSent included (its types
    // leave that one out: it is the older handler API, still called by undici 8's h1 client).
    // onRequestStart is called right before the request is written to its connection.
    const Decorator = undici.DecoratorHandler as unknown as new (
      handler: object,
    ) => {
      onRequestSent?(...args: unknown[]): unknown;
      onRequestStart?(controller: { abort(reason: Error): void }, context: unknown): unknown;
    };
    class WatchedHandler extends Decorator {
      readonly #hooks: WriteHooks;
      constructor(handler: object, hooks: WriteHooks) {
        super(handler);
        this.#hooks = hooks;
      }
      override onRequestStart(controller: { abort(reason: Error): void }, context: unknown) {
        if (this.#hooks.expired()) {
          controller.abort(timeoutReason());
          return;
        }
        return super.onRequestStart?.(controller, context);
      }
      override onRequestSent(...args: unknown[]) {
        this.#hooks.sent();
        return super.onRequestSent?.(...args);
      }
    }
    const requests = pool.compose((dispatch) => (opts, handler) => {
      const { signal } = opts as { signal?: unknown };
      const hooks = signal instanceof AbortSignal ? writeHooks.get(signal) : undefined;
      return dispatch(opts, hooks ? (new WatchedHandler(handler, hooks) as typeof handler) : handler);
    }) as unknown as Pool;
    composed = { pool, requests };
    return requests;
  };

  async function send({
    operation,
    params,
    signal,
    onAnswered,
    onSent,
  }: PlatRequest): Promise<PlatHttpResponse> {
    const spec = OPERATIONS[operation];
    const loadedPool = await load();
    const { undici } = loadedPool;
    const pool = withWriteHooks(undici, loadedPool.pool);
    const started = performance.now();
    const { signal: deadline, clear: clearDeadline } = deadlineAfter(timeouts.deadlineMs);
    const combined = AbortSignal.any(
      signal ? [signal, deadline, shutdown.signal] : [deadline, shutdown.signal],
    );
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      accept: 'application/json',
    };
    let path = `${basePath}${spec.path}`;
    let body: string | FormData | undefined;
    if (spec.body === 'none') {
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, String(v));
      const qs = query.toString();
      if (qs) path += `?${qs}`;
    } else if (spec.body === 'json') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(params);
    } else {
      // spec §4.7: paging-orders' examples send multipart form fields.
      const form = new undici.FormData();
      for (const [k, v] of Object.entries(params)) if (v !== undefined) form.set(k, String(v));
      body = form;
    }

    let written = false;
    writeHooks.set(combined, {
      expired: () => performance.now() - started >= timeouts.deadlineMs,
      sent: () => {
        written = true;
        onSent?.();
      },
    });
    let status: number;
    let text: string;
    try {
      const res = await pool.request({
        path,
        method: spec.method,
        headers,
        body: body ?? null,
        signal: combined,
      });
      status = res.statusCode;
      onAnswered?.();
      text = await res.body.text();
    } catch (error) {
      throw transportError(undici.errors, operation, error, {
        signal,
        deadline,
        written,
        cutOff: shutdown.signal.aborted ? performance.now() - started : null,
        timeouts,
        secrets,
      });
    } finally {
      clearDeadline();
    }
    // A body may echo the token (a proxy's error page, a msg quoting the header): remove it before
    // the parsed body (msg → error messages), an excerpt cut mid-token or JSON.parse's error can hold it.
    const safeText = redact(text, secrets);
    try {
      return { status, body: JSON.parse(safeText) as unknown };
    } catch (error) {
      // notes.md: HTTP status codes are undocumented; any JSON body is read by its code, anything
      // else is a transport error.
      const excerpt = safeText.slice(0, 80).replace(/\s+/g, ' ');
      throw new PlatBadResponseError(operation, status, excerpt || '(empty body)', error);
    }
  }

  return {
    send,
    // The client waits for this before it asks for a slot, so undici's first load (tens to
    // hundreds of ms) is never spent between a call's grant and its send.
    warm: async () => {
      await load();
    },
    async close({ force = false } = {}) {
      // A shared pool: this account's calls are cut off, the pool is its owner's to close.
      if (shared) {
        if (force) shutdown.abort();
        return;
      }
      if (!loaded) return;
      const { pool } = await loaded;
      if (!force) return pool.close();
      shutdown.abort();
      await pool.destroy();
    },
  };
}

/**
 * A call's deadline: AbortSignal.timeout's, but aborting one turn of the event loop later. A
 * process that could not run when the deadline passed (stopped, on a suspended host, or in a long
 * synchronous stretch) runs its due timers before it reads its sockets (Linux ends the wait for
 * them with EINTR after a stop, signal(7)), so a plain timeout would drop an answer that had
 * arrived, one the service charged for, and the ledger would say "no answer" in its place.
 * setImmediate runs after the poll phase: an answer already received is read first. (undici's own
 * headers and body timers tick by loop turns, not by the wall clock, and so do not fire at once.)
 */
/** What the pool's interceptor asks of and tells one request (withWriteHooks). */
interface WriteHooks {
  /** Its deadline has passed: it must not be written now. */
  expired(): boolean;
  /** undici has written it whole to its connection. */
  sent(): void;
}

/** The reason a deadline gives, as AbortSignal.timeout's. */
const timeoutReason = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

function deadlineAfter(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    setImmediate(() =>
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    );
  }, ms);
  // As AbortSignal.timeout's: a call in flight alone does not keep the process alive.
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

function transportError(
  undiciErrors: Undici['errors'],
  operation: Operation,
  error: unknown,
  ctx: {
    signal: AbortSignal | undefined;
    deadline: AbortSignal;
    /**
     * undici wrote the whole request to its connection. One never written whole cannot have
     * reached the service: an HTTP server acts on a whole request only.
     */
    written: boolean;
    /** ms the call had run when close({ force }) cut it off, else null. */
    cutOff: number | null;
    timeouts: HttpTimeouts;
    secrets: string[];
  },
) {
  // Cancelled while in flight: a request written whole may have been delivered (overstate rather
  // than lose a ledger row). A job cancelled while queued never gets here (the limiter refuses it).
  if (ctx.signal?.aborted)
    return new PlatAbortedError(`${operation} was cancelled`, {
      operation,
      cause: error,
      reachedService: ctx.written,
    });
  // The deadline passed: in flight, or before the request was written (withWriteHooks).
  if (ctx.deadline.aborted || (error instanceof DOMException && error.name === 'TimeoutError'))
    return new PlatTimeoutError(operation, ctx.timeouts.deadlineMs, error, ctx.written);
  if (ctx.cutOff !== null) return new PlatTimeoutError(operation, Math.round(ctx.cutOff), error, ctx.written);
  // Never connected: the request cannot have reached the service.
  if (error instanceof undiciErrors.ConnectTimeoutError)
    return new PlatTimeoutError(operation, ctx.timeouts.connectMs, error, false);
  if (error instanceof undiciErrors.HeadersTimeoutError)
    return new PlatTimeoutError(operation, ctx.timeouts.headersMs, error, ctx.written);
  if (error instanceof undiciErrors.BodyTimeoutError)
    return new PlatTimeoutError(operation, ctx.timeouts.bodyMs, error, ctx.written);
  const detail =
    error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return new PlatConnectionError(
    `${operation}: could not reach the data service (${redact(detail, ctx.secrets)})`,
    {
      operation,
      cause: error,
      // A refused or unresolvable connection sent nothing; a socket closed mid-call after the
      // request was written may have delivered it, so it is counted as having reached the service.
      reachedService: ctx.written && !NOT_CONNECTED.has(errnoOf(error) ?? ''),
    },
  );
}

const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // A workspace's account whose host is not a public address: refused before connecting.
  FORBIDDEN_ADDRESS,
]);

function errnoOf(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_CONNECTED.has(code)) return code;
  }
  return undefined;
}
