/**
 * Composition root: config → logger → store → plat client → Bolt app → http. `npm start` runs
 * this file; tests call startPlatdesk() with their own config. The parts it wires are built in
 * their own modules: the plat side in plat-wiring.ts, each tenant's parts in tenant-services.ts,
 * the HTTP front in http-server.ts, the stop sequence in shutdown.ts.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { App } from '@slack/bolt';
import { createModelPlanner } from './agent/model.js';
import { wordsFor } from './blocks/i18n/words.js';
import { toolDescription } from './blocks/tools.js';
import { type Clock, realClock } from './clock.js';
import { type Config, ConfigError, loadConfig, loadEnvFile } from './config.js';
import { RUN_LEASE_DEFAULTS } from './digest/run-fence.js';
import type { DigestClock } from './digest/types.js';
import { createHttpFront, startFront } from './http-server.js';
import { currentInstance, type Instance } from './instance.js';
import { createLogger, type Logger } from './logger.js';
import { createHousekeeping } from './lookups/housekeeping.js';
import { CLAIM_LEASE_MS } from './lookups/interrupted.js';
import type { PlatAccounts } from './lookups/plat-accounts.js';
import { ALERT_SAMPLE } from './lookups/reconcile.js';
import { afterInstall, eraseDueTenants } from './lookups/tenancy.js';
import { localTokenRate } from './mcp/rate.js';
import { createMcpHandler } from './mcp/server.js';
import { Metrics } from './metrics.js';
import { longestCallMs, type RetryPolicy } from './plat/client.js';
import { gatedLimiter } from './plat/gated-limiter.js';
import { DEFAULT_TIMEOUTS, type HttpTimeouts } from './plat/http.js';
import type { Limiter } from './plat/limiter.js';
import {
  createLimiter,
  createMeteredPlatClients,
  createSingleFlight,
  platAccountsFor,
} from './plat-wiring.js';
import type { Sandbox } from './sandbox/index.js';
import { createScheduleWaker } from './schedule-wakes.js';
import { shutdownOnce } from './shutdown.js';
import { boltLogger } from './slack/bolt-logger.js';
import { installedSlackClients, singleSlackClient } from './slack/clients.js';
import { createClaimWatch } from './slack/interrupted-lookups.js';
import { storeReadBudgets } from './slack/read-budget.js';
import { registerListeners } from './slack/register.js';
import { observeAcks } from './slack/request-log.js';
import { SOCKET_LIVENESS_MS } from './slack/socket-connections.js';
import { checkBotToken, explainSlackStartFailure, isSlackApiError } from './slack/start-check.js';
import { authorizeFrom, type SlackMode } from './slack/tenant.js';
import { tenantInstalls as tenantInstallsOf } from './slack/tenant-installs.js';
import { slackClientOptions } from './slack/web-fetch.js';
import { createDatabaseWatch, type DatabaseWatch } from './store/database-watch.js';
import { openStore } from './store/engine.js';
import type { ChargeRecorder } from './store/ledger.js';
import { MIGRATIONS } from './store/migrations.js';
import type { SoleLock } from './store/sole-lock.js';
import type { Store } from './store/store.js';
import { SINGLE_TENANT } from './store/tenants.js';
import { createTenantServices, type PartsBounds, type TenantServices } from './tenant-services.js';

export interface Platdesk {
  app: App;
  /** http://host:port of the HTTP server (Slack events in HTTP mode, /healthz in both). */
  url: string;
  /** http://host:port of the internal server (/metrics, /healthz with details); null when off. */
  metricsUrl: string | null;
  sandbox: Sandbox | null;
  store: Store;
  /** Charges on their way to the ledger (kept while the store cannot be written), of every tenant. */
  charges: Pick<ChargeRecorder, 'backlog' | 'flush'>;
  /** Each tenant's parts (tenant-services.ts): its store, lookups, Slack deps. */
  tenants: TenantServices;
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
  /** Bounds of the workspaces' parts kept (tenant-services.ts PARTS_DEFAULTS). */
  tenantParts?: Partial<PartsBounds>;
  /** How often old rows are pruned (default HOUSEKEEPING_EVERY_MS, hourly). */
  housekeepingEveryMs?: number;
  /** Tests: how often a waiting MCP tool call sends progress (default 5 s). */
  mcpProgressEveryMs?: number;
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
  /** Tests: how long a Slack call of an agent's confirmed plan may take (slack/agent/plan-stream.ts). */
  agentSlackTimeoutMs?: number;
  /**
   * Distributed mode before the OAuth install lands (issue 24): the bot installation of each known
   * tenant (store/tenants.ts: the enterprise id of an org-wide install, else the team id); null
   * for an unknown one, whose payloads are then refused by Bolt's authorize and answered nothing.
   * The InstallationStore of the OAuth install plugs in here.
   */
  installations?: (tenant: string) => Promise<BotInstallation | null>;
  /** Which plat account each tenant spends from (default: the operator's for every tenant). */
  platAccounts?: PlatAccounts;
}

