/**
 * Tenants (issue 24): the unit whose data, plat account, prices, caps and settings are kept
 * apart. For an org-wide Enterprise Grid install it is the enterprise id (`E…`), otherwise the
 * team id (`T…`); single-workspace mode (SLACK_BOT_TOKEN, no SLACK_CLIENT_ID) has one tenant,
 * SINGLE_TENANT, so the rows written before tenants existed (migration 12 gave them '') are
 * still its own.
 *
 * Every table that belongs to a workspace has a `tenant_id` column; the sub-stores are built
 * bound to one tenant (schema.ts StoreContext.tenant) and filter every read and stamp every
 * insert with it. This file holds what spans tenants: moving the single tenant's rows to the
 * first installed workspace (adopt), deleting a tenant (erase), and the readers the schedulers
 * need to find work of every tenant.
 */
import type { ExpressionBuilder, ExpressionWrapper, Selectable, SqlBool } from 'kysely';
import { sql } from 'kysely';
import { toRun } from './digests.js';
import { toLeasedRun } from './runs.js';
import type { AlertChecksTable, Db, DigestRunsTable, Schema } from './schema.js';
import type { AlertCheck, DigestRun, Store, TenantDirectory } from './store.js';

/** The one tenant of single-workspace mode. */
export const SINGLE_TENANT = '';

/** Every table whose rows belong to a tenant (the tables migration 12 gave `tenant_id`). */
export const TENANT_TABLES = [
  'pending_lookups',
  'ledger',
  'user_prefs',
  'audit_log',
  'settings',
  'digest_subscriptions',
  'digest_runs',
  'digest_pages',
  'sent_calls',
  'alert_subscriptions',
  'alert_checks',
  'alert_orders',
  'alert_cap_days',
  'processed_events',
  'unfurl_records',
  'auto_lookup_counts',
  'shortcut_batches',
  'agent_threads',
  'agent_feedback',
  'mcp_tokens',
  'budget_reservations',
  'spend_counters',
  'answer_cache',
  'alerts_sent',
] as const satisfies readonly (keyof Schema)[];

/**
 * Distributed mode's tables keyed by the tenant itself (migration 16, store/installations.ts,
 * store/plat-accounts.ts): not moved by adopt (an installation is its tenant's), deleted by
 * erase. tenant_erasures is kept: its erased_at is the trace that the deletion happened.
 */
const OWN_TABLES = ['slack_installations', 'plat_accounts'] as const satisfies readonly (keyof Schema)[];

/**
 * Tables whose key a tenant chooses (so two tenants may both have it): the key columns besides
 * tenant_id. On adopt, a row of the target under the same key wins (spend_counters: added).
 */
const KEYED: Partial<Record<(typeof TENANT_TABLES)[number], readonly string[]>> = {
  settings: ['key'],
  user_prefs: ['user_id'],
  auto_lookup_counts: ['channel_id', 'day'],
  answer_cache: ['key'],
  agent_threads: ['channel_id', 'thread_ts'],
  agent_feedback: ['user_id', 'channel_id', 'message_ts'],
  alerts_sent: ['key'],
  spend_counters: ['scope', 'subject', 'period', 'period_key'],
};

