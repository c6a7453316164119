/**
 * The Limiter contract: one limiter shared by all seven plat operations (spec §8: at most 10 calls
 * per second, on every endpoint; DESIGN.md rule 4), with two engines behind it:
 *
 * - ./local-limiter.ts, in-process (one platdesk process, the default);
 * - ./redis-limiter.ts, slot leases in Redis shared by every process with the same REDIS_URL.
 *
 * Both keep the same slot model: `maxCalls` slots; a slot is taken before a call is sent, and it
 * rests `windowMs + safetyMarginMs` from the first moment its request has surely ARRIVED at the
 * server: when the response's headers are read (the task calls `progress.answered()`), else when
 * the call settles (a timeout: its arrival is unknown until its deadline). A call's arrival lies
 * between its send (after its slot was granted) and that moment, so two calls on one slot arrive at
 * least a window apart and at most `maxCalls` calls ARRIVE at the server in any sliding window,
 * whatever the network did. (No sound rule can do better from our side: of any maxCalls + 1
 * calls, the one sent last may arrive at its send, and the one answered first may have arrived
 * just before its answer; only the send → answer span of each call is known.) A job's own work
 * before its send (`prepare`: a claim re-checked, a charge id written ahead) runs once it holds its
 * slot, and the in-process engine grants such a job up to `prepareLeadMs` before the slot opens,
 * so that work overlaps the slot's last moments of rest instead of adding to every cycle of it;
 * the task itself never starts before the slot opens, nor later than `prepareDeadlineMs` after
 * the grant (a preparation that takes longer costs the job its grant, never an unsent slot). Interactive jobs go ahead
 * of bulk jobs, and bulk work leaves `interactiveReserve` slots free. Each process keeps its own
 * bounded queue and refuses past it with PlatBusyError and a wait estimate.
 * One contract suite (test/plat/limiter-contract.ts) runs against both engines.
 */
import type { Operation } from './operations.js';

export type Priority = 'interactive' | 'bulk';

export interface StartedInfo {
  priority: Priority;
  /** Time spent in the queue; 0 when the job started at once. */
  waitedMs: number;
  operation: Operation | null;
}

export interface LimiterOptions {
  /** Calls allowed to start in any sliding window (spec §8: 10). */
  maxCalls?: number;
  /** The window length in ms (spec §8: 1000). */
  windowMs?: number;
  /**
   * Added to the window (default 1 ms): network jitter is already covered by resting from the
   * answer, not the send; this covers the reading of the clock and rounding at the server.
   */
  safetyMarginMs?: number;
  /**
   * How long before its slot opens a job with `prepare` may be granted (in-process engine, default
   * 2 ms; the Redis engine grants at the opening): its preparation then runs while the slot rests.
   */
  prepareLeadMs?: number;
  /**
   * How long a job's `prepare` may run after its grant (default half a window + margin: 500 ms).
   * A job whose preparation outlasts it is not sent on that grant: the grant is given back, the
   * job goes back to the head of its line and prepares again on its next grant, and after
   * PREPARE_LAPSES such lapses it is refused with PlatUnavailableError (nothing sent). The Redis
   * engine never allows more than its stale-grant bound (half a window + margin), since a lease's
   * cap in Redis is counted from its grant: a call sent later could arrive after its slot went to
   * another replica. So a call is always sent within this bound of its preparation's start, and
   * a write ahead made in `prepare` tells when its call could at the latest have been sent.
   */
  prepareDeadlineMs?: number;
  /**
   * Slots bulk work leaves free for interactive calls (default 2 of 10): a person's lookup then
   * starts at once even while a digest pages through hundreds of orders.
   */
  interactiveReserve?: number;
  /** Queued jobs of both priorities together; past this `schedule` rejects with PlatBusyError. */
  maxQueued?: number;
  /** Optional lower cap for queued bulk jobs (default: maxQueued, i.e. no separate cap). */
  maxQueuedBulk?: number;
  /** Called synchronously as each job starts, for metrics. Errors it throws are ignored. */
  onStarted?: (info: StartedInfo) => void;
}