/** A tenant's bot, as an installation records it. */
export interface BotInstallation {
  botToken: string;
  botUserId: string;
  botId: string;
}

export { DRAIN_TIMEOUT_MS } from './shutdown.js';

export async function startPlatdesk(config: Config, options: StartOptions = {}): Promise<Platdesk> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // One Clock type and one real clock for the limiter, the scheduler and the store; tests may set
  // the wall time the scheduler and the store read (the limiter always runs on real time).
  const appNow = options.now;
  const clock: Clock = appNow ? { ...realClock, now: () => appNow().getTime() } : realClock;
  const now = () => new Date(clock.now());
  const mode: SlackMode = options.installations || config.slack.distribution ? 'distributed' : 'single';
  // Slack first: a rejected token or an unreachable Slack stops start-up before anything opens.
  // Distributed mode has no token of its own: each installation's is checked at its install.
  const botIds =
    mode === 'single'
      ? await checkBotToken({ token: config.slack.botToken ?? '', apiUrl: config.slack.apiUrl, logger })
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
    // Leases are stamped and judged by the database's clock (DESIGN rule 9); a test that sets the
    // wall time makes its clock the database's too, as for SQLite.
    ...(appNow ? { leaseClock: clock } : {}),
    migrate: config.database.migrate === 'start',
    encryptionKeys: config.encryptionKeys,
    onPoolError: (err) => logger.warn({ err }, 'a database connection failed; the pool will reconnect'),
  }).catch(async (error: unknown) => {
    await soleLock?.release();
    throw error;
  });
  logger.info({ engine: store.engine, location: store.location }, 'store ready');
  // Whether this replica may take paid work, as its database sees it: its clock against the
  // database's, and a schema migrated past this build (store/database-watch.ts). Looked at once
  // before anything is served, then every few seconds, and on PostgreSQL at each migration.
  const databaseWatch = createDatabaseWatch({
    store,
    knownVersion: MIGRATIONS.length,
    skewBudgetMs: config.clockSkewBudgetMs,
    clock,
    logger: logger.child({ component: 'database-watch' }),
  });
  await databaseWatch.check();
  databaseWatch.start();
  soleLock?.onSchemaChange(() => void databaseWatch.check());
  const metrics = new Metrics();
  registerDatabaseWatchMetrics(metrics, databaseWatch, soleLock);
  // Filled in below; every tenant's recorder (tenant-services.ts) counts.
  let services: TenantServices | null = null;
  const charges = {
    backlog: () => (services?.built() ?? []).reduce((n, t) => n + t.charges.backlog(), 0),
    flush: async () =>
      (await Promise.all((services?.built() ?? []).map((t) => t.charges.flush()))).reduce((a, b) => a + b, 0),
  };
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
  // The operator's default account: every tenant's in single-workspace mode; in distributed mode
  // the fallback of a tenant whose admin has connected none (optional there).
  const operatorAccount = baseUrl ? { baseUrl, token: config.plat.token } : null;
  if (!operatorAccount && !config.slack.distribution)
    throw new ConfigError(['PLAT_BASE_URL and PLAT_TOKEN are required']);
  // On the sandbox, quotes state what it charges; an operation PLAT_PRICES names keeps those prices.
  const prices = sandbox ? { ...sandbox.prices, ...config.plat.prices } : config.plat.prices;

  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.platTimeouts };
  // PostgreSQL and Redis code is loaded only when configured (src/store/engine.ts, createLimiter).
  // Calls an earlier life of platdesk sent may still arrive: their slots rest (plat-wiring.ts).
  const engineLimiter = await createLimiter(config, timeouts.deadlineMs, metrics, logger, {
    read: (withinMs) => store.sentCalls.recent(withinMs),
    // A replica further from the database's clock than the budget takes no paid work at all.
    skewMs: store.engine === 'postgres' ? config.clockSkewBudgetMs : 0,
  });
  // No call while this process does not hold its database lock (PostgreSQL: store/sole-lock.ts),
  // nor while its database watch refuses paid work (its clock, a newer schema).
  const limiter = gatedLimiter(engineLimiter, () => {
    if (soleLock && !soleLock.held())
      return { kind: 'lock_lost', why: 'this process does not hold its database lock' };
    const refused = databaseWatch.refusal();
    return refused ? { kind: 'out_of_service', reason: refused.reason, why: refused.problem } : null;
  });
  const singleFlight = await createSingleFlight(config, metrics, logger);
  const platAccounts = options.platAccounts ?? platAccountsFor(config, store, operatorAccount, logger);
  const platClients = createMeteredPlatClients({
    accounts: platAccounts,
    guard: { allowLoopback: config.plat.accountsLoopback },
    timeouts,
    defaults: { prices, editions: config.plat.editions },
    limiter,
    ...(options.platRetry ? { retry: options.platRetry } : {}),
    metrics,
    logger,
  });

  // Distributed mode only: the OAuth install (@slack/oauth, jsonwebtoken) is loaded then.
  const installs = config.slack.distribution
    ? (await import('./slack/installs.js')).createSlackInstalls({
        distribution: config.slack.distribution,
        installations: store.installations,
        apiUrl: config.slack.apiUrl,
        logger,
        nowMs: () => clock.now(),
        onInstalled: async (record) => {
          const { reinstalledBy } = await afterInstall({ store, logger }, record);
          // A reinstall may bring a new bot token: the tenant's parts are built anew.
          await services?.forget(record.tenant);
          if (reinstalledBy && services)
            await (await services.forTenant(record.tenant)).deps.alerts.notify({
              kind: 'reinstalled',
              userId: reinstalledBy,
            });
        },
      })
    : null;
  // /mcp is served once the tenants' parts exist (below); until then it answers 503.
  let mcp: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const front = createHttpFront({
    ...(installs ? { installRoutes: installs.routes } : {}),
    mcp: (req, res) => {
      if (mcp) return mcp(req, res);
      res.writeHead(503, { 'retry-after': '1' });
      res.end();
    },
    config,
    limiter,
    store,
    soleLock,
    databaseWatch,
    ledgerBacklog: () => charges.backlog(),
    metrics,
    logger,
    sandbox: sandbox !== null,
    socketLivenessMs: options.socketLivenessMs ?? SOCKET_LIVENESS_MS,
    ...(options.onSocketDeaf ? { onSocketDeaf: options.onSocketDeaf } : {}),
  });
  const clientOptions = slackClientOptions({
    ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
    // A few retries on 429/5xx, not web-api's default of ten spread over half an hour.
    retryConfig: { retries: 3, factor: 2, minTimeout: 1000 },
  });
  // Distributed mode: the installations of the OAuth install (slack/installs.ts), or a test's.
  const installations = options.installations ?? installs?.installation;
  const app = installations
    ? new App({
        // A workspace's parts are built while its installation is read (each a store read), so a
        // cold workspace's first request is acked a round trip sooner (issue 39: ack p99 spread
        // over many workspaces against one).
        authorize: authorizeFrom(async (tenant) => {
          void services?.forTenant(tenant).catch(() => undefined);
          return installations(tenant);
        }),
        receiver: front.receiver,
        logger: boltLogger(logger),
        clientOptions,
      })
    : new App({
        token: config.slack.botToken ?? '',
        // The ids from the start-up auth.test: Bolt then makes no auth.test call of its own.
        ...botIds,
        receiver: front.receiver,
        logger: boltLogger(logger),
        clientOptions,
      });
  // This process in claim records: a lookup it claims is held under a lease it renews, so after a
  // crash the next start (or another process) sees the claim is orphaned and tells its user.
  const instance = options.instance ?? currentInstance();
  const holder = { instanceId: instance.id, leaseMs: options.claims?.leaseMs ?? CLAIM_LEASE_MS };
  // Distributed mode: an app not approved for the Slack Marketplace may read a workspace's
  // channel history once a minute, 15 messages a request (slack/read-budget.ts); every replica
  // shares that allowance, in Redis when REDIS_URL is set, else in the store.
  const readBudgets =
    mode === 'distributed' && !config.slack.marketplaceApproved
      ? config.redisUrl
        ? (await import('./slack/redis-read-budget.js')).redisReadBudgets({ url: config.redisUrl })
        : storeReadBudgets({ turns: store.turns, holder: instance.id, now: () => clock.now() })
      : null;
  const slackClients = installs
    ? installs.clients
    : installations
      ? installedSlackClients(
          { tokenOf: async (t) => (await installations(t))?.botToken ?? null },
          clientOptions,
        )
      : singleSlackClient(app.client);
  const tenantInstalls = installs
    ? tenantInstallsOf({
        slack: installs,
        store,
        now,
        retentionDays: config.retentionDays,
        guard: { allowLoopback: config.plat.accountsLoopback },
        servesByDefault: async (t) =>
          platAccounts.servesByDefault ? platAccounts.servesByDefault(t) : operatorAccount !== null,
        forgetParts: async (t) => services?.forget(t),
        logger,
      })
    : null;
  // One wake loop for the digests and alerts of every workspace (schedule-wakes.ts): each
  // tenant's schedulers hand it their due times; it builds a tenant's parts when one falls due, and
  // sweeps the runs whose holders stopped, of every workspace, under this process's run owner.
  const runLease = { owner: instance.id, ms: RUN_LEASE_DEFAULTS.leaseMs };
  const wakes = createScheduleWaker({
    store,
    clock: options.schedulerClock ?? { ...realClock, now: () => clock.now() },
    ...(options.schedulerMaxSleepMs !== undefined ? { maxSleepMs: options.schedulerMaxSleepMs } : {}),
    lease: runLease,
    // Reached once started (below), when `tenants` is set.
    tenants: {
      wake: (tenant, kind, seen) => tenants.wake(tenant, kind, seen),
      takeOver: (run, how) => tenants.takeOver(run, how),
      inFlight: (run) => tenants.inFlight(run),
    },
    logger: logger.child({ component: 'schedule-wakes' }),
  });
  services = createTenantServices({
    wakes,
    runOwner: runLease.owner,
    ...(mode === 'single' ? { pinned: [SINGLE_TENANT] } : {}),
    ...(options.tenantParts ? { bounds: options.tenantParts } : {}),
    ...(tenantInstalls ? { installs: tenantInstalls } : {}),
    store,
    platClients,
    slackClients,
    configuredAdmins: config.admins,
    locale: config.locale,
    priceCeiling: config.plat.priceCeiling,
    // The model's tools are described in English, whatever the person's language.
    agentModel: config.agentModel
      ? createModelPlanner(config.agentModel, (name) => toolDescription(wordsFor('en'), name))
      : null,
    mcpUrl: config.mcp.url,
    ...(options.agentSlackTimeoutMs !== undefined
      ? { agentSlackTimeoutMs: options.agentSlackTimeoutMs }
      : {}),
    holder,
    singleFlight,
    logger,
    metrics,
    now,
    skewBudgetMs: config.clockSkewBudgetMs,
    ...(options.schedulerClock ? { schedulerClock: options.schedulerClock } : {}),
    ...(options.schedulerMaxSleepMs !== undefined
      ? { schedulerMaxSleepMs: options.schedulerMaxSleepMs }
      : {}),
    ...(readBudgets ? { readBudgets } : {}),
  });
  const tenants = services;
  metrics.gauge(
    'platdesk_workspace_parts',
    'Workspaces whose parts this process keeps (built on demand, evicted when idle)',
    () => tenants.size(),
  );
  // No workspace's parts are built at start (issue 39): a due run's are built by the wake loop,
  // a request's by its listener. Single-workspace mode's one tenant serves what no payload names.
  const single = mode === 'single' ? await tenants.forTenant(SINGLE_TENANT) : null;
  registerListeners(app, {
    mode,
    depsFor: async (t) => (await tenants.forTenant(t)).deps,
    outside: single?.deps ?? null,
    logger,
    metrics,
    ...(tenantInstalls ? { installs: tenantInstalls } : {}),
  });

  // Each token's request rate, shared by every replica through Redis when there are replicas.
  const mcpRate = config.redisUrl
    ? (await import('./mcp/redis-rate.js')).redisTokenRate({
        url: config.redisUrl,
        perWindow: config.mcp.ratePerMinute,
        logger: logger.child({ component: 'mcp' }),
      })
    : localTokenRate(config.mcp.ratePerMinute, () => now().getTime());
  mcp = createMcpHandler({
    store,
    tenantDeps: async (t) => (await tenants.forTenant(t)).deps,
    slackFor: (t) => slackClients.clientFor(t),
    ...(installations ? { installed: async (t: string) => (await installations(t)) !== null } : {}),
    confirmTtlMs: config.mcp.confirmTtlMs,
    rate: mcpRate,
    ...(options.mcpProgressEveryMs !== undefined ? { progressEveryMs: options.mcpProgressEveryMs } : {}),
    now,
    logger: logger.child({ component: 'mcp' }),
  });

  const claims = createClaimWatch({
    store,
    // Single-workspace mode: the one bot and tenant; distributed mode: each claim's tenant's.
    ...(single
      ? { client: app.client, language: single.deps.language }
      : {
          slackOf: async (t: string) => {
            const parts = await tenants.forTenant(t).catch(() => null);
            const client = await slackClients.clientFor(t);
            return parts && client ? { client, language: parts.deps.language } : null;
          },
        }),
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
    onSpendDifferences: ({ day, differences }, t) => {
      void tenants.forTenant(t).then(({ deps }) =>
        deps.alerts.notify({
          kind: 'spend-totals',
          day,
          count: differences.length,
          sample: differences.slice(0, ALERT_SAMPLE),
        }),
      );
    },
    holder: instance.id,
    ...(installs ? { eraseDueTenants: () => eraseDueTenants({ store, now }) } : {}),
    ...(options.housekeepingEveryMs ? { everyMs: options.housekeepingEveryMs } : {}),
  });

  let server: Server | null;
  try {
    server = await startFront(app, front, config);
  } catch (error) {
    // Nothing may stay half-started (a socket reconnecting, the sandbox, the database).
    await app.stop().catch(() => undefined);
    if (front.internal?.listening) front.internal.close();
    await limiter.stop();
    await singleFlight.stop();
    await readBudgets?.stop();
    await mcpRate.stop();
    await sandbox?.close();
    databaseWatch.stop();
    await store.close();
    await soleLock?.release();
    // apps.connections.open (Socket Mode) is the only Slack call of app.start: it used the app token.
    throw isSlackApiError(error)
      ? explainSlackStartFailure(error, { token: 'SLACK_APP_TOKEN', apiUrl: config.slack.apiUrl })
      : error;
  }
  if (config.slack.mode === 'http' && server) observeAcks(server, metrics);
  const port = server ? (server.address() as AddressInfo).port : config.port;
  const url = `http://127.0.0.1:${port}`;
  const metricsAddress = front.internal?.address();
  const metricsPort = metricsAddress && typeof metricsAddress === 'object' ? metricsAddress.port : null;
  const metricsUrl = metricsPort === null ? null : `http://127.0.0.1:${metricsPort}`;
  logger.info({ mode: config.slack.mode, port, metricsPort }, 'platdesk started');
  // Synchronously on start, before a request can be read: a click on a cut lookup's button is
  // answered as interrupted, and its user is told within seconds of the restart.
  await claims.tell(await claims.sweep());
  claims.start();
  housekeeping.start();
  // After the app is up: a digest missed while platdesk was down is caught up now (same local day).
  tenants.start();
  wakes.start();

  return {
    app,
    url,
    metricsUrl,
    sandbox,
    store,
    charges,
    tenants,
    limiter,
    async schedulersIdle() {
      // A wake-up builds parts and starts runs; a run's end plans and writes a due time.
      const schedulers = () =>
        tenants.built().flatMap(({ deps }) => [deps.digests?.scheduler, deps.digests?.alerts]);
      do {
        await wakes.idle();
        await Promise.all(schedulers().map((s) => s?.idle()));
      } while (wakes.busy() || schedulers().some((s) => s?.busy()));
    },
    stop: shutdownOnce({
      logger,
      app,
      healthServer: front.healthServer ?? null,
      internalServer: front.internal,
      tenants,
      wakes,
      ...(options.drainTimeoutMs !== undefined ? { drainTimeoutMs: options.drainTimeoutMs } : {}),
      claims,
      housekeeping,
      limiter,
      platClients,
      singleFlight,
      readBudgets,
      mcpRate,
      sandbox,
      charges,
      store,
      soleLock,
      databaseWatch,
    }),
  };
}

