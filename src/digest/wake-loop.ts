/**
 * The timer loop both schedulers run (digests, ship-by alerts): one timer for the next thing to
 * do, never longer than `maxSleepMs` (so work added by another instance and clock changes are
 * seen within that time), and the runs in flight, so a stop aborts them and waits.
 *
 * Deadlines are absolute: `plan` answers the instant something falls due, and the timer's delay
 * is counted from the clock when the timer is set, not from when the plan was asked for. The
 * store answers a plan asynchronously (a socket round trip on PostgreSQL), and whatever time
 * passed meanwhile is not added to the wait; a deadline already passed runs at once.
 */
import { unrefTimer } from '../clock.js';
import type { DigestClock } from './types.js';

/** The schedulers run on platdesk's one real clock; their timers are unref'd (see arm). */
export { realClock } from '../clock.js';

/**
 * Something the last wake-up already saw due and could not claim (the store refused, or changed
 * under us) is looked at again this much later, rather than in a busy loop.
 */
export const RETRY_DUE_MS = 1000;

export interface WakeLoopOptions {
  clock: DigestClock;
  maxSleepMs: number;
  /**
   * The instant anything next falls due (ms), without claiming anything: a due time already
   * passed is answered as that time (not as `now`), so the loop can tell it from new work.
   */
  plan(now: number): Promise<number>;
  /** Claims and starts what is due; an error is reported and the loop goes on. */
  wake(now: number): Promise<void>;
  onError(error: unknown): void;
}

export interface WakeLoop {
  readonly running: boolean;
  start(): void;
  /** Stops the timer, aborts every run in flight and waits for them. */
  stop(): Promise<void>;
  /** Plans again now (something was added, removed or finished). */
  arm(): void;
  /** The absolute instant the timer is set for (ms), or null when none is set. */
  nextWakeAt(): number | null;
  /** Tracks a run under `id` until it settles, then plans again. */
  track<T>(id: number, run: (signal: AbortSignal) => Promise<T>): Promise<T>;
  inFlight(id: number): boolean;
  /** Resolves when no plan or wake-up is under way: the next timer is set (runs may go on). */
  settled(): Promise<void>;
  /** Resolves when no plan, wake-up or run is under way. */
  idle(): Promise<void>;
}

export function createWakeLoop(options: WakeLoopOptions): WakeLoop {
  const { clock } = options;
  let timer: unknown = null;
  let wakeAt: number | null = null;
  let running = false;
  /** When the last wake-up looked (its `now`): a deadline at or before it was seen due then. */
  let lastWake = Number.NEGATIVE_INFINITY;
  const runs = new Map<number, { promise: Promise<unknown>; abort: AbortController }>();

  /** The plan or wake-up under way (the store answers asynchronously), so idle() can wait for it. */
  let busy: Promise<void> = Promise.resolve();
  /** Bumped by every arm(): a plan that a newer arm() overtook does not set the timer. */
  let generation = 0;

  function clearTimer(): void {
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
    wakeAt = null;
  }

  /** Sets the one timer for the absolute instant `at`; an instant already passed wakes at once. */
  function setTimer(at: number): void {
    clearTimer();
    const delay = at - clock.now();
    if (delay <= 0) {
      onTimer();
      return;
    }
    wakeAt = at;
    // A scheduler must not keep a stopping process alive.
    timer = unrefTimer(clock.setTimeout(onTimer, delay));
  }

  /**
   * Plans and sets the timer. `afterWake`: the plan that follows a wake-up, which must not wake
   * at once for what that wake-up just tried (a busy loop); any other plan (work added, a run
   * finished) wakes at once for whatever is due.
   */
  function plan(afterWake: boolean): void {
    if (!running) return;
    const mine = ++generation;
    busy = busy.then(async () => {
      if (!running || mine !== generation) return;
      // Read when the plan starts, so a wait in the chain before it is not counted twice.
      const now = clock.now();
      let planned: number;
      try {
        planned = await options.plan(now);
      } catch (error) {
        // The store could not be read: look again after the longest sleep.
        options.onError(error);
        planned = Number.POSITIVE_INFINITY;
      }
      if (!running || mine !== generation) return;
      let at = Math.min(planned, now + options.maxSleepMs);
      if (afterWake && at <= lastWake) at = lastWake + RETRY_DUE_MS;
      setTimer(at);
    });
  }

  function onTimer(): void {
    timer = null;
    wakeAt = null;
    busy = busy
      .then(() => {
        if (!running) return;
        const now = clock.now();
        lastWake = now;
        return options.wake(now);
      })
      .catch((error: unknown) => options.onError(error))
      .then(() => plan(true));
  }

  const arm = (): void => plan(false);

  async function settled(): Promise<void> {
    for (;;) {
      const waited = busy;
      await waited;
      if (busy === waited) return;
    }
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      onTimer();
    },
    async stop() {
      running = false;
      clearTimer();
      // A wake-up under way may still start a run: abort after it too.
      await busy;
      for (const { abort } of runs.values()) abort.abort();
      await Promise.allSettled([...runs.values()].map((r) => r.promise));
    },
    arm,
    nextWakeAt: () => wakeAt,
    track(id, run) {
      const abort = new AbortController();
      const promise = run(abort.signal).finally(() => {
        runs.delete(id);
        arm();
      });
      runs.set(id, { promise, abort });
      return promise;
    },
    inFlight: (id) => runs.has(id),
    settled,
    async idle() {
      for (;;) {
        await settled();
        if (runs.size === 0) return;
        await Promise.allSettled([...runs.values()].map((r) => r.promise));
      }
    },
  };
}
