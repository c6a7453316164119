/**
 * Turns at periodic jobs (store.ts PeriodicTurns): the row of a job says who took its last turn
 * and when. Taking a turn is one statement, an insert or an update only when the last turn is at
 * least a period old, so of any number of processes racing exactly one gets a row back: the same
 * statement on SQLite and PostgreSQL (as alertsSent.claim in cache.ts). A turn is a lease: it is
 * stamped and judged by the lease clock (StoreContext.leaseNow, the database's), so replicas whose
 * clocks disagree still take one turn a period between them.
 */
import { sql } from 'kysely';
import type { StoreContext } from './schema.js';
import type { PeriodicTurns } from './store.js';

export function createPeriodicTurns({ db, leaseNow }: StoreContext): PeriodicTurns {
  return {
    async take(name, holder, periodMs) {
      const now = leaseNow();
      const row = await db
        .insertInto('periodic_turns')
        .values({ name, holder, taken_at: now })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet({ holder, taken_at: now })
            .where('periodic_turns.taken_at', '<=', sql<number>`${now} - ${periodMs}`),
        )
        .returning('name')
        .executeTakeFirst();
      return row !== undefined;
    },
    async takenAt(name) {
      const row = await db
        .selectFrom('periodic_turns')
        .select('taken_at')
        .where('name', '=', name)
        .executeTakeFirst();
      return row ? new Date(Number(row.taken_at)) : null;
    },
  };
}
