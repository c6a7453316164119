/**
 * How many orders an owner had, with a set of filters, when an orders page was last fetched: the
 * pager's last page, known before any charge (issue 35). A typed page past it is refused with the
 * count instead of being charged for an empty page. Kept in the store's answer cache under its own
 * keys (every process sees it; a restart keeps it) and trusted for COUNT_FRESH_MS only: a shop's
 * orders grow, and an older count would refuse a page that exists by now.
 */
import type { AnswerCache } from '../store/store.js';
import type { OrderFilters } from './types.js';

/** How long a count is taken as the owner's count. */
export const COUNT_FRESH_MS = 10 * 60 * 1000;

export interface KnownCount {
  total: number;
  ageMs: number;
}

export interface OrderCounts {
  get(ownerId: string, filters: OrderFilters): Promise<KnownCount | null>;
  set(ownerId: string, filters: OrderFilters, total: number): Promise<void>;
}

/** The page count of `total` orders at `pageSize` a page (an empty list is one empty page). */
export const pagesOf = (total: number, pageSize: number) => Math.max(1, Math.ceil(total / pageSize));

const keyOf = (ownerId: string, filters: OrderFilters) =>
  `orders-count:${JSON.stringify({ ownerId, filters }, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : v))}`;

export function createOrderCounts(deps: { store: AnswerCache; now: () => Date }): OrderCounts {
  return {
    async get(ownerId, filters) {
      const now = deps.now().getTime();
      const hit = await deps.store.get(keyOf(ownerId, filters), new Date(now - COUNT_FRESH_MS));
      if (!hit) return null;
      const total = Number(JSON.parse(hit.valueJson));
      return Number.isFinite(total) ? { total, ageMs: Math.max(0, now - hit.storedAt.getTime()) } : null;
    },
    set: (ownerId, filters, total) => deps.store.set(keyOf(ownerId, filters), JSON.stringify(total)),
  };
}
