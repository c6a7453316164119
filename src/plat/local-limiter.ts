/**
 * The in-process engine of the Limiter contract (./limiter.ts): the one limiter shared by all seven plat operations (spec §8: at most 10 calls per second,
 * on every endpoint; DESIGN.md rule 4).
 *
 * Guarantee, measured where it matters, at the SERVER: never more than `maxCalls` calls ARRIVE in
 * any sliding `windowMs`. The limiter cannot see when a request arrives, but it knows two bounds:
 * a request arrives after it is started and before its answer comes back. So it keeps
 * `maxCalls` slots; a call holds its slot until it settles, and the slot is free again
 * `windowMs + safetyMarginMs` after that. Two calls on one slot therefore arrive at least a
 * window apart whatever the network did, and at most maxCalls calls arrive in any window.
 * (Spacing starts alone is not enough: measured here, a cold start's connection setup delayed
 * the first ten arrivals by 20–50 ms, and the next ten, started exactly one window later on warm
 * sockets, landed inside the same server second: 17 in one window.)
 *
 * Throughput: maxCalls per (windowMs + margin + call latency), e.g. 9.9 calls/s against the local
 * sandbox. One timer is armed for the moment the next slot frees (no polling); when it fires the
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
import { type Clock, realClock } from '../clock.js';
import { PlatAbortedError, PlatBusyError } from './errors.js';
import {
  cancelledBeforeSent,
  type Limiter,
  type LimiterOptions,
  type Priority,
  type QueueEstimate,
  resolveLimiterOptions,
  type ScheduleOptions,
} from './limiter.js';
import type { Operation } from './operations.js';

interface Job {
  readonly priority: Priority;
  readonly operation: Operation | null;
  readonly enqueuedAt: number;
  /** Calls the task on a slot and settles the caller's promise with its outcome. */
  readonly start: (slot: number, startedAt: number) => void;
  readonly fail: (error: unknown) => void;
  readonly detach: () => void;
}

export function createLocalLimiter(options: LimiterOptions & { clock?: Clock } = {}): Limiter {
  const { maxCalls, windowMs, safetyMarginMs, interactiveReserve, maxQueued, maxQueuedBulk } =
    resolveLimiterOptions(options);
  const clock = options.clock ?? realClock;
  const onStarted = options.onStarted;

  /** How long a slot rests after its call settled. */
  const gapMs = windowMs + safetyMarginMs;
  /** When each slot may be used again; Infinity while its call is in flight. */
  const slots: number[] = Array.from({ length: maxCalls }, () => Number.NEGATIVE_INFINITY);
  /** Start times of the last (at most) maxCalls calls, for stats. */
  const recentStarts: number[] = [];
  /** Smoothed call latency, for estimates of when busy slots free up. */
  let latencyMs = 0;
  const queues: Record<Priority, Job[]> = { interactive: [], bulk: [] };
  let timer: unknown;
  let timerAt = Number.NaN;
  let started = 0;
  let refused = 0;
  let stopped = false;

  const queuedCount = (): number => queues.interactive.length + queues.bulk.length;

  /**
   * When the next call of this priority may start (≤ now when it may start now; Infinity while
   * too many slots are in flight): interactive calls take any slot, bulk calls leave
   * `interactiveReserve` slots free.
   */
  function nextFreeAt(priority: Priority): number {
    const sorted = [...slots].sort((a, b) => a - b);
    return sorted[priority === 'interactive' ? 0 : interactiveReserve] ?? Number.POSITIVE_INFINITY;
  }

  /** The priority whose job starts next: interactive first, bulk only when no interactive waits. */
  function nextPriority(): Priority | null {
    if (queues.interactive.length > 0) return 'interactive';
    return queues.bulk.length > 0 ? 'bulk' : null;
  }

  /**
   * The start time of the (ahead + 1)-th call from now, if calls start as early as the slots
   * allow; a busy slot is expected to settle after the smoothed latency.
   */
  function projectedStart(ahead: number, now: number, priority: Priority): number {
    const free = slots.map((at) => (at === Number.POSITIVE_INFINITY ? now + latencyMs + gapMs : at));
    let start = now;
    for (let j = 0; j <= ahead; j++) {
      free.sort((a, b) => a - b);
      // Jobs ahead of an interactive one are interactive; a bulk one waits for a non-reserved slot.
      const index = priority === 'interactive' ? 0 : interactiveReserve;
      start = Math.max(now, free[index] ?? now);
      free[0] = start + latencyMs + gapMs;
    }
    return start;
  }

  /** A settled call frees its slot a full window later (it surely arrived before it settled). */
  function release(slot: number, startedAt: number): void {
    const now = clock.now();
    slots[slot] = now + gapMs;
    latencyMs = latencyMs === 0 ? now - startedAt : latencyMs * 0.8 + (now - startedAt) * 0.2;
    if (!stopped) arm(now);
  }

  function estimateAt(priority: Priority, now: number): QueueEstimate {
    const ahead = priority === 'interactive' ? queues.interactive.length : queuedCount();
    const estimatedStartMs = projectedStart(ahead, now, priority);
    return { position: ahead + 1, estimatedStartMs, estimatedWaitMs: estimatedStartMs - now };
  }

  /** Takes the free slot for a job; returns the slot's index. */
  function begin(job: Job, now: number): number {
    const slot = slots.indexOf(Math.min(...slots));
    slots[slot] = Number.POSITIVE_INFINITY;
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
    return slot;
  }

  /** Admits every queued job the window allows now, then re-arms the timer for the next slot. */
  function drain(): void {
    const now = clock.now();
    const due: [Job, number][] = [];
    for (
      let priority = nextPriority();
      priority !== null && nextFreeAt(priority) <= now;
      priority = nextPriority()
    ) {
      const job = queues[priority].shift();
      if (!job) break;
      due.push([job, begin(job, now)]);
    }
    arm(now);
    // Tasks run after the bookkeeping, so a task that schedules more work sees a consistent state.
    for (const [job, slot] of due) job.start(slot, now);
  }

  function arm(now: number): void {
    if (queuedCount() === 0 || stopped) {
      disarm();
      return;
    }
    const next = nextPriority();
    const at = next === null ? Number.POSITIVE_INFINITY : nextFreeAt(next);
    // The slots it needs are in flight: the next settle re-arms.
    if (at === Number.POSITIVE_INFINITY) {
      disarm();
      return;
    }
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
        reject(cancelledBeforeSent(operation, signal));
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
        start: (slot, startedAt) => {
          let running: Promise<T>;
          try {
            running = Promise.resolve(task());
          } catch (error) {
            running = Promise.reject(error);
          }
          running.then(
            (value) => {
              release(slot, startedAt);
              resolve(value);
            },
            (error: unknown) => {
              release(slot, startedAt);
              reject(error);
            },
          );
        },
        fail: reject,
        detach: () => {
          if (onAbort) signal?.removeEventListener('abort', onAbort);
        },
      };

      const ahead = priority === 'interactive' ? queues.interactive.length : queuedCount();
      if (ahead === 0 && nextFreeAt(priority) <= now) {
        // Nobody is ahead of this job (queued bulk work never is ahead of an interactive one).
        job.start(begin(job, now), now);
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
            job.fail(cancelledBeforeSent(operation, signal));
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
    ready: () => Promise.resolve(),
    health: () => ({ ok: true }),
    stop: async () => {
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
