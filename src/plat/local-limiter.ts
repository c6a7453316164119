/**
 * The in-process engine of the Limiter contract (./limiter.ts): the one limiter shared by all seven plat operations (spec §8: at most 10 calls per second,
 * on every endpoint; DESIGN.md rule 4).
 *
 * Guarantee, measured where it matters, at the SERVER: never more than `maxCalls` calls ARRIVE in
 * any sliding `windowMs`. The limiter cannot see when a request arrives, but it knows two bounds:
 * a request arrives after it is started and before its answer (response headers) comes back. So
 * it keeps `maxCalls` slots; a call holds its slot until its answer is read (`answered()`, else
 * until it settles: a call timed out may still arrive until its deadline), and the slot is free
 * again `windowMs + safetyMarginMs` after that. Two calls on one slot therefore arrive at least a
 * window apart whatever the network did, and at most maxCalls calls arrive in any window.
 * (Spacing starts alone is not enough: measured here, a cold start's connection setup delayed
 * the first ten arrivals by 20–50 ms, and the next ten, started exactly one window later on warm
 * sockets, landed inside the same server second: 17 in one window.)
 *
 * Throughput: maxCalls per (windowMs + margin + time to the answer's headers), e.g. 9.97 calls/s
 * against the local sandbox; an offered load of exactly maxCalls per window therefore queues by
 * that latency per window (limiter.ts says why no sound rule can avoid it). A job with its own work
 * before the send (`prepare`, e.g. the claim's fence write) is granted `prepareLeadMs` before its
 * slot opens and its task started at the opening, so that work is not added to every cycle. One
 * timer is armed for the moment the next job may be granted (no polling); when it fires the
 * condition is checked again against the clock, so a timer that fires early admits nothing early;
 * the last millisecond is waited in event-loop turns (setImmediate), since a Node timer may fire
 * up to a millisecond off and a late start delays that slot's every later call.
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
 * So this module is a small self-contained scheduler: the sliding window here, and the two FIFO
 * queues shared with the Redis engine (./limiter-queue.ts).
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
import {
  type CallProgress,
  type Limiter,
  type LimiterOptions,
  type Priority,
  type QueueEstimate,
  resolveLimiterOptions,
  type ScheduleOptions,
} from './limiter.js';
import { createLimiterQueue, jobRequest, type QueuedJob, refusedBeforeQueued } from './limiter-queue.js';

/** A local grant: the slot a call holds, when it was granted and when the slot opens. */
interface Grant {
  readonly slot: number;
  readonly startedAt: number;
  readonly opensAt: number;
}

