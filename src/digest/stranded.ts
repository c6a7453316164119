/**
 * The stranded-runs sweep (issue 33 finding 12): the one way an open leased run of any kind and
 * any day is claimed again, whatever left it open. A digest run ("Run now" or scheduled, of today
 * or a day gone by) or a ship-by alert check whose holder died or stopped is:
 *  - running, its lease run out → taken over: resumed while its day (a digest) or its slot (an
 *    alert check) is still current, else ended: the calls its holders sent are settled in the
 *    ledger (sent-calls.ts), it is failed, and who needs to know is told (the channel's notice,
 *    the admins, a "Run now" progress message ended instead of showing "page 4 of n" for ever);
 *  - posting, its lease run out → unknown, and its history check claimed POST_SETTLE_MS later:
 *    the post is found and recorded, or sent once, or the admins are told (posted-once.ts);
 *  - failed with a retry due, unknown with a history check due → claimed then, of any day.
 * The claim is the store's, with the same fenced leases as every run (store/runs.ts): of any
 * number of replicas sweeping at once, one takes each run.
 *
 * Who sweeps: the replica's one wake loop (src/schedule-wakes.ts, issue 39) reads the open runs
 * of every workspace from the store, claims those due and hands each to its workspace's scheduler
 * (`takeOver`), building that workspace's parts only then; so a run is claimed within a lease of
 * its holder's death on any live replica, whether or not the workspace's parts are built there.
 * A scheduler with a timer of its own (not driven by that loop: the unit tests') sweeps its own
 * workspace's runs on its wake loop with the same functions.
 */
import type { Logger } from 'pino';
import type {
  AlertCheck,
  AlertStore,
  DigestRun,
  DigestStore,
  ExistingRunClaim,
  HeldLease,
  Lease,
  LeasedRun,
  RunFailure,
  RunHolder,
  UnknownPost,
} from '../store/store.js';
import { claimable } from '../store/store.js';
import { type RunLeaseTimings, withRunFence } from './run-fence.js';
import { settleUnanswered } from './sent-calls.js';
import type { DigestDeps } from './types.js';

/** What the owner of a claimed stranded run does with it. */
export type StrandedAction =
  /** Take it up where it stopped (its day or slot is still current), or do its due retry. */
  | 'resume'
  /** Read the history for its post (a post left unknown). */
  | 'verify'
  /** Settle what it sent, and end it failed (its day or slot has passed, or its subscription is gone). */
  | 'end';

/** How a stranded run was claimed (store.ts ExistingRunClaim). */
export type StrandedClaim = Exclude<ExistingRunClaim, null>;

/** What a claimed stranded run's owner does: its post is verified, else it resumes while current. */
export function strandedAction(how: StrandedClaim, current: boolean): StrandedAction {
  return how === 'verify' ? 'verify' : current ? 'resume' : 'end';
}

export interface StrandedRuns<R extends LeasedRun> {
  /** Runs that wait for a claim: running or posting (live or not), failed or unknown with a due time. */
  open(): Promise<R[]>;
  /** Whether this process runs it now (no claim then). */
  inFlight(run: R): boolean;
  /** The store's claim of an existing run (a takeover, a retry, a history check), or null. */
  claim(run: R, lease: Lease): Promise<{ run: R; how: StrandedClaim } | null>;
  /**
   * Starts the claimed run in the background: resumed while its day (digests) or slot (alert
   * checks) is current, verified, or ended (strandedAction).
   */
  start(run: R, how: StrandedClaim): void | Promise<void>;
}

/** When an open run next needs a claim (a lease runs out, a retry or check falls due), or null. */
export function strandedDeadline(run: LeasedRun): number | null {
  switch (run.state) {
    case 'running':
    case 'posting':
      return run.leaseExpiresAt?.getTime() ?? null;
    case 'failed':
    case 'unknown':
      return run.nextAttemptAt?.getTime() ?? null;
    default:
      return null;
  }
}

/** The earliest deadline of the open runs this process does not run itself. */
export async function nextStranded<R extends LeasedRun>(
  runs: Pick<StrandedRuns<R>, 'open' | 'inFlight'>,
): Promise<number> {
  let next = Number.POSITIVE_INFINITY;
  for (const run of await runs.open()) {
    if (runs.inFlight(run)) continue;
    const at = strandedDeadline(run);
    if (at !== null) next = Math.min(next, at);
  }
  return next;
}