export function createTenantDirectory(db: Db, forTenant: (tenant: string) => Store): TenantDirectory {
  return {
    async list() {
      // A UNION of DISTINCTs, each served by an index or a small table; for operators and
      // housekeeping, not for a request's path.
      const parts = TENANT_TABLES.map((t) => sql`SELECT DISTINCT tenant_id FROM ${sql.table(t)}`);
      const { rows } = await sql<{ tenant_id: string }>`${sql.join(parts, sql` UNION `)}`.execute(db);
      return rows.map((r) => r.tenant_id).sort();
    },
    adopt: (from, to) =>
      db.transaction().execute(async (trx) => {
        if (from === to) return 0;
        let moved = 0;
        for (const table of TENANT_TABLES) {
          const t = sql.table(table);
          const keys = KEYED[table];
          if (table === 'spend_counters') {
            // Caps count what was spent: the two tenants' counters are added together.
            const r = await sql`
              INSERT INTO spend_counters (tenant_id, scope, subject, period, period_key, spent, reserved)
              SELECT ${to}, scope, subject, period, period_key, spent, reserved
              FROM spend_counters WHERE tenant_id = ${from}
              ON CONFLICT (tenant_id, scope, subject, period, period_key) DO UPDATE
              SET spent = spend_counters.spent + excluded.spent,
                  reserved = spend_counters.reserved + excluded.reserved`.execute(trx);
            moved += Number(r.numAffectedRows ?? 0n);
            await sql`DELETE FROM spend_counters WHERE tenant_id = ${from}`.execute(trx);
            continue;
          }
          const clash = keys
            ? sql` AND NOT EXISTS (SELECT 1 FROM ${t} AS other WHERE other.tenant_id = ${to} AND ${sql.join(
                keys.map((k) => sql`other.${sql.ref(k)} = ${t}.${sql.ref(k)}`),
                sql` AND `,
              )})`
            : sql``;
          const r = await sql`UPDATE ${t} SET tenant_id = ${to} WHERE tenant_id = ${from}${clash}`.execute(
            trx,
          );
          moved += Number(r.numAffectedRows ?? 0n);
          // What is left under a key the target has already: the target's row is kept.
          if (keys) await sql`DELETE FROM ${t} WHERE tenant_id = ${from}`.execute(trx);
        }
        // The schedules moved with their rows: the target is looked at now, and plans anew.
        await sql`
          INSERT INTO schedule_wakes (tenant_id, kind, due_at)
          SELECT ${to}, kind, 0 FROM schedule_wakes WHERE tenant_id = ${from}
          ON CONFLICT (tenant_id, kind) DO UPDATE SET due_at = 0`.execute(trx);
        await sql`DELETE FROM schedule_wakes WHERE tenant_id = ${from}`.execute(trx);
        return moved;
      }),
    erase: (tenant) =>
      db.transaction().execute(async (trx) => {
        let erased = 0;
        for (const table of TENANT_TABLES) {
          const r = await sql`DELETE FROM ${sql.table(table)} WHERE tenant_id = ${tenant}`.execute(trx);
          erased += Number(r.numAffectedRows ?? 0n);
        }
        await sql`DELETE FROM schedule_wakes WHERE tenant_id = ${tenant}`.execute(trx);
        for (const table of OWN_TABLES) {
          const r = await sql`DELETE FROM ${sql.table(table)} WHERE tenant = ${tenant}`.execute(trx);
          erased += Number(r.numAffectedRows ?? 0n);
        }
        return erased;
      }),
    async digestSubscriptions() {
      const lists = await Promise.all(
        (await tenantsWith(db, 'digest_subscriptions')).map((t) => forTenant(t).digests.list()),
      );
      return lists.flat();
    },
    async alertSubscriptions() {
      const lists = await Promise.all(
        (await tenantsWith(db, 'alert_subscriptions')).map((t) => forTenant(t).alerts.list()),
      );
      return lists.flat();
    },
    async spenders(periodKey, since) {
      const rows = await sql<{ tenant_id: string }>`
        SELECT tenant_id FROM spend_counters WHERE period_key >= ${periodKey}
        UNION SELECT tenant_id FROM ledger WHERE at >= ${since.getTime()}
        UNION SELECT tenant_id FROM budget_reservations
        ORDER BY tenant_id`.execute(db);
      return rows.rows.map((r) => r.tenant_id);
    },
    async openDigestRuns() {
      const rows: Selectable<DigestRunsTable>[] = await db
        .selectFrom('digest_runs')
        .selectAll()
        .where(openRun)
        .orderBy('id')
        .execute();
      return rows.map((r): DigestRun => toRun(r));
    },
    async openAlertChecks() {
      const rows: Selectable<AlertChecksTable>[] = await db
        .selectFrom('alert_checks')
        .selectAll()
        .where(openRun)
        .orderBy('id')
        .execute();
      return rows.map(
        (r): AlertCheck => ({ ...toLeasedRun(r), slotAt: new Date(r.slot_at), localDate: r.local_date }),
      );
    },
  };
}

/**
 * A leased run that waits for a claim (store.ts claimable): running or posting, or failed or
 * unknown with a due time. Served by the `(state, next_attempt_at)` index of each run table (so a
 * replica's sweep reads the few open runs, not every run ever kept).
 */
function openRun(
  eb: ExpressionBuilder<Schema, 'digest_runs' | 'alert_checks'>,
): ExpressionWrapper<Schema, 'digest_runs' | 'alert_checks', SqlBool> {
  return eb.or([
    eb('state', 'in', ['running', 'posting']),
    eb.and([eb('state', 'in', ['failed', 'unknown']), eb('next_attempt_at', 'is not', null)]),
  ]);
}

/** The tenants that have live subscriptions in `table`. */
async function tenantsWith(db: Db, table: 'digest_subscriptions' | 'alert_subscriptions'): Promise<string[]> {
  const rows = await db
    .selectFrom(table)
    .select('tenant_id')
    .distinct()
    .where('removed_at', 'is', null)
    .orderBy('tenant_id')
    .execute();
  return rows.map((r) => r.tenant_id);
}