/**
 * The database watch on /metrics: the skew measured and its budget, the schema versions, and
 * whether paid work is refused and why (one series per reason, 1 while it holds).
 */
function registerDatabaseWatchMetrics(
  metrics: Metrics,
  watch: DatabaseWatch,
  soleLock: Pick<SoleLock, 'held'> | null,
): void {
  metrics.gauge(
    'platdesk_clock_skew_ms',
    "The database's clock minus this replica's at the last measurement, in ms (NaN before one)",
    () => watch.state().skewMs ?? Number.NaN,
  );
  metrics.gauge(
    'platdesk_clock_skew_budget_ms',
    'How far this replica may be from the database clock before it refuses paid work (PLATDESK_CLOCK_SKEW_BUDGET_MS)',
    () => watch.state().budgetMs,
  );
  metrics.labelledGauge(
    'platdesk_schema_version',
    'Schema versions: the database’s, and the newest this build knows',
    'of',
    () => {
      const { known, found } = watch.state().schema;
      return { build: known, database: found ?? Number.NaN };
    },
  );
  metrics.labelledGauge(
    'platdesk_paid_work_refused',
    '1 while this replica refuses paid work, by reason',
    'reason',
    () => {
      const reason = watch.refusal()?.reason;
      return {
        clock_skew: reason === 'clock_skew' ? 1 : 0,
        schema_newer: reason === 'schema_newer' ? 1 : 0,
        database_lock: soleLock && !soleLock.held() ? 1 : 0,
      };
    },
  );
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
