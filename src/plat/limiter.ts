/**
 * The one limiter shared by all seven plat operations (spec §8: at most 10 calls per second,
 * on every endpoint; DESIGN.md rule 4).
 *
 * Guarantee: never more than `maxCalls` calls STARTED in any sliding window of
 * `windowMs + safetyMarginMs`, while sustaining maxCalls per (windowMs + safetyMarginMs) when
 * demand exceeds the limit (10 per 1025 ms = 9.76 calls/s with the defaults). The limit is on
 * starts, not on concurrency: a slow call does not hold a slot.
 *
 * How: the start times of the last `maxCalls` calls are kept; a new call may start only when the
 * oldest of them is at least `windowMs + safetyMarginMs` in the past. The margin absorbs network
 * jitter so that the SERVER never sees maxCalls + 1 arrivals inside one window. One timer is armed
 * for exactly the moment the oldest start leaves the window (no polling); when it fires the
 * condition is checked again against the clock, so a timer that fires early admits nothing early.
 *
 * Why not Bottleneck (spec/notes.md, "Library facts measured elsewhere"):
 * - `minTime: 100` let 11 calls start inside one 1 s window (timer jitter), and a `reservoir`
 *   refreshed every second is a fixed window that allows 20 calls in a sliding second. Either way a
 *   sliding-window gate of our own is required.
 * - With that gate on top, Bottleneck would be left as a priority queue only, and a poor fit for
 *   one: it reads `Date.now()` and real timers internally (no injectable clock, so no millisecond,
 *   deterministic tests; CONVENTIONS.md item 7), it admits jobs asynchronously, its `highWater` +
 *   OVERFLOW strategy drops the job after the fact with a generic error instead of refusing at once
 *   with a wait estimate, and it exposes queue counts but not the order we need for "you are #k,
 *   about N s". Its `failed`-event retries also keep the job's slot and skip `minTime`.
 * So this module is a small self-contained scheduler: two FIFO queues and the sliding window.
 *
 * Priorities: every queued `interactive` job starts before any queued `bulk` job, FIFO within a
 * priority. Bulk work can therefore starve while interactive demand stays at or above the limit;
 * that is accepted on purpose: interactive demand is a few human lookups per second, far below
 * 10/s, and a digest fetching 50 pages must never make a person wait behind it.
 *
 * Bounded queue: one bound, `maxQueued`, on the total of queued jobs of both priorities. A job that
 * would exceed it is refused at once with `PlatBusyError` (nothing is sent, nothing is charged); an
 * interactive job never evicts a queued bulk job, because evicted work would fail long after its
 * caller was told it was queued. `maxQueuedBulk` optionally caps bulk lower so that a large batch
 * leaves room for interactive lookups.
 *
 * Retries are not this module's job: the client schedules a retry as a NEW job (notes: a retry
 * must not keep a slot or skip the spacing).
 */
import { PlatAbortedError, PlatBusyError } from './errors.js';
import type { Operation } from './operations.js';

export type Priority = 'interactive' | 'bulk';

/** Time source and timers; the default uses `performance.now()` (monotonic) and real timers. */
export interface LimiterClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

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
  /** Added to the window so network jitter cannot put maxCalls + 1 arrivals in one server window. */
  safetyMarginMs?: number;
  /** Queued jobs of both priorities together; past this `schedule` rejects with PlatBusyError. */
  maxQueued?: number;
  /** Optional lower cap for queued bulk jobs (default: maxQueued, i.e. no separate cap). */
  maxQueuedBulk?: number;
  clock?: LimiterClock;
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
  /** Estimated start, in the limiter clock's timebase (`performance.now()` by default). */
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
}

export interface LimiterStats {
  queued: { interactive: number; bulk: number };
  /** Calls started in the last windowMs. */
  startedInWindow: number;
  /** Calls started since the limiter was created. */
  started: number;
  /** Jobs refused with PlatBusyError. */
  refused: number;
}

export interface Limiter {
  /** Calls `task` when the window and the queue allow it; settles as the task does. */
  schedule<T>(task: () => Promise<T>, options?: ScheduleOptions): Promise<T>;
  /** Where a job scheduled now with this priority would stand. */
  estimate(priority?: Priority): QueueEstimate;
  stats(): LimiterStats;
  /** Stop accepting work; queued jobs reject with PlatAbortedError. Started calls run on. */
  stop(): void;
}

