/**
 * Pending lookups (confirmations) and their single-use claim (DESIGN rule 2).
 */
import { randomUUID } from 'node:crypto';
import { type Selectable, sql } from 'kysely';
import { fromJson, toJson } from './json.js';
import type { Executor, PendingLookupsTable, StoreContext } from './schema.js';
import { dbNowMs, writeAhead } from './sent-calls.js';
import type {
  ClaimHolder,
  ClaimResult,
  InterruptGrounds,
  NewPendingLookup,
  PendingLookup,
  PendingLookups,
} from './store.js';

type PendingRow = Selectable<PendingLookupsTable>;

/** The row with its JSON read back as the caller's types (the store does not check them). */
function toPending<R, Q>(row: PendingRow): PendingLookup<R, Q> {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    channelId: row.channel_id,
    teamId: row.team_id,
    request: fromJson<R>(row.request_json),
    quote: fromJson<Q>(row.quote_json),
    summary: row.summary,
    responseUrl: row.response_url,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    state: row.state,
    stateChangedAt: new Date(row.state_changed_at),
    resultJson: row.result_json,
    claimedBy: row.claimed_by,
    leaseExpiresAt: row.lease_expires_at === null ? null : new Date(row.lease_expires_at),
    claimEpoch: Number(row.claim_epoch),
    callsSent: Number(row.calls_sent),
    planId: row.plan_id ?? null,
  };
}

