/**
 * The per-process side both limiter engines share (./local-limiter.ts, ./redis-limiter.ts): two
 * FIFO queues (every queued interactive job goes ahead of every queued bulk job) under one bound,
 * refusal past it with PlatBusyError and a wait estimate, withdrawal of a queued job whose signal
 * aborts or whose onQueued callback throws, and the start bookkeeping behind stats() and
 * onStarted. The engines differ only in how a slot is granted (`Grant`: a local slot, a Redis
 * lease) and in how they estimate waits.
 */
import { PlatAbortedError, PlatBusyError, PlatUnavailableError } from './errors.js';
import {
  type CallProgress,
  type LimiterStats,
  PREPARE_LAPSES,
  type Priority,
  type QueueTicket,
  type resolveLimiterOptions,
  type ScheduleOptions,
  type StartedInfo,
} from './limiter.js';
import type { Operation } from './operations.js';

export interface QueuedJob<Grant> {
  readonly priority: Priority;
  readonly operation: Operation | null;
  readonly enqueuedAt: number;
  /** The job has its own work to do before its send (ScheduleOptions.prepare). */
  readonly prepares: boolean;
  /**
   * Runs the job on a granted slot: its preparation, then (once `timing.opened` resolves: a slot
   * granted before it opens) the task, if the grant has not lapsed meanwhile; else the grant is
   * given back and the job goes back in line (`timing.requeue`) or, after PREPARE_LAPSES lapses,
   * is refused. The returned promise settles after the caller's does (or once it is back in line).
   */
  readonly start: (grant: Grant, timing: GrantTiming) => Promise<void>;
  readonly fail: (error: unknown) => void;
  /** Stops listening to the job's abort signal (it started, or left the line). */
  readonly detach: () => void;
}

/** When a granted job may send, as its engine sees it (limiter.ts prepareDeadlineMs). */
export interface GrantTiming {
  /** Resolves once a slot granted before it opens is open; undefined when it is open now. */
  readonly opened?: (() => Promise<void>) | undefined;
  /** The engine's clock time after which this grant may no longer carry the call. */
  readonly sendBy: number;
  readonly now: () => number;
  /** Calls `fire` once the clock reaches `time`; returns what cancels it. */
  readonly at: (time: number, fire: () => void) => () => void;
  /** Puts the job back at the head of its line (its grant lapsed before it could send). */
  readonly requeue: () => void;
}

