/**
 * Running totals for the caps (issue 20 pt 1): spend per scope (the workspace, each user, each
 * channel) and local period (day, month in the budget zone: periods.ts) kept as counters
 * (`spent`, `reserved`) in spend_counters.
 *
 * - A ledger row adds its points to `spent` of its counters in the row's own transaction
 *   (ledger.ts), so the counters are always what the ledger says.
 * - A reservation is one conditional upsert per counter of the caps that apply
 *   (`spent + reserved + p <= cap`), in one fixed order, all or nothing, in one transaction:
 *   O(1) whatever the ledger's size; on PostgreSQL the upsert locks the counter row and re-checks
 *   its condition on the newest version, on SQLite the transaction holds the write lock, so two
 *   processes can never both pass a cap, and no global lock row is needed.
 * - A charge written against a reservation moves its points from `reserved` to `spent` in the
 *   same transaction; what is left is given back by release, or by prune once it expired.
 *
 * Lock order, to rule out deadlocks on PostgreSQL: the reservation row first, then the counters
 * sorted by (scope, subject, period, key). Every transaction here and in ledger.ts keeps it.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { budgetZone, type Period, periodsOf } from './periods.js';
import type { Executor, StoreContext } from './schema.js';
import type { BudgetReservations, CapLimit, CapScope, CapUse, CounterDifference } from './store.js';

/** Points are compared with this slack: configured prices may be fractional (floating sums). */
export const POINTS_EPSILON = 1e-6;

/** One counter's primary key. */
export interface CounterKey {
  scope: CapScope;
  subject: string;
  period: 'daily' | 'monthly';
  key: string;
}

/** A change to one counter. */
export interface CounterDelta extends CounterKey {
  spent: number;
  reserved: number;
}

/** A reservation's counter, with the cap it was reserved under (extend re-checks it). */
type Hold = [CapScope, string, 'daily' | 'monthly', string, number];

