/**
 * platdesk's HTTP side. On PORT, which Slack (and anyone) reaches, in both modes: `GET /healthz`,
 * answering 200 `{"ok":true}` or 503 `{"ok":false}` and nothing more, and, in HTTP mode, Slack's
 * requests at `POST /slack/events` (Bolt's HTTPReceiver behind slack/request-guard.ts); in Socket
 * Mode the receiver is the socket connections' (./slack/socket-connections.ts) and the same
 * routes are served by the health server Bolt runs beside them. `GET /metrics` is there only with
 * METRICS_TOKEN, for that bearer token.
 *
 * On METRICS_PORT, a server of its own (issue 34: the process's insides are not the public's):
 * `GET /metrics` (Prometheus text) and `GET /healthz` with its details: 200 `{"ok":true,…}` or
 * 503 `{"ok":false,…,"problems":[…]}` naming what is down: the store (SQLite or PostgreSQL)
 * while it cannot be reached, Redis (the shared rate limiter), the Slack socket after it was down
 * past its bound, or (PostgreSQL) the database lock that keeps this process alone or among
 * replicas with Redis, while it is not held (store/sole-lock.ts), or the database watch while this
 * replica refuses paid work: its clock too far from the database's, or its database migrated past
 * its build (store/database-watch.ts). The problems are logged too.
 *
 * For Kubernetes (docs/kubernetes.md) two more on PORT, each with a body that names no address or
 * cause: `/livez` answers 200 whenever the process can answer at all (a dependency down is never a
 * reason to restart it), `/readyz` 200 while every check is ready for traffic now, else 503 with
 * the names of those that are not.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { HTTPReceiver, type Receiver } from '@slack/bolt';
import type { CustomRoute } from '@slack/bolt/dist/receivers/custom-routes.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { type HealthCheck, notReady } from './health.js';
import type { Metrics } from './metrics.js';
import type { Limiter } from './plat/limiter.js';
import { boltLogger } from './slack/bolt-logger.js';
import { ackCommandsEarly } from './slack/early-ack.js';
import { guardSlackRequests } from './slack/request-guard.js';
import { createSocketConnections, type SocketConnections } from './slack/socket-connections.js';
import { socketModeFailure } from './slack/start-check.js';
import type { DatabaseWatch } from './store/database-watch.js';
import type { SoleLock } from './store/sole-lock.js';
import type { Store } from './store/store.js';

/** How long /healthz waits for the store to answer before saying it is unreachable. */
const HEALTH_PING_MS = 1500;

/** One part of the process /healthz reports on. */
interface HealthInfo {
  mode: 'socket' | 'http';
  sandbox: boolean;
  checks: HealthCheck[];
}

async function healthBody(info: HealthInfo): Promise<{ status: number; body: Record<string, unknown> }> {
  const body: Record<string, unknown> = { ok: true, mode: info.mode, sandbox: info.sandbox };
  const problems: string[] = [];
  for (const { name, check } of info.checks) {
    const result = await check();
    if (result.detail !== undefined) body[name] = result.detail;
    if (!result.ok) problems.push(result.problem ?? `${name} is down`);
  }
  if (problems.length > 0) {
    body.ok = false;
    body.problems = problems;
  }
  return { status: problems.length > 0 ? 503 : 200, body };
}

/**
 * /healthz as each port serves it (issue 34): the internal port (METRICS_PORT) with every detail;
 * the public one (PORT, which Slack and anyone else reach) says ok or not and nothing of the
 * process's insides, which go to the log instead, once each time they change.
 */
function healthRoutes(info: HealthInfo, logger: Pick<Logger, 'warn' | 'info'>) {
  let lastProblems = '';
  const checked = async () => {
    const result = await healthBody(info);
    const problems = JSON.stringify(result.body.problems ?? []);
    if (problems !== lastProblems) {
      if (result.status === 200) logger.info('health: every check passes again');
      else logger.warn({ problems: result.body.problems }, 'health: not ready');
      lastProblems = problems;
    }
    return result;
  };
  const answer = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  return {
    detailed: (res: ServerResponse) => void checked().then(({ status, body }) => answer(res, status, body)),
    public: (res: ServerResponse) =>
      void checked().then(({ status }) => answer(res, status, { ok: status === 200 })),
    // Liveness: answering is the test (the event loop turned to serve it); nothing else is asked.
    live: (res: ServerResponse) => answer(res, 200, { live: true }),
    ready: (res: ServerResponse) =>
      void notReady(info.checks).then(
        (failing) =>
          answer(
            res,
            failing.length > 0 ? 503 : 200,
            failing.length > 0 ? { ready: false, failing } : { ready: true },
          ),
        () => answer(res, 503, { ready: false, failing: ['checks'] }),
      ),
  };
}

