/**
 * What an alert costs: every check reads the orders confirmed in the lookback (the 48 h within
 * which the platforms' standard ship-by time falls) in 24 h windows, pages of 100. paging-orders
 * cannot filter by status or ship time (spec §4.7), so every order confirmed in the lookback is
 * read: ceil(n / 100) pages per 24 h window of n orders (at least one).
 */
import { MAX_ORDER_WINDOW_MS, MAX_PAGE_SIZE } from '../plat/inputs.js';
import type { AlertCheck, AlertOrder, AlertStore } from '../store/store.js';

const HOUR = 3_600_000;
/** Orders confirmed this long ago can still be due: the standard 48 h ship-by limit. */
export const ALERT_LOOKBACK_MS = 48 * HOUR;
export const ALERT_WINDOWS = Math.ceil(ALERT_LOOKBACK_MS / MAX_ORDER_WINDOW_MS);

/**
 * The estimate of one check before anything is known of the shop: one page a 24 h window at
 * `price` points (null when no price is configured or was ever charged).
 */
export function firstCheckEstimate(price: number | null): number | null {
  return price === null ? null : ALERT_WINDOWS * price;
}

/** What a check charged, as its alert message says it (issue 35): points and calls, from its record. */
export interface CheckCost {
  points: number;
  calls: number;
}

export const costOf = (check: Pick<AlertCheck, 'chargedPoints' | 'calls'>): CheckCost => ({
  points: check.chargedPoints,
  calls: check.calls,
});

/** The cost of the check that posted these orders' message (null when its record is gone). */
export async function messageCost(
  alerts: Pick<AlertStore, 'check'>,
  orders: readonly Pick<AlertOrder, 'checkId'>[],
): Promise<CheckCost | null> {
  const first = orders[0];
  const check = first ? await alerts.check(first.checkId) : null;
  return check ? costOf(check) : null;
}

/** Pages one check reads when each 24 h window holds `ordersPerWindow` orders. */
export function pagesPerCheck(ordersPerWindow: readonly number[]): number {
  return ordersPerWindow.reduce((sum, n) => sum + Math.max(1, Math.ceil(n / MAX_PAGE_SIZE)), 0);
}