const counterId = (c: CounterKey) => `${c.scope}\u0000${c.subject}\u0000${c.period}\u0000${c.key}`;
/** The one order every transaction takes counters in. */
const byCounter = (a: CounterKey, b: CounterKey) => {
  const x = counterId(a);
  const y = counterId(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The counters a ledger row counts in: the workspace, its user and its channel; day and month. */
export function countersOf(
  row: { userId: string | null; channelId: string | null },
  keys: { daily: string; monthly: string },
): CounterKey[] {
  const subjects: [CapScope, string][] = [['workspace', '*']];
  if (row.userId !== null) subjects.push(['user', row.userId]);
  if (row.channelId !== null) subjects.push(['channel', row.channelId]);
  return subjects.flatMap(([scope, subject]) => [
    { scope, subject, period: 'daily' as const, key: keys.daily },
    { scope, subject, period: 'monthly' as const, key: keys.monthly },
  ]);
}

/** Adds the deltas to their counters (created at 0 when new), merged and in the fixed order. */
export async function addToCounters(
  db: Executor,
  tenant: string,
  deltas: readonly CounterDelta[],
): Promise<void> {
  const merged = new Map<string, CounterDelta>();
  for (const d of deltas) {
    const id = counterId(d);
    const seen = merged.get(id);
    if (seen) {
      seen.spent += d.spent;
      seen.reserved += d.reserved;
    } else merged.set(id, { ...d });
  }
  const ordered = [...merged.values()].filter((d) => d.spent !== 0 || d.reserved !== 0).sort(byCounter);
  // Many rows per statement (the backfill writes thousands); each key once per statement.
  for (let i = 0; i < ordered.length; i += COUNTERS_PER_STATEMENT) {
    const rows = ordered
      .slice(i, i + COUNTERS_PER_STATEMENT)
      .map(
        (d) => sql`(${tenant}, ${d.scope}, ${d.subject}, ${d.period}, ${d.key}, ${d.spent}, ${d.reserved})`,
      );
    await sql`
      INSERT INTO spend_counters (tenant_id, scope, subject, period, period_key, spent, reserved)
      VALUES ${sql.join(rows)}
      ON CONFLICT (tenant_id, scope, subject, period, period_key) DO UPDATE
      SET spent = spend_counters.spent + excluded.spent,
          reserved = spend_counters.reserved + excluded.reserved`.execute(db);
  }
}

/** 7 parameters a row: far below SQLite's and PostgreSQL's limits on bound parameters. */
const COUNTERS_PER_STATEMENT = 500;

const holdOf = (c: CapLimit): Hold => [c.scope, c.subject, c.period, c.key, c.cap];
function parseHolds(json: string): (CounterKey & { cap: number })[] {
  try {
    return (JSON.parse(json) as Hold[]).map(([scope, subject, period, key, cap]) => ({
      scope,
      subject,
      period,
      key,
      cap,
    }));
  } catch {
    return [];
  }
}

/**
 * Takes `points` out of a reservation for a charge being written in this transaction: returns
 * the counter changes (its counters' reserved down by what was left, at most `points`).
 */
export async function consumeReservation(
  db: Executor,
  tenant: string,
  id: string,
  points: number,
): Promise<CounterDelta[]> {
  if (points <= 0) return [];
  // An UPDATE first: it locks the row (PostgreSQL) before the amount is read.
  const row = await db
    .updateTable('budget_reservations')
    .set((eb) => ({ points: eb.ref('points') }))
    .where('tenant_id', '=', tenant)
    .where('id', '=', id)
    .returning(['points', 'holds'])
    .executeTakeFirst();
  if (!row || row.points <= 0) return [];
  const taken = Math.min(row.points, points);
  await db
    .updateTable('budget_reservations')
    .set({ points: row.points - taken })
    .where('tenant_id', '=', tenant)
    .where('id', '=', id)
    .execute();
  return parseHolds(row.holds).map(({ cap: _, ...c }) => ({ ...c, spent: 0, reserved: -taken }));
}

/** Thrown inside a reservation's transaction to roll it back. */
class CapReached extends Error {
  constructor(readonly cap: CapLimit) {
    super('cap reached');
  }
}

async function readUses(db: Executor, tenant: string, caps: readonly CapLimit[]): Promise<CapUse[]> {
  const uses: CapUse[] = [];
  for (const cap of caps) {
    const row = await db
      .selectFrom('spend_counters')
      .select(['spent', 'reserved'])
      .where('tenant_id', '=', tenant)
      .where('scope', '=', cap.scope)
      .where('subject', '=', cap.subject)
      .where('period', '=', cap.period)
      .where('period_key', '=', cap.key)
      .executeTakeFirst();
    uses.push({ ...cap, spent: row ? row.spent + row.reserved : 0 });
  }
  return uses;
}

/** Reservations expired and given back per sweep (the rest on the next one). */
const SWEEP_BATCH = 50;
const SWEEP_EVERY_MS = 1000;

export function createBudgetReservations({ db, nowMs, engine, tenant }: StoreContext): BudgetReservations {
  /**
   * Deletes the reservation (only if still expired, with `expiredAt`; any tenant's then, for the
   * sweep: a dead process's reservations are given back whoever made them) and gives its points
   * back to its own tenant's counters.
   */
  const giveBack = (id: string, expiredAt: number | null) =>
    db.transaction().execute(async (trx) => {
      let del = trx.deleteFrom('budget_reservations').where('id', '=', id);
      if (expiredAt !== null) del = del.where('expires_at', '<=', expiredAt);
      else del = del.where('tenant_id', '=', tenant);
      const row = await del.returning(['points', 'holds', 'tenant_id']).executeTakeFirst();
      if (!row) return false;
      if (row.points > 0)
        await addToCounters(
          trx,
          row.tenant_id,
          parseHolds(row.holds).map(({ cap: _, ...c }) => ({ ...c, spent: 0, reserved: -row.points })),
        );
      return true;
    });

  /** When this process last looked for expired reservations (reads and reservations look at most once a second). */
  let sweptAt = Number.NEGATIVE_INFINITY;
  const sweepDue = async () => {
    if (nowMs() - sweptAt >= SWEEP_EVERY_MS) await sweep();
  };

  async function sweep(): Promise<number> {
    const now = nowMs();
    sweptAt = now;
    const expired = await db
      .selectFrom('budget_reservations')
      .select('id')
      .where('expires_at', '<=', now)
      .limit(SWEEP_BATCH)
      .execute();
    let n = 0;
    for (const { id } of expired) if (await giveBack(id, now)) n++;
    return n;
  }

  return {
    async uses(caps) {
      await sweepDue();
      return readUses(db, tenant, caps);
    },

    async reserve(input) {
      // Expired reservations stop counting before anyone is refused for them (within a second).
      await sweepDue();
      const points = input.points;
      const ordered = [...input.caps].sort(byCounter);
      const now = nowMs();
      try {
        return await db.transaction().execute(async (trx) => {
          const uses = new Map<CapLimit, CapUse>();
          for (const cap of ordered) {
            if (points > cap.cap + POINTS_EPSILON) throw new CapReached(cap);
            // The one conditional write per counter: a new counter starts with this reservation.
            const { rows } = await sql<{ spent: number; reserved: number }>`
              INSERT INTO spend_counters (tenant_id, scope, subject, period, period_key, spent, reserved)
              VALUES (${tenant}, ${cap.scope}, ${cap.subject}, ${cap.period}, ${cap.key}, ${0}, ${points})
              ON CONFLICT (tenant_id, scope, subject, period, period_key) DO UPDATE
              SET reserved = spend_counters.reserved + excluded.reserved
              WHERE spend_counters.spent + spend_counters.reserved + excluded.reserved <= ${cap.cap + POINTS_EPSILON}
              RETURNING spent, reserved`.execute(trx);
            const row = rows[0];
            if (!row) throw new CapReached(cap);
            uses.set(cap, { ...cap, spent: Number(row.spent) + Number(row.reserved) - points });
          }
          const id = randomUUID();
          await trx
            .insertInto('budget_reservations')
            .values({
              tenant_id: tenant,
              id,
              user_id: input.userId,
              points,
              created_at: now,
              expires_at: now + input.ttlMs,
              holds: JSON.stringify(ordered.map(holdOf)),
            })
            .execute();
          return { ok: true as const, id, uses: input.caps.map((cap) => uses.get(cap) as CapUse) };
        });
      } catch (error) {
        if (!(error instanceof CapReached)) throw error;
        const uses = await readUses(db, tenant, input.caps);
        const exceeded = uses.find((u) => u.spent + points > u.cap + POINTS_EPSILON) ?? {
          ...error.cap,
          spent: error.cap.cap,
        };
        return { ok: false as const, exceeded, uses };
      }
    },

    async extend(id, points, ttlMs) {
      try {
        return await db.transaction().execute(async (trx) => {
          // The reservation row first (lock order), then its counters in order.
          const row = await trx
            .updateTable('budget_reservations')
            .set((eb) => ({ points: eb('points', '+', points), expires_at: nowMs() + ttlMs }))
            .where('tenant_id', '=', tenant)
            .where('id', '=', id)
            .returning(['holds'])
            .executeTakeFirst();
          if (!row) return false;
          for (const c of parseHolds(row.holds).sort(byCounter)) {
            const result = await trx
              .updateTable('spend_counters')
              .set((eb) => ({ reserved: eb('reserved', '+', points) }))
              .where('tenant_id', '=', tenant)
              .where('scope', '=', c.scope)
              .where('subject', '=', c.subject)
              .where('period', '=', c.period)
              .where('period_key', '=', c.key)
              .where(sql<boolean>`spent + reserved + ${points} <= ${c.cap + POINTS_EPSILON}`)
              .executeTakeFirst();
            if (Number(result.numUpdatedRows) !== 1) throw new CapReached(c);
          }
          return true;
        });
      } catch (error) {
        if (error instanceof CapReached) return false;
        throw error;
      }
    },

    async release(id) {
      await giveBack(id, null);
    },

    prune: sweep,

    async reconcile(periods) {
      const read = async (trx: Executor): Promise<CounterDifference[]> => {
        const differences: CounterDifference[] = [];
        for (const p of periods) {
          const expected = await ledgerSums(trx, tenant, p);
          const rows = await trx
            .selectFrom('spend_counters')
            .select(['scope', 'subject', 'spent'])
            .where('tenant_id', '=', tenant)
            .where('period', '=', p.period)
            .where('period_key', '=', p.key)
            .execute();
          const actual = new Map(
            rows.map((r) => [counterId({ ...r, period: p.period, key: p.key }), r] as const),
          );
          const ids = new Set([...expected.keys(), ...actual.keys()]);
          for (const id of ids) {
            const [scope, subject] = id.split('\u0000') as [CapScope, string];
            const counter = actual.get(id)?.spent ?? 0;
            const want = expected.get(id) ?? 0;
            if (Math.abs(counter - want) > POINTS_EPSILON)
              differences.push({
                scope,
                subject,
                period: p.period,
                key: p.key,
                field: 'spent',
                counter,
                expected: want,
              });
          }
        }
        // reserved: every counter's against the live reservations that hold it.
        const held = new Map<string, number>();
        for (const r of await trx
          .selectFrom('budget_reservations')
          .select(['points', 'holds'])
          .where('tenant_id', '=', tenant)
          .execute())
          for (const c of parseHolds(r.holds))
            held.set(counterId(c), (held.get(counterId(c)) ?? 0) + r.points);
        const reservedRows = await trx
          .selectFrom('spend_counters')
          .select(['scope', 'subject', 'period', 'period_key', 'reserved'])
          .where('tenant_id', '=', tenant)
          .where('reserved', '<>', 0)
          .execute();
        const seen = new Set<string>();
        for (const r of reservedRows) {
          const c = { scope: r.scope, subject: r.subject, period: r.period, key: r.period_key };
          seen.add(counterId(c));
          const want = held.get(counterId(c)) ?? 0;
          if (Math.abs(r.reserved - want) > POINTS_EPSILON)
            differences.push({ ...c, field: 'reserved', counter: r.reserved, expected: want });
        }
        for (const [id, want] of held) {
          if (seen.has(id) || Math.abs(want) <= POINTS_EPSILON) continue;
          const [scope, subject, period, key] = id.split('\u0000') as [
            CapScope,
            string,
            'daily' | 'monthly',
            string,
          ];
          differences.push({ scope, subject, period, key, field: 'reserved', counter: 0, expected: want });
        }
        return differences;
      };
      // One snapshot: a charge committed between two reads is not a difference.
      return engine === 'postgres'
        ? db.transaction().setIsolationLevel('repeatable read').execute(read)
        : db.transaction().execute(read);
    },
  };
}

// ---- sums from the ledger: reconciliation and the one-time backfill ----------------------------

/** The ledger's points of one period, per counter (workspace, each user, each channel). */
async function ledgerSums(db: Executor, tenant: string, p: Pick<Period, 'period' | 'key' | 'from' | 'to'>) {
  const sums = new Map<string, number>();
  const range = (q: ReturnType<typeof base>) =>
    q.where('at', '>=', p.from.getTime()).where('at', '<', p.to.getTime());
  const base = () =>
    db
      .selectFrom('ledger')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('points'), eb.lit(0)).as('points'))
      .where('tenant_id', '=', tenant);
  const add = (scope: CapScope, subject: string, points: number) => {
    if (points !== 0) sums.set(counterId({ scope, subject, period: p.period, key: p.key }), Number(points));
  };
  const total = await range(base()).executeTakeFirstOrThrow();
  add('workspace', '*', Number(total.points));
  for (const r of await range(base())
    .select('user_id')
    .where('user_id', 'is not', null)
    .groupBy('user_id')
    .execute())
    add('user', r.user_id as string, Number(r.points));
  for (const r of await range(base())
    .select('channel_id')
    .where('channel_id', 'is not', null)
    .groupBy('channel_id')
    .execute())
    add('channel', r.channel_id as string, Number(r.points));
  return sums;
}