function serveMetrics(metrics: Metrics, res: ServerResponse): void {
  metrics.render().then(
    (text) => {
      res.writeHead(200, { 'content-type': metrics.contentType });
      res.end(text);
    },
    (error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
    },
  );
}

/** Whether a request carries `Authorization: Bearer <token>` (compared in constant time). */
function bearerIs(req: IncomingMessage, token: string): boolean {
  const given = Buffer.from(String(req.headers.authorization ?? ''));
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * The routes of the public port beside Slack's: /healthz (ok or not), /livez and /readyz (the
 * kubelet's), /metrics with METRICS_TOKEN.
 */
function publicRoutes(
  health: ReturnType<typeof healthRoutes>,
  metrics: Metrics,
  metricsToken: string | null,
): CustomRoute[] {
  const routes: CustomRoute[] = [
    { path: '/healthz', method: ['GET'], handler: (_req, res) => health.public(res) },
    { path: '/livez', method: ['GET'], handler: (_req, res) => health.live(res) },
    { path: '/readyz', method: ['GET'], handler: (_req, res) => health.ready(res) },
  ];
  if (metricsToken !== null)
    routes.push({
      path: '/metrics',
      method: ['GET'],
      handler: (req, res) => {
        if (bearerIs(req, metricsToken)) return serveMetrics(metrics, res);
        res.writeHead(401, { 'www-authenticate': 'Bearer' });
        res.end();
      },
    });
  return routes;
}

/** The internal server (METRICS_PORT): /metrics and /healthz with its details, nothing else. */
function internalServer(health: ReturnType<typeof healthRoutes>, metrics: Metrics): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') return serveMetrics(metrics, res);
    if (req.method === 'GET' && path === '/healthz') return health.detailed(res);
    res.writeHead(404);
    res.end();
  });
}

