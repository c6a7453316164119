/**
 * The pages a digest run bought (store.ts DigestPages): each is recorded in the transaction that
 * adds its charge to the run, and only while the recorder holds the run (its owner and epoch,
 * runs.ts), so a page is in the store exactly when its charge is in the run's tally, and a
 * holder that lost its lease records nothing. A takeover, a retry or "Run anyway" reads them and
 * goes on after the last one (digest/fetch-orders.ts).
 */
import type { Selectable } from 'kysely';
import { createLeasedRuns } from './runs.js';
import type { DigestPagesTable, StoreContext } from './schema.js';
import type { DigestPage, DigestPages } from './store.js';

/**
 * The charge key of a page, the same for every attempt of the run: one page, one charge. (The
 * ledger's charge id can be this string: a second write of it is then a no-op, DESIGN rule 8.)
 */
export function digestPageChargeKey(runId: number, window: number, page: number): string {
  return `digest:${runId}:${window}:${page}`;
}

const toPage = (row: Selectable<DigestPagesTable>): DigestPage => ({
  runId: row.run_id,
  window: row.window_index,
  page: row.page,
  totalPages: row.total_pages,
  ordersJson: row.orders_json,
  orderCount: row.order_count,
  points: row.points,
  attempt: row.attempt,
  epoch: row.epoch,
  chargeKey: row.charge_key,
  createdAt: new Date(row.created_at),
});

export function createDigestPages(ctx: StoreContext): DigestPages {
  const { db, nowMs, tenant } = ctx;
  // Only the fenced charge is used here; the orphan text belongs to digests.ts.
  const runs = createLeasedRuns(ctx, 'digest_runs', '');
  return {
    record: (runId, holder, page) =>
      db.transaction().execute(async (trx) => {
        if (!(await runs.addHeldCharge(trx, runId, holder, page.points, 1))) return false;
        const run = await trx
          .selectFrom('digest_runs')
          .select('attempts')
          .where('tenant_id', '=', tenant)
          .where('id', '=', runId)
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('digest_pages')
          .values({
            tenant_id: tenant,
            run_id: runId,
            window_index: page.window,
            page: page.page,
            total_pages: page.totalPages,
            orders_json: page.ordersJson,
            order_count: page.orderCount,
            points: page.points,
            attempt: run.attempts,
            epoch: holder.epoch,
            charge_key: digestPageChargeKey(runId, page.window, page.page),
            created_at: nowMs(),
          })
          .execute();
        return true;
      }),
    async list(runId) {
      const rows = await db
        .selectFrom('digest_pages')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('run_id', '=', runId)
        .orderBy('window_index')
        .orderBy('page')
        .execute();
      return rows.map(toPage);
    },
  };
}
