/**
 * The real plat client (http + limiter + client, nothing mocked) wired to the real sandbox over
 * loopback HTTP on port 0 (CONVENTIONS.md item 10), plus a tiny canned JSON server that stands in
 * for the remote when a test needs a wire shape the sandbox does not produce (spec/notes.md's
 * "also seen" column) or wants to see exactly what the client sent.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPlatClient, type PlatClient, type RetryPolicy } from '../../src/plat/client.js';
import { isPlatError, type PlatError } from '../../src/plat/errors.js';
import { createPlatHttp, type HttpTimeouts, type PlatHttp } from '../../src/plat/http.js';
import type { Limiter, LimiterOptions } from '../../src/plat/limiter.js';
import { createLocalLimiter } from '../../src/plat/local-limiter.js';
import { OPERATIONS, type Operation } from '../../src/plat/operations.js';
import type { ChargeEvent } from '../../src/plat/types.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/** Short enough that a hung call fails a test quickly, long enough for a loaded CI machine. */
export const TEST_TIMEOUTS: Partial<HttpTimeouts> = { connectMs: 1_000, deadlineMs: 3_000 };

export interface PlatClientRigOptions {
  baseUrl: string;
  /** Bearer token the client sends. Default 'sandbox' (the sandbox's default token). */
  token?: string;
  timeouts?: Partial<HttpTimeouts>;
  /** Limiter settings; default: the production defaults (10 per 1000 ms, margin 10). */
  limiter?: LimiterOptions;
  editions?: Partial<Record<Operation, number>>;
  /** Default: the production policy with an instant sleep. */
  retry?: Partial<RetryPolicy>;
  /** Connections the client's pool keeps to the origin (default the production 16). */
  connections?: number;
}

export interface PlatClientRig {
  client: PlatClient;
  http: PlatHttp;
  limiter: Limiter;
  /** Every charge event the client's global onCharge listener received, in order. */
  charges: ChargeEvent[];
  baseUrl: string;
  close(): Promise<void>;
}

/** The production client stack pointed at any base URL (the sandbox, a canned server, a dead port). */
export function createClientRig(options: PlatClientRigOptions): PlatClientRig {
  const charges: ChargeEvent[] = [];
  const http = createPlatHttp({
    baseUrl: options.baseUrl,
    token: options.token ?? 'sandbox',
    timeouts: { ...TEST_TIMEOUTS, ...options.timeouts },
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
  });
  const limiter = createLocalLimiter({ ...options.limiter });
  const client = createPlatClient({
    http,
    limiter,
    onCharge: (event) => charges.push(event),
    retry: { sleep: async () => {}, ...options.retry },
    ...(options.editions ? { editions: options.editions } : {}),
  });
  return {
    client,
    http,
    limiter,
    charges,
    baseUrl: options.baseUrl,
    close: async () => {
      limiter.stop();
      await http.close();
    },
  };
}

export interface PlatHarnessOptions extends Omit<PlatClientRigOptions, 'baseUrl'> {
  sandbox?: SandboxOptions;
  /** Appended to the sandbox's URL for the client (e.g. '/wrong' to reach a 404). */
  basePath?: string;
}

export interface PlatHarness extends PlatClientRig {
  sandbox: Sandbox;
  /** The sandbox's own URL (without basePath), for direct fetches. */
  sandboxUrl: string;
}

/** Starts the sandbox on port 0 and the real client stack against it. `close()` stops both. */
export async function startPlatHarness(options: PlatHarnessOptions = {}): Promise<PlatHarness> {
  const sandbox = createSandbox(options.sandbox);
  const sandboxUrl = await sandbox.listen(0);
  const { sandbox: _s, basePath, ...rig } = options;
  const parts = createClientRig({
    token: options.sandbox?.token ?? 'sandbox',
    ...rig,
    baseUrl: `${sandboxUrl}${basePath ?? ''}`,
  });
  return {
    ...parts,
    sandbox,
    sandboxUrl,
    close: async () => {
      // The sandbox first: it destroys hung sockets, which lets the undici pool close.
      await sandbox.close();
      await parts.close();
    },
  };
}

