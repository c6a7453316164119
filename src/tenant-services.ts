/**
 * What main.ts builds per tenant (issue 24), on demand: the tenant's store (bound to it), its
 * plat client and prices (lookups/plat-accounts.ts), its Slack client for posts outside a listener
 * (slack/clients.ts), its admins and language settings, its lookups (caps, quotes, ledger), admin
 * alerts, and its digest and alert schedulers: a subscription's runs post with that tenant's
 * Slack client and spend from that tenant's account, prices and caps.
 *
 * Parts are built when a request, a due run or a sweep needs them and evicted when idle (issue
 * 39): least recently used first, past a count and an estimate of bytes, or unused for `idleMs`;
 * never while work of theirs is in flight (a lookup running, a charge kept for the ledger, a
 * scheduler's plan, wake-up or run). What must outlive them lives elsewhere: pending lookups,
 * claims, leases and runs in the store; the limiter and the single flight per process (or in
 * Redis); each schedule's next due time in the store (store/schedule-wakes.ts), read by the
 * replica's one wake loop (schedule-wakes.ts), which builds a tenant's parts when its work is due.
 * Parts let go while a caller still holds them (a request that fetched them just before) keep
 * working; their charges are still counted and flushed (`built`) until they are idle.
 *
 * PLATDESK_ADMINS applies to the single tenant of single-workspace mode; every tenant's own
 * admins are its `admins` setting (lookups/settings.ts SETTING_KEYS.admins).
 */

import type { Logger } from 'pino';
import type { ModelPlanner } from './agent/model.js';
import type { DigestClock } from './digest/types.js';
import { recordAlert } from './lookups/home-data.js';
import { createLocaleSettings, type Locale } from './lookups/locale.js';
import { createLookupService, type LookupService } from './lookups/lookup-service.js';
import type { PlatClients } from './lookups/plat-accounts.js';
import { SETTING_KEYS } from './lookups/settings.js';
import type { SingleFlight } from './lookups/single-flight.js';
import type { LookupOutcome } from './lookups/types.js';
import { createUnfurlService } from './lookups/unfurls.js';
import type { Metrics } from './metrics.js';
import type { OpenRun, ScheduleDriver, ScheduledTenants } from './schedule-wakes.js';
import { createAdminAlerts } from './slack/admin-alerts.js';
import type { SlackClients } from './slack/clients.js';
import type { SlackDeps, TenantInstalls } from './slack/deps.js';
import { createDigests } from './slack/digest/wiring.js';
import { createLocaleResolver } from './slack/locale-resolver.js';
import type { ReadBudgets } from './slack/read-budget.js';
import { limitedReads } from './slack/scheduled-posts.js';
import { createGroupMembership } from './slack/user-groups.js';
import { type ChargeRecorder, createChargeRecorder } from './store/ledger.js';
import type { ClaimHolder, NewLedgerEntry, Store } from './store/store.js';
import { SINGLE_TENANT } from './store/tenants.js';

