/**
 * Composition root: config → logger → store → plat client → Bolt app → http. `npm start` runs
 * this file; tests call startPlatdesk() with their own config.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { App, HTTPReceiver, type Receiver, SocketModeReceiver } from '@slack/bolt';
import type { CustomRoute } from '@slack/bolt/dist/receivers/custom-routes.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { createLookupService } from './lookups/lookup-service.js';
import { SETTING_KEYS } from './lookups/settings.js';
import { Metrics } from './metrics.js';
import { createPlatClient, type RetryPolicy } from './plat/client.js';
import { createPlatHttp, type HttpTimeouts } from './plat/http.js';
import { createLimiter } from './plat/limiter.js';
import { createSandbox, type Sandbox } from './sandbox/index.js';
import { createAdminAlerts } from './slack/admin-alerts.js';
import { boltLogger } from './slack/bolt-logger.js';
import { createDigests } from './slack/digest/wiring.js';
import { reportInterruptedLookups } from './slack/interrupted-lookups.js';
import { registerListeners } from './slack/register.js';
import { observeAcks } from './slack/request-log.js';
import { createGroupMembership } from './slack/user-groups.js';
import { openStore } from './store/engine.js';
import { type ChargeRecorder, createChargeRecorder } from './store/ledger.js';
import type { Store } from './store/store.js';

export interface Platdesk {
  app: App;
  /** http://host:port of the HTTP server (Slack events in HTTP mode, health and metrics in both). */
  url: string;
  sandbox: Sandbox | null;
  store: Store;
  /** Charges on their way to the ledger (kept while the store cannot be written). */
  charges: ChargeRecorder;
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  now?: () => Date;
  /** Tests: a short plat deadline and fast retries, so timeouts and 101 storms run in milliseconds. */
  platTimeouts?: Partial<HttpTimeouts>;
  platRetry?: Partial<RetryPolicy>;
  /** How long stop() waits for confirmed lookups to finish (default DRAIN_TIMEOUT_MS). */
  drainTimeoutMs?: number;
}

/** Below Docker's default 10 s stop timeout, so the process exits on its own. */
export const DRAIN_TIMEOUT_MS = 8_000;
/** After cutting off calls past the drain bound: time for their lookups to record it and answer. */
const CUT_OFF_GRACE_MS = 1_000;
/** How long /healthz waits for the store to answer before saying it is unreachable. */
const HEALTH_PING_MS = 1500;
const PLAT_BUCKETS_MS = [25, 50, 100, 250, 500, 1000, 2500, 5000, 15000];

