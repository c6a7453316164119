/**
 * The plat API as the simulator's processes reach it: an HTTP forwarder in front of the sandbox,
 * one port per replica (each replica's PLAT_BASE_URL), that records every call: which replica
 * sent it, when it arrived, what was asked (the operation and its parameters), what the sandbox
 * answered and charged, and whether that answer reached the replica. It is the checker's view
 * of "the calls that reached the service" (Jepsen's history of what the server did).
 *
 * Every answer the sandbox gives carries an id the app keeps in the ledger's `request_id`
 * (platdybw's own `request_id`, else one added here, as a payment API returns a transaction id):
 * the checker finds the ledger row of each answered call by it, so a lost, doubled or misstated
 * charge is found exactly, not by counting.
 *
 * Faults on the plat side (applied here, outside the app): an answer refused with an HTML 500
 * before it reaches the service (nothing charged), an answer read from the service and then the
 * connection cut (charged, never delivered), an answer held back until the app gives up
 * (charged, the app times out), and a slow forward. Error codes the service answers (101, 202)
 * are the sandbox's own faults (`sandbox.setFaults`).
 */
import {
  Agent,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SANDBOX_OPERATIONS } from '../src/sandbox/spec-table.js';

export type PlatFaultKind = 'refuse-500' | 'answer-then-cut' | 'hold-answer' | 'slow';

export interface PlatFault {
  kind: PlatFaultKind;
  /** Calls it still applies to. */
  count: number;
  /** Only calls of this replica (default: any). */
  replica?: number;
  /** Only this operation (default: any). */
  operation?: string;
  /** `slow`: the delay before forwarding. */
  ms?: number;
}

/** One call that reached the plat API's front door. */
export interface PlatCall {
  seq: number;
  /** The replica whose port it came in on. */
  replica: number;
  /** The operation of its path; null for a path the API does not know. */
  operation: string | null;
  /** The operation and its parameters, canonical: two calls asking the same thing have one key. */
  key: string;
  /** performance.now() of this process at arrival. */
  at: number;
  /** What the recorder did to it. */
  fault: PlatFaultKind | null;
  /** The sandbox answered it (a service-side answer exists, charged or not). */
  answered: boolean;
  /** The envelope's code; null when the service gave no envelope. */
  code: number | null;
  /** `withholding_money` of the answer (0 when none): what the service charged. */
  points: number;
  /** The id of its answer (the ledger's request_id), when it has one. */
  requestId: string | null;
  /** The whole answer was written to the replica's connection. */
  delivered: boolean;
  /** performance.now() when it was written, or null. */
  deliveredAt: number | null;
}

export interface PlatRecorder {
  /** The base URL replica `index` uses as PLAT_BASE_URL (one port each). */
  urlOf(index: number): string;
  readonly calls: readonly PlatCall[];
  /**
   * Spans in which this process's event loop stalled past STALL_MS (a loaded machine): calls
   * that arrived meanwhile were timed when it woke, later than they came, so their arrival
   * times are compressed at its end. The checker does not judge the rate on them.
   */
  readonly stalls: readonly { from: number; to: number }[];
  addFault(fault: PlatFault): void;
  /** Faults not used up yet. */
  pendingFaults(): PlatFault[];
  /** Forgets the faults not used up (the drain: the world heals). */
  clearFaults(): void;
  close(): Promise<void>;
}

const ROUTES = new Map<string, string>(
  Object.entries(SANDBOX_OPERATIONS).map(([name, op]) => [`${op.method} ${op.path}`, name]),
);

const HTML_500 = '<html><head><title>500 Internal Server Error</title></head><body>500</body></html>';

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The request's parameters as sorted pairs: the query, then the form or JSON body. */
async function paramsOf(url: URL, body: Buffer, contentType: string | undefined): Promise<string[][]> {
  const pairs: string[][] = [...url.searchParams.entries()];
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (body.length > 0) {
    try {
      if (type === 'application/json') {
        const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        for (const [k, v] of Object.entries(parsed)) pairs.push([k, JSON.stringify(v)]);
      } else if (type === 'multipart/form-data' && contentType !== undefined) {
        const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
        for (const [k, v] of form) pairs.push([k, typeof v === 'string' ? v : '<file>']);
      } else {
        for (const [k, v] of new URLSearchParams(body.toString('utf8'))) pairs.push([k, v]);
      }
    } catch {
      pairs.push(['<body>', body.toString('base64')]);
    }
  }
  return pairs.sort(
    (a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1])),
  );
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The answer with its id: platdybw's own request_id, else `sim-<seq>` added where the client reads
 * one (data.request_id; platiteminfo's item sits at the top level). Returns the body to send.
 */
function tagAnswer(
  text: string,
  seq: number,
): { body: string; code: number | null; points: number; id: string | null } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { body: text, code: null, points: 0, id: null };
  }
  if (!isObject(parsed) || typeof parsed.code !== 'number')
    return { body: text, code: null, points: 0, id: null };
  const holder: Json | null = isObject(parsed.data) ? parsed.data : 'data' in parsed ? null : parsed;
  const charged = Number(
    (isObject(parsed.data) ? parsed.data.withholding_money : undefined) ?? parsed.withholding_money ?? 0,
  );
  let id: string | null = null;
  if (holder) {
    const own = holder.request_id;
    if (typeof own === 'string' && own !== '') id = own;
    else {
      id = `sim-${seq}`;
      holder.request_id = id;
    }
  }
  return {
    body: JSON.stringify(parsed),
    code: parsed.code,
    points: Number.isFinite(charged) ? charged : 0,
    id,
  };
}