export interface TenantServicesDeps {
  /** The store as opened (bound to SINGLE_TENANT); each tenant's is `store.forTenant(t)`. */
  store: Store;
  platClients: PlatClients;
  slackClients: SlackClients;
  /** Distributed mode: the installation steps the admins' Home and the plat-account form use. */
  installs?: TenantInstalls;
  /** PLATDESK_ADMINS: admins of SINGLE_TENANT only. */
  configuredAdmins: readonly string[];
  /** The agent's optional language model, shared by every tenant (main.ts builds it). */
  agentModel?: ModelPlanner | null;
  /** Tests: SlackDeps.agentSlackTimeoutMs. */
  agentSlackTimeoutMs?: number;
  locale: Locale;
  /** PLAT_PRICE_CEILING: what a call of an unknown price holds against the caps. */
  priceCeiling: number;
  /** The MCP server's public URL (config.mcp.url). */
  mcpUrl?: string | null;
  holder: ClaimHolder;
  /**
   * Who every tenant's digest and alert schedulers are in run leases: one owner per process, so a
   * run the replica's sweep claimed (schedule-wakes.ts) is held by the scheduler it hands it to.
   */
  runOwner: string;
  /** Shared by every tenant; each tenant's keys are its own (tenantFlights). */
  singleFlight: SingleFlight<LookupOutcome>;
  logger: Logger;
  metrics: Metrics;
  now: () => Date;
  schedulerClock?: DigestClock;
  schedulerMaxSleepMs?: number;
  /** PLATDESK_CLOCK_SKEW_BUDGET_MS, for the run fences of digests and alerts. */
  skewBudgetMs?: number;
  /**
   * Distributed mode, not Marketplace-approved: each workspace's allowance of history reads,
   * shared by every replica (slack/read-budget.ts). Absent: Slack's normal tier.
   */
  readBudgets?: ReadBudgets;
  /** The replica's one wake loop: each tenant's schedulers hand it their due times (schedule-wakes.ts). */
  wakes?: ScheduleDriver;
  /** Bounds of the parts kept (PARTS_DEFAULTS). */
  bounds?: Partial<PartsBounds>;
  /** Tenants whose parts are never evicted (single-workspace mode's one tenant). */
  pinned?: readonly string[];
}

export interface PartsBounds {
  /** At most this many tenants' parts kept (idle ones beyond it evicted, least recently used first). */
  maxParts: number;
  /** At most this many bytes of parts, by the estimate below. */
  maxBytes: number;
  /**
   * What one tenant's parts take, estimated: the measurement (about 200–250 KB of live
   * heap per workspace with its schedulers, caches and clients), rounded up.
   */
  bytesPerParts: number;
  /** Parts unused this long are evicted (when idle). */
  idleMs: number;
}

/** Parts used this recently are not evicted for the bounds (only idle ones past idleMs are). */
export const RECENT_MS = 2_000;

export const PARTS_DEFAULTS: PartsBounds = {
  maxParts: 500,
  maxBytes: 96 * 1024 * 1024,
  bytesPerParts: 256 * 1024,
  idleMs: 10 * 60_000,
};

/** One tenant's parts, as main.ts and the listeners use them. */
export interface TenantParts {
  tenant: string;
  deps: SlackDeps;
  lookups: LookupService;
  charges: ChargeRecorder;
}

/** The replica's one wake loop reaches the tenants' schedulers through these (schedule-wakes.ts). */
export interface TenantServices extends ScheduledTenants {
  /** The tenant's parts, built on first use (with or without a plat account); rejects when it has no Slack client. */
  forTenant(tenant: string): Promise<TenantParts>;
  /** Every tenant's parts kept now, and those let go whose work has not ended yet. */
  built(): TenantParts[];
  /** Starts the schedulers of every tenant built so far, and of each one built from now on. */
  start(): void;
  /**
   * Runs `work` with the tenant's parts, which are not evicted until it settles (a due run's
   * wake-up, a sweep's message).
   */
  using<T>(tenant: string, work: (parts: TenantParts) => Promise<T>): Promise<T>;
  /**
   * Evicts the tenant's parts if they are idle (nothing of theirs in flight); false when they are
   * busy, pinned or not built. Their schedulers stop; their store rows stay.
   */
  evict(tenant: string): Promise<boolean>;
  /** Evicts idle parts unused for `idleMs`, then idle ones past the bounds (least recently used first). */
  trim(): Promise<void>;
  /** How many tenants' parts are kept now. */
  size(): number;
  /** Stops the idle sweep (start() set it). */
  stop(): void;
  /**
   * Drops a tenant's parts (its plat account or installation changed, or it was uninstalled):
   * its schedulers stop (a run in flight gives its lease up), and the next request builds them
   * anew from the current account. Lookups already running finish on the parts they started with.
   */
  forget(tenant: string): Promise<void>;
}

