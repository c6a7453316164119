/**
 * The alert scheduler: at each subscription's slot (schedule.ts) claim that slot's check in the
 * store and run it; retry a failure with backoff until the next slot; ask the admins when a
 * check would pass the day's cap. The store's UNIQUE keys make it exactly once across restarts
 * and instances (store/alerts.ts); leases and the posted-once rule (digest/posted-once.ts) are
 * the digest's.
 *
 * The timer loop and run tracking are the digest scheduler's (digest/wake-loop.ts); the clock is
 * injected.
 */
import { randomUUID } from 'node:crypto';
import { POST_SETTLE_MS, PostRefusedError } from '../digest/posted-once.js';
import { RUN_LEASE_DEFAULTS } from '../digest/run-fence.js';
import { isLeaseLost, RunStrandedError } from '../digest/runner.js';
import {
  claimStrandedCheck,
  endOrphan,
  nextStranded,
  type StrandedClaim,
  type StrandedRuns,
  strandedAction,
  sweepStranded,
} from '../digest/stranded.js';
import { createWakeLoop, type DrivenBy, realClock } from '../digest/wake-loop.js';
import { isPlatError } from '../plat/errors.js';
import type { AlertCheck, AlertSubscription, RunHolder } from '../store/store.js';
import { claimable, type Lease } from '../store/store.js';
import { localDateOf } from '../zoned-time.js';
import { type CheckContext, type CheckResult, executeAlertCheck } from './check.js';
import { dueSlot, nextSlotAfter } from './schedule.js';
import type { AlertClock, AlertDeps } from './types.js';

const MINUTE = 60_000;

export const ALERT_SCHEDULER_DEFAULTS = {
  /** The digest's lease, renewal and call span (digest/run-fence.ts): one fence for both. */
  ...RUN_LEASE_DEFAULTS,
  retryDelaysMs: [2 * MINUTE, 5 * MINUTE, 15 * MINUTE],
  maxSleepMs: MINUTE,
} as const;

export interface AlertSchedulerOptions extends AlertDeps {
  clock?: AlertClock;
  instanceId?: string;
  /** How long a claim holds without renewal; renewed by a timer every `renewEveryMs` (run-fence.ts). */
  leaseMs?: number;
  renewEveryMs?: number;
  /** The longest a plat call takes from being sent to its end; no call starts later than this before the lease ends. */
  callSpanMs?: number;
  /** How far this process's clock may be from the database's (PLATDESK_CLOCK_SKEW_BUDGET_MS; run-fence.ts). */
  skewBudgetMs?: number;
  retryDelaysMs?: readonly number[];
  maxSleepMs?: number;
  /**
   * One wake loop for every workspace (schedule-wakes.ts): no timer of this scheduler's own;
   * each plan's instant goes to `schedule` (the store's next-due row), and `wake` is called when
   * it falls due (digest/wake-loop.ts WakeLoopOptions.driven). Stranded checks are then that
   * loop's to sweep, for every workspace (digest/stranded.ts), handed over through `takeOver`.
   */
  driven?: DrivenBy;
}

export type ApproveResult =
  | CheckResult
  | { kind: 'not_found' }
  | { kind: 'already_handled' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'stopped' };

export interface AlertScheduler {
  readonly instanceId: string;
  start(): void;
  stop(): Promise<void>;
  reschedule(): void;
  /** "Run anyway": approves the day's spending past the cap and runs the parked check. */
  approve(checkId: number, userId: string): Promise<ApproveResult>;
  nextCheckAt(sub: AlertSubscription): number;
  idle(): Promise<void>;
  /** Resolves when no plan or wake-up is under way (the next timer is set; checks may run on). */
  settled(): Promise<void>;
  nextWakeAt(): number | null;
  /** Driven mode: claims what is due now and plans; `seen` is the due time the loop outside found. */
  wake(seen?: number): Promise<void>;
  /**
   * Driven mode: starts a stranded check of this workspace that the replica's sweep claimed under
   * this scheduler's `instanceId` (digest/stranded.ts). Stopped: its lease is given up instead.
   */
  takeOver(check: AlertCheck, how: StrandedClaim): Promise<void>;
  /** Whether this scheduler runs that check now. */
  inFlight(checkId: number): boolean;
  /** Whether a plan, a wake-up or a run is under way (its workspace's parts are then kept). */
  busy(): boolean;
}

