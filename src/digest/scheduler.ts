/**
 * The digest scheduler: at each subscription's local time, claim that day's run in the store and
 * execute it; retry failures with backoff within the local day; catch a missed run up at start-up
 * the same local day.
 *
 * Exactly once per subscription per local day, across restarts and instances, rests on the store
 * (store/digests.ts): the run of a local date is a row with a UNIQUE (subscription, local date),
 * held under a lease; only the lease holder may move it to 'posting' and post. The window no
 * store can close, Slack accepting the post without the row saying so (an unclear answer, or a
 * crash before the record), is closed by the post's key in its message metadata: such a run is
 * 'unknown', and before anything is posted again the channel's history is read for the key
 * (posted-once.ts). Admins are told only when that history cannot be read.
 *
 * Timers: one timer for the next thing to do (a due time, a retry, a lease to take over), never
 * longer than `maxSleepMs`, so subscriptions added by another instance and clock changes are seen
 * within that time. The clock is injected (CONVENTIONS 3), so tests move time by hand.
 */
import { randomUUID } from 'node:crypto';
import { isPlatError } from '../plat/errors.js';
import type { DigestRun, DigestSubscription, RunHolder } from '../store/store.js';
import { claimable, type Lease } from '../store/store.js';
import { addDays, DAY_MS, localDateOf, startOfLocalDay, zonedInstant } from '../zoned-time.js';
import { splitWindows } from './fetch-orders.js';
import { POST_SETTLE_MS, PostRefusedError } from './posted-once.js';
import { RUN_LEASE_DEFAULTS } from './run-fence.js';
import {
  executeDigestRun,
  isLeaseLost,
  type RunnerContext,
  type RunResult,
  RunStrandedError,
} from './runner.js';
import {
  claimStrandedRun,
  endOrphan,
  nextStranded,
  type StrandedClaim,
  type StrandedRuns,
  strandedAction,
  sweepStranded,
} from './stranded.js';
import type { DigestClock, DigestDeps } from './types.js';
import { createWakeLoop, type DrivenBy, realClock } from './wake-loop.js';

const MINUTE = 60_000;

export interface DigestSchedulerOptions extends DigestDeps {
  clock?: DigestClock;
  /** This process, in lease records. Default: a random UUID. */
  instanceId?: string;
  /**
   * How long a claim holds without renewal (renewed by a timer every `renewEveryMs`). Default
   * 22 s: a run whose holder died is taken over and resumed within about that (issue 19: < 30 s).
   */
  leaseMs?: number;
  /**
   * Default 2 s: a holder may start calls until leaseMs − callSpanMs (6 s) after its last renewal,
   * so two renewals can be slow or lost before it has to stop.
   */
  renewEveryMs?: number;
  /**
   * The longest a plat call takes from being sent to its end: the plat deadline plus a margin
   * (default 16 s). A holder starts no call later than this before its lease runs out.
   */
  callSpanMs?: number;
  /** How far this process's clock may be from the database's (PLATDESK_CLOCK_SKEW_BUDGET_MS; run-fence.ts). */
  skewBudgetMs?: number;
  /** Waits before the 2nd, 3rd… attempt; a retry is planned only if it falls within the local day. */
  retryDelaysMs?: readonly number[];
  /** Longest sleep between two looks at the store. Default 60 s. */
  maxSleepMs?: number;
  /**
   * One wake loop for every workspace (schedule-wakes.ts): no timer of this scheduler's own;
   * each plan's instant goes to `schedule` (the store's next-due row), and `wake` is called when
   * it falls due (digest/wake-loop.ts WakeLoopOptions.driven). Stranded runs are then that loop's
   * to sweep, for every workspace (stranded.ts): it claims them and hands them to `takeOver`.
   */
  driven?: DrivenBy;
  /** Least time between two progress updates of "Run now". Default 1.5 s. */
  progressIntervalMs?: number;
}

export const DIGEST_DEFAULTS = {
  ...RUN_LEASE_DEFAULTS,
  retryDelaysMs: [5 * MINUTE, 15 * MINUTE, 45 * MINUTE],
  maxSleepMs: MINUTE,
  progressIntervalMs: 1_500,
} as const;

