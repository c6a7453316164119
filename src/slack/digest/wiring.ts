/**
 * Builds the digest scheduler and what `/orders digest` needs, for the composition root (main.ts):
 * the Slack publisher, prices from PLAT_PRICES and the ledger (the same sources a lookup's quote
 * uses), shop aliases from the shop registry, and a real-time clock that reads the app's `now`.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { createAlertScheduler } from '../../alerts/scheduler.js';
import type { AlertPublisher } from '../../alerts/types.js';
import type { PriceTable } from '../../config.js';
import { createDigestScheduler } from '../../digest/scheduler.js';
import { shopResolver } from '../../digest/subscriptions.js';
import type { DigestClock, DigestPublisher, PriceOf } from '../../digest/types.js';
import type { DrivenBy } from '../../digest/wake-loop.js';
import { configuredPrice, mergePrices } from '../../lookups/quote.js';
import { spendSettings } from '../../lookups/settings.js';
import type { Metrics } from '../../metrics.js';
import type { PlatClient } from '../../plat/client.js';
import type { ChargeRecorder } from '../../store/ledger.js';
import type { Store } from '../../store/store.js';
import type { AdminAlerts } from '../admin-alerts.js';
import { createSlackAlertPublisher } from '../alerts/publisher.js';
import type { LocaleResolver } from '../locale-resolver.js';
import type { HistoryReads } from '../scheduled-posts.js';
import { createSlackDigestPublisher } from './publisher.js';
import type { DigestSlackDeps } from './types.js';

export interface DigestWiring {
  slackClient: WebClient;
  store: Store;
  /** Where digest and alert charges go (the lookups' recorder: one backlog per process). */
  charges: ChargeRecorder;
  client: PlatClient;
  alerts: AdminAlerts;
  admins: () => Promise<readonly string[]>;
  language: Pick<LocaleResolver, 'user' | 'channel'>;
  logger: Logger;
  prices: PriceTable;
  now: () => Date;
  metrics: Metrics;
  /** Timers of the digest and alert schedulers (tests move time by hand); default: real timers on `now`. */
  clock?: DigestClock;
  /** The schedulers' longest sleep between two looks at the store (default theirs: a minute). */
  maxSleepMs?: number;
  /** PLATDESK_CLOCK_SKEW_BUDGET_MS, for the run fences (digest/run-fence.ts). */
  skewBudgetMs?: number;
  /** Who both schedulers are in run leases (default: a random id each). */
  instanceId?: string;
  /**
   * The replica's one wake loop (schedule-wakes.ts): where each scheduler hands its next due
   * time, instead of a timer of its own. Absent: each scheduler keeps its own timer.
   */
  driven?: Record<'digest' | 'alert', DrivenBy>;
  /**
   * How digest and alert checks read the channel's history (scheduled-posts.ts): Slack's normal
   * tier by default; in distributed mode, unless the app is Marketplace-approved, its limited one.
   */
  reads?: HistoryReads;
}

/** Counts what the digests post, for /metrics: digests posted, failure notices, approvals asked. */
function countingPublisher(publisher: DigestPublisher, metrics: Metrics): DigestPublisher {
  const count = (outcome: string) =>
    metrics.inc('platdesk_digest_runs_total', 'Digest runs by outcome', { outcome });
  return {
    ...publisher,
    postDigest: async (post, replaceTs, options) => {
      const ts = await publisher.postDigest(post, replaceTs, options);
      count('posted');
      return ts;
    },
    // A digest found in the channel by its key was posted by an earlier attempt that Slack left unclear.
    findDigest: async (post, options) => {
      const ts = await publisher.findDigest(post, options);
      if (ts !== null) count('posted');
      return ts;
    },
    postNotice: async (notice, replaceTs) => {
      count('failed');
      return publisher.postNotice(notice, replaceTs);
    },
    askApproval: async (request) => {
      count('awaiting_approval');
      return publisher.askApproval(request);
    },
  };
}

/** Counts what the alert checks post, for /metrics: alerts posted, failure notices, approvals asked. */
function countingAlertPublisher(publisher: AlertPublisher, metrics: Metrics): AlertPublisher {
  const count = (outcome: string) =>
    metrics.inc('platdesk_alert_checks_total', 'Ship-by alert messages by outcome', { outcome });
  return {
    ...publisher,
    postAlert: async (...args) => {
      const ts = await publisher.postAlert(...args);
      count('posted');
      return ts;
    },
    findAlert: async (sub, check, options) => {
      const ts = await publisher.findAlert(sub, check, options);
      if (ts !== null) count('posted');
      return ts;
    },
    postFailure: async (sub, failure, replaceTs) => {
      if (!failure.resolved) count('failed');
      return publisher.postFailure(sub, failure, replaceTs);
    },
    askApproval: async (request) => {
      count('awaiting_approval');
      return publisher.askApproval(request);
    },
  };
}

export function createDigests(w: DigestWiring): DigestSlackDeps {
  // The same prices a lookup's quote uses: PLAT_PRICES with the admins' overrides, else the last charge.
  const priceOf: PriceOf = async (operation, edition) =>
    configuredPrice(
      mergePrices(w.prices, await spendSettings(w.store.settings).priceOverrides()),
      operation,
      edition,
    ) ?? (await w.store.ledger.lastCharge(operation, edition));
  const clock: DigestClock = w.clock ?? {
    now: () => w.now().getTime(),
    setTimeout: (fn, ms) => {
      const t = setTimeout(fn, ms);
      t.unref();
      return t;
    },
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
  const scheduler = createDigestScheduler({
    client: w.client,
    store: w.store,
    charges: w.charges,
    logger: w.logger,
    publisher: countingPublisher(
      createSlackDigestPublisher({
        client: w.slackClient,
        alerts: w.alerts,
        admins: w.admins,
        language: w.language,
        logger: w.logger,
        ...(w.reads ? { reads: w.reads } : {}),
      }),
      w.metrics,
    ),
    priceOf,
    clock,
    ...(w.maxSleepMs !== undefined ? { maxSleepMs: w.maxSleepMs } : {}),
    ...(w.skewBudgetMs !== undefined ? { skewBudgetMs: w.skewBudgetMs } : {}),
    ...(w.instanceId !== undefined ? { instanceId: w.instanceId } : {}),
    ...(w.driven ? { driven: w.driven.digest } : {}),
  });
  const alerts = createAlertScheduler({
    client: w.client,
    store: w.store,
    charges: w.charges,
    logger: w.logger,
    publisher: countingAlertPublisher(
      createSlackAlertPublisher({
        client: w.slackClient,
        alerts: w.alerts,
        admins: w.admins,
        language: w.language,
        logger: w.logger,
        ...(w.reads ? { reads: w.reads } : {}),
      }),
      w.metrics,
    ),
    priceOf,
    clock,
    ...(w.maxSleepMs !== undefined ? { maxSleepMs: w.maxSleepMs } : {}),
    ...(w.skewBudgetMs !== undefined ? { skewBudgetMs: w.skewBudgetMs } : {}),
    ...(w.instanceId !== undefined ? { instanceId: w.instanceId } : {}),
    ...(w.driven ? { driven: w.driven.alert } : {}),
  });
  return {
    scheduler,
    resolveShop: shopResolver(async () => (await spendSettings(w.store.settings).shops()).shops),
    priceOf,
    alerts,
  };
}