export function createAlertScheduler(options: AlertSchedulerOptions): AlertScheduler {
  const clock = options.clock ?? realClock;
  const instanceId = options.instanceId ?? randomUUID();
  const leaseMs = options.leaseMs ?? ALERT_SCHEDULER_DEFAULTS.leaseMs;
  const retryDelays = options.retryDelaysMs ?? ALERT_SCHEDULER_DEFAULTS.retryDelaysMs;
  const maxSleepMs = options.maxSleepMs ?? ALERT_SCHEDULER_DEFAULTS.maxSleepMs;
  const { store, publisher, logger } = options;
  const alerts = store.alerts;
  const ctx: CheckContext = {
    ...options,
    now: () => clock.now(),
    clock,
    instanceId,
    leaseMs,
    renewEveryMs: options.renewEveryMs ?? ALERT_SCHEDULER_DEFAULTS.renewEveryMs,
    callSpanMs: options.callSpanMs ?? ALERT_SCHEDULER_DEFAULTS.callSpanMs,
    skewBudgetMs: options.skewBudgetMs ?? ALERT_SCHEDULER_DEFAULTS.skewBudgetMs,
  };
  const lease = (): Lease => ({ owner: instanceId, ms: leaseMs });
  /**
   * The earliest deadline of an open check the last plan saw (digest/stranded.ts), or Infinity; before the
   * first plan unknown (-Infinity: the first wake-up sweeps).
   */
  let strandedDue = Number.NEGATIVE_INFINITY;

  // The digest scheduler's timer loop and run tracking (digest/wake-loop.ts).
  const loop = createWakeLoop({
    clock,
    maxSleepMs,
    plan: (now) => plan(now),
    wake: (now) => claimDue(now),
    ...(options.driven ? { driven: options.driven } : {}),
    onError: (error) => logger?.error({ err: error }, 'alert scheduler could not read the store'),
  });

  /** The slot a subscription may run now: today's newest, unless it came before the alert existed. */
  function currentSlot(sub: AlertSubscription, now: number): number | null {
    const slot = dueSlot(sub, now);
    // An alert added between two slots checks at once (its current slot), not an hour later.
    if (slot === null || slot + sub.everyMinutes * MINUTE <= sub.createdAt.getTime()) return null;
    return slot;
  }

  function mayClaim(check: AlertCheck, now: number): boolean {
    return !loop.inFlight(check.id) && claimable(check, now);
  }

  /** The stranded-runs sweep's own (not driven): only when no loop outside sweeps every workspace. */
  const sweepsItself = !options.driven;

  /**
   * The checks this scheduler's own stranded-runs sweep (digest/stranded.ts) looks at: every open
   * check of its workspace, of any slot and day, its subscription live or removed.
   */
  function strandedChecks(subs: ReadonlyMap<number, AlertSubscription>): StrandedRuns<AlertCheck> {
    return {
      open: () => alerts.openChecks(),
      inFlight: (check) => loop.inFlight(check.id),
      claim: (check, lease) => claimStrandedCheck(alerts, check, lease, logger),
      start: (check, how) => startStranded(subs.get(check.subscriptionId), check, how),
    };
  }

  /**
   * Starts a claimed stranded check. A check is current until its subscription's next slot (a
   * retry is planned only before it; the next check reads everything anew): then it is resumed,
   * else ended; a check of a removed alert is ended.
   */
  function startStranded(sub: AlertSubscription | undefined, check: AlertCheck, how: StrandedClaim): void {
    if (!sub) {
      void loop.track(check.id, () =>
        endOrphan(ctx, check, alerts, `alert:${check.id}`).catch((err: unknown) =>
          logger?.error({ err, checkId: check.id }, 'alert check of a removed subscription not ended'),
        ),
      );
      return;
    }
    const current = clock.now() < nextSlotAfter(sub, check.slotAt.getTime());
    void run(sub, check, false, strandedAction(how, current) === 'end');
  }

  async function plan(now: number): Promise<number> {
    let next = Number.POSITIVE_INFINITY;
    const subs = await alerts.list();
    for (const sub of subs) {
      next = Math.min(next, nextSlotAfter(sub, now));
      const slot = currentSlot(sub, now);
      // Due and never claimed: the slot's own time (already passed), see wake-loop.ts.
      if (slot !== null && (await alerts.checkAt(sub.id, new Date(slot))) === null)
        next = Math.min(next, slot);
    }
    // A retry, a history check of a post left unknown, or a holder's lease running out, of any
    // check (a removed alert's too: it is ended, its sent calls settled).
    strandedDue = sweepsItself
      ? await nextStranded(strandedChecks(new Map(subs.map((s) => [s.id, s]))))
      : Number.POSITIVE_INFINITY;
    return Math.min(next, strandedDue);
  }

  async function claim(sub: AlertSubscription, slotAt: number): Promise<void> {
    const claimed = await alerts.claimCheck(
      { subscriptionId: sub.id, slotAt: new Date(slotAt), localDate: localDateOf(slotAt, sub.timeZone) },
      lease(),
    );
    if (claimed.claimed) {
      logger?.info(
        { checkId: claimed.check.id, subscriptionId: sub.id, how: claimed.how },
        'alert check claimed',
      );
      void run(sub, claimed.check, false);
    }
  }

  async function claimDue(now: number): Promise<void> {
    const subs = new Map((await alerts.list()).map((s) => [s.id, s]));
    for (const sub of subs.values()) {
      const slot = currentSlot(sub, now);
      if (slot === null) continue;
      const existing = await alerts.checkAt(sub.id, new Date(slot));
      if (existing && !mayClaim(existing, now)) continue;
      await claim(sub, slot);
    }
    // Retries, history checks and takeovers of checks of earlier slots, and of removed alerts;
    // only when the last plan saw one due by now (one that appeared since: the next plan).
    if (sweepsItself && strandedDue <= now) await sweepStranded(strandedChecks(subs), now, lease);
  }

  /** Runs a held check in the background; `end`: a stranded check whose slot has passed (settled, ended). */
  function run(
    sub: AlertSubscription,
    check: AlertCheck,
    force: boolean,
    end = false,
  ): Promise<ApproveResult> {
    const holder = { owner: instanceId, epoch: check.epoch };
    const attempt = async (signal: AbortSignal): Promise<ApproveResult> => {
      try {
        const result = await executeAlertCheck(ctx, sub, check, { force, signal, end });
        await after(sub, result);
        return result;
      } catch (error) {
        if (signal.aborted) {
          await alerts.release(check.id, holder, new Date(clock.now()));
          return { kind: 'stopped' };
        }
        if (isLeaseLost(error)) {
          logger?.warn({ checkId: check.id, err: error }, 'alert check lost its lease: stopped');
          return { kind: 'already_handled' };
        }
        await failed(sub, (await alerts.check(check.id)) ?? check, holder, error);
        return { kind: 'failed', error };
      }
    };
    return loop.track(check.id, (signal) =>
      attempt(signal).catch((error: unknown): ApproveResult => {
        logger?.error({ err: error, checkId: check.id }, 'alert check could not be recorded');
        return { kind: 'failed', error };
      }),
    );
  }

  async function after(sub: AlertSubscription, result: CheckResult): Promise<void> {
    if (result.kind === 'unknown') {
      if (result.checkAt === null)
        await publisher
          .alertUnverified(sub, result.check, result.reason ?? 'refused')
          .catch((err: unknown) => logger?.error({ err }, 'alert admin message not delivered'));
      return;
    }
    if (result.kind === 'posted') {
      // A check that works again closes the failure notice.
      const noticeTs = await alerts.noticeTs(sub.id);
      if (noticeTs !== null) {
        await alerts.setNoticeTs(sub.id, null);
        await publisher
          .postFailure(sub, { error: null, nextAttemptAt: null, resolved: true }, noticeTs)
          .catch((err: unknown) => logger?.warn({ err }, 'alert notice not updated'));
      }
      return;
    }
    if (await alerts.markAsked(sub.id, result.check.localDate, new Date(clock.now())))
      await publisher
        .askApproval({
          subscription: sub,
          check: result.check,
          estimatePoints: result.estimatePoints,
          spentPoints: result.spentPoints,
          capPoints: result.capPoints,
        })
        .catch((err: unknown) => logger?.error({ err }, 'alert approval request not delivered'));
  }

  /**
   * Records the failure with a retry before the next slot, and posts or updates the one notice. A
   * check in 'posting' never fails on an unclear end (issue 33 finding 4; as the digest's): it goes
   * to its history check, and only Slack's sure refusal of its post fails it.
   */
  async function failed(
    sub: AlertSubscription,
    check: AlertCheck,
    holder: RunHolder,
    error: unknown,
  ): Promise<void> {
    const now = clock.now();
    const reason = isPlatError(error) ? `${error.code}: ${error.message}` : String(error);
    if (check.state === 'posting' && !(error instanceof PostRefusedError)) {
      const checkAt = new Date(now + POST_SETTLE_MS);
      const unknown = { error: `the post was interrupted: ${reason}`, checkAt, now: new Date(now) };
      if (await alerts.markUnknown(check.id, holder, unknown))
        logger?.warn(
          { checkId: check.id, reason, checkAt },
          'alert post interrupted: its history is read before any other post',
        );
      return;
    }
    const delay = error instanceof RunStrandedError ? undefined : retryDelays[check.attempts - 1];
    const nextSlot = nextSlotAfter(sub, check.slotAt.getTime());
    const nextAttemptAt = delay !== undefined && now + delay < nextSlot ? new Date(now + delay) : null;
    logger?.warn(
      { checkId: check.id, attempts: check.attempts, nextAttemptAt, reason },
      'alert check failed',
    );
    const failure = { error: reason, nextAttemptAt, now: new Date(now) };
    const moved =
      check.state === 'posting'
        ? await alerts.markRefused(check.id, holder, failure)
        : await alerts.markFailed(check.id, holder, failure);
    if (!moved) return;
    const noticeTs = await alerts.noticeTs(sub.id);
    try {
      const ts = await publisher.postFailure(sub, { error, nextAttemptAt, resolved: false }, noticeTs);
      if (noticeTs === null) await alerts.setNoticeTs(sub.id, ts);
    } catch (err) {
      logger?.error({ err, checkId: check.id }, 'alert failure notice not posted');
    }
  }

  return {
    instanceId,
    start: () => loop.start(),
    stop: () => loop.stop(),
    reschedule: () => loop.arm(),
    async approve(checkId, userId) {
      const waiting = await alerts.check(checkId);
      const sub = waiting ? await alerts.get(waiting.subscriptionId) : null;
      if (!waiting || !sub) return { kind: 'not_found' };
      if (!loop.running) return { kind: 'stopped' };
      await alerts.approveDay(sub.id, waiting.localDate, userId, new Date(clock.now()));
      const check = await alerts.claimApproved(checkId, lease());
      if (!check) return { kind: 'already_handled' };
      logger?.info({ checkId, userId }, 'alert over the daily cap approved');
      return run(sub, check, true);
    },
    nextCheckAt: (sub) => nextSlotAfter(sub, clock.now()),
    idle: () => loop.idle(),
    settled: () => loop.settled(),
    nextWakeAt: () => loop.nextWakeAt(),
    wake: (seen) => loop.fire(seen),
    async takeOver(check, how) {
      const sub = await alerts.get(check.subscriptionId);
      if (!loop.running) {
        await alerts.release(check.id, { owner: instanceId, epoch: check.epoch }, new Date(clock.now()));
        return;
      }
      startStranded(sub ?? undefined, check, how);
    },
    inFlight: (checkId) => loop.inFlight(checkId),
    busy: () => loop.busy(),
  };
}