export interface QueueTicket {
  /** 1-based place in line among waiting jobs (1 = next to start). */
  position: number;
  /** Estimated time until the job starts; 0 when it would start at once. */
  estimatedWaitMs: number;
}

export interface QueueEstimate extends QueueTicket {
  /** Estimated start, in the limiter's clock (epoch ms; the fake clock's time in tests). */
  estimatedStartMs: number;
}

export interface ScheduleOptions {
  /** Default 'interactive': forgetting to mark background work as bulk costs less than the reverse. */
  priority?: Priority;
  /** Aborting removes a QUEUED job (it rejects with PlatAbortedError); a started call is not affected. */
  signal?: AbortSignal;
  /** Named in the errors this module raises. */
  operation?: Operation | null;
  /**
   * Called synchronously when the job has to wait, with its place and estimated wait (a snapshot:
   * interactive jobs arriving later may go ahead of a bulk job). Not called when it starts at once.
   */
  onQueued?: (ticket: QueueTicket) => void;
  /**
   * The caller's own work before its send, run once the job holds its slot (up to `prepareLeadMs`
   * before the slot opens); the task starts when it has resolved and the slot is open, if that is
   * within `prepareDeadlineMs` of the grant (else the job is granted again and prepares again:
   * LimiterOptions.prepareDeadlineMs). A rejection ends the job unsent: the task never runs, the
   * caller's promise rejects with it, and the slot rests as after a settled call. It may run more
   * than once for one job, so it must be idempotent.
   */
  prepare?: () => Promise<void>;
}

/**
 * A call sent before this limiter started that may still arrive at the server: sent in an earlier
 * life of this process (a fast restart), or by any process while a Redis key set was being lost.
 * The limiter knows nothing of where this comes from; the app reads it from the calls written
 * ahead (store/sent-calls.ts) and hands it in (plat-wiring.ts).
 */
export interface EarlierCall {
  /** How long ago its charge id was written ahead, just before its send (one clock for all). */
  writtenAgoMs: number;
  /** How long ago its answer was read, null when it never was (it may still be on its way). */
  answeredAgoMs: number | null;
}

/**
 * How long each slot such calls took rests from now (ms, largest first, at most maxCalls; only
 * those still resting): a call arrives at the latest `spanMs` after it was written ahead (its
 * send within the prepare deadline, then the call deadline), or by its answer when that was read
 * (give or take `skewMs` between the clocks of the replica that read it and the database), and
 * its slot rests `gapMs` (a window + margin) after that. Calls long over take no slot, so a
 * normal start is not slowed; a restart within a second of ten calls waits for their slots.
 */
export function restingAtStart(
  calls: readonly EarlierCall[],
  bounds: { spanMs: number; gapMs: number; skewMs: number; maxCalls: number },
): number[] {
  return calls
    .map((c) => {
      const arrivesWithin = bounds.spanMs - c.writtenAgoMs;
      const answered = c.answeredAgoMs === null ? Number.POSITIVE_INFINITY : bounds.skewMs - c.answeredAgoMs;
      return Math.min(arrivesWithin, answered) + bounds.gapMs;
    })
    .filter((ms) => ms > 0)
    .sort((a, b) => b - a)
    .slice(0, bounds.maxCalls);
}

export type LimiterHealth =
  | { ok: true }
  /** `component` names what is down ('redis'), `reason` says why, for operators. */
  | { ok: false; component: 'redis'; reason: string };

export interface LimiterStats {
  queued: { interactive: number; bulk: number };
  /** Calls started in the last windowMs. */
  startedInWindow: number;
  /** Calls started since the limiter was created. */
  started: number;
  /** Jobs refused with PlatBusyError. */
  refused: number;
}

