/**
 * Budget reservations: points of calls in flight, counted against the caps with the ledger's
 * spend. Check and reservation are one transaction under the 'budgets' lock row, so two
 * processes (or two pools) reserving against the same cap are serialized and can never both
 * pass it.
 */
import { randomUUID } from 'node:crypto';
import type { Executor, StoreContext } from './schema.js';
import { takeLock } from './schema.js';
import type { BudgetReservations, CapLimit, CapUse } from './store.js';

async function usesOf(
  db: Executor,
  now: number,
  userId: string | null,
  caps: readonly CapLimit[],
): Promise<CapUse[]> {
  return Promise.all(
    caps.map(async (cap) => {
      const mine = cap.scope === 'user' && userId !== null;
      let spent = db
        .selectFrom('ledger')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('points'), eb.lit(0)).as('points'))
        .where('at', '>=', cap.from.getTime())
        .where('at', '<', cap.to.getTime());
      let reserved = db
        .selectFrom('budget_reservations')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('points'), eb.lit(0)).as('points'))
        .where('expires_at', '>', now);
      if (mine) {
        spent = spent.where('user_id', '=', userId);
        reserved = reserved.where('user_id', '=', userId);
      }
      const [a, b] = await Promise.all([spent.executeTakeFirstOrThrow(), reserved.executeTakeFirstOrThrow()]);
      return { ...cap, spent: Number(a.points) + Number(b.points) };
    }),
  );
}

export function createBudgetReservations({ db, nowMs }: StoreContext): BudgetReservations {
  return {
    uses: (userId, caps) => usesOf(db, nowMs(), userId, caps),
    reserve: (input) =>
      db.transaction().execute(async (trx) => {
        await takeLock(trx, 'budgets');
        const now = nowMs();
        const uses = await usesOf(trx, now, input.userId, input.caps);
        const exceeded = uses.find((use) => use.spent + input.points > use.cap);
        if (exceeded) return { ok: false as const, exceeded, uses };
        const id = randomUUID();
        await trx
          .insertInto('budget_reservations')
          .values({
            id,
            user_id: input.userId,
            points: input.points,
            created_at: now,
            expires_at: now + input.ttlMs,
          })
          .execute();
        return { ok: true as const, id, uses };
      }),
    async release(id) {
      await db.deleteFrom('budget_reservations').where('id', '=', id).execute();
    },
    async prune() {
      const result = await db
        .deleteFrom('budget_reservations')
        .where('expires_at', '<=', nowMs())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