interface Job<Grant> extends QueuedJob<Grant> {
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

type LimiterQueueSettings = Pick<
  ReturnType<typeof resolveLimiterOptions>,
  'maxCalls' | 'windowMs' | 'maxQueued' | 'maxQueuedBulk'
>;

/** schedule()'s options with the defaults both engines apply. */
export function jobRequest(options: ScheduleOptions) {
  return {
    // Forgetting to mark background work as bulk costs less than the reverse.
    priority: options.priority ?? 'interactive',
    operation: options.operation ?? null,
    signal: options.signal,
    onQueued: options.onQueued,
    prepare: options.prepare,
  };
}

/** A queued job whose signal aborted: it was never sent. */
function cancelledBeforeSent(operation: Operation | null, signal: AbortSignal): PlatAbortedError {
  return new PlatAbortedError(`${operation ?? 'plat call'} was cancelled before it was sent`, {
    operation,
    cause: signal.reason,
  });
}

/** Why a job is refused before it is even queued (limiter stopped, signal aborted), or null. */
export function refusedBeforeQueued(
  stopped: boolean,
  operation: Operation | null,
  signal: AbortSignal | undefined,
): PlatAbortedError | null {
  if (stopped) {
    return new PlatAbortedError(`${operation ?? 'plat call'} refused: the limiter is stopped`, { operation });
  }
  return signal?.aborted ? cancelledBeforeSent(operation, signal) : null;
}

export function createLimiterQueue<Grant>(
  settings: LimiterQueueSettings,
  onStarted: ((info: StartedInfo) => void) | undefined,
) {
  const { maxCalls, windowMs, maxQueued, maxQueuedBulk } = settings;
  const queues: Record<Priority, Job<Grant>[]> = { interactive: [], bulk: [] };
  /** Start times of the last (at most) maxCalls calls, for stats. */
  const recentStarts: number[] = [];
  /** Smoothed call latency, for estimates of when busy slots free up. */
  let latencyMs = 0;
  let started = 0;
  let refused = 0;

  const size = (): number => queues.interactive.length + queues.bulk.length;

  function failAll(reason: (job: QueuedJob<Grant>) => unknown): void {
    const pending = [...queues.interactive, ...queues.bulk];
    queues.interactive.length = 0;
    queues.bulk.length = 0;
    for (const job of pending) {
      job.detach();
      job.fail(reason(job));
    }
  }

  function remove(job: QueuedJob<Grant>): boolean {
    const queue = queues[job.priority];
    const index = queue.indexOf(job as Job<Grant>);
    if (index < 0) return false;
    queue.splice(index, 1);
    job.detach();
    return true;
  }

  return {
    size,
    /** Jobs that start before one of this priority queued now (queued bulk is never ahead of interactive). */
    ahead: (priority: Priority): number => (priority === 'interactive' ? queues.interactive.length : size()),
    length: (priority: Priority): number => queues[priority].length,
    /** The priority whose job starts next: interactive first, bulk only when no interactive waits. */
    nextPriority(): Priority | null {
      if (queues.interactive.length > 0) return 'interactive';
      return queues.bulk.length > 0 ? 'bulk' : null;
    },
    latencyMs: (): number => latencyMs,

    /**
     * A job that runs `task` once granted and settles the caller's promise as the task does. Its
     * grant is freed once: when the task reports its answer, else when it settles.
     */
    job<T>(
      task: (progress: CallProgress) => Promise<T>,
      options: {
        priority: Priority;
        operation: Operation | null;
        signal: AbortSignal | undefined;
        prepare: (() => Promise<void>) | undefined;
        now: number;
      },
      caller: { resolve: (value: T) => void; reject: (error: unknown) => void },
      /**
       * Frees the grant (once); runs before the caller hears the outcome. `used` is false for a
       * grant that carried no call (its preparation outlasted it).
       */
      settle: (grant: Grant, used: boolean) => void,
    ): QueuedJob<Grant> {
      /** Grants this job's preparation outlasted. */
      let lapses = 0;
      const job: Job<Grant> = {
        priority: options.priority,
        operation: options.operation,
        enqueuedAt: options.now,
        prepares: options.prepare !== undefined,
        signal: options.signal,
        onAbort: undefined,
        start: (grant, timing) => {
          let freed = false;
          const free = (used = true) => {
            if (freed) return;
            freed = true;
            settle(grant, used);
          };
          const { prepare } = options;
          if (!prepare) {
            // Started in this turn, as the engine granted it: nothing to wait for.
            let running: Promise<T>;
            try {
              running = Promise.resolve(task({ answered: free }));
            } catch (error) {
              running = Promise.reject(error);
            }
            return running.then(
              (value) => {
                free();
                caller.resolve(value);
              },
              (error: unknown) => {
                free();
                caller.reject(error);
              },
            );
          }
          // The grant carries the call only until sendBy: a preparation still running then (a
          // pool connection or a row lock waited for) gives it back at once, so the slot is never
          // held unsent past what its engine allows (finding 1 of issue 33: a Redis lease's cap
          // passed with its call unsent, and the slot went to another replica).
          let lapsed = false;
          const cancel = timing.at(timing.sendBy, () => {
            lapsed = true;
            free(false);
          });
          const running = (async (): Promise<{ sent: true; value: T } | { sent: false }> => {
            try {
              await prepare();
            } finally {
              cancel();
            }
            if (!lapsed) await timing.opened?.();
            if (lapsed || timing.now() > timing.sendBy) return { sent: false };
            return { sent: true, value: await task({ answered: free }) };
          })();
          return running.then(
            (outcome) => {
              if (outcome.sent) {
                free();
                caller.resolve(outcome.value);
                return;
              }
              free(false);
              lapses += 1;
              if (lapses < PREPARE_LAPSES) {
                timing.requeue();
                return;
              }
              caller.reject(
                new PlatUnavailableError(
                  `${options.operation ?? 'plat call'} not sent: its preparation outlasted its slot ${lapses} times`,
                  { operation: options.operation },
                ),
              );
            },
            (error: unknown) => {
              free();
              caller.reject(error);
            },
          );
        },
        fail: caller.reject,
        detach: () => {
          if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
        },
      };
      return job;
    },

    /**
     * The refusal for a job that would go past the bound (counted in stats), or null if it fits.
     * The wait estimate is asked for only when the job is refused.
     */
    busy(
      priority: Priority,
      operation: Operation | null,
      estimatedWaitMs: () => number,
    ): PlatBusyError | null {
      const full = size() >= maxQueued || (priority === 'bulk' && queues.bulk.length >= maxQueuedBulk);
      if (!full) return null;
      refused += 1;
      return new PlatBusyError(operation, estimatedWaitMs());
    },
    countRefused(): void {
      refused += 1;
    },

    /** Puts a job in line; if its signal aborts while queued it leaves, `withdrawn` runs, it rejects. */
    enqueue(queued: QueuedJob<Grant>, withdrawn: () => void): void {
      const job = queued as Job<Grant>;
      queues[job.priority].push(job);
      const { signal } = job;
      if (!signal) return;
      job.onAbort = () => {
        if (remove(job)) {
          withdrawn();
          job.fail(cancelledBeforeSent(job.operation, signal));
        }
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
    },

    /**
     * Tells the caller its place in line. If its callback throws, the job is withdrawn rather than
     * run unobserved: `withdrawn` runs, the job rejects with that error, and this returns false.
     */
    tellQueued(
      job: QueuedJob<Grant>,
      onQueued: ScheduleOptions['onQueued'],
      ticket: QueueTicket,
      withdrawn: () => void,
    ): boolean {
      if (!onQueued) return true;
      try {
        onQueued({ position: ticket.position, estimatedWaitMs: ticket.estimatedWaitMs });
        return true;
      } catch (error) {
        remove(job);
        withdrawn();
        job.fail(error);
        return false;
      }
    },

    /** The job that starts next of this priority, left in line. */
    peek: (priority: Priority): QueuedJob<Grant> | undefined => queues[priority][0],
    shift: (priority: Priority): QueuedJob<Grant> | undefined => queues[priority].shift(),
    /** Puts a job back at the head of its line (its grant could not be used). */
    unshift: (job: QueuedJob<Grant>): void => {
      queues[job.priority].unshift(job as Job<Grant>);
    },
    /**
     * A started job whose grant lapsed before it could send goes back to the head of its line,
     * listening to its signal again (begin() detached it); `withdrawn` runs if it aborts there.
     * One whose signal aborted meanwhile is refused instead, as a queued job would be.
     */
    requeue(queued: QueuedJob<Grant>, withdrawn: () => void): void {
      const job = queued as Job<Grant>;
      const { signal } = job;
      if (signal?.aborted) {
        job.fail(cancelledBeforeSent(job.operation, signal));
        return;
      }
      queues[job.priority].unshift(job);
      if (!signal) return;
      job.onAbort = () => {
        if (remove(job)) {
          withdrawn();
          job.fail(cancelledBeforeSent(job.operation, signal));
        }
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
    },
    remove,

    /** Empties both lines, rejecting every job with the error `reason` gives for it. */
    failAll,
    /** Every queued job rejects: the limiter stopped before sending it. */
    failAllStopped(): void {
      failAll(
        (job) =>
          new PlatAbortedError(`${job.operation ?? 'plat call'} was not sent: the limiter stopped`, {
            operation: job.operation,
          }),
      );
    },

    /** Records a job leaving the line to start now (stats, onStarted); call before job.start. */
    begin(job: QueuedJob<Grant>, now: number): void {
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
    },
    /** A call was answered (or settled) after running `ms`: folds it into the smoothed latency. */
    settled(ms: number): void {
      latencyMs = latencyMs === 0 ? ms : latencyMs * 0.8 + ms * 0.2;
    },

    stats(now: number): LimiterStats {
      return {
        queued: { interactive: queues.interactive.length, bulk: queues.bulk.length },
        startedInWindow: recentStarts.filter((at) => at > now - windowMs).length,
        started,
        refused,
      };
    },
  };
}
