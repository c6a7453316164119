/**
 * Composition root: config → logger → store → plat client → Bolt app → http. `npm start` runs
 * this file; tests call startPlatdesk() with their own config.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { App } from '@slack/bolt';
import { type Clock, realClock } from './clock.js';
import { type Config, ConfigError, loadConfig, loadEnvFile } from './config.js';
import type { DigestClock } from './digest/types.js';
import { createHttpFront, listening } from './http-server.js';
import { currentInstance, type Instance } from './instance.js';
import { createLogger, type Logger } from './logger.js';
import { createHousekeeping } from './lookups/housekeeping.js';
import { CLAIM_LEASE_MS } from './lookups/interrupted.js';
import { createLocaleSettings } from './lookups/locale.js';
import { createLookupService } from './lookups/lookup-service.js';
import { lookupOutcomeCodec } from './lookups/outcome-codec.js';
import { platAccountStatus } from './lookups/plat-accounts.js';
import { ALERT_SAMPLE } from './lookups/reconcile.js';
import { SETTING_KEYS } from './lookups/settings.js';
import { createLocalSingleFlight, type SingleFlight } from './lookups/single-flight.js';
import { afterInstall, eraseDueTenants, singleTenantData, uninstallTenant } from './lookups/tenancy.js';
import type { LookupOutcome } from './lookups/types.js';
import { Metrics } from './metrics.js';
import { createPlatClient, longestCallMs, type RetryPolicy } from './plat/client.js';
import { gatedLimiter } from './plat/gated-limiter.js';
import { createPlatHttp, DEFAULT_TIMEOUTS, type HttpTimeouts } from './plat/http.js';
import type { Limiter, LimiterOptions } from './plat/limiter.js';
import { createLocalLimiter } from './plat/local-limiter.js';
import type { Sandbox } from './sandbox/index.js';
import { createAdminAlerts } from './slack/admin-alerts.js';
import { boltLogger } from './slack/bolt-logger.js';
import { createDigests } from './slack/digest/wiring.js';
import { createSlackInstalls } from './slack/installs.js';
import { createClaimWatch } from './slack/interrupted-lookups.js';
import { createLocaleResolver } from './slack/locale-resolver.js';
import { registerListeners } from './slack/register.js';
import { observeAcks } from './slack/request-log.js';
import { SOCKET_LIVENESS_MS } from './slack/socket-connections.js';
import {
  checkBotToken,
  explainSlackStartFailure,
  isSlackApiError,
  socketModeFailure,
} from './slack/start-check.js';
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
  /** The plat rate limiter (in-process, or shared through Redis). */
  limiter: Limiter;
  /**
   * Resolves when the digest and alert schedulers have no plan, wake-up or run under way (a
   * test's fake clock waits for it between timers).
   */
  schedulersIdle(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  now?: () => Date;
  /** Tests: a short plat deadline and fast retries, so timeouts and 101 storms run in milliseconds. */
  platTimeouts?: Partial<HttpTimeouts>;
  platRetry?: Partial<RetryPolicy>;
  /** Tests: the schedulers' timers (digests, alerts) on a clock they move by hand. */
  schedulerClock?: DigestClock;
  /** Tests: the schedulers' longest sleep (every due time is a timer of its own; default a minute). */
  schedulerMaxSleepMs?: number;
  /** How long stop() waits for confirmed lookups to finish (default DRAIN_TIMEOUT_MS). */
  drainTimeoutMs?: number;
  /** How often old rows are pruned (default HOUSEKEEPING_EVERY_MS, hourly). */
  housekeepingEveryMs?: number;
  /** Socket Mode: /healthz fails after this long without a connection (default SOCKET_LIVENESS_MS). */
  socketLivenessMs?: number;
  /** Socket Mode: called once no connection has been open that long (the process runner exits). */
  onSocketDeaf?: (downForMs: number) => void;
  /**
   * Tests: who this process is in claim records (default currentInstance()); replicas started in
   * one test process stand for processes on different hosts.
   */
  instance?: Instance;
  /** Tests: a short claim lease and renewal beat (default CLAIM_LEASE_MS, CLAIM_RENEW_MS). */
  claims?: { leaseMs: number; renewEveryMs: number };
}

/** Below Docker's default 10 s stop timeout, so the process exits on its own. */
export const DRAIN_TIMEOUT_MS = 8_000;
/** After cutting off calls past the drain bound: time for their lookups to record it and answer. */
const CUT_OFF_GRACE_MS = 1_000;
const PLAT_BUCKETS_MS = [25, 50, 100, 250, 500, 1000, 2500, 5000, 15000];