export class TenantUnavailableError extends Error {
  readonly code = 'tenant_unavailable';
  constructor(readonly tenant: string) {
    super(`tenant ${tenant || '(single)'} has no Slack client (not installed)`);
    this.name = 'TenantUnavailableError';
  }
}

export function createTenantServices(d: TenantServicesDeps): TenantServices {
  const bounds = { ...PARTS_DEFAULTS, ...d.bounds };
  const maxKept = Math.max(1, Math.min(bounds.maxParts, Math.floor(bounds.maxBytes / bounds.bytesPerParts)));
  const pinned = new Set(d.pinned ?? []);
  /** Least recently used first (a use re-inserts). */
  const entries = new Map<string, Entry>();
  /** Parts let go (evicted or forgotten) that a caller may still be using: counted until idle. */
  const retired = new Set<TenantParts>();
  let started = false;
  let sweep: ReturnType<typeof setInterval> | null = null;
  // Idleness is this process's own time (memory, not business: a test's app clock may stand still).
  const nowMs = () => performance.now();

  interface Entry {
    promise: Promise<TenantParts>;
    parts: TenantParts | null;
    lastUsed: number;
    /** using() calls under way. */
    uses: number;
  }

  async function build(tenant: string): Promise<TenantParts> {
    const store = d.store.forTenant(tenant);
    // Built with or without a plat account: a workspace with none still reaches its App Home
    // (and its Connect form); its lookups, digests, alerts and steps are refused by the client.
    const plat = await d.platClients.forTenant(tenant);
    const slack = await d.slackClients.clientFor(tenant);
    if (!slack) throw new TenantUnavailableError(tenant);
    const configured = tenant === SINGLE_TENANT ? d.configuredAdmins : [];
    const logger = tenant === SINGLE_TENANT ? d.logger : d.logger.child({ tenant });
    // A charge the store refuses for good is set aside (counted, and the admins told) rather than
    // hold up every charge behind it (store/ledger.ts PARK_AFTER_REFUSALS).
    let parked: (entry: NewLedgerEntry) => void = () => undefined;
    const charges = createChargeRecorder({
      ledger: store.ledger,
      logger,
      onParked: (entry) => {
        d.metrics.inc('platdesk_charges_parked_total', 'Charges the store refused for good, set aside', {
          operation: entry.operation,
        });
        parked(entry);
      },
    });
    const admins = async () => [
      ...new Set([...configured, ...((await store.settings.get<string[]>(SETTING_KEYS.admins)) ?? [])]),
    ];
    // Configured admins are admins even while the store is unreachable.
    const isAdmin = async (userId: string) =>
      configured.includes(userId) || (await admins()).includes(userId);
    const language = createLocaleResolver({
      client: slack,
      settings: createLocaleSettings(store.settings, d.locale),
      logger,
      now: () => d.now().getTime(),
    });
    const alerts = createAdminAlerts({ client: slack, admins, language, logger, sent: store.alertsSent });
    // Alerts sent to admins (balance, token, budget caps) are kept so the admins' Home lists them.
    alerts.onAlert?.((alert) => recordAlert(store, alert));
    parked = (entry) =>
      void alerts.notify({
        kind: 'charge-parked',
        chargeId: entry.chargeId,
        operation: entry.operation,
        points: entry.points,
        at: entry.at.toISOString(),
      });
    const lookups = createLookupService({
      client: plat.client,
      ensureAccount: plat.ensureAccount,
      store,
      holder: d.holder,
      prices: plat.prices,
      priceCeiling: d.priceCeiling,
      logger,
      now: d.now,
      singleFlight: tenantFlights(d.singleFlight, tenant),
      isAdmin,
      isInGroup: createGroupMembership(slack),
      charges,
      onBudgetAlert: ({ figure, userId, refused }) => {
        void alerts.notify({ kind: 'budget', figure, userId, refused });
      },
    });
    const digests = createDigests({
      slackClient: slack,
      store,
      // Scheduled spend obeys the tenant's daily and monthly caps, call by call.
      client: lookups.scheduledClient,
      alerts,
      admins,
      language,
      logger,
      prices: plat.prices,
      now: d.now,
      metrics: d.metrics,
      charges,
      instanceId: d.runOwner,
      ...(d.schedulerClock ? { clock: d.schedulerClock } : {}),
      ...(d.schedulerMaxSleepMs !== undefined ? { maxSleepMs: d.schedulerMaxSleepMs } : {}),
      ...(d.skewBudgetMs !== undefined ? { skewBudgetMs: d.skewBudgetMs } : {}),
      ...(d.readBudgets ? { reads: limitedReads(d.readBudgets.forTenant(tenant)) } : {}),
      ...(d.wakes ? { driven: d.wakes.driven(tenant) } : {}),
    });
    return {
      tenant,
      lookups,
      charges,
      deps: {
        digests,
        lookups,
        unfurls: createUnfurlService({ lookups, store, now: d.now }),
        client: plat.client,
        store,
        logger,
        alerts,
        now: d.now,
        isAdmin,
        admins,
        configuredAdmins: configured,
        metrics: d.metrics,
        language,
        agentModel: d.agentModel ?? null,
        ...(d.agentSlackTimeoutMs !== undefined ? { agentSlackTimeoutMs: d.agentSlackTimeoutMs } : {}),
        ...(d.installs ? { installs: d.installs } : {}),
        mcpUrl: d.mcpUrl ?? null,
      },
    };
  }

  /** Whether anything of the parts is in flight: they are not evicted then. */
  function busy(p: TenantParts): boolean {
    return (
      p.lookups.running() > 0 ||
      p.charges.backlog() > 0 ||
      (p.deps.digests?.scheduler.busy() ?? false) ||
      (p.deps.digests?.alerts?.busy() ?? false)
    );
  }

  function entryOf(tenant: string): Entry {
    let e = entries.get(tenant);
    if (e) {
      entries.delete(tenant);
      entries.set(tenant, e);
      e.lastUsed = nowMs();
      return e;
    }
    const entry: Entry = { promise: Promise.resolve(null as never), parts: null, lastUsed: nowMs(), uses: 0 };
    entry.promise = build(tenant).then((built) => {
      entry.parts = built;
      if (started && built.deps.digests) startSchedulers(built.deps.digests);
      return built;
    });
    // A failed build (no account yet) is tried again by the next request.
    entry.promise.catch(() => {
      if (entries.get(tenant) === entry) entries.delete(tenant);
    });
    entries.set(tenant, entry);
    e = entry;
    void entry.promise.then(
      () => trim(),
      () => undefined,
    );
    return e;
  }

  function evictable(tenant: string, e: Entry): e is Entry & { parts: TenantParts } {
    return e.parts !== null && e.uses === 0 && !pinned.has(tenant) && !busy(e.parts);
  }

  /** Lets parts go: their schedulers stop (they are idle), their charges are flushed. */
  async function letGo(tenant: string, parts: TenantParts): Promise<void> {
    if (entries.get(tenant)?.parts === parts) entries.delete(tenant);
    retired.add(parts);
    await parts.deps.digests?.scheduler.stop();
    await parts.deps.digests?.alerts?.stop();
    await parts.charges.flush();
    pruneRetired();
  }

  function pruneRetired(): void {
    for (const p of retired)
      if (!busy(p)) {
        retired.delete(p);
        p.charges.stop();
      }
  }

  let trimming: Promise<void> | null = null;
  function trim(): Promise<void> {
    if (trimming) return trimming;
    const pass = trimPass().finally(() => {
      // Reset after the assignment below (a pass may finish without awaiting anything).
      if (trimming === pass) trimming = null;
    });
    trimming = pass;
    return pass;
  }

  async function trimPass(): Promise<void> {
    const now = nowMs();
    for (const [tenant, e] of [...entries])
      if (now - e.lastUsed >= bounds.idleMs && evictable(tenant, e)) await letGo(tenant, e.parts);
    for (const [tenant, e] of [...entries]) {
      if (entries.size <= maxKept) break;
      // Parts a request fetched a moment ago are most likely still in its hands.
      if (now - e.lastUsed >= RECENT_MS && evictable(tenant, e)) await letGo(tenant, e.parts);
    }
    pruneRetired();
  }

  async function using<T>(tenant: string, work: (parts: TenantParts) => Promise<T>): Promise<T> {
    const e = entryOf(tenant);
    e.uses++;
    try {
      return await work(await e.promise);
    } finally {
      e.uses--;
      e.lastUsed = nowMs();
    }
  }

  /** The tenant's parts kept now and those let go that still run something. */
  function partsOf(tenant: string): TenantParts[] {
    const kept = entries.get(tenant)?.parts;
    return [...(kept ? [kept] : []), ...[...retired].filter((p) => p.tenant === tenant)];
  }

  return {
    forTenant: (tenant) => entryOf(tenant).promise,
    using,
    wake: (tenant, kind, seen) =>
      using(tenant, async (parts) => {
        await schedulersOf(parts)[kind].wake(seen);
      }),
    takeOver: (run, how) =>
      using(run.tenantId, async (parts) => {
        const schedulers = schedulersOf(parts);
        if (run.schedule === 'digest') await schedulers.digest.takeOver(run, how);
        else await schedulers.alert.takeOver(run, how);
      }),
    inFlight: (run: OpenRun) =>
      partsOf(run.tenantId).some((p) => {
        const digests = p.deps.digests;
        return run.schedule === 'digest'
          ? (digests?.scheduler.inFlight(run.id) ?? false)
          : (digests?.alerts?.inFlight(run.id) ?? false);
      }),
    built: () => [...[...entries.values()].flatMap((e) => (e.parts ? [e.parts] : [])), ...retired],
    start() {
      started = true;
      // Parts unused for idleMs go even when nothing new is built.
      sweep ??= setInterval(() => void trim(), Math.max(1000, bounds.idleMs / 4));
      sweep.unref();
      for (const e of entries.values()) if (e.parts?.deps.digests) startSchedulers(e.parts.deps.digests);
    },
    async evict(tenant) {
      const e = entries.get(tenant);
      if (!e || !evictable(tenant, e)) return false;
      await letGo(tenant, e.parts);
      return true;
    },
    trim,
    size: () => entries.size,
    stop() {
      if (sweep) clearInterval(sweep);
      sweep = null;
    },
    async forget(tenant) {
      const e = entries.get(tenant);
      entries.delete(tenant);
      const built = e ? await e.promise.catch(() => null) : null;
      if (!built) return;
      await letGo(tenant, built);
    },
  };
}

/** A tenant's digest and alert schedulers (every tenant's parts have both). */
function schedulersOf(parts: TenantParts) {
  const digests = parts.deps.digests;
  if (!digests?.alerts) throw new Error(`tenant ${parts.tenant || '(single)'} has no schedulers`);
  return { digest: digests.scheduler, alert: digests.alerts };
}

function startSchedulers(digests: NonNullable<SlackDeps['digests']>): void {
  digests.scheduler.start();
  digests.alerts?.start();
}

/**
 * A tenant's view of the shared single flight: its keys carry the tenant, so one tenant never
 * follows another's flight (an answer bought on A's account is never B's, and B is charged for
 * its own call). The single tenant keeps the keys it had.
 */
export function tenantFlights<T>(flights: SingleFlight<T>, tenant: string): SingleFlight<T> {
  if (tenant === SINGLE_TENANT) return flights;
  return { run: (key, work) => flights.run(`${tenant}\u0000${key}`, work), stop: () => flights.stop() };
}
