/**
 * Builds the digest scheduler and what `/orders digest` needs, for the composition root (main.ts):
 * the Slack publisher, prices from PLAT_PRICES and the ledger (the same sources a lookup's quote
 * uses), shop aliases from the shop registry, and a real-time clock that reads the app's `now`.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { PriceTable } from '../../config.js';
import { createDigestScheduler } from '../../digest/scheduler.js';
import type { DigestPublisher } from '../../digest/types.js';
import { configuredPrice, mergePrices } from '../../lookups/quote.js';
import { spendSettings } from '../../lookups/settings.js';
import type { Metrics } from '../../metrics.js';
import type { PlatClient } from '../../plat/client.js';
import type { ChargeRecorder } from '../../store/ledger.js';
import type { Store } from '../../store/store.js';
import type { AdminAlerts } from '../admin-alerts.js';
import { createSlackDigestPublisher } from './publisher.js';
import type { DigestSlackDeps } from './types.js';

export interface DigestWiring {
  slackClient: WebClient;
  store: Store;
  client: PlatClient;
  alerts: AdminAlerts;
  admins: () => Promise<readonly string[]>;
  /** Where digest charges go (the same recorder as lookups'). */
  charges: ChargeRecorder;
  logger: Logger;
  prices: PriceTable;
  now: () => Date;
  metrics: Metrics;
}

/** Counts what the digests post, for /metrics: digests posted, failure notices, approvals asked. */
function countingPublisher(publisher: DigestPublisher, metrics: Metrics): DigestPublisher {
  const count = (outcome: string) =>
    metrics.inc('platdesk_digest_runs_total', 'Digest runs by outcome', { outcome });
  return {
    ...publisher,
    postDigest: async (post, replaceTs) => {
      const ts = await publisher.postDigest(post, replaceTs);
      count('posted');
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

/** A registered alias → its owner id (null when it has none); anything else is taken as an owner id. */
export function shopResolver(store: Store): (aliasOrOwner: string) => Promise<string | null> {
  return async (text) => {
    const wanted = text.trim().toLowerCase();
    const shop = (await spendSettings(store.settings).shops()).shops.find(
      (s) => s.alias.toLowerCase() === wanted,
    );
    return shop ? shop.ownerId : text.trim();
  };
}

export function createDigests(w: DigestWiring): Required<DigestSlackDeps> {
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
        logger: w.logger,
      }),
      w.metrics,
    ),
    // The same prices a lookup's quote uses: PLAT_PRICES with the admins' overrides, else the last charge.
    priceOf: async (operation, edition) =>
      configuredPrice(
        mergePrices(w.prices, await spendSettings(w.store.settings).priceOverrides()),
        operation,
        edition,
      ) ?? (await w.store.ledger.lastCharge(operation, edition)),
    clock: {
      now: () => w.now().getTime(),
      setTimeout: (fn, ms) => {
        const t = setTimeout(fn, ms);
        t.unref();
        return t;
      },
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    },
  });
  return { scheduler, resolveShop: shopResolver(w.store) };
}