export interface HttpFrontOptions {
  config: Config;
  limiter: Pick<Limiter, 'health'>;
  /** The store: /healthz answers 503 naming it while it cannot be reached. */
  store: Pick<Store, 'engine' | 'ping'>;
  /** PostgreSQL: the lock that keeps this process alone (or among replicas with Redis); null on SQLite. */
  soleLock: Pick<SoleLock, 'health'> | null;
  /** Whether the database lets this replica take paid work: its clock, the schema (store/database-watch.ts). */
  databaseWatch: Pick<DatabaseWatch, 'state'>;
  /** Charges kept until the ledger can be written (shown with the store). */
  ledgerBacklog: () => number;
  metrics: Metrics;
  logger: Logger;
  sandbox: boolean;
  /** Socket Mode: /healthz fails after this long without a connection. */
  socketLivenessMs: number;
  /** Socket Mode: called once no connection has been open for `socketLivenessMs`. */
  onSocketDeaf?: (downForMs: number) => void;
  /** Distributed mode: Slack's install routes (`/slack/install`, `/slack/oauth_redirect`). */
  installRoutes?: CustomRoute[];
  /** The MCP server (issue 37, mcp/server.ts) at `/mcp`, on this port in both modes. */
  mcp?: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface HttpFront {
  /** Bolt's receiver: HTTP (POST /slack/events and the routes) or the Socket Mode connections. */
  receiver: Receiver;
  /** The internal server of /metrics and /healthz's details (METRICS_PORT); null when off. */
  internal: Server | null;
  /** Socket Mode: the health server Bolt runs for the routes (start-up watches it listen). */
  healthServer: Server | undefined;
  /** Socket Mode: the socket clients (start-up watches them for a failure before hello). */
  socketClients: SocketConnections['clients'];
}

/** The receiver for the configured mode, serving /healthz (limiter, socket) and /metrics. */
export function createHttpFront(options: HttpFrontOptions): HttpFront {
  const { config, limiter, metrics, logger } = options;
  const engine = config.redisUrl ? 'redis' : 'in-process';
  const checks: HealthCheck[] = [
    {
      name: 'store',
      check: async () => {
        const { store } = options;
        const reachable = await store.ping(HEALTH_PING_MS);
        const detail = { engine: store.engine, reachable, ledgerBacklog: options.ledgerBacklog() };
        if (reachable) return { ok: true, detail };
        return { ok: false, detail, problem: `the ${store.engine} store is unreachable` };
      },
    },
    {
      name: 'limiter',
      check: () => {
        const health = limiter.health();
        if (health.ok) return { ok: true, detail: engine };
        return { ok: false, detail: engine, problem: `Redis unreachable: ${health.reason}` };
      },
    },
  ];
  const { soleLock } = options;
  if (soleLock)
    checks.push({
      name: 'databaseLock',
      check: () => {
        const { mode, held, problem } = soleLock.health();
        // Without the lock the limiter refuses every plat call (plat/gated-limiter.ts): said here.
        return { ok: held, detail: { mode, held, callsRefused: !held }, ...(problem ? { problem } : {}) };
      },
    });
  const { databaseWatch } = options;
  checks.push({
    name: 'database',
    check: () => {
      const { skewMs, budgetMs, schema, refusal } = databaseWatch.state();
      const detail = {
        clockSkewMs: skewMs,
        clockSkewBudgetMs: budgetMs,
        schema: { build: schema.known, database: schema.found },
        paidWorkRefused: refusal?.reason ?? null,
      };
      return refusal ? { ok: false, detail, problem: refusal.problem } : { ok: true, detail };
    },
  });
  const health = healthRoutes({ mode: config.slack.mode, sandbox: options.sandbox, checks }, logger);
  const routes = [
    ...publicRoutes(health, metrics, config.metricsToken),
    ...(options.installRoutes ?? []),
    ...(options.mcp
      ? [{ path: '/mcp', method: ['POST', 'GET', 'DELETE'], handler: options.mcp } satisfies CustomRoute]
      : []),
  ];
  const internal = config.metricsPort === null ? null : internalServer(health, metrics);
  if (config.slack.mode === 'socket') {
    const sockets = createSocketConnections({
      appToken: config.slack.appToken ?? '',
      connections: config.slack.socketConnections,
      port: config.port,
      routes,
      apiUrl: config.slack.apiUrl,
      logger,
      metrics,
      livenessMs: options.socketLivenessMs,
      ...(options.onSocketDeaf ? { onDeaf: options.onSocketDeaf } : {}),
    });
    checks.push(sockets.health);
    return {
      receiver: sockets.receiver,
      internal,
      healthServer: sockets.httpServer,
      socketClients: sockets.clients,
    };
  }
  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret ?? '',
    endpoints: '/slack/events',
    customRoutes: routes,
    logger: boltLogger(logger),
  });
  const reading = ackCommandsEarly(receiver, { signingSecret: config.slack.signingSecret ?? '', logger });
  // Outermost: what its headers refuse is refused before its body is read; the body is read once
  // there, within its kind's bound, and reused by the early ack and Bolt.
  guardSlackRequests(receiver, { logger, metrics, reading });
  return { receiver, internal, healthServer: undefined, socketClients: [] };
}

/**
 * Starts the app on its front: the HTTP server that takes Slack's requests, or in Socket Mode the
 * connections and the health server. Resolves with the server that serves /healthz (null when
 * Socket Mode runs none); rejects with what stopped it, for the caller to undo what it opened.
 */
export async function startFront(
  app: { start(port: number): Promise<unknown> },
  front: HttpFront,
  config: Pick<Config, 'port' | 'metricsPort'> & { slack: Pick<Config['slack'], 'mode'> },
): Promise<Server | null> {
  const { healthServer, socketClients, internal } = front;
  // The internal port first: a port in use stops start-up before Slack's side opens.
  if (internal && config.metricsPort !== null) {
    const listened = listening(internal);
    internal.listen(config.metricsPort);
    await listened;
  }
  // Socket Mode: Bolt's receiver serves the health routes on its own HTTP server and calls
  // listen() without reporting the outcome; watch it so a port in use fails start-up clearly.
  const healthListening = healthServer ? listening(healthServer) : Promise.resolve();
  // Socket Mode: a WebSocket that fails before Slack's hello would be retried forever by the
  // socket client; at start it is a reason to stop, said once.
  let onSocketError: ((error: unknown) => void) | undefined;
  const socketFailed = new Promise<never>((_, reject) => {
    onSocketError = (error) => reject(socketModeFailure(error));
    for (const client of socketClients) client.once('error', onSocketError);
  });
  try {
    const [started] = await Promise.race([
      Promise.all([app.start(config.port), healthListening]),
      socketFailed,
    ]);
    return config.slack.mode === 'http' ? (started as Server) : (healthServer ?? null);
  } finally {
    if (onSocketError) for (const client of socketClients) client.removeListener('error', onSocketError);
  }
}

/** Resolves when the server listens; rejects with its error (e.g. EADDRINUSE). */
function listening(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
}