export function createLocalLimiter(
  options: LimiterOptions & {
    clock?: Clock;
    /**
     * Slots still resting when this limiter starts (ms from now each: limiter.ts restingAtStart),
     * taken by calls of an earlier life of this process that may still arrive (issue 33
     * finding 13: a restart within a second of ten calls must not send ten more).
     */
    restingMs?: readonly number[];
  } = {},
): Limiter {
  const settings = resolveLimiterOptions(options);
  const { maxCalls, windowMs, safetyMarginMs, prepareLeadMs, prepareDeadlineMs, interactiveReserve } =
    settings;
  const queue = createLimiterQueue<Grant>(settings, options.onStarted);
  const clock = options.clock ?? realClock;

  /** How long a slot rests after its call settled. */
  const gapMs = windowMs + safetyMarginMs;
  /** When each slot may be used again; Infinity while its call is in flight. */
  const slots: number[] = Array.from({ length: maxCalls }, () => Number.NEGATIVE_INFINITY);
  const startedAt = clock.now();
  for (const [i, ms] of (options.restingMs ?? []).slice(0, maxCalls).entries()) slots[i] = startedAt + ms;
  /** Cancels the armed wake-up (see arm()). */
  let cancelWake: (() => void) | undefined;
  let wakeAt = Number.NaN;
  /** Only the real clock's timers fire off their time; a test's clock fires each at its time. */
  const precise = clock === realClock;
  let stopped = false;

  /**
   * Calls `fire` once the clock has reached `time`; returns what cancels it. Node's timers count
   * whole milliseconds from the event loop's cached time, so they fire up to about 1 ms early or
   * late; at an offered load of exactly the limit every late start is carried by its slot to the
   * end of the run, so on the real clock the timer is set short and the last millisecond is waited
   * in event-loop turns (setImmediate). A test's clock fires each timer at its time.
   */
  function when(time: number, fire: () => void): () => void {
    let timer: unknown;
    let immediate: ReturnType<typeof setImmediate> | undefined;
    const check = () => {
      timer = undefined;
      immediate = undefined;
      const wait = time - clock.now();
      if (wait <= 0) fire();
      else wake(wait);
    };
    // Never fires in the caller's turn: the caller finishes its bookkeeping first.
    const wake = (wait: number) => {
      if (!precise) timer = clock.setTimeout(check, Math.max(1, Math.ceil(wait)));
      else if (wait < 1) immediate = setImmediate(check);
      else timer = clock.setTimeout(check, Math.floor(wait));
    };
    wake(time - clock.now());
    return () => {
      if (timer !== undefined) clock.clearTimeout(timer);
      if (immediate !== undefined) clearImmediate(immediate);
    };
  }

  /** How long before its slot opens a job may be granted: its preparation runs meanwhile. */
  const leadOf = (job: QueuedJob<Grant> | undefined): number => (job?.prepares ? prepareLeadMs : 0);

  /**
   * When the next call of this priority may start (≤ now when it may start now; Infinity while
   * too many slots are in flight): interactive calls take any slot, bulk calls leave
   * `interactiveReserve` slots free.
   */
  function nextFreeAt(priority: Priority): number {
    const sorted = [...slots].sort((a, b) => a - b);
    return sorted[priority === 'interactive' ? 0 : interactiveReserve] ?? Number.POSITIVE_INFINITY;
  }

  /** When the next job in line of this priority may be granted. */
  const grantableAt = (priority: Priority): number => nextFreeAt(priority) - leadOf(queue.peek(priority));

  /**
   * The start time of the (ahead + 1)-th call from now, if calls start as early as the slots
   * allow; a busy slot is expected to settle after the smoothed latency.
   */
  function projectedStart(ahead: number, now: number, priority: Priority): number {
    const latencyMs = queue.latencyMs();
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

  /**
   * An answered (or settled) call frees its slot a full window later: it surely arrived by now.
   * A grant that carried no call (`used` false: its preparation outlasted it) rests the same way.
   */
  function release({ slot, startedAt }: Grant, used: boolean): void {
    const now = clock.now();
    slots[slot] = now + gapMs;
    if (used) queue.settled(now - startedAt);
    if (!stopped) arm();
  }

  function estimateAt(priority: Priority, now: number): QueueEstimate {
    const ahead = queue.ahead(priority);
    const estimatedStartMs = projectedStart(ahead, now, priority);
    return { position: ahead + 1, estimatedStartMs, estimatedWaitMs: estimatedStartMs - now };
  }

  /** Takes the free slot for a job: its grant. */
  function take(job: QueuedJob<Grant>, now: number): Grant {
    const opensAt = Math.min(...slots);
    const slot = slots.indexOf(opensAt);
    slots[slot] = Number.POSITIVE_INFINITY;
    queue.begin(job, now);
    return { slot, startedAt: now, opensAt };
  }

  /**
   * Starts a job on its grant; one granted before its slot opens runs its task at the opening, and
   * not at all if its preparation outlasts prepareDeadlineMs (it is granted again).
   */
  function start(job: QueuedJob<Grant>, grant: Grant): void {
    const { opensAt } = grant;
    const opened = () =>
      clock.now() >= opensAt
        ? Promise.resolve()
        : new Promise<void>((resolve) => void when(opensAt, resolve));
    const rearm = () => arm();
    void job.start(grant, {
      opened: opensAt > grant.startedAt ? opened : undefined,
      sendBy: grant.startedAt + prepareDeadlineMs,
      now: () => clock.now(),
      at: when,
      requeue: () => {
        queue.requeue(job, rearm);
        // Stopped meanwhile: it is refused like every job still queued.
        if (stopped) queue.failAllStopped();
        else arm();
      },
    });
  }

  /** Admits every queued job the window allows now, then re-arms the wake-up for the next slot. */
  function drain(): void {
    const now = clock.now();
    const due: [QueuedJob<Grant>, Grant][] = [];
    for (
      let priority = queue.nextPriority();
      priority !== null && grantableAt(priority) <= now;
      priority = queue.nextPriority()
    ) {
      const job = queue.shift(priority);
      if (!job) break;
      due.push([job, take(job, now)]);
    }
    arm();
    // Tasks run after the bookkeeping, so a task that schedules more work sees a consistent state.
    for (const [job, grant] of due) start(job, grant);
  }

  /** Arms one wake-up for the moment the next job in line may be granted (no polling). */
  function arm(): void {
    const next = queue.nextPriority();
    // Nothing waits, or the slots it needs are in flight (the next settle re-arms).
    const at = next === null || stopped ? Number.POSITIVE_INFINITY : grantableAt(next);
    if (at === Number.POSITIVE_INFINITY) {
      disarm();
      return;
    }
    if (cancelWake !== undefined && wakeAt === at) return;
    disarm();
    wakeAt = at;
    cancelWake = when(at, () => {
      cancelWake = undefined;
      wakeAt = Number.NaN;
      drain();
    });
  }

  function disarm(): void {
    cancelWake?.();
    cancelWake = undefined;
    wakeAt = Number.NaN;
  }

  function schedule<T>(
    task: (progress: CallProgress) => Promise<T>,
    scheduleOptions: ScheduleOptions = {},
  ): Promise<T> {
    const { priority, operation, signal, onQueued, prepare } = jobRequest(scheduleOptions);

    return new Promise<T>((resolve, reject) => {
      const refusal = refusedBeforeQueued(stopped, operation, signal);
      if (refusal) {
        reject(refusal);
        return;
      }

      // Admit whatever is already due (a timer may be late) so a free slot is never refused.
      drain();
      const now = clock.now();
      const job = queue.job(
        task,
        { priority, operation, signal, prepare, now },
        { resolve, reject },
        release,
      );

      if (queue.ahead(priority) === 0 && nextFreeAt(priority) - leadOf(job) <= now) {
        // Nobody is ahead of this job (queued bulk work never is ahead of an interactive one).
        start(job, take(job, now));
        return;
      }

      const busy = queue.busy(priority, operation, () => estimateAt(priority, now).estimatedWaitMs);
      if (busy) {
        reject(busy);
        return;
      }

      const ticket = estimateAt(priority, now);
      const rearm = () => arm();
      queue.enqueue(job, rearm);
      arm();
      queue.tellQueued(job, onQueued, ticket, rearm);
    });
  }

  return {
    schedule,
    estimate: (priority = 'interactive') => estimateAt(priority, clock.now()),
    stats: () => queue.stats(clock.now()),
    ready: () => Promise.resolve(),
    health: () => ({ ok: true }),
    stop: async () => {
      stopped = true;
      disarm();
      queue.failAllStopped();
    },
  };
}