/** What a running task tells its limiter. */
export interface CallProgress {
  /**
   * The response's headers were read: the request reached the server before now, so its slot
   * starts resting now rather than when the task settles (the body, parsing and retries' waits
   * no longer hold it). Later calls are ignored. A task that never calls it rests from its settle.
   */
  answered(): void;
}

export interface Limiter {
  /** Calls `task` when the window and the queue allow it; settles as the task does. */
  schedule<T>(task: (progress: CallProgress) => Promise<T>, options?: ScheduleOptions): Promise<T>;
  /** Where a job scheduled now with this priority would stand. */
  estimate(priority?: Priority): QueueEstimate;
  stats(): LimiterStats;
  /**
   * Resolves when the limiter can grant slots (in-process: at once; Redis: once connected, joined
   * and past a fence after lost keys). Nothing needs to wait for it: `schedule` queues meanwhile.
   */
  ready(): Promise<void>;
  /** Whether the limiter can grant slots now; `/healthz` reports it. */
  health(): LimiterHealth;
  /**
   * Stop accepting work; queued jobs reject with PlatAbortedError. Started calls run on. Resolves
   * when the engine has let go of its resources (the Redis connections).
   */
  stop(): Promise<void>;
}

export const LIMITER_DEFAULTS = {
  maxCalls: 10,
  windowMs: 1000,
  safetyMarginMs: 1,
  prepareLeadMs: 2,
  interactiveReserve: 2,
  maxQueued: 100,
} as const;

/** Grants a job's preparation may outlast before it is refused (LimiterOptions.prepareDeadlineMs). */
export const PREPARE_LAPSES = 3;

/** The settings both engines share, defaulted and checked (RangeError on a bad value). */
export function resolveLimiterOptions(options: LimiterOptions) {
  const maxCalls = options.maxCalls ?? LIMITER_DEFAULTS.maxCalls;
  const windowMs = options.windowMs ?? LIMITER_DEFAULTS.windowMs;
  const safetyMarginMs = options.safetyMarginMs ?? LIMITER_DEFAULTS.safetyMarginMs;
  const prepareLeadMs = options.prepareLeadMs ?? LIMITER_DEFAULTS.prepareLeadMs;
  const prepareDeadlineMs = options.prepareDeadlineMs ?? (windowMs + safetyMarginMs) / 2;
  const maxQueued = options.maxQueued ?? LIMITER_DEFAULTS.maxQueued;
  const maxQueuedBulk = options.maxQueuedBulk ?? maxQueued;
  const interactiveReserve = Math.min(
    options.interactiveReserve ?? LIMITER_DEFAULTS.interactiveReserve,
    maxCalls - 1,
  );

  if (!Number.isInteger(maxCalls) || maxCalls < 1) throw new RangeError('maxCalls must be an integer ≥ 1');
  if (!(windowMs > 0)) throw new RangeError('windowMs must be > 0');
  if (!(safetyMarginMs >= 0)) throw new RangeError('safetyMarginMs must be ≥ 0');
  if (!(prepareLeadMs >= 0)) throw new RangeError('prepareLeadMs must be ≥ 0');
  if (!(prepareDeadlineMs > prepareLeadMs)) throw new RangeError('prepareDeadlineMs must be > prepareLeadMs');
  if (!Number.isInteger(interactiveReserve) || interactiveReserve < 0)
    throw new RangeError('interactiveReserve must be an integer ≥ 0');
  if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new RangeError('maxQueued must be an integer ≥ 0');
  if (!Number.isInteger(maxQueuedBulk) || maxQueuedBulk < 0) {
    throw new RangeError('maxQueuedBulk must be an integer ≥ 0');
  }

  return {
    maxCalls,
    windowMs,
    safetyMarginMs,
    prepareLeadMs,
    prepareDeadlineMs,
    interactiveReserve,
    maxQueued,
    maxQueuedBulk,
  };
}
