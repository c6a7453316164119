/**
 * Every plat call is in the ledger once, even when its holder dies between the plat API answering
 * and the charge reaching the ledger (issue 19; issue 33 findings 6 and 16; the plat API has no
 * idempotency key, so such a page is bought again by the next holder, and both charges must show).
 * Each attempt's charge id is written ahead in the store (store/sent-calls.ts) before it is sent
 * (a lookup's in its claim's fence, lookups/lookup-service.ts; a leased run's here), marked sent
 * once its request was written to the service, and its ledger row is written under the same id
 * when the answer is read.
 *
 * Whoever finds a call written ahead with no ledger row after its holder is gone (the next claim
 * of a digest run or alert check, below; the sweep of interrupted lookups; housekeeping for rows
 * nobody settled) writes the row the holder could not (`placeholderFor`): code -1 (sent, no
 * answer read: the service may have charged it) for a call marked sent, code -2 (may not have
 * been sent: its holder died between the write ahead and the send, or before the mark was
 * written) for one that is not. Both have 0 points; -2 counts in no figure a person reads. If
 * the holder was alive after all and writes the real charge later, it upgrades the placeholder
 * (store/ledger.ts certaintyOf).
 */
import type { CallOptions } from '../plat/client.js';
import { NO_ANSWER_CODE, takesQuotaCall } from '../plat/codes.js';
import type { Operation } from '../plat/operations.js';
import type { ChargeEvent } from '../plat/types.js';
import { type ChargeRecorder, chargeIdOf, ledgerEntryFor, MAYBE_NOT_SENT_CODE } from '../store/ledger.js';
import type { LedgerSource, NewLedgerEntry, SentCall, Store, WrittenCall } from '../store/store.js';

type Warn = { warn(obj: object, msg: string): void } | undefined;

/**
 * The plat client's hooks for a call written ahead: the mark once its request was written, and
 * its withdrawal when it was not sent after all. Neither delays the call: each write goes on its
 * own, a failure is logged (an unmarked call is settled as "may not have been sent"; an
 * unwithdrawn one as well, and the holder's own charge, if any came, upgrades it).
 */
export function sendMarks(
  store: Store,
  chargeIdOfAttempt: (attempt: number) => string,
  logger: Warn,
): Pick<CallOptions, 'sent' | 'notSent'> {
  return {
    sent: (attempt) => {
      const chargeId = chargeIdOfAttempt(attempt);
      store.sentCalls
        .markSent(chargeId)
        .catch((err: unknown) => logger?.warn({ err, chargeId }, 'sent call not marked'));
    },
    notSent: (attempt) => {
      const chargeId = chargeIdOfAttempt(attempt);
      store.sentCalls
        .withdraw(chargeId)
        .catch((err: unknown) => logger?.warn({ err, chargeId }, 'unsent call not withdrawn'));
    },
  };
}

/**
 * The ledger row for a call written ahead whose answer was never read: -1 for a call marked
 * sent (and, for an item operation, the quota call it may have taken: overstated rather than
 * lost), -2 with no quota call for one that may never have left. 0 points either way.
 */
export function placeholderFor(call: WrittenCall): NewLedgerEntry {
  const operation = call.operation as Operation;
  const code = call.sent ? NO_ANSWER_CODE : MAYBE_NOT_SENT_CODE;
  return ledgerEntryFor(
    {
      operation,
      edition: call.edition,
      points: 0,
      quotaCalls: call.sent && takesQuotaCall(operation, NO_ANSWER_CODE, '') ? 1 : 0,
      code,
      requestId: null,
      correlationId: call.correlationId,
      at: call.sentAt,
    },
    {
      chargeId: call.chargeId,
      userId: call.userId ?? null,
      channelId: call.channelId,
      pendingId: call.pendingId ?? null,
      source: call.source,
      ...(call.workflowExecutionId && call.stepId
        ? { workflow: { workflowExecutionId: call.workflowExecutionId, stepId: call.stepId } }
        : {}),
    },
  );
}

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
  logger?: Warn;
}

export interface LeasedRunCalls {
  /** For the plat client: write each attempt's charge id ahead, mark it sent, withdraw it when it was not sent. */
  writeAhead: Pick<CallOptions, 'beforeSend' | 'notSent' | 'sent'>;
  /** The ledger row of a charge event, under the id written ahead for it. */
  record(event: ChargeEvent): Promise<void>;
}

/** The charge ids of one holder's calls: `<runKey>:<epoch>:<call>:<attempt>`. */
export function leasedRunCalls(options: LeasedRunCallsOptions): LeasedRunCalls {
  const { store, runKey, epoch } = options;
  const owner = `${runKey}:${epoch}`;
  /** Calls whose charge came: the place of the next one (an attempt that never reached the service has no charge). */
  let calls = 0;
  const idOf = (attempt: number) => chargeIdOf(owner, calls, attempt);
  return {
    writeAhead: {
      beforeSend: (operation: Operation, attempt: number) => {
        const call: SentCall = {
          chargeId: idOf(attempt),
          runKey,
          epoch,
          source: options.source,
          operation,
          edition: options.edition,
          channelId: options.channelId,
          correlationId: options.correlationId,
          attempt,
          sentAt: new Date(options.now()),
        };
        return store.sentCalls.record(call);
      },
      ...sendMarks(store, idOf, options.logger),
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
 * At a claim, before any call: each call an earlier holder of the run wrote ahead whose charge
 * never reached the ledger gets its row (placeholderFor), and those that were sent are counted by
 * `tally` (the run's calls; one that may never have left is not); then the run's recorded calls
 * are forgotten. Returns how many were settled.
 */
export async function settleUnanswered(
  options: Pick<LeasedRunCallsOptions, 'store' | 'charges' | 'runKey' | 'epoch' | 'logger'>,
  tally: (calls: number) => Promise<void>,
): Promise<number> {
  const { store, runKey } = options;
  const lost = await store.sentCalls.unanswered(runKey, options.epoch);
  for (const call of lost) await options.charges.record(placeholderFor(call));
  const sent = lost.filter((c) => c.sent).length;
  if (sent > 0) await tally(sent);
  if (lost.length > 0)
    options.logger?.warn(
      {
        runKey,
        sent: lost.filter((c) => c.sent).map((c) => c.chargeId),
        maybeNotSent: lost.filter((c) => !c.sent).map((c) => c.chargeId),
      },
      'calls an earlier holder wrote ahead never reached the ledger: recorded with their cost unknown',
    );
  await store.sentCalls.forgetRecorded(runKey);
  return lost.length;
}