export async function startPlatdesk(config: Config, options: StartOptions = {}): Promise<Platdesk> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // One Clock type and one real clock for the limiter, the scheduler and the store; tests may set
  // the wall time the scheduler and the store read (the limiter always runs on real time).
  const appNow = options.now;
  const clock: Clock = appNow ? { ...realClock, now: () => appNow().getTime() } : realClock;
  const now = () => new Date(clock.now());
  // Slack first: a rejected token or an unreachable Slack stops start-up before anything opens.
  // Distributed mode has no token of its own: each installation's is checked at its install.
  const botIds = config.slack.botToken
    ? await checkBotToken({ token: config.slack.botToken, apiUrl: config.slack.apiUrl, logger })
    : {};
  // PostgreSQL: alone without REDIS_URL, shared with it; taken before migrating, so a process
  // that may not join never touches the schema (store/sole-lock.ts).
  const soleLock = config.database.url
    ? await (await import('./store/sole-lock.js')).takeSoleLock({
        url: config.database.url,
        mode: config.redisUrl ? 'shared' : 'exclusive',
        logger: logger.child({ component: 'database-lock' }),
      })
    : null;
  const store = await openStore({
    url: config.database.url,
    path: config.database.path,
    poolMax: config.database.poolMax,
    clock,
    encryptionKeys: config.encryptionKeys,
    onPoolError: (err) => logger.warn({ err }, 'a database connection failed; the pool will reconnect'),
  }).catch(async (error: unknown) => {
    await soleLock?.release();
    throw error;
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
    // Loaded only with PLAT_SANDBOX=1 (fixtures and all).
    sandbox = (await import('./sandbox/index.js')).createSandbox({ token: config.plat.token });
    baseUrl = await sandbox.listen(0);
    logger.warn({ baseUrl }, 'PLAT_SANDBOX=1: using the built-in sandbox, not the real plat API');
  }
  // Distributed mode: per-workspace plat clients come with the tenants branch; until then the
  // operator's default account (PLAT_BASE_URL, PLAT_TOKEN) serves every workspace.
  if (!baseUrl)
    throw new ConfigError([
      'PLAT_BASE_URL and PLAT_TOKEN are required (in distributed mode: the default plat account)',
    ]);
  // On the sandbox, quotes state what it charges; an operation PLAT_PRICES names keeps those prices.
  const prices = sandbox ? { ...sandbox.prices, ...config.plat.prices } : config.plat.prices;

  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.platTimeouts };
  // PostgreSQL and Redis code is loaded only when configured (src/store/engine.ts, createLimiter).
  const engineLimiter = await createLimiter(config, timeouts.deadlineMs, metrics, logger);
  // PostgreSQL: no call while this process does not hold its database lock (store/sole-lock.ts).
  const limiter = soleLock
    ? gatedLimiter(engineLimiter, () =>
        soleLock.held() ? null : 'this process does not hold its database lock',
      )
    : engineLimiter;
  const singleFlight = await createSingleFlight(config, metrics, logger);
  const http = createPlatHttp({
    baseUrl,
    token: config.plat.token,
    timeouts,
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

  const tenantData = singleTenantData(store);
  const installs = config.slack.distribution
    ? createSlackInstalls({
        distribution: config.slack.distribution,
        installations: store.installations,
        apiUrl: config.slack.apiUrl,
        logger,
        nowMs: () => clock.now(),
        onInstalled: (record) => afterInstall({ store, data: tenantData, logger }, record),
      })
    : null;
  const { receiver, healthServer, socketClients } = createHttpFront({
    ...(installs ? { installRoutes: installs.routes } : {}),
    config,
    limiter,
    store,
    soleLock,
    ledgerBacklog: () => charges.backlog(),
    metrics,
    logger,
    sandbox: sandbox !== null,
    socketLivenessMs: options.socketLivenessMs ?? SOCKET_LIVENESS_MS,
    ...(options.onSocketDeaf ? { onSocketDeaf: options.onSocketDeaf } : {}),
  });
  const app = new App({
    // Single-workspace: the ids from the start-up auth.test, so Bolt makes no auth.test of its own.
    ...(installs ? { authorize: installs.authorize } : { token: config.slack.botToken ?? '', ...botIds }),
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
  const language = createLocaleResolver({
    client: app.client,
    settings: createLocaleSettings(store.settings, config.locale),
    logger,
    now: () => now().getTime(),
  });
  const alerts = createAdminAlerts({ client: app.client, admins, language, logger, sent: store.alertsSent });
  // This process in claim records: a lookup it claims is held under a lease it renews, so after a
  // crash the next start (or another process) sees the claim is orphaned and tells its user.
  const instance = options.instance ?? currentInstance();
  const holder = { instanceId: instance.id, leaseMs: options.claims?.leaseMs ?? CLAIM_LEASE_MS };
  const lookups = createLookupService({
    client,
    store,
    holder,
    prices,
    logger,
    now,
    singleFlight,
    isAdmin,
    isInGroup: createGroupMembership(app.client),
    charges,
    onBudgetAlert: ({ figure, userId, refused }) => {
      void alerts.notify({ kind: 'budget', figure, userId, refused });
    },
  });
  const digests = createDigests({
    slackClient: app.client,
    store,
    // Scheduled spend obeys the workspace's daily and monthly caps, call by call.
    client: lookups.scheduledClient,
    alerts,
    admins,
    language,
    logger,
    prices,
    now,
    metrics,
    charges,
    clock: options.schedulerClock ?? clock,
    ...(options.schedulerMaxSleepMs !== undefined ? { maxSleepMs: options.schedulerMaxSleepMs } : {}),
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
    language,
    ...(installs
      ? {
          installs: {
            async uninstall(tenant: string, reason: string) {
              await uninstallTenant({ store, now }, tenant, reason, config.retentionDays);
              installs.forget(tenant);
            },
            async eraseNow(tenant: string, actorId: string) {
              // Uninstalled in Slack too (apps.uninstall with the workspace's token), then as an
              // uninstall with no retention: the next housekeeping erases the data.
              await installs.clients
                .clientFor(tenant)
                .then((client) =>
                  client.apps.uninstall({
                    client_id: installs.clientId,
                    client_secret: installs.clientSecret,
                  }),
                )
                .catch((err: unknown) =>
                  logger.warn({ err, tenant }, 'apps.uninstall failed; tokens are deleted anyway'),
                );
              await store.audit.record({ actorId, action: 'workspace.erase_requested', detail: tenant });
              await uninstallTenant({ store, now }, tenant, 'admin_request', 0);
              installs.forget(tenant);
            },
            platAccountStatus: (tenant: string) =>
              platAccountStatus(
                store.platAccounts,
                tenant,
                config.plat.baseUrl !== null || config.plat.sandbox,
              ),
          },
        }
      : {}),
  });

  const claims = createClaimWatch({
    store,
    client: app.client,
    language,
    logger,
    instance,
    holder,
    now,
    longestCallMs: longestCallMs(timeouts.deadlineMs, options.platRetry),
    ...(options.claims ? { everyMs: options.claims.renewEveryMs } : {}),
  });
  const housekeeping = createHousekeeping({
    store,
    now,
    logger,
    onSpendDifferences: ({ day, differences }) => {
      void alerts.notify({
        kind: 'spend-totals',
        day,
        count: differences.length,
        sample: differences.slice(0, ALERT_SAMPLE),
      });
    },
    holder: instance.id,
    ...(installs ? { eraseDueTenants: () => eraseDueTenants({ store, data: tenantData, now }) } : {}),
    ...(options.housekeepingEveryMs ? { everyMs: options.housekeepingEveryMs } : {}),
  });

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
  let started: unknown;
  try {
    [started] = await Promise.race([Promise.all([app.start(config.port), healthListening]), socketFailed]);
  } catch (error) {
    // Nothing may stay half-started (a socket reconnecting, the sandbox, the database).
    await app.stop().catch(() => undefined);
    await limiter.stop();
    await singleFlight.stop();
    await sandbox?.close();
    await store.close();
    await soleLock?.release();
    // apps.connections.open (Socket Mode) is the only Slack call of app.start: it used the app token.
    throw isSlackApiError(error)
      ? explainSlackStartFailure(error, { token: 'SLACK_APP_TOKEN', apiUrl: config.slack.apiUrl })
      : error;
  } finally {
    if (onSocketError) for (const client of socketClients) client.removeListener('error', onSocketError);
  }
  const server = config.slack.mode === 'http' ? (started as Server) : (healthServer ?? null);
  if (config.slack.mode === 'http' && server) observeAcks(server, metrics);
  const port = server ? (server.address() as AddressInfo).port : config.port;
  const url = `http://127.0.0.1:${port}`;
  logger.info({ mode: config.slack.mode, port }, 'platdesk started');
  // Synchronously on start, before a request can be read: a click on a cut lookup's button is
  // answered as interrupted, and its user is told within seconds of the restart.
  await claims.tell(await claims.sweep());
  claims.start();
  housekeeping.start();
  // After the app is up: a digest missed while platdesk was down is caught up now (same local day).
  digests.scheduler.start();
  digests.alerts?.start();

  let stopping: Promise<void> | null = null;
  return {
    app,
    url,
    sandbox,
    store,
    charges,
    limiter,
    async schedulersIdle() {
      await Promise.all([digests.scheduler.idle(), digests.alerts?.idle()]);
    },
    stop() {
      // Stop taking new work, let confirmed lookups finish and be recorded, then close.
      stopping ??= (async () => {
        logger.info('platdesk stopping');
        const healthClosed = healthServer?.listening ? once(healthServer, 'close') : Promise.resolve();
        await app.stop();
        await healthClosed;
        // A digest in flight gives its run up (released lease) so the next start takes it over.
        await digests.scheduler.stop();
        await digests.alerts?.stop();
        const { drained, running } = await lookups.drain(options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
        if (!drained) logger.warn({ running }, 'lookups still running at shutdown');
        claims.stop();
        housekeeping.stop();
        // Queued calls are refused now; the limiter lets go of Redis once its calls have settled.
        const limiterStopped = limiter.stop();
        // Past the bound, calls still in flight are cut off (pool.close() would wait for them): they
        // end as timeouts, and their lookups get a moment to record that and tell the user.
        await http.close({ force: !drained });
        if (!drained) await lookups.drain(CUT_OFF_GRACE_MS);
        await limiterStopped;
        await singleFlight.stop();
        await sandbox?.close();
        // Charges kept while the store was unreachable: one last try before closing.
        const kept = await charges.flush();
        charges.stop();
        if (kept > 0) logger.error({ kept }, 'charges not written to the ledger at shutdown');
        await store.close();
        await soleLock?.release();
        logger.info({ drained }, 'platdesk stopped');
      })();
      return stopping;
    },
  };
}

/** The plat rate limiter: shared through Redis with REDIS_URL, else in this process. */
async function createLimiter(
  config: Config,
  deadlineMs: number,
  metrics: Metrics,
  logger: Logger,
): Promise<Limiter> {
  const options: LimiterOptions = {
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
  };
  const limiter = config.redisUrl
    ? (await import('./plat/redis-limiter.js')).createRedisLimiter({
        ...options,
        url: config.redisUrl,
        deadlineMs,
        logger: logger.child({ component: 'limiter' }),
        onWait: (reason) =>
          metrics.inc('platdesk_limiter_redis_waits_total', 'Times a plat call waited for Redis, by reason', {
            reason,
          }),
      })
    : createLocalLimiter(options);
  metrics.gauge('platdesk_limiter_queued', 'Plat calls waiting in the limiter', () => {
    const q = limiter.stats().queued;
    return q.interactive + q.bulk;
  });
  return limiter;
}

/** Identical lookups share one call: across every process with REDIS_URL, else in this one. */
async function createSingleFlight(
  config: Config,
  metrics: Metrics,
  logger: Logger,
): Promise<SingleFlight<LookupOutcome>> {
  return config.redisUrl
    ? (await import('./lookups/redis-single-flight.js')).createRedisSingleFlight({
        url: config.redisUrl,
        codec: lookupOutcomeCodec,
        logger: logger.child({ component: 'single-flight' }),
        onUnavailable: () =>
          metrics.inc(
            'platdesk_single_flight_unavailable_total',
            'Lookups refused before any call because Redis (single flight) was unreachable',
          ),
      })
    : createLocalSingleFlight();
}

/** Runs platdesk as a process (`npm start`): config from the environment and `.env`, stop on SIGTERM. */
export async function main(): Promise<void> {
  let config: Config;
  try {
    loadEnvFile('.env');
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let platdesk: Platdesk | undefined;
  // A replica that stays deaf (no Socket Mode connection past the liveness bound) exits non-zero,
  // so a restart policy replaces it.
  const onSocketDeaf = (downForMs: number) => {
    logger.error({ downForMs }, 'no Slack Socket Mode connection for too long: exiting to be restarted');
    const exit = () => process.exit(1);
    (platdesk ? platdesk.stop() : Promise.resolve()).then(exit, exit);
  };
  try {
    platdesk = await startPlatdesk(config, { logger, onSocketDeaf });
  } catch (error) {
    // One line for the operator; the stack only at debug level (LOG_LEVEL=debug).
    logger.debug({ err: error }, 'start-up failed');
    process.stderr.write(
      `platdesk cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
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