/**
 * Claims every open run that is due now and starts it, `concurrency` at a time. A posting run
 * whose lease ran out is made 'unknown' by the claim (its check comes later, store/runs.ts); a
 * verify claim reads the history; a takeover or retry resumes a current run and ends one whose
 * time has passed.
 */
export async function sweepStranded<R extends LeasedRun>(
  runs: StrandedRuns<R>,
  now: number,
  lease: () => Lease,
  concurrency = 1,
): Promise<void> {
  const due = (await runs.open()).filter((run) => !runs.inFlight(run) && claimable(run, now));
  let next = 0;
  const worker = async () => {
    for (let run = due[next++]; run !== undefined; run = due[next++]) {
      const claimed = await runs.claim(run, lease());
      if (claimed) await runs.start(claimed.run, claimed.how);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), due.length) }, worker));
}

/** The store's claim of an open digest run by id (a takeover, a due retry or history check), or null. */
export async function claimStrandedRun(
  digests: Pick<DigestStore, 'claimRun'>,
  run: DigestRun,
  lease: Lease,
  logger?: Pick<Logger, 'info'>,
): Promise<{ run: DigestRun; how: StrandedClaim } | null> {
  const claim = await digests.claimRun(run.id, lease);
  if (!claim.claimed || claim.how === 'new') return null;
  logger?.info({ runId: run.id, kind: run.kind, how: claim.how }, 'digest run claimed');
  return { run: claim.run, how: claim.how };
}

/** The store's claim of an open ship-by alert check (a takeover, a due retry or history check), or null. */
export async function claimStrandedCheck(
  alerts: Pick<AlertStore, 'claimCheck'>,
  check: AlertCheck,
  lease: Lease,
  logger?: Pick<Logger, 'info'>,
): Promise<{ run: AlertCheck; how: StrandedClaim } | null> {
  const claimed = await alerts.claimCheck(
    { subscriptionId: check.subscriptionId, slotAt: check.slotAt, localDate: check.localDate },
    lease,
  );
  if (!claimed.claimed || claimed.how === 'new') return null;
  logger?.info(
    { checkId: check.id, subscriptionId: check.subscriptionId, how: claimed.how },
    'alert check claimed',
  );
  return { run: claimed.check, how: claimed.how };
}

/** The run table of a leased run, as ending an orphan needs it (store.ts DigestStore, AlertStore). */
export interface OrphanTable {
  renew(id: number, lease: HeldLease): Promise<boolean>;
  addCharge(id: number, points: number, calls: number): Promise<void>;
  markFailed(id: number, holder: RunHolder, failure: RunFailure): Promise<boolean>;
  markUnknown(id: number, holder: RunHolder, unknown: UnknownPost): Promise<boolean>;
}

/**
 * Ends a claimed run whose subscription was removed: no channel to post in or look at, nobody
 * to tell but the log. Under its fence, the calls its holders sent are settled in the ledger
 * (sent-calls.ts: every call that reached the service is in the ledger once); a running run is
 * failed, a posting one is given up unverified (it is not posted, and no longer looked for).
 */
export async function endOrphan(
  ctx: RunLeaseTimings & Pick<DigestDeps, 'store' | 'charges' | 'logger'>,
  run: LeasedRun,
  table: OrphanTable,
  runKey: string,
): Promise<void> {
  await withRunFence(
    ctx,
    run,
    (id, lease) => table.renew(id, lease),
    ctx.logger,
    async (fence) => {
      const holder = fence.holder;
      await settleUnanswered(
        { store: ctx.store, charges: ctx.charges, runKey, epoch: holder.epoch, logger: ctx.logger },
        (n) => table.addCharge(run.id, 0, n),
      );
      const now = new Date(ctx.clock.now());
      const error = 'its subscription was removed while it was open';
      const ended =
        run.state === 'posting'
          ? await table.markUnknown(run.id, holder, { error, checkAt: null, now })
          : await table.markFailed(run.id, holder, { error, nextAttemptAt: null, now });
      ctx.logger?.warn({ runKey, ended }, 'open run of a removed subscription ended');
    },
  );
}
