/**
 * The fence of a held run (digest run or ship-by alert check; DESIGN rule 8, CONVENTIONS 15):
 * a timer renews the run's lease in the store under the claim's epoch, independent of what the
 * run is doing (a page waiting in the limiter behind interactive lookups does not hold renewal
 * up), and a local deadline stops the holder from starting any call that might still be in
 * flight when its lease runs out:
 *
 *   deadline = (when the last successful renewal was asked, by this process's clock) + leaseMs − callSpanMs
 *
 * The store stamps the lease from the database's clock when the renewal runs, which is after it
 * was asked: so the local deadline falls before the lease ends whatever the two clocks read, and
 * only their rates matter. Before the first renewal the lease as claimed ends at its stored
 * expiry, in the database's clock, so the skew budget is taken off it too (a process further
 * from the database's clock than the budget takes no paid work: store/database-watch.ts). A call
 * started before the deadline ends (or is abandoned at the plat deadline) before the lease can
 * expire, so no other replica's takeover can overlap it. Past the deadline, or once a renewal
 * finds the run claimed again (another epoch), the fence's signal aborts: a call waiting in the
 * limiter is withdrawn, and `check()` (asked before each call is sent) throws. A paused process
 * (SIGSTOP, a long GC) that wakes past its deadline makes no call: `check()` reads the clock.
 */
import type { Clock } from '../clock.js';
import { CLOCK_SKEW_BUDGET_DEFAULT_MS } from '../config.js';
import type { CallFence } from '../plat/client.js';
import { isPlatError } from '../plat/errors.js';
import { asBulkStoreWork } from '../store/bulk-work.js';
import type { HeldLease, LeasedRun, RunHolder } from '../store/store.js';

/**
 * The lease of every leased run (digest runs and ship-by alert checks alike): 22 s, renewed every
 * 2 s, so a run whose holder died is taken over and resumed within about 22 s (issue 19: < 30 s);
 * a holder may start calls until leaseMs − callSpanMs (6 s) after its last renewal, so two
 * renewals can be slow or lost before it has to stop. callSpanMs is the longest a plat call takes
 * from being sent to its end: the plat deadline plus a margin.
 */
export const RUN_LEASE_DEFAULTS = {
  leaseMs: 22_000,
  renewEveryMs: 2_000,
  callSpanMs: 16_000,
  skewBudgetMs: CLOCK_SKEW_BUDGET_DEFAULT_MS,
} as const;

/** How a holder keeps its lease: the timings, the clock its timers run on. */
export interface RunLeaseTimings {
  clock: Clock;
  instanceId: string;
  leaseMs: number;
  renewEveryMs: number;
  callSpanMs: number;
  /** How far this process's clock may be from the database's (PLATDESK_CLOCK_SKEW_BUDGET_MS). */
  skewBudgetMs: number;
}

/** The holder lost its run (taken over, or its lease ran past the local deadline): it stops. */
export class RunLeaseLostError extends Error {
  readonly code = 'run_lease_lost';
  constructor(
    readonly runId: number,
    readonly reason: 'taken' | 'deadline',
  ) {
    super(
      reason === 'taken'
        ? `run ${runId} was claimed by another holder`
        : `run ${runId}: its lease was not renewed in time, so no call may start`,
    );
    this.name = 'RunLeaseLostError';
  }
}

export interface RunFenceOptions {
  runId: number;
  holder: RunHolder;
  /** When the claim's lease ends (ms, the store's lease_expires_at: the database's clock). */
  expiresAt: number;
  /** How far this process's clock may be from the database's: taken off `expiresAt`. */
  skewBudgetMs: number;
  leaseMs: number;
  /** How often the lease is renewed; a few renewals fit in one lease. */
  renewEveryMs: number;
  /** The longest a plat call can take from being sent to its end (the plat deadline + margin). */
  callSpanMs: number;
  clock: Clock;
  /** The store's renewal under the holder's epoch: false when the run is held by another claim. */
  renew(lease: HeldLease): Promise<boolean>;
  logger?: { warn(obj: object, msg: string): void } | undefined;
}

export interface RunFence extends CallFence {
  readonly holder: RunHolder;
  /** The holder's lease under its epoch, for a state change (running → posting). */
  lease(): HeldLease;
  /** The local deadline (ms): no call starts at or after it. */
  deadline(): number;
  /** Stops renewing (the run is done or handed on). */
  stop(): void;
}