/**
 * Fills the counters from the ledger once, after migration 7 (its lock row flags it): day by
 * day in the budget zone from the first row to the last, months as the sum of their days. The
 * flag is set in the same transaction, so of several processes opening together exactly one
 * fills them (the others wait on the row, then find it set).
 */
export async function backfillCounters({ db }: Pick<StoreContext, 'db'>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // bumped 0 → 1, once: the row stays (a freshly migrated database keeps its seed rows).
    const flag = await trx
      .updateTable('store_locks')
      .set({ bumped: 1 })
      .where('name', '=', 'counters-backfill')
      .where('bumped', '=', 0)
      .executeTakeFirst();
    if (Number(flag.numUpdatedRows) === 0) return;
    // Before tenants (migration 12) every row was the single workspace's: SINGLE_TENANT ''.
    const zone = await budgetZone(trx, '');
    const span = await trx
      .selectFrom('ledger')
      .select((eb) => [eb.fn.min<number>('at').as('first'), eb.fn.max<number>('at').as('last')])
      .executeTakeFirstOrThrow();
    if (span.first === null || span.last === null) return;
    const deltas = new Map<string, CounterDelta>();
    let day = periodsOf(Number(span.first), zone).daily;
    for (;;) {
      const month = periodsOf(day.from, zone).monthly;
      for (const [id, points] of await ledgerSums(trx, '', day)) {
        const [scope, subject] = id.split('\u0000') as [CapScope, string];
        for (const c of [
          { scope, subject, period: 'daily' as const, key: day.key },
          { scope, subject, period: 'monthly' as const, key: month.key },
        ]) {
          const seen = deltas.get(counterId(c));
          if (seen) seen.spent += points;
          else deltas.set(counterId(c), { ...c, spent: points, reserved: 0 });
        }
      }
      if (day.to.getTime() > Number(span.last)) break;
      day = periodsOf(day.to, zone).daily;
    }
    await addToCounters(trx, '', [...deltas.values()]);
  });
}