/** What "Run now" and "Run anyway" come back with. */
export type ManualResult =
  | RunResult
  | { kind: 'not_found' }
  /** The run was already approved, run or is no longer waiting. */
  | { kind: 'already_handled'; run: DigestRun | null }
  | { kind: 'failed'; run: DigestRun; error: unknown }
  /** platdesk is stopping. */
  | { kind: 'stopped' };

export interface DigestScheduler {
  readonly instanceId: string;
  /** Catches up missed runs of today and arms the timer. */
  start(): void;
  /** Stops the timer, aborts runs in flight (their leases are released) and waits for them. */
  stop(): Promise<void>;
  /** Plans again now (after a subscription was added or removed). */
  reschedule(): void;
  /** "Run now": a manual run with progress in the channel, under the cost cap. */
  /**
   * `newestRunId`: only while that run is still the newest ("Run again", single-use); otherwise
   * `already_handled`.
   */
  runNow(subscriptionId: number, userId: string, newestRunId?: number): Promise<ManualResult>;
  /**
   * Today's posted digest (the subscription's local date: the newest run, else the scheduled
   * one), if any: a "Run now" would fetch and charge the same orders again, so the caller asks first.
   */
  postedToday(subscriptionId: number): Promise<DigestRun | null>;
  /** "Run anyway": runs a run that waited for approval, without the cap. Single-use. */
  approve(runId: number, userId: string): Promise<ManualResult>;
  /** The next scheduled instant of a subscription, for `list` (ms). */
  nextRunAt(subscription: DigestSubscription): number;
  /** Resolves when no run is in flight (tests). */
  idle(): Promise<void>;
  /** Resolves when no plan or wake-up is under way: the next timer is set (runs may go on). */
  settled(): Promise<void>;
  /** When the timer fires next (ms), or null when stopped. */
  nextWakeAt(): number | null;
  /** Driven mode: claims what is due now and plans; `seen` is the due time the loop outside found. */
  wake(seen?: number): Promise<void>;
  /**
   * Driven mode: starts a stranded run of this workspace that the replica's sweep claimed under
   * this scheduler's `instanceId` (stranded.ts): resumed, verified or ended. Stopped: its lease is
   * given up instead.
   */
  takeOver(run: DigestRun, how: StrandedClaim): Promise<void>;
  /** Whether this scheduler runs that run now. */
  inFlight(runId: number): boolean;
  /** Whether a plan, a wake-up or a run is under way (its workspace's parts are then kept). */
  busy(): boolean;
}

/** The instant a subscription's (first) digest of `date` is due (DST handled in zonedInstant). */
export function scheduledInstant(subscription: DigestSubscription, date: string): number {
  return zonedInstant(date, subscription.localTime, subscription.timeZone);
}

/** A scheduled digest: its run key (UNIQUE per subscription) and its instant. */
export interface Slot {
  /** The local date, or 'YYYY-MM-DD HH:MM' when the subscription posts several times a day. */
  key: string;
  date: string;
  at: number;
}

