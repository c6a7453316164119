/**
 * Rows that only grow are pruned on a schedule (issue 10): confirmations (pager buttons'
 * included) that expired or finished long ago, Events API ids past the window in which Slack
 * retries, and unfurl records, day counts and shortcut offers past their use. A live
 * confirmation and a running claim are never removed (store.ts prune).
 */
import type { Logger } from 'pino';
import type { Store } from '../store/store.js';
import { reconcileOncePerDay, type SpendCheck } from './reconcile.js';
import { EVENT_MEMORY_MS, UNFURL_KEEP_MS } from './unfurls.js';

/**
 * A finished confirmation answers a repeated click and keeps a print data file for its Download
 * button; a week covers any click on a message still in view.
 */
export const CONFIRMATION_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
export const HOUSEKEEPING_EVERY_MS = 60 * 60 * 1000;
/**
 * Ship-by alert orders a week past their deadline (a Claim on so old a message is answered as no
 * longer known) and the checks no order points at.
 */
export const ALERT_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

export interface Pruned {
  confirmations: number;
  events: number;
  unfurls: number;
  alerts: number;
}

export async function pruneOldRows(store: Store, now: Date): Promise<Pruned> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const pruned = {
    confirmations: await store.pending.prune(before(CONFIRMATION_KEEP_MS)),
    events: await store.unfurls.forgetEvents(before(EVENT_MEMORY_MS)),
    unfurls: await store.unfurls.prune(before(UNFURL_KEEP_MS)),
    alerts: await store.alerts.prune(before(ALERT_KEEP_MS)),
  };
  // Reservations whose process died mid-call.
  await store.budgets.prune();
  return pruned;
}

export interface Housekeeping {
  /** Prunes now (also done at start). */
  run(): Promise<Pruned | null>;
  start(): void;
  stop(): void;
}

export function createHousekeeping(deps: {
  store: Store;
  now: () => Date;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  everyMs?: number;
  /** The nightly reconciliation found running totals that differ from the ledger (tell the admins). */
  onSpendDifferences?: (check: SpendCheck) => void;
}): Housekeeping {
  let timer: NodeJS.Timeout | undefined;
  const housekeeping: Housekeeping = {
    async run() {
      try {
        const pruned = await pruneOldRows(deps.store, deps.now());
        if (pruned.confirmations + pruned.events + pruned.unfurls + pruned.alerts > 0)
          deps.logger.info(pruned, 'old rows pruned');
        // Once a local day, whichever replica gets there first (reconcile.ts).
        await reconcileOncePerDay({
          store: deps.store,
          now: deps.now(),
          logger: deps.logger,
          ...(deps.onSpendDifferences ? { onDifferences: deps.onSpendDifferences } : {}),
        });
        return pruned;
      } catch (err) {
        // A store fault now is reported by /healthz; the next run tries again.
        deps.logger.error({ err }, 'pruning old rows failed');
        return null;
      }
    },
    start() {
      void housekeeping.run();
      timer ??= setInterval(() => void housekeeping.run(), deps.everyMs ?? HOUSEKEEPING_EVERY_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
  return housekeeping;
}
