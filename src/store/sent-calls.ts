/**
 * Calls a leased run is about to send (store.ts SentCalls): a digest run or alert check writes
 * each attempt's charge id here before the attempt is sent. A call's ledger row is written when
 * its answer is read; a holder killed in between (the plat API answered and charged, the answer
 * or its ledger write never finished) leaves only this row. The next claim of the run finds it
 * (a sent call of an earlier epoch with no ledger row) and writes the ledger row the dead holder
 * could not: code -1, cost unknown (digest/sent-calls.ts). Rows go once their charge is in the
 * ledger, so the table holds only the calls of runs in progress.
 */
import type { Selectable } from 'kysely';
import type { SentCallsTable, StoreContext } from './schema.js';
import type { LedgerSource, SentCall, SentCalls } from './store.js';

const toSentCall = (row: Selectable<SentCallsTable>): SentCall => ({
  chargeId: row.charge_id,
  runKey: row.run_key,
  epoch: row.epoch,
  source: row.source as LedgerSource,
  operation: row.operation,
  edition: row.edition,
  channelId: row.channel_id,
  correlationId: row.correlation_id,
  attempt: row.attempt,
  sentAt: new Date(row.sent_at),
});

export function createSentCalls({ db, tenant }: StoreContext): SentCalls {
  return {
    async record(call) {
      await db
        .insertInto('sent_calls')
        .values({
          tenant_id: tenant,
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
        })
        .onConflict((oc) => oc.column('charge_id').doNothing())
        .execute();
    },
    async withdraw(chargeId) {
      await db
        .deleteFrom('sent_calls')
        .where('tenant_id', '=', tenant)
        .where('charge_id', '=', chargeId)
        .execute();
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
      return rows.map(toSentCall);
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
  };
}