/** Starts renewing at once; stop() it when the run ends. */
export function createRunFence(options: RunFenceOptions): RunFence {
  const { clock, holder, leaseMs, callSpanMs, runId } = options;
  const controller = new AbortController();
  let deadline = options.expiresAt - options.skewBudgetMs - callSpanMs;
  let renewTimer: unknown = null;
  let deadlineTimer: unknown = null;
  let stopped = false;

  const lease = (): HeldLease => ({ ...holder, ms: leaseMs });
  const clearTimers = () => {
    if (renewTimer !== null) clock.clearTimeout(renewTimer);
    if (deadlineTimer !== null) clock.clearTimeout(deadlineTimer);
    renewTimer = null;
    deadlineTimer = null;
  };
  const lose = (reason: 'taken' | 'deadline') => {
    if (controller.signal.aborted) return;
    controller.abort(new RunLeaseLostError(runId, reason));
    clearTimers();
    options.logger?.warn({ runId, reason }, 'run lease lost: no further call');
  };
  const armDeadline = () => {
    if (deadlineTimer !== null) clock.clearTimeout(deadlineTimer);
    deadlineTimer = clock.setTimeout(
      () => {
        deadlineTimer = null;
        if (clock.now() >= deadline) lose('deadline');
        else armDeadline();
      },
      Math.max(0, deadline - clock.now()),
    );
  };
  const renewSoon = () => {
    renewTimer = clock.setTimeout(() => {
      renewTimer = null;
      void renewNow();
    }, options.renewEveryMs);
  };
  const renewNow = async () => {
    if (stopped || controller.signal.aborted) return;
    const askedAt = clock.now();
    try {
      if (await options.renew(lease())) {
        deadline = Math.max(deadline, askedAt + leaseMs - callSpanMs);
        if (!stopped && !controller.signal.aborted) armDeadline();
      } else {
        lose('taken');
        return;
      }
    } catch (err) {
      // The store did not answer: try again; the deadline stops calls meanwhile.
      options.logger?.warn({ err, runId }, 'run lease not renewed');
    }
    if (!stopped && !controller.signal.aborted) renewSoon();
  };

  armDeadline();
  renewSoon();
  return {
    holder,
    signal: controller.signal,
    check() {
      if (!controller.signal.aborted && clock.now() >= deadline) lose('deadline');
      if (controller.signal.aborted) throw controller.signal.reason;
    },
    lease,
    deadline: () => deadline,
    stop() {
      stopped = true;
      clearTimers();
    },
  };
}

/**
 * Runs `work` on a claimed run under its fence (the one way digest runs and alert checks hold
 * their lease): renewal starts now under the claim's epoch, `renew` is the run table's fenced
 * renewal, and the fence stops when `work` ends. A plat call withdrawn from the limiter because
 * the fence went down is that loss (RunLeaseLostError), not a failure of the run.
 */
export async function withRunFence<T>(
  timings: RunLeaseTimings,
  claimed: Pick<LeasedRun, 'id' | 'epoch' | 'leaseExpiresAt'>,
  renew: (id: number, lease: HeldLease) => Promise<boolean>,
  logger: RunFenceOptions['logger'],
  work: (fence: RunFence) => Promise<T>,
): Promise<T> {
  const fence = createRunFence({
    runId: claimed.id,
    holder: { owner: timings.instanceId, epoch: claimed.epoch },
    expiresAt: claimed.leaseExpiresAt?.getTime() ?? timings.clock.now() + timings.leaseMs,
    skewBudgetMs: timings.skewBudgetMs,
    leaseMs: timings.leaseMs,
    renewEveryMs: timings.renewEveryMs,
    callSpanMs: timings.callSpanMs,
    clock: timings.clock,
    renew: (lease) => renew(claimed.id, lease),
    logger,
  });
  try {
    // The run's store work yields connections to claims, renewals and requests (bulk-work.ts);
    // the fence's renewal timers, armed above, are not bulk.
    return await asBulkStoreWork(() => work(fence));
  } catch (error) {
    if (fence.signal.aborted && isPlatError(error) && error.code === 'aborted') throw fence.signal.reason;
    throw error;
  } finally {
    fence.stop();
  }
}