/** Day of the week of a local date: 0 Sunday … 6 Saturday (no time zone involved). */
function weekdayOf(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

/** The slots of a local date, ascending; none on a day the subscription skips (`days`). */
export function slotsOn(subscription: DigestSubscription, date: string): Slot[] {
  if (subscription.days && !subscription.days.includes(weekdayOf(date))) return [];
  const several = subscription.times.length > 1;
  return subscription.times.map((time) => ({
    key: several ? `${date} ${time}` : date,
    date,
    at: zonedInstant(date, time, subscription.timeZone),
  }));
}

/** The first slot at or after `atMs` (a week ahead at most: every subscription posts some day). */
export function nextSlotAfter(subscription: DigestSubscription, atMs: number): Slot {
  const today = localDateOf(atMs, subscription.timeZone);
  for (let d = 0; d <= 8; d++) {
    const slot = slotsOn(subscription, addDays(today, d)).find((s) => s.at >= atMs);
    if (slot) return slot;
  }
  throw new RangeError(`digest #${subscription.id} has no day to post on`);
}

/** The slot before `slot` (yesterday's, or last Friday's for a weekday digest on Monday). */
function previousSlot(subscription: DigestSubscription, slot: Slot): Slot {
  for (let d = 0; d <= 8; d++) {
    const before = slotsOn(subscription, addDays(slot.date, -d)).filter((s) => s.at < slot.at);
    const last = before.at(-1);
    if (last) return last;
  }
  throw new RangeError(`digest #${subscription.id} has no day to post on`);
}

/**
 * Pages the first run at or after `atMs` reads at the least: one per 24 h window of the orders it
 * covers (since the slot before it), whatever the shop's volume (more orders, more pages). What
 * `/orders digest add` and the Home's digest form state before a digest exists.
 */
export function nextRunPages(subscription: DigestSubscription, atMs: number): number {
  const slot = nextSlotAfter(subscription, atMs);
  return splitWindows(new Date(previousSlot(subscription, slot).at), new Date(slot.at)).length;
}

/** The first scheduled instant at or after `atMs`. */
export function nextRunAfter(subscription: DigestSubscription, atMs: number): number {
  return nextSlotAfter(subscription, atMs).at;
}

export function createDigestScheduler(options: DigestSchedulerOptions): DigestScheduler {
  const clock = options.clock ?? realClock;
  const instanceId = options.instanceId ?? randomUUID();
  const leaseMs = options.leaseMs ?? DIGEST_DEFAULTS.leaseMs;
  const retryDelays = options.retryDelaysMs ?? DIGEST_DEFAULTS.retryDelaysMs;
  const maxSleepMs = options.maxSleepMs ?? DIGEST_DEFAULTS.maxSleepMs;
  const { store, publisher, logger } = options;
  const digests = store.digests;
  const ctx: RunnerContext = {
    ...options,
    now: () => clock.now(),
    clock,
    instanceId,
    leaseMs,
    renewEveryMs: options.renewEveryMs ?? DIGEST_DEFAULTS.renewEveryMs,
    callSpanMs: options.callSpanMs ?? DIGEST_DEFAULTS.callSpanMs,
    skewBudgetMs: options.skewBudgetMs ?? DIGEST_DEFAULTS.skewBudgetMs,
    progressIntervalMs: options.progressIntervalMs ?? DIGEST_DEFAULTS.progressIntervalMs,
  };

  const loop = createWakeLoop({
    clock,
    maxSleepMs,
    plan: (now) => plan(now),
    wake: (now) => claimDue(now),
    ...(options.driven ? { driven: options.driven } : {}),
    onError: (error) => logger?.error({ err: error }, 'digest scheduler could not read the store'),
  });
  const arm = () => loop.arm();
  const lease = (): Lease => ({ owner: instanceId, ms: leaseMs });
  /**
   * The earliest deadline of an open run the last plan saw (stranded.ts), or Infinity; before the
   * first plan unknown (-Infinity: the first wake-up sweeps).
   */
  let strandedDue = Number.NEGATIVE_INFINITY;

  /** The stranded-runs sweep's own (not driven): only when no loop outside sweeps every workspace. */
  const sweepsItself = !options.driven;

  /**
   * The runs this scheduler's own stranded-runs sweep (stranded.ts) looks at: every open run of
   * its workspace, of any kind ("Run now" too) and any local date.
   */
  function strandedRuns(subs: ReadonlyMap<number, DigestSubscription>): StrandedRuns<DigestRun> {
    return {
      open: () => digests.openRuns(),
      inFlight: (run) => loop.inFlight(run.id),
      claim: (run, lease) => claimStrandedRun(digests, run, lease, logger),
      start: (run, how) => startStranded(subs.get(run.subscriptionId), run, how),
    };
  }

  /**
   * Starts a claimed stranded run. A run is still current within its local day (a scheduled run
   * is retried only within its day, and "Run now" likewise): then it is resumed, else ended; a
   * run of a removed subscription is ended.
   */
  function startStranded(sub: DigestSubscription | undefined, run: DigestRun, how: StrandedClaim): void {
    if (!sub) {
      void loop.track(run.id, () =>
        endOrphan(ctx, run, digests, `digest:${run.id}`).catch((err: unknown) =>
          logger?.error({ err, runId: run.id }, 'digest run of a removed subscription not ended'),
        ),
      );
      return;
    }
    const current = clock.now() < startOfLocalDay(addDays(run.localDate.slice(0, 10), 1), sub.timeZone);
    void start(sub, run, false, strandedAction(how, current) === 'end');
  }

  /**
   * The next time anything may need doing, without claiming anything: today's due time, or
   * tomorrow's; and any open run's next deadline (a planned retry or history check, a lease
   * running out), of any kind and day (stranded.ts).
   */
  async function plan(now: number): Promise<number> {
    let next = Number.POSITIVE_INFINITY;
    const subs = await digests.list();
    strandedDue = sweepsItself
      ? await nextStranded(strandedRuns(new Map(subs.map((s) => [s.id, s]))))
      : Number.POSITIVE_INFINITY;
    for (const sub of subs) {
      next = Math.min(next, nextSlotAfter(sub, now + 1).at);
      for (const slot of slotsOn(sub, localDateOf(now, sub.timeZone))) {
        if (slot.at > now || slot.at < sub.createdAt.getTime()) continue;
        // Due and never claimed: its own time (already passed), which the wake loop tells from
        // what its last wake-up already tried.
        if ((await digests.scheduledRun(sub.id, slot.key)) === null) next = Math.min(next, slot.at);
      }
    }
    return Math.min(next, strandedDue);
  }

  /** Whether a claim could change anything (saves a write transaction on every wake-up). */
  function mayClaim(run: DigestRun, now: number): boolean {
    return !loop.inFlight(run.id) && claimable(run, now);
  }

  /** Claims and starts every run that is due now: today's slots, then every open run (stranded.ts). */
  async function claimDue(now: number): Promise<void> {
    const subs = await digests.list();
    for (const sub of subs)
      for (const slot of slotsOn(sub, localDateOf(now, sub.timeZone))) {
        // A subscription added after a slot's time starts with the next one: nothing to catch up.
        if (slot.at > now || slot.at < sub.createdAt.getTime()) continue;
        await claimSlot(sub, slot, now);
      }
    // Only when the last plan saw an open run due by now (an open run that appeared since is seen
    // by the next plan, within maxSleepMs): most wake-ups are for a slot, and skip the query.
    if (sweepsItself && strandedDue <= now)
      await sweepStranded(strandedRuns(new Map(subs.map((s) => [s.id, s]))), now, lease);
  }

  async function claimSlot(sub: DigestSubscription, slot: Slot, now: number): Promise<void> {
    const existing = await digests.scheduledRun(sub.id, slot.key);
    if (existing && !mayClaim(existing, now)) return;
    const claim = await digests.claimScheduled(
      {
        subscriptionId: sub.id,
        localDate: slot.key,
        // The previous slot's time to this one's: consecutive digests tile time with no gap and
        // no overlap, across a DST change (a 23 or 25 h window) and skipped days (Friday to Monday).
        windowStart: new Date(previousSlot(sub, slot).at),
        windowEnd: new Date(slot.at),
        requestedBy: null,
      },
      lease(),
    );
    if (claim.claimed) {
      logger?.info({ runId: claim.run.id, subscriptionId: sub.id, how: claim.how }, 'digest run claimed');
      void start(sub, claim.run, false);
    }
  }

  /**
   * Executes a held run in the background; failures go through `failed`. Never rejects. `end`: a
   * stranded run whose day has passed, settled and ended (stranded.ts).
   */
  function start(
    sub: DigestSubscription,
    run: DigestRun,
    force: boolean,
    end = false,
  ): Promise<ManualResult> {
    /** This claim: the store takes the holder's writes only under its epoch. */
    const holder = { owner: instanceId, epoch: run.epoch };
    const attempt = async (signal: AbortSignal): Promise<ManualResult> => {
      try {
        const result = await executeDigestRun(ctx, sub, run, {
          force,
          progress: run.kind === 'manual',
          signal,
          end,
        });
        await afterRun(sub, run, result);
        return result;
      } catch (error) {
        if (signal.aborted) {
          // Stopping: hand the run over at once instead of letting the lease run out.
          await digests.release(run.id, holder, new Date(clock.now()));
          return { kind: 'stopped' };
        }
        if (isLeaseLost(error)) {
          logger?.warn({ runId: run.id, err: error }, 'digest run lost its lease: stopped');
          return { kind: 'already_handled', run: await digests.run(run.id) };
        }
        await failed(sub, (await digests.run(run.id)) ?? run, holder, error);
        return { kind: 'failed', run: (await digests.run(run.id)) ?? run, error };
      }
    };
    return loop.track(run.id, (signal) =>
      attempt(signal)
        // Only the store failing while recording a failure gets here; the lease then runs out
        // and the run is taken over.
        .catch((error: unknown): ManualResult => {
          logger?.error({ err: error, runId: run.id }, 'digest run could not be recorded');
          return { kind: 'failed', run, error };
        }),
    );
  }

  async function afterRun(sub: DigestSubscription, run: DigestRun, result: RunResult): Promise<void> {
    const quietly = (p: Promise<unknown>, what: string) =>
      p.catch((err: unknown) => logger?.error({ err, runId: run.id }, what));
    if (result.kind === 'unknown') {
      // Not posted again, and the history cannot tell whether it was: the admins look.
      if (result.checkAt === null)
        await quietly(
          publisher.alertAdmins({
            kind: 'unverified',
            subscription: sub,
            run: result.run,
            reason: result.reason ?? 'refused',
          }),
          'digest alert not delivered',
        );
      return;
    }
    if (result.kind === 'posted') {
      const noticeTs = result.run.noticeTs;
      if (noticeTs !== null)
        await quietly(
          publisher.postNotice({ kind: 'resolved', subscription: sub, run: result.run }, noticeTs),
          'digest notice not updated',
        );
      return;
    }
    // Over the cap. "Run now" answers the admin who asked; a scheduled run asks every admin.
    const progressTs = result.run.messageTs;
    if (progressTs !== null)
      await quietly(
        publisher.postNotice(
          {
            kind: 'awaiting_approval',
            subscription: sub,
            run: result.run,
            estimatePoints: result.estimatePoints,
          },
          progressTs,
        ),
        'digest progress message not updated',
      );
    if (run.kind === 'scheduled')
      await quietly(
        publisher.askApproval({
          subscription: sub,
          run: result.run,
          estimatePoints: result.estimatePoints,
          capPoints: result.capPoints,
          estimate: result.estimate,
        }),
        'digest approval request not delivered',
      );
  }

  /**
   * A failed attempt: record it with its next attempt (if one fits in the local day), tell the
   * channel (one notice per run, updated afterwards) and the admins (first failure and giving up).
   * "Run now" failures are answered to the admin who asked instead, and not retried; a stranded
   * run whose day has passed is not retried either.
   *
   * A run in 'posting' never fails on an unclear end (issue 33 finding 4): its post may be in the
   * channel (Slack accepted it and the store did not record it, or the attempt broke after
   * sending), and a retry would post without looking. It goes to its history check instead; only
   * Slack's sure refusal of the holder's own post (PostRefusedError) fails it.
   */
  async function failed(
    sub: DigestSubscription,
    run: DigestRun,
    holder: RunHolder,
    error: unknown,
  ): Promise<void> {
    const now = clock.now();
    const reason = isPlatError(error) ? `${error.code}: ${error.message}` : String(error);
    if (run.state === 'posting' && !(error instanceof PostRefusedError)) {
      const checkAt = new Date(now + POST_SETTLE_MS);
      const unknown = { error: `the post was interrupted: ${reason}`, checkAt, now: new Date(now) };
      if (await digests.markUnknown(run.id, holder, unknown))
        logger?.warn(
          { runId: run.id, reason, checkAt },
          'digest post interrupted: its history is read before any other post',
        );
      return;
    }
    const dayEnd = startOfLocalDay(addDays(run.localDate.slice(0, 10), 1), sub.timeZone);
    const delay =
      run.kind === 'scheduled' && !(error instanceof RunStrandedError)
        ? retryDelays[run.attempts - 1]
        : undefined;
    const nextAttemptAt = delay !== undefined && now + delay < dayEnd ? new Date(now + delay) : null;
    logger?.warn(
      { runId: run.id, subscriptionId: sub.id, attempts: run.attempts, nextAttemptAt, reason },
      'digest run failed',
    );
    const failure = { error: reason, nextAttemptAt, now: new Date(now) };
    const moved =
      run.state === 'posting'
        ? await digests.markRefused(run.id, holder, failure)
        : await digests.markFailed(run.id, holder, failure);
    if (!moved) return;
    const current = (await digests.run(run.id)) ?? run;
    if (run.kind === 'manual') {
      // The admin who asked is answered by the caller; the progress message must not hang on "page k of n".
      if (current.messageTs !== null)
        await publisher
          .postNotice(
            { kind: 'failed', subscription: sub, run: current, error, nextAttemptAt: null },
            current.messageTs,
          )
          .catch((err: unknown) =>
            logger?.error({ err, runId: run.id }, 'digest progress message not updated'),
          );
      return;
    }
    try {
      const ts = await publisher.postNotice(
        { kind: 'failed', subscription: sub, run: current, error, nextAttemptAt },
        current.noticeTs,
      );
      if (current.noticeTs === null) await digests.setNoticeTs(run.id, ts);
    } catch (err) {
      logger?.error({ err, runId: run.id }, 'digest failure notice not posted');
    }
    if (run.attempts === 1 || nextAttemptAt === null) {
      await publisher
        .alertAdmins({ kind: 'failed', subscription: sub, run: current, error, nextAttemptAt })
        .catch((err: unknown) => logger?.error({ err, runId: run.id }, 'digest alert not delivered'));
    }
  }

  return {
    instanceId,
    start: () => loop.start(),
    stop: () => loop.stop(),
    reschedule: () => arm(),
    async runNow(subscriptionId, userId, newestRunId) {
      const sub = await digests.get(subscriptionId);
      if (!sub) return { kind: 'not_found' };
      if (!loop.running) return { kind: 'stopped' };
      const now = clock.now();
      const run = await digests.createManual(
        {
          subscriptionId,
          localDate: localDateOf(now, sub.timeZone),
          windowStart: new Date(now - DAY_MS),
          windowEnd: new Date(now),
          requestedBy: userId,
        },
        lease(),
        newestRunId,
      );
      if (!run) return { kind: 'already_handled', run: await digests.lastRun(subscriptionId) };
      return start(sub, run, false);
    },
    async postedToday(subscriptionId) {
      const sub = await digests.get(subscriptionId);
      if (!sub) return null;
      const today = localDateOf(clock.now(), sub.timeZone);
      const last = await digests.lastRun(subscriptionId);
      // Run keys are the date, or the date and time for several digests a day.
      if (last && last.state === 'posted' && last.localDate.slice(0, 10) === today) return last;
      const runs = await Promise.all(
        slotsOn(sub, today).map((slot) => digests.scheduledRun(subscriptionId, slot.key)),
      );
      const posted = runs.filter((run) => run?.state === 'posted');
      return posted.at(-1) ?? null;
    },
    async approve(runId, userId) {
      const waiting = await digests.run(runId);
      if (!waiting) return { kind: 'not_found' };
      const sub = await digests.get(waiting.subscriptionId);
      if (!sub) return { kind: 'not_found' };
      if (!loop.running) return { kind: 'stopped' };
      const run = await digests.claimApproved(runId, lease(), userId);
      if (!run) return { kind: 'already_handled', run: waiting };
      logger?.info({ runId, userId }, 'digest over the cap approved');
      return start(sub, run, true);
    },
    nextRunAt: (sub) => nextRunAfter(sub, clock.now()),
    idle: () => loop.idle(),
    settled: () => loop.settled(),
    nextWakeAt: () => loop.nextWakeAt(),
    wake: (seen) => loop.fire(seen),
    async takeOver(run, how) {
      const sub = await digests.get(run.subscriptionId);
      if (!loop.running) {
        await digests.release(run.id, { owner: instanceId, epoch: run.epoch }, new Date(clock.now()));
        return;
      }
      startStranded(sub ?? undefined, run, how);
    },
    inFlight: (runId) => loop.inFlight(runId),
    busy: () => loop.busy(),
  };
}
