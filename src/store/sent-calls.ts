/**
 * Every plat call is written ahead (store.ts SentCalls): its charge id, before the call is sent,
 * in the same transaction as a lookup's claim fence (pending.ts) or on its own for a digest run
 * or alert check; then marked `sent` just after its request was written to the service. Its
 * ledger row is written under the same id when its answer is read. A holder killed or cut off in
 * between leaves only this row, and whoever settles it (the next claim of the run, the sweep of
 * interrupted claims, housekeeping for rows nobody settled) writes the ledger row the holder
 * could not: code -1 (sent, no answer read) for a marked call, -2 (may not have been sent) for
 * one that is not (digest/sent-calls.ts settle; docs/money.md). Rows whose charge is in the
 * ledger are forgotten by the next claim of their run, or by housekeeping.
 *
 * `written_at` is the database's clock (PostgreSQL's clock_timestamp(); on SQLite the one
 * process's), so when a call may still arrive is judged by one clock whichever replica wrote it.
 */
import { type Selectable, sql } from 'kysely';
import type { Executor, SentCallsTable, StoreContext } from './schema.js';
import type { LedgerSource, SentCall, SentCalls, WrittenCall } from './store.js';

const toWrittenCall = (row: Selectable<SentCallsTable>): WrittenCall => ({
  chargeId: row.charge_id,
  runKey: row.run_key,
  epoch: Number(row.epoch),
  source: row.source as LedgerSource,
  operation: row.operation,
  edition: row.edition === null ? null : Number(row.edition),
  channelId: row.channel_id,
  correlationId: row.correlation_id,
  attempt: Number(row.attempt),
  sentAt: new Date(Number(row.sent_at)),
  userId: row.user_id,
  pendingId: row.pending_id,
  workflowExecutionId: row.workflow_execution_id,
  stepId: row.step_id,
  sent: Number(row.sent) === 1,
});

/** The ledger row's code a sweep may have written for a call that may never have left (ledger.ts). */
const MAYBE_NOT_SENT_CODE = -2;

/** The database's clock in ms: PostgreSQL's own; SQLite's is this process's (there is one). */
export function dbNowMs({ engine, nowMs }: Pick<StoreContext, 'engine' | 'nowMs'>) {
  return engine === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`
    : sql<number>`${nowMs()}`;
}

/**
 * Writes a call ahead (its mark cleared; written again, its times are the new ones), with the
 * given executor: a lookup's fence writes it in its own transaction.
 */
export async function writeAhead(ctx: StoreContext, executor: Executor, call: SentCall): Promise<void> {
  const writtenAt = dbNowMs(ctx);
  await executor
    .insertInto('sent_calls')
    .values({
      tenant_id: ctx.tenant,
      charge_id: call.chargeId,
      run_key: call.runKey,
      epoch: call.epoch,
      source: call.source,
      operation: call.operation,
      edition: call.edition,
      channel_id: call.channelId,
      correlation_id: call.correlationId,
      attempt: call.attempt,
      sent_at: call.sentAt.getTime(),
      sent: 0,
      written_at: writtenAt,
      user_id: call.userId ?? null,
      pending_id: call.pendingId ?? null,
      workflow_execution_id: call.workflowExecutionId ?? null,
      step_id: call.stepId ?? null,
    })
    .onConflict((oc) =>
      oc.column('charge_id').doUpdateSet((eb) => ({
        sent: 0,
        sent_at: eb.ref('excluded.sent_at'),
        written_at: eb.ref('excluded.written_at'),
      })),
    )
    .execute();
}

export function createSentCalls(ctx: StoreContext): SentCalls {
  const { db, tenant } = ctx;
  return {
    record: (call) => writeAhead(ctx, db, call),
    async markSent(chargeId) {
      await db
        .updateTable('sent_calls')
        .set({ sent: 1 })
        .where('tenant_id', '=', tenant)
        .where('charge_id', '=', chargeId)
        .execute();
    },
    async withdraw(chargeId) {
      await db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('sent_calls')
          .where('tenant_id', '=', tenant)
          .where('charge_id', '=', chargeId)
          .execute();
        // A "may not have been sent" row carries no points and counts in no total: it goes too.
        await trx
          .deleteFrom('ledger')
          .where('tenant_id', '=', tenant)
          .where('charge_id', '=', chargeId)
          .where('code', '=', MAYBE_NOT_SENT_CODE)
          .where('points', '=', 0)
          .execute();
      });
    },
    async unanswered(runKey, epoch) {
      const rows = await db
        .selectFrom('sent_calls')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('run_key', '=', runKey)
        .where('epoch', '<', epoch)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('ledger')
                .select('ledger.id')
                .whereRef('ledger.charge_id', '=', 'sent_calls.charge_id'),
            ),
          ),
        )
        .orderBy('sent_at')
        .execute();
      return rows.map(toWrittenCall);
    },
    async forgetRecorded(runKey) {
      await db
        .deleteFrom('sent_calls')
        .where('tenant_id', '=', tenant)
        .where('run_key', '=', runKey)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('ledger')
              .select('ledger.id')
              .whereRef('ledger.charge_id', '=', 'sent_calls.charge_id'),
          ),
        )
        .execute();
    },
    async unsettled(before, limit) {
      const rows = await db
        .selectFrom('sent_calls')
        .selectAll()
        .where('sent_at', '<', before.getTime())
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('ledger')
                .select('ledger.id')
                .whereRef('ledger.charge_id', '=', 'sent_calls.charge_id'),
            ),
          ),
        )
        .orderBy('sent_at')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...toWrittenCall(row), tenantId: row.tenant_id }));
    },
    async pruneRecorded(before) {
      const result = await db
        .deleteFrom('sent_calls')
        .where('sent_at', '<', before.getTime())
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('ledger')
              .select('ledger.id')
              .whereRef('ledger.charge_id', '=', 'sent_calls.charge_id'),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async recent(within) {
      const now = dbNowMs(ctx);
      // Whole milliseconds: PostgreSQL reads the bound value as a bigint.
      const withinMs = Math.ceil(within);
      // Rows of a build before migration 20 have no written_at: their send time stands in.
      const rows = await db
        .selectFrom('sent_calls')
        .select((eb) =>
          sql<number>`${now} - coalesce(${eb.ref('sent_calls.written_at')}, ${eb.ref('sent_calls.sent_at')})`.as(
            'ago',
          ),
        )
        .where((eb) =>
          eb.or([
            eb('written_at', '>', sql<number>`${now} - ${withinMs}`),
            eb.and([eb('written_at', 'is', null), eb('sent_at', '>', sql<number>`${now} - ${withinMs}`)]),
          ]),
        )
        .execute();
      // No answer time is kept: a ledger row's time is its call's reservation (the period it is
      // booked in, set before the send), not when the answer was read, so it cannot say that a
      // call had arrived. Every call is taken as possibly on its way until its bound runs out.
      return rows.map((row) => ({ writtenAgoMs: Number(row.ago), answeredAgoMs: null }));
    },
  };
}