export function createPendingLookups(ctx: StoreContext): PendingLookups {
  const { db, nowMs, leaseNow, tenant } = ctx;
  const select = (id: string) =>
    db
      .selectFrom('pending_lookups')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('id', '=', id)
      .executeTakeFirst();

  async function move<R, Q>(
    id: string,
    userId: string,
    to: 'running' | 'cancelled',
    holder: ClaimHolder | null,
  ): Promise<ClaimResult<R, Q>> {
    const now = nowMs();
    const leaseFrom = leaseNow();
    // The whole single-use guarantee is this one conditional UPDATE: the database runs it
    // atomically (SQLite under its write lock, PostgreSQL under the row lock, re-checking the
    // WHERE after a concurrent update), so of any number of claims on any number of connections
    // exactly one sees state = 'pending' and changes the row.
    const moved = await db
      .updateTable('pending_lookups')
      .set((eb) => ({
        state: to,
        state_changed_at: now,
        claimed_by: holder?.instanceId ?? null,
        lease_expires_at: holder ? sql<number>`${leaseFrom} + ${holder.leaseMs}` : null,
        claim_epoch: eb('claim_epoch', '+', 1),
      }))
      .where('tenant_id', '=', tenant)
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .where('user_id', '=', userId)
      .where('expires_at', '>', now)
      .returningAll()
      .executeTakeFirst();
    if (moved) return { ok: true, pending: toPending<R, Q>(moved) };
    const row = await select(id);
    if (!row) return { ok: false, reason: 'not_found', pending: null };
    const pending = toPending<R, Q>(row);
    // Owner first, so another user learns nothing about the state of someone else's request.
    if (row.user_id !== userId) return { ok: false, reason: 'not_yours', pending };
    if (row.state === 'cancelled') return { ok: false, reason: 'cancelled', pending };
    if (row.state === 'interrupted') return { ok: false, reason: 'interrupted', pending };
    if (row.state !== 'pending') return { ok: false, reason: 'already_used', pending };
    return { ok: false, reason: 'expired', pending };
  }

  return {
    async create<R, Q>(input: NewPendingLookup<R, Q>) {
      const now = nowMs();
      const row: PendingRow = {
        tenant_id: tenant,
        id: input.id ?? randomUUID(),
        user_id: input.userId,
        channel_id: input.channelId,
        team_id: input.teamId,
        request_json: toJson(input.request),
        quote_json: toJson(input.quote),
        summary: input.summary,
        response_url: input.responseUrl,
        created_at: now,
        expires_at: now + input.ttlMs,
        state: 'pending',
        state_changed_at: now,
        result_json: null,
        claimed_by: null,
        lease_expires_at: null,
        claim_epoch: 0,
        calls_sent: 0,
        plan_id: input.planId ?? null,
      };
      if (input.id === undefined) {
        await db.insertInto('pending_lookups').values(row).execute();
        return toPending<R, Q>(row);
      }
      // A fixed id: the first create wins, every later one reads its row.
      await db
        .insertInto('pending_lookups')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      const stored = await select(row.id);
      if (!stored) throw new Error(`pending lookup ${row.id} vanished after its insert`);
      return toPending<R, Q>(stored);
    },
    async get<R, Q>(id: string) {
      const row = await select(id);
      return row ? toPending<R, Q>(row) : null;
    },
    claim: <R, Q>(id: string, userId: string, holder: ClaimHolder) =>
      move<R, Q>(id, userId, 'running', holder),
    cancel: <R, Q>(id: string, userId: string) => move<R, Q>(id, userId, 'cancelled', null),
    async withdraw(id, userId) {
      const result = await db
        .updateTable('pending_lookups')
        .set({ state: 'cancelled', state_changed_at: nowMs() })
        .where('tenant_id', '=', tenant)
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('state', '=', 'running')
        .where('calls_sent', '=', 0)
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
    async finish(id, state, resultJson) {
      const result = await db
        .updateTable('pending_lookups')
        .set({ state, state_changed_at: nowMs(), result_json: resultJson })
        .where('tenant_id', '=', tenant)
        .where('id', '=', id)
        .where('state', '=', 'running')
        .executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
    async renewClaims(holder) {
      const now = leaseNow();
      const result = await db
        .updateTable('pending_lookups')
        .set({ lease_expires_at: sql<number>`${now} + ${holder.leaseMs}` })
        .where('state', '=', 'running')
        .where('claimed_by', '=', holder.instanceId)
        .where('lease_expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async fence(id, holder, epoch, call) {
      const now = leaseNow();
      const check = (executor: Executor) =>
        executor
          .updateTable('pending_lookups')
          .set((eb) => ({
            lease_expires_at: sql<number>`${now} + ${holder.leaseMs}`,
            calls_sent: eb('calls_sent', '+', 1),
          }))
          .where('tenant_id', '=', tenant)
          .where('id', '=', id)
          .where('state', '=', 'running')
          .where('claimed_by', '=', holder.instanceId)
          .where('claim_epoch', '=', epoch)
          .where('lease_expires_at', '>', now);
      if (!call) return (await check(db).executeTakeFirst()).numUpdatedRows === 1n;
      // The call written ahead only if the claim holds, in the same commit: no store write is
      // added to the call's path (SQLite: one transaction, one fsync; PostgreSQL: one statement).
      if (ctx.engine === 'postgres') {
        const { rows } = await sql<{ held: number }>`
          WITH fenced AS (${check(db).returning('id')}),
          written AS (
            INSERT INTO sent_calls (tenant_id, charge_id, run_key, epoch, source, operation, edition,
              channel_id, correlation_id, attempt, sent_at, sent, written_at, user_id, pending_id,
              workflow_execution_id, step_id)
            SELECT ${tenant}, ${call.chargeId}, ${call.runKey}, ${call.epoch}, ${call.source},
              ${call.operation}, ${call.edition}::bigint, ${call.channelId}, ${call.correlationId},
              ${call.attempt}, ${call.sentAt.getTime()}::bigint, 0, ${dbNowMs(ctx)},
              ${call.userId ?? null}, ${call.pendingId ?? null}, ${call.workflowExecutionId ?? null},
              ${call.stepId ?? null}
            FROM fenced
            ON CONFLICT (charge_id) DO UPDATE
            SET sent = 0, sent_at = excluded.sent_at, written_at = excluded.written_at
            RETURNING 1
          )
          SELECT count(*)::int AS held FROM fenced`.execute(db);
        return Number(rows[0]?.held ?? 0) === 1;
      }
      return db.transaction().execute(async (trx) => {
        if ((await check(trx).executeTakeFirst()).numUpdatedRows !== 1n) return false;
        await writeAhead(ctx, trx, call);
        return true;
      });
    },
    async runningClaims<R, Q>() {
      const rows = await db
        .selectFrom('pending_lookups')
        .selectAll()
        .where('state', '=', 'running')
        .orderBy('state_changed_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => toPending<R, Q>(row));
    },
    async interrupt<R, Q>(
      id: string,
      claimedBy: string | null,
      epoch: number | undefined,
      grounds: InterruptGrounds,
    ) {
      // Only while still running under the same holder (`is` matches a NULL holder of a claim
      // made before leases): of several processes deciding at once, exactly one gets the row.
      // And only on its grounds as they are now, not as the caller read them: a lease that ran
      // out long enough ago by the lease clock (none at all: a claim of a build before leases).
      let update = db
        .updateTable('pending_lookups')
        .set({ state: 'interrupted', state_changed_at: nowMs() })
        .where('tenant_id', '=', tenant)
        .where('id', '=', id)
        .where('state', '=', 'running')
        .where('claimed_by', claimedBy === null ? 'is' : '=', claimedBy);
      if (epoch !== undefined) update = update.where('claim_epoch', '=', epoch);
      if ('leaseOverForMs' in grounds) {
        const over = sql<number>`${leaseNow()} - ${grounds.leaseOverForMs}`;
        update = update.where((eb) =>
          eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', over)]),
        );
      }
      const row = await update.returningAll().executeTakeFirst();
      return row ? toPending<R, Q>(row) : null;
    },
    async prune(olderThan) {
      const before = olderThan.getTime();
      const result = await db
        .deleteFrom('pending_lookups')
        .where('state_changed_at', '<', before)
        .where('expires_at', '<', before)
        .where('state', '<>', 'running')
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
