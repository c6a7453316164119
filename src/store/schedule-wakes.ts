/**
 * When each workspace's schedules next need a look (issue 39): one row per tenant and kind
 * (digest, alert), written by that tenant's scheduler after each plan, read by the replica's one
 * wake loop (schedule-wakes.ts at the top) through an index on `due_at`. The scheduling itself
 * (slots, time zones, leases, retries) stays in the schedulers; this table only says whom to wake,
 * so a replica's idle cost is a query or two a minute whatever the number of workspaces.
 *
 * Several replicas may plan one tenant at once. A plan that follows a wake-up replaces the due
 * time it consumed only while that is still the row's value; any other write keeps the earlier of
 * the two. So a subscription added on one replica while another plans from an older list is never
 * pushed later (at worst a tenant is woken once for nothing, and the next plan puts it right).
 */
import { sql } from 'kysely';
import type { Engine } from './migrations.js';
import type { Db, Executor } from './schema.js';
import type { ScheduleWakes, WakeKind } from './store.js';

/** A due time past any real one, for SQL; Infinity itself is not an INTEGER. */
const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * A subscription added (in the store's transaction that adds it): its tenant is looked at now,
 * so its first plan is made whoever added it (another replica, an older build's data) and
 * whether or not the tenant's parts are built.
 */
export async function wakeNow(trx: Db, tenant: string, kind: 'digest' | 'alert'): Promise<void> {
  await sql`
    INSERT INTO schedule_wakes (tenant_id, kind, due_at) VALUES (${tenant}, ${kind}, 0)
    ON CONFLICT (tenant_id, kind) DO UPDATE SET due_at = 0`.execute(trx);
}

/**
 * An installation saved (installed, or installed again): its schedules that were set aside while
 * it could not be served (no installation: looked at never) are looked at now.
 */
export async function wakeUnserved(trx: Executor, tenant: string): Promise<void> {
  await sql`UPDATE schedule_wakes SET due_at = 0 WHERE tenant_id = ${tenant} AND due_at >= ${NEVER}`.execute(
    trx,
  );
}

export function createScheduleWakes(db: Db, engine: Engine): ScheduleWakes {
  return {
    async set(tenant, kind, atMs, seen) {
      const at = Number.isFinite(atMs) ? Math.max(0, Math.floor(atMs)) : NEVER;
      const was = seen === undefined ? null : Number.isFinite(seen) ? Math.floor(seen) : NEVER;
      await sql`
        INSERT INTO schedule_wakes (tenant_id, kind, due_at) VALUES (${tenant}, ${kind}, ${at})
        ON CONFLICT (tenant_id, kind) DO UPDATE SET due_at = CASE
          WHEN schedule_wakes.due_at = ${was} THEN excluded.due_at
          WHEN excluded.due_at < schedule_wakes.due_at THEN excluded.due_at
          ELSE schedule_wakes.due_at END`.execute(db);
    },
    async takeDue(nowMs, limit, untilMs, options) {
      const now = Math.floor(nowMs);
      const until = Math.floor(untilMs);
      // One statement. On PostgreSQL the rows another transaction is writing at this moment (a
      // replica taking them, a plan's due time) are skipped, not waited for, unless asked to
      // wait: then what is still due once those writes end is taken. SQLite writes one statement
      // at a time anyway. Earliest first, in one order, so two waiting takes never deadlock.
      const skip = options?.waitForLocked ? sql`` : sql`SKIP LOCKED`;
      const taken =
        engine === 'postgres'
          ? await sql<{ tenant_id: string; kind: string }>`
        UPDATE schedule_wakes AS w SET due_at = ${until}
        FROM (SELECT tenant_id, kind FROM schedule_wakes WHERE due_at <= ${now}
              ORDER BY due_at, tenant_id, kind LIMIT ${limit} FOR UPDATE ${skip}) AS d
        WHERE w.tenant_id = d.tenant_id AND w.kind = d.kind
        RETURNING w.tenant_id, w.kind`.execute(db)
          : await sql<{ tenant_id: string; kind: string }>`
        UPDATE schedule_wakes SET due_at = ${until}
        WHERE (tenant_id, kind) IN (SELECT tenant_id, kind FROM schedule_wakes WHERE due_at <= ${now}
                                    ORDER BY due_at, tenant_id, kind LIMIT ${limit})
        RETURNING tenant_id, kind`.execute(db);
      return taken.rows.map((r) => ({ tenant: r.tenant_id, kind: r.kind as WakeKind }));
    },
    async due(nowMs, limit) {
      const rows = await db
        .selectFrom('schedule_wakes')
        .select(['tenant_id', 'kind', 'due_at'])
        .where('due_at', '<=', Math.floor(nowMs))
        .orderBy('due_at')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ tenant: r.tenant_id, kind: r.kind as WakeKind, at: Number(r.due_at) }));
    },
    async adoptMissing() {
      // Subscriptions or open runs with no row (an older replica added them during a rollout).
      const missing = (kind: 'digest' | 'alert', subs: string, runs: string) => sql`
        INSERT INTO schedule_wakes (tenant_id, kind, due_at)
        SELECT DISTINCT tenant_id, ${kind}, 0 FROM (
          SELECT tenant_id FROM ${sql.table(subs)} WHERE removed_at IS NULL
          UNION SELECT tenant_id FROM ${sql.table(runs)} WHERE state IN ('running', 'posting', 'failed', 'unknown')
        ) AS t
        WHERE NOT EXISTS (SELECT 1 FROM schedule_wakes w WHERE w.tenant_id = t.tenant_id AND w.kind = ${kind})
        ON CONFLICT (tenant_id, kind) DO NOTHING`;
      const a = await missing('digest', 'digest_subscriptions', 'digest_runs').execute(db);
      const b = await missing('alert', 'alert_subscriptions', 'alert_checks').execute(db);
      return Number(a.numAffectedRows ?? 0n) + Number(b.numAffectedRows ?? 0n);
    },
    async next() {
      const row = await db
        .selectFrom('schedule_wakes')
        .select('due_at')
        .where('due_at', '<', NEVER)
        .orderBy('due_at')
        .limit(1)
        .executeTakeFirst();
      return row ? Number(row.due_at) : null;
    },
  };
}
