/**
 * Every call a leased run (digest run, alert check) sends is in the ledger once, even when its
 * holder dies between the plat API answering and the charge reaching the ledger (issue 19; the
 * plat API has no idempotency key, so such a page is bought again by the next holder, and both
 * charges must show). Each attempt's charge id is written ahead in the store (store/sent-calls.ts)
 * before it is sent; its ledger row is written under the same id when the answer is read. The
 * next claim of the run writes, for each call of an earlier epoch that has no ledger row, the row
 * its holder could not: code -1 (sent, cost unknown), 0 points, as for any call whose answer never
 * came (plat/client.ts), and counts it in the run's calls.
 */
import type { CallOptions } from '../plat/client.js';
import { NO_ANSWER_CODE, takesQuotaCall } from '../plat/codes.js';
import type { Operation } from '../plat/operations.js';
import type { ChargeEvent } from '../plat/types.js';
import { type ChargeRecorder, chargeIdOf, ledgerEntryFor } from '../store/ledger.js';
import type { LedgerSource, Store } from '../store/store.js';

export interface LeasedRunCallsOptions {
  store: Store;
  charges: ChargeRecorder;
  now: () => number;
  /** `digest:<run>` or `alert:<check>`. */
  runKey: string;
  epoch: number;
  source: LedgerSource;
  channelId: string | null;
  correlationId: string;
  edition: number | null;
  logger?: { warn(obj: object, msg: string): void } | undefined;
}

export interface LeasedRunCalls {
  /** For the plat client: write each attempt's charge id ahead, withdraw it when it was not sent. */
  writeAhead: Pick<CallOptions, 'beforeSend' | 'notSent'>;
  /** The ledger row of a charge event, under the id written ahead for it. */
  record(event: ChargeEvent): Promise<void>;
}

/** The charge ids of one holder's calls: `<runKey>:<epoch>:<call>:<attempt>`. */
export function leasedRunCalls(options: LeasedRunCallsOptions): LeasedRunCalls {
  const { store, runKey, epoch } = options;
  const owner = `${runKey}:${epoch}`;
  /** Calls whose charge came: the place of the next one (an attempt that never reached the service has no charge). */
  let calls = 0;
  return {
    writeAhead: {
      beforeSend: (operation: Operation, attempt: number) =>
        store.sentCalls.record({
          chargeId: chargeIdOf(owner, calls, attempt),
          runKey,
          epoch,
          source: options.source,
          operation,
          edition: options.edition,
          channelId: options.channelId,
          correlationId: options.correlationId,
          attempt,
          sentAt: new Date(options.now()),
        }),
      notSent: (attempt: number) => {
        store.sentCalls
          .withdraw(chargeIdOf(owner, calls, attempt))
          .catch((err: unknown) => options.logger?.warn({ err, runKey }, 'unsent call not withdrawn'));
      },
    },
    record: (event) =>
      options.charges.record(
        ledgerEntryFor(event, {
          chargeId: chargeIdOf(owner, calls++, event.attempt),
          userId: null,
          channelId: options.channelId,
          pendingId: null,
          source: options.source,
        }),
      ),
  };
}

/**
 * At a claim, before any call: each call an earlier holder of the run sent whose charge never
 * reached the ledger gets its row (code -1, cost unknown) and is counted by `tally` (the run's
 * calls); then the run's recorded calls are forgotten. Returns how many there were.
 */
export async function settleUnanswered(
  options: Pick<LeasedRunCallsOptions, 'store' | 'charges' | 'runKey' | 'epoch' | 'logger'>,
  tally: (calls: number) => Promise<void>,
): Promise<number> {
  const { store, runKey } = options;
  const lost = await store.sentCalls.unanswered(runKey, options.epoch);
  for (const call of lost) {
    const operation = call.operation as Operation;
    await options.charges.record(
      ledgerEntryFor(
        {
          operation,
          edition: call.edition,
          points: 0,
          quotaCalls: takesQuotaCall(operation, NO_ANSWER_CODE, '') ? 1 : 0,
          code: NO_ANSWER_CODE,
          requestId: null,
          correlationId: call.correlationId,
          at: call.sentAt,
        },
        {
          chargeId: call.chargeId,
          userId: null,
          channelId: call.channelId,
          pendingId: null,
          source: call.source,
        },
      ),
    );
  }
  if (lost.length > 0) {
    await tally(lost.length);
    options.logger?.warn(
      { runKey, calls: lost.map((c) => c.chargeId) },
      'calls an earlier holder sent never reached the ledger: recorded with their cost unknown',
    );
  }
  await store.sentCalls.forgetRecorded(runKey);
  return lost.length;
}
