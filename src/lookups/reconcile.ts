/**
 * The nightly reconciliation of the caps' running totals (issue 20 pt 1): once a local day, the
 * first housekeeping pass of any replica compares the counters of yesterday and today, and of
 * their months, with the ledger (and the live reservations), and logs any difference; the admins
 * are told (direct message and App Home) so a total the caps rely on never drifts unseen. It
 * changes nothing: a difference is a fault to look into, not something to paper over.
 */
import { periodsOf } from '../store/periods.js';
import type { CounterDifference, Store } from '../store/store.js';
import { spendSettings } from './settings.js';

/** Keys in the store's alerts sent: one reconciliation per local day, whichever replica runs it. */
export const RECONCILE_PREFIX = 'reconcile|';
/** Differences carried in an admin alert (the rest are in the log). */
export const ALERT_SAMPLE = 2;

export interface SpendCheck {
  /** The local day checked last (yesterday in the budget zone). */
  day: string;
  differences: CounterDifference[];
}

/** Compares the totals of yesterday and today (and their months) with the ledger now. */
export async function reconcileSpend(store: Store, now: Date): Promise<SpendCheck> {
  const zone = (await spendSettings(store.settings).budgets()).timezone;
  const today = periodsOf(now, zone);
  const yesterday = periodsOf(today.daily.from.getTime() - 1, zone);
  const periods = [yesterday.daily, today.daily, yesterday.monthly];
  if (today.monthly.key !== yesterday.monthly.key) periods.push(today.monthly);
  return { day: yesterday.daily.key, differences: await store.budgets.reconcile(periods) };
}

/**
 * Runs the day's reconciliation if no replica has yet (null: done already today). Differences
 * are logged with every counter, and handed to `onDifferences` (the admins' alert).
 */
export async function reconcileOncePerDay(deps: {
  store: Store;
  now: Date;
  logger: { info(o: object, msg: string): void; warn(o: object, msg: string): void };
  onDifferences?: (check: SpendCheck) => void;
}): Promise<SpendCheck | null> {
  const zone = (await spendSettings(deps.store.settings).budgets()).timezone;
  const day = periodsOf(deps.now, zone).daily.key;
  if (!(await deps.store.alertsSent.claim(`${RECONCILE_PREFIX}${day}`, Number.POSITIVE_INFINITY)))
    return null;
  const check = await reconcileSpend(deps.store, deps.now);
  if (check.differences.length === 0) {
    deps.logger.info({ day: check.day }, 'spend totals match the ledger');
    return check;
  }
  deps.logger.warn(
    { day: check.day, differences: check.differences },
    'spend totals differ from the ledger: caps count the totals',
  );
  deps.onDifferences?.(check);
  return check;
}
