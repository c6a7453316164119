/**
 * What main.ts builds per tenant (issue 24), once and kept: the tenant's store (bound to it), its
 * plat client and prices (lookups/plat-accounts.ts), its Slack client for posts outside a listener
 * (slack/clients.ts), its admins and language settings, its lookups (caps, quotes, ledger), admin
 * alerts, and its digest and alert schedulers: a subscription's runs post with that tenant's
 * Slack client and spend from that tenant's account, prices and caps.
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
}

/** One tenant's parts, as main.ts and the listeners use them. */
export interface TenantParts {
  tenant: string;
  deps: SlackDeps;
  lookups: LookupService;
  charges: ChargeRecorder;
}

export interface TenantServices {
  /** The tenant's parts, built on first use (with or without a plat account); rejects when it has no Slack client. */
  forTenant(tenant: string): Promise<TenantParts>;
  /** Every tenant built so far. */
  built(): TenantParts[];
  /** Starts the schedulers of every tenant built so far, and of each one built from now on. */
  start(): void;
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
  const parts = new Map<string, Promise<TenantParts>>();
  let started = false;

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
      ...(d.schedulerClock ? { clock: d.schedulerClock } : {}),
      ...(d.schedulerMaxSleepMs !== undefined ? { maxSleepMs: d.schedulerMaxSleepMs } : {}),
      ...(d.skewBudgetMs !== undefined ? { skewBudgetMs: d.skewBudgetMs } : {}),
      ...(d.readBudgets ? { reads: limitedReads(d.readBudgets.forTenant(tenant)) } : {}),
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

  const settled: TenantParts[] = [];
  return {
    forTenant(tenant) {
      let p = parts.get(tenant);
      if (!p) {
        p = build(tenant).then((built) => {
          settled.push(built);
          if (started && built.deps.digests) startSchedulers(built.deps.digests);
          return built;
        });
        // A failed build (no account yet) is tried again by the next request.
        p.catch(() => parts.delete(tenant));
        parts.set(tenant, p);
      }
      return p;
    },
    built: () => [...settled],
    start() {
      started = true;
      for (const t of settled) if (t.deps.digests) startSchedulers(t.deps.digests);
    },
    async forget(tenant) {
      const p = parts.get(tenant);
      parts.delete(tenant);
      const built = p ? await p.catch(() => null) : null;
      if (!built) return;
      const i = settled.indexOf(built);
      if (i >= 0) settled.splice(i, 1);
      await built.deps.digests?.scheduler.stop();
      await built.deps.digests?.alerts?.stop();
      await built.charges.flush();
    },
  };
}

function startSchedulers(digests: NonNullable<SlackDeps['digests']>): void {
  digests.scheduler.start();
  digests.alerts?.start();
}

/** The tenants with live digest or alert subscriptions: their schedules run from start-up. */
export async function scheduledTenants(store: Store): Promise<string[]> {
  const [digests, alerts] = await Promise.all([
    store.tenants.digestSubscriptions(),
    store.tenants.alertSubscriptions(),
  ]);
  return [...new Set([...digests, ...alerts].map((s) => s.tenantId))];
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