/** Calls the sandbox directly with fetch (no client), to compare the client's output with the wire. */
export async function rawSandboxCall(
  sandboxUrl: string,
  operation: Operation,
  params: { query?: Record<string, string>; json?: unknown; form?: Record<string, string> },
  token = 'sandbox',
): Promise<Record<string, unknown>> {
  const spec = OPERATIONS[operation];
  const url = new URL(`${sandboxUrl}${spec.path}`);
  for (const [k, v] of Object.entries(params.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: FormData | string | undefined;
  if (params.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(params.json);
  } else if (params.form !== undefined) {
    const form = new FormData();
    for (const [k, v] of Object.entries(params.form)) form.set(k, v);
    body = form;
  }
  const response = await fetch(url, {
    method: spec.method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return (await response.json()) as Record<string, unknown>;
}

// ---- canned server -------------------------------------------------------------------------

export interface CapturedRequest {
  method: string;
  /** Path and query, e.g. /papi/tool/accounts/platiteminfo?itemId=1 */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A JSON object (sent as HTTP 200 application/json), or a raw answer (any status, any text). */
export type CannedAnswer = Record<string, unknown> | { raw: string; status?: number; contentType?: string };
/** Computes the answer from the captured request. */
export type CannedResponder = (request: CapturedRequest) => CannedAnswer | Promise<CannedAnswer>;

export interface CannedServer {
  baseUrl: string;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

function isRaw(answer: unknown): answer is { raw: string; status?: number; contentType?: string } {
  return typeof answer === 'object' && answer !== null && 'raw' in answer && typeof answer.raw === 'string';
}

/**
 * A stand-in for the remote service answering canned bodies. `answer` is a fixed body or a function
 * of the captured request; every request is recorded in `requests`.
 */
export async function startCannedServer(answer: CannedAnswer | CannedResponder): Promise<CannedServer> {
  const requests: CapturedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const url = new URL(req.url ?? '/', 'http://canned.invalid');
    const captured: CapturedRequest = {
      method: req.method ?? '',
      url: req.url ?? '/',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    requests.push(captured);
    const reply = typeof answer === 'function' ? await answer(captured) : answer;
    const raw = isRaw(reply)
      ? reply
      : { raw: JSON.stringify(reply), status: 200, contentType: 'application/json; charset=utf-8' };
    res.writeHead(raw.status ?? 200, { 'content-type': raw.contentType ?? 'application/json' });
    res.end(raw.raw);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A canned server and the real client stack pointed at it; `close()` stops both. */
export async function startCannedRig(
  answer: CannedAnswer | CannedResponder,
  options: Omit<PlatClientRigOptions, 'baseUrl'> = {},
): Promise<PlatClientRig & { server: CannedServer }> {
  const server = await startCannedServer(answer);
  const rig = createClientRig({ ...options, baseUrl: server.baseUrl });
  return {
    ...rig,
    server,
    close: async () => {
      await server.close();
      await rig.close();
    },
  };
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The success envelope of spec §2.1 around `data`. */
export function envelope(data: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { code: 0, msg: 'success', msec: 3, time: 1_717_171_717_171, data, ...extra };
}

/** The PlatError a call rejects with (fails the test if it resolves or rejects with something else). */
export async function platErrorOf(call: Promise<unknown>): Promise<PlatError> {
  let outcome: unknown;
  try {
    outcome = await call;
  } catch (error) {
    if (isPlatError(error)) return error;
    throw error;
  }
  throw new Error(`expected a PlatError, the call resolved with ${JSON.stringify(outcome)?.slice(0, 200)}`);
}

/** Everything about an error that could end up in a log line: message, stack, fields and causes. */
export function everythingSaidBy(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    parts.push(String(current));
    if (current instanceof Error) {
      parts.push(current.stack ?? '');
      parts.push(JSON.stringify(current));
      current = current.cause;
    } else break;
  }
  return parts.join('\n');
}