export const LIMITER_DEFAULTS = {
  maxCalls: 10,
  windowMs: 1000,
  safetyMarginMs: 25,
  maxQueued: 100,
} as const;

const realClock: LimiterClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface Job {
  readonly priority: Priority;
  readonly operation: Operation | null;
  readonly enqueuedAt: number;
  /** Calls the task and settles the caller's promise with its outcome. */
  readonly start: () => void;
  readonly fail: (error: unknown) => void;
  readonly detach: () => void;
}

export function createLimiter(options: LimiterOptions = {}): Limiter {
  const maxCalls = options.maxCalls ?? LIMITER_DEFAULTS.maxCalls;
  const windowMs = options.windowMs ?? LIMITER_DEFAULTS.windowMs;
  const safetyMarginMs = options.safetyMarginMs ?? LIMITER_DEFAULTS.safetyMarginMs;
  const maxQueued = options.maxQueued ?? LIMITER_DEFAULTS.maxQueued;
  const maxQueuedBulk = options.maxQueuedBulk ?? maxQueued;
  const clock = options.clock ?? realClock;
  const onStarted = options.onStarted;

  if (!Number.isInteger(maxCalls) || maxCalls < 1) throw new RangeError('maxCalls must be an integer ≥ 1');
  if (!(windowMs > 0)) throw new RangeError('windowMs must be > 0');
  if (!(safetyMarginMs >= 0)) throw new RangeError('safetyMarginMs must be ≥ 0');
  if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new RangeError('maxQueued must be an integer ≥ 0');
  if (!Number.isInteger(maxQueuedBulk) || maxQueuedBulk < 0) {
    throw new RangeError('maxQueuedBulk must be an integer ≥ 0');
  }

  /** Minimum distance between a start and the start maxCalls later. */
  const gapMs = windowMs + safetyMarginMs;
  /** Start times of the last (at most) maxCalls calls, oldest first. */
  const recentStarts: number[] = [];
  const queues: Record<Priority, Job[]> = { interactive: [], bulk: [] };
  let timer: unknown;
  let timerAt = Number.NaN;
  let started = 0;
  let refused = 0;
  let stopped = false;

  const queuedCount = (): number => queues.interactive.length + queues.bulk.length;

  /** When the next call may start (≤ now when a slot is free). */
  function nextFreeAt(): number {
    const oldest = recentStarts[0];
    return recentStarts.length < maxCalls || oldest === undefined ? Number.NEGATIVE_INFINITY : oldest + gapMs;
  }

  /**
   * The start time of the (ahead + 1)-th call from now, if calls start as early as the window
   * allows: future start j may happen gapMs after the start maxCalls before it.
   */
  function projectedStart(ahead: number, now: number): number {
    const history: number[] = [];
    for (let i = recentStarts.length; i < maxCalls; i++) history.push(Number.NEGATIVE_INFINITY);
    history.push(...recentStarts);
    let start = now;
    for (let j = 0; j <= ahead; j++) {
      start = Math.max(now, (history[j] ?? Number.NEGATIVE_INFINITY) + gapMs);
      history.push(start);
    }
    return start;
  }

  function estimateAt(priority: Priority, now: number): QueueEstimate {
    const ahead = priority === 'interactive' ? queues.interactive.length : queuedCount();
    const estimatedStartMs = projectedStart(ahead, now);
    return { position: ahead + 1, estimatedStartMs, estimatedWaitMs: estimatedStartMs - now };
  }

  function begin(job: Job, now: number): void {
    recentStarts.push(now);
    if (recentStarts.length > maxCalls) recentStarts.shift();
    started += 1;
    job.detach();
    if (onStarted) {
      try {
        onStarted({ priority: job.priority, waitedMs: now - job.enqueuedAt, operation: job.operation });
      } catch {
        // A metrics hook must never break admission or the caller's job.
      }
    }
  }

  /** Admits every queued job the window allows now, then re-arms the timer for the next slot. */
  function drain(): void {
    const now = clock.now();
    const due: Job[] = [];
    while (queuedCount() > 0 && nextFreeAt() <= now) {
      const job = queues.interactive.shift() ?? queues.bulk.shift();
      if (!job) break;
      begin(job, now);
      due.push(job);
    }
    arm(now);
    // Tasks run after the bookkeeping, so a task that schedules more work sees a consistent state.
    for (const job of due) job.start();
  }

  function arm(now: number): void {
    if (queuedCount() === 0 || stopped) {
      disarm();
      return;
    }
    const at = nextFreeAt();
    if (timer !== undefined && timerAt === at) return;
    disarm();
    timerAt = at;
    // Node timers have whole-millisecond resolution; drain() re-checks and re-arms if early.
    timer = clock.setTimeout(
      () => {
        timer = undefined;
        timerAt = Number.NaN;
        drain();
      },
      Math.max(1, Math.ceil(at - now)),
    );
  }

  function disarm(): void {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    timerAt = Number.NaN;
  }

  function remove(job: Job): boolean {
    const queue = queues[job.priority];
    const index = queue.indexOf(job);
    if (index < 0) return false;
    queue.splice(index, 1);
    job.detach();
    return true;
  }

  function schedule<T>(task: () => Promise<T>, scheduleOptions: ScheduleOptions = {}): Promise<T> {
    const priority = scheduleOptions.priority ?? 'interactive';
    const operation = scheduleOptions.operation ?? null;
    const { signal, onQueued } = scheduleOptions;

    return new Promise<T>((resolve, reject) => {
      if (stopped) {
        reject(
          new PlatAbortedError(`${operation ?? 'plat call'} refused: the limiter is stopped`, { operation }),
        );
        return;
      }
      if (signal?.aborted) {
        reject(abortedError(operation, signal));
        return;
      }

      // Admit whatever is already due (a timer may be late) so a free slot is never refused.
      drain();
      const now = clock.now();
      let onAbort: (() => void) | undefined;
      const job: Job = {
        priority,
        operation,
        enqueuedAt: now,
        start: () => {
          try {
            resolve(task());
          } catch (error) {
            reject(error);
          }
        },
        fail: reject,
        detach: () => {
          if (onAbort) signal?.removeEventListener('abort', onAbort);
        },
      };

      if (nextFreeAt() <= now) {
        // drain() emptied the queues, so nobody is ahead of this job.
        begin(job, now);
        job.start();
        return;
      }

      const full = queuedCount() >= maxQueued || (priority === 'bulk' && queues.bulk.length >= maxQueuedBulk);
      if (full) {
        refused += 1;
        reject(new PlatBusyError(operation, estimateAt(priority, now).estimatedWaitMs));
        return;
      }

      const ticket = estimateAt(priority, now);
      queues[priority].push(job);
      if (signal) {
        onAbort = () => {
          if (remove(job)) {
            arm(clock.now());
            job.fail(abortedError(operation, signal));
          }
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
      arm(now);

      if (onQueued) {
        try {
          onQueued({ position: ticket.position, estimatedWaitMs: ticket.estimatedWaitMs });
        } catch (error) {
          // The caller's own callback failed: withdraw the job rather than run it unobserved.
          remove(job);
          arm(clock.now());
          reject(error);
        }
      }
    });
  }

  return {
    schedule,
    estimate: (priority = 'interactive') => estimateAt(priority, clock.now()),
    stats: () => {
      const now = clock.now();
      return {
        queued: { interactive: queues.interactive.length, bulk: queues.bulk.length },
        startedInWindow: recentStarts.filter((at) => at > now - windowMs).length,
        started,
        refused,
      };
    },
    stop: () => {
      stopped = true;
      disarm();
      const pending = [...queues.interactive, ...queues.bulk];
      queues.interactive.length = 0;
      queues.bulk.length = 0;
      for (const job of pending) {
        job.detach();
        job.fail(
          new PlatAbortedError(`${job.operation ?? 'plat call'} was not sent: the limiter stopped`, {
            operation: job.operation,
          }),
        );
      }
    },
  };
}

function abortedError(operation: Operation | null, signal: AbortSignal): PlatAbortedError {
  return new PlatAbortedError(`${operation ?? 'plat call'} was cancelled before it was sent`, {
    operation,
    cause: signal.reason,
  });
}