export async function startPlatdesk(config: Config, options: StartOptions = {}): Promise<Platdesk> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const now = options.now ?? (() => new Date());
  const store = await openStore({
    url: config.database.url,
    path: config.database.path,
    poolMax: config.database.poolMax,
    now,
    onPoolError: (err) => logger.warn({ err }, 'a database connection failed; the pool will reconnect'),
  });
  logger.info({ engine: store.engine, location: store.location }, 'store ready');
  const metrics = new Metrics();
  const charges = createChargeRecorder({ ledger: store.ledger, logger });
  metrics.gauge('platdesk_ledger_backlog', 'Charges kept until the ledger can be written', () =>
    charges.backlog(),
  );

  let sandbox: Sandbox | null = null;
  let baseUrl = config.plat.baseUrl;
  if (config.plat.sandbox) {
    sandbox = createSandbox({ token: config.plat.token });
    baseUrl = await sandbox.listen(0);
    logger.warn({ baseUrl }, 'PLAT_SANDBOX=1: using the built-in sandbox, not the real plat API');
  }
  if (!baseUrl) throw new ConfigError(['PLAT_BASE_URL is required']);

  const limiter = createLimiter({
    maxCalls: config.plat.rateLimit.maxCalls,
    windowMs: config.plat.rateLimit.windowMs,
    maxQueued: config.plat.rateLimit.maxQueued,
    onStarted: ({ priority, waitedMs }) => {
      metrics.inc('platdesk_limiter_started_total', 'Plat calls started by the limiter', { priority });
      metrics.inc(
        'platdesk_limiter_wait_ms_total',
        'Milliseconds plat calls waited in the limiter',
        { priority },
        waitedMs,
      );
    },
  });
  metrics.gauge('platdesk_limiter_queued', 'Plat calls waiting in the limiter', () => {
    const q = limiter.stats().queued;
    return q.interactive + q.bulk;
  });
  const http = createPlatHttp({
    baseUrl,
    token: config.plat.token,
    ...(options.platTimeouts ? { timeouts: options.platTimeouts } : {}),
  });
  const client = createPlatClient({
    http,
    limiter,
    editions: config.plat.editions,
    logger,
    ...(options.platRetry ? { retry: options.platRetry } : {}),
    onAttempt: ({ operation, outcome, apiCode, ms }) => {
      metrics.inc('platdesk_plat_calls_total', 'Plat calls sent, by operation and outcome', {
        operation,
        outcome,
        code: apiCode ?? 'none',
      });
      metrics.observe('platdesk_plat_call_ms', 'Plat call duration', PLAT_BUCKETS_MS, ms, { operation });
      if (outcome !== 'ok')
        metrics.inc('platdesk_errors_total', 'Errors by source and code', { source: 'plat', code: outcome });
    },
    onCharge: (e) => {
      metrics.inc(
        'platdesk_plat_points_total',
        'Points withheld by the plat API',
        { operation: e.operation },
        e.points,
      );
    },
  });

  const routes: CustomRoute[] = [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => {
        // 503 naming the store while it cannot be reached, so an orchestrator takes the process
        // out of rotation; it answers 200 again by itself once the database is back.
        void store.ping(HEALTH_PING_MS).then((reachable) => {
          const body = {
            ok: reachable,
            mode: config.slack.mode,
            sandbox: sandbox !== null,
            store: { engine: store.engine, reachable, ledgerBacklog: charges.backlog() },
            ...(reachable ? {} : { error: `the ${store.engine} store is unreachable` }),
          };
          res.writeHead(reachable ? 200 : 503, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        });
      },
    },
    {
      path: '/metrics',
      method: ['GET'],
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
        res.end(metrics.render());
      },
    },
  ];
  const receiver: Receiver =
    config.slack.mode === 'socket'
      ? new SocketModeReceiver({
          appToken: config.slack.appToken ?? '',
          customRoutes: routes,
          installerOptions: {
            port: config.port,
            // The socket client's own WebClient (apps.connections.open) must reach SLACK_API_URL too.
            ...(config.slack.apiUrl ? { clientOptions: { slackApiUrl: config.slack.apiUrl } } : {}),
          },
          logger: boltLogger(logger),
        })
      : new HTTPReceiver({
          signingSecret: config.slack.signingSecret ?? '',
          endpoints: '/slack/events',
          customRoutes: routes,
          logger: boltLogger(logger),
        });
  const app = new App({
    token: config.slack.botToken,
    receiver,
    logger: boltLogger(logger),
    clientOptions: {
      ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
      // A few retries on 429/5xx, not web-api's default of ten spread over half an hour.
      retryConfig: { retries: 3, factor: 2, minTimeout: 1000 },
    },
  });
  const admins = async () => [
    ...new Set([...config.admins, ...((await store.settings.get<string[]>(SETTING_KEYS.admins)) ?? [])]),
  ];
  // Configured admins are admins even while the store is unreachable.
  const isAdmin = async (userId: string) =>
    config.admins.includes(userId) || (await admins()).includes(userId);
  const alerts = createAdminAlerts({ client: app.client, admins, sent: store.alerts, logger });
  const lookups = createLookupService({
    client,
    store,
    prices: config.plat.prices,
    logger,
    now,
    isAdmin,
    isInGroup: createGroupMembership(app.client),
    charges,
    onBudgetAlert: ({ figure, userId, refused }) => {
      const whose = figure.scope === 'user' ? `<@${userId}>'s` : 'The workspace';
      const what = refused ? 'refused a lookup' : 'is at 80 % or more';
      void alerts.notify(
        `:money_with_wings: ${whose} ${figure.period} cap ${what}: ${figure.spent} of ${figure.cap} points used.`,
      );
    },
  });
  const digests = createDigests({
    slackClient: app.client,
    store,
    client,
    alerts,
    admins,
    logger,
    prices: config.plat.prices,
    now,
    metrics,
    charges,
  });
  registerListeners(app, {
    digests,
    lookups,
    client,
    store,
    logger,
    alerts,
    now,
    isAdmin,
    admins,
    configuredAdmins: config.admins,
    metrics,
  });

  // Socket Mode: Bolt's receiver serves the health routes on its own HTTP server and calls
  // listen() without reporting the outcome; watch it so a port in use fails start-up clearly.
  const healthServer =
    config.slack.mode === 'socket' ? (receiver as unknown as { httpServer?: Server }).httpServer : undefined;
  const healthListening = healthServer ? listening(healthServer) : Promise.resolve();
  let started: unknown;
  try {
    [started] = await Promise.all([app.start(config.port), healthListening]);
  } catch (error) {
    // Nothing may stay half-started (a socket reconnecting, the sandbox, the database).
    await app.stop().catch(() => undefined);
    await sandbox?.close();
    await store.close();
    throw error;
  }
  const server = config.slack.mode === 'http' ? (started as Server) : (healthServer ?? null);
  if (config.slack.mode === 'http' && server) observeAcks(server, metrics);
  const port = server ? (server.address() as AddressInfo).port : config.port;
  const url = `http://127.0.0.1:${port}`;
  logger.info({ mode: config.slack.mode, port }, 'platdesk started');
  await reportInterruptedLookups({ store, client: app.client, logger });
  // After the app is up: a digest missed while platdesk was down is caught up now (same local day).
  digests.scheduler.start();

  let stopping: Promise<void> | null = null;
  return {
    app,
    url,
    sandbox,
    store,
    charges,
    stop() {
      // Stop taking new work, let confirmed lookups finish and be recorded, then close.
      stopping ??= (async () => {
        logger.info('platdesk stopping');
        const healthClosed = healthServer?.listening ? once(healthServer, 'close') : Promise.resolve();
        await app.stop();
        await healthClosed;
        // A digest in flight gives its run up (released lease) so the next start takes it over.
        await digests.scheduler.stop();
        const { drained, running } = await lookups.drain(options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
        if (!drained) logger.warn({ running }, 'lookups still running at shutdown');
        limiter.stop();
        // Past the bound, calls still in flight are cut off (pool.close() would wait for them): they
        // end as timeouts, and their lookups get a moment to record that and tell the user.
        await http.close({ force: !drained });
        if (!drained) await lookups.drain(CUT_OFF_GRACE_MS);
        await sandbox?.close();
        // Charges kept while the store was unreachable: one last try before closing.
        const kept = await charges.flush();
        charges.stop();
        if (kept > 0) logger.error({ kept }, 'charges not written to the ledger at shutdown');
        await store.close();
        logger.info({ drained }, 'platdesk stopped');
      })();
      return stopping;
    },
  };
}

/** Resolves when the server listens; rejects with its error (e.g. EADDRINUSE). */
function listening(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const platdesk = await startPlatdesk(config);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      platdesk.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `platdesk failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