/** A tick this much later than due is a stall of the event loop. */
const TICK_MS = 10;
const STALL_MS = 40;

export async function startPlatRecorder(targetUrl: string, replicas: number): Promise<PlatRecorder> {
  const target = new URL(targetUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const calls: PlatCall[] = [];
  const faults: PlatFault[] = [];
  const servers: Server[] = [];
  const ports: number[] = [];
  const sockets = new Set<Socket>();
  /** Answers held back (`hold-answer`): ended at close. */
  const held = new Set<ServerResponse>();
  let seq = 0;
  const stalls: { from: number; to: number }[] = [];
  let lastTick = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    if (now - lastTick > TICK_MS + STALL_MS) stalls.push({ from: lastTick + TICK_MS, to: now });
    lastTick = now;
  }, TICK_MS);
  ticker.unref();

  function takeFault(replica: number, operation: string | null): PlatFault | null {
    const fault = faults.find(
      (f) =>
        f.count > 0 &&
        (f.replica === undefined || f.replica === replica) &&
        (f.operation === undefined || f.operation === operation),
    );
    if (!fault) return null;
    fault.count -= 1;
    return fault;
  }

  function forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; text: string } | null> {
    return new Promise((resolve) => {
      const upstream = request(
        {
          host: target.hostname,
          port: Number(target.port),
          method: req.method,
          path: req.url,
          agent,
          headers: { ...req.headers, host: target.host, 'content-length': String(body.length) },
        },
        (res) => {
          readAll(res).then(
            (raw) => resolve({ status: res.statusCode ?? 0, text: raw.toString('utf8') }),
            () => resolve(null),
          );
        },
      );
      upstream.on('error', () => resolve(null));
      upstream.end(body);
    });
  }

  async function handle(replica: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = performance.now();
    const n = ++seq;
    const url = new URL(req.url ?? '/', 'http://plat.invalid');
    const operation = ROUTES.get(`${req.method} ${url.pathname}`) ?? null;
    const call: PlatCall = {
      seq: n,
      replica,
      operation,
      key: '',
      at,
      fault: null,
      answered: false,
      code: null,
      points: 0,
      requestId: null,
      delivered: false,
      deliveredAt: null,
    };
    // Recorded at arrival, as the service counts it: a call whose sender dies now still arrived.
    calls.push(call);
    const body = await readAll(req);
    call.key = `${operation ?? url.pathname} ${JSON.stringify(await paramsOf(url, body, req.headers['content-type']))}`;
    const fault = takeFault(replica, operation);
    call.fault = fault?.kind ?? null;
    if (fault?.kind === 'refuse-500') {
      send(res, call, 500, 'text/html', HTML_500);
      return;
    }
    if (fault?.kind === 'slow') await new Promise((r) => setTimeout(r, fault.ms ?? 2000));
    const answer = await forward(req, body);
    if (answer === null) {
      res.destroy();
      return;
    }
    const tagged = tagAnswer(answer.text, n);
    call.answered = tagged.code !== null;
    call.code = tagged.code;
    call.points = tagged.points;
    call.requestId = tagged.id;
    if (fault?.kind === 'answer-then-cut') {
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'hold-answer') {
      held.add(res);
      return;
    }
    send(res, call, answer.status, 'application/json; charset=utf-8', tagged.body);
  }

  function send(res: ServerResponse, call: PlatCall, status: number, type: string, body: string): void {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body, () => {
      call.delivered = true;
      call.deliveredAt = performance.now();
    });
  }

  for (let i = 0; i < replicas; i++) {
    const server = createServer((req, res) => {
      handle(i, req, res).catch(() => res.destroy());
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    ports.push((server.address() as AddressInfo).port);
  }

  return {
    urlOf: (index) => `http://127.0.0.1:${ports[index]}`,
    calls,
    stalls,
    addFault: (fault) => void faults.push({ ...fault }),
    pendingFaults: () => faults.filter((f) => f.count > 0).map((f) => ({ ...f })),
    clearFaults: () => void faults.splice(0),
    async close() {
      clearInterval(ticker);
      for (const res of held) res.destroy();
      held.clear();
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      agent.destroy();
    },
  };
}
