/**
 * Store work that may wait (issue 39): the body of a digest run or an alert check (digest/
 * run-fence.ts `withRunFence`, the one way both run) is bulk work. On PostgreSQL, bulk work takes
 * at most `bulkConnections(poolMax)` of the pool's connections at once (postgres-dialect.ts), so
 * the rest are always there for what must not queue behind a burst of runs: claims of due runs
 * and the wake loop (issue 39 point 4: due runs start within 2 s of their minute), lease
 * renewals, and every Slack request. SQLite has one connection and no pool: nothing to share.
 *
 * Marked through AsyncLocalStorage, so that no store method grows a parameter for it: everything a
 * run awaits is bulk, and a timer armed before the run (a lease renewal) is not.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const bulk = new AsyncLocalStorage<true>();

/** Runs `work` as bulk store work (all it awaits, and timers it arms, included). */
export function asBulkStoreWork<T>(work: () => T): T {
  return bulk.run(true, work);
}

/** Whether the caller is bulk store work. */
export function isBulkStoreWork(): boolean {
  return bulk.getStore() === true;
}

/**
 * Connections bulk work may hold at once out of a pool of `poolMax`: seven of ten; at least one,
 * and at least one left for everything else when the pool has two or more.
 */
export function bulkConnections(poolMax: number): number {
  return Math.max(1, Math.min(poolMax - 1, Math.floor(poolMax * 0.7)));
}
