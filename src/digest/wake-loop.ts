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
  /**
   * Driven by a loop outside (issue 39: one wake loop per replica for every workspace, see
   * schedule-wakes.ts): no timer of its own and no `maxSleepMs` cap; each plan's instant is
   * handed to `schedule` instead (the store keeps it; `seen` is the due time the wake-up before it
   * consumed, undefined for a plan that no wake-up preceded), and the loop outside calls `fire`.
   */
  driven?: {
    schedule(at: number, seen: number | undefined): void;
    /**
     * A run of this loop settled: it may have left a deadline for the loop outside's
     * stranded-runs sweep (a retry, a history check), so that loop looks again.
     */
    settled?(): void;
  };
}

/** How a scheduler driven by a loop outside hands it its due times (WakeLoopOptions.driven). */
export type DrivenBy = NonNullable<WakeLoopOptions['driven']>;

export interface WakeLoop {
  readonly running: boolean;
  start(): void;
  /** Stops the timer, aborts every run in flight and waits for them. */
  stop(): Promise<void>;
  /** Plans again now (something was added, removed or finished). */
  arm(): void;
  /** The absolute instant the timer is set for (ms), or null when none is set. */
  nextWakeAt(): number | null;
  /**
   * Driven mode: wakes now (claims what is due) and plans, as the timer would; `seen` is the due
   * time the loop outside found. Resolves once the wake-up has claimed and started what was due;
   * the plan after it follows (busy() until it is handed on).
   */
  fire(seen?: number): Promise<void>;
  /** Whether a plan, a wake-up or a run is under way. */
  busy(): boolean;
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
  /** Plans and wake-ups queued or under way (busy()). */
  let queued = 0;
  /** Driven mode: the due time the last wake-up consumed, until the plan after it hands it on. */
  let consumed: number | undefined;
  const { driven } = options;
  const chain = (work: () => Promise<void>): void => {
    queued++;
    busy = busy
      .then(work)
      .catch((error: unknown) => options.onError(error))
      .finally(() => {
        queued--;
      });
  };

  function clearTimer(): void {
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
    wakeAt = null;
  }

  /** Sets the one timer for the absolute instant `at`; an instant already passed wakes at once. */
  function setTimer(at: number, seen?: number): void {
    clearTimer();
    if (driven) {
      wakeAt = Number.isFinite(at) ? at : null;
      driven.schedule(at, seen);
      return;
    }
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
    const seen = afterWake ? consumed : undefined;
    chain(async () => {
      if (!running || mine !== generation) return;
      // Read when the plan starts, so a wait in the chain before it is not counted twice.
      const now = clock.now();
      let planned: number;
      try {
        planned = await options.plan(now);
      } catch (error) {
        // The store could not be read: look again after the longest sleep.
        options.onError(error);
        // Driven: the loop outside has no cap of its own, so the look again is planned here.
        planned = driven ? now + options.maxSleepMs : Number.POSITIVE_INFINITY;
      }
      if (!running || mine !== generation) return;
      let at = driven ? planned : Math.min(planned, now + options.maxSleepMs);
      if (afterWake && at <= lastWake) at = lastWake + RETRY_DUE_MS;
      setTimer(at, seen);
    });
  }

  /** `woke`: called once the wake-up has claimed and started what was due (before its plan). */
  function onTimer(seen?: number, woke?: () => void): void {
    timer = null;
    wakeAt = null;
    chain(async () => {
      try {
        if (!running) return;
        const now = clock.now();
        lastWake = now;
        consumed = seen;
        await options.wake(now);
      } catch (error) {
        options.onError(error);
      } finally {
        woke?.();
      }
      plan(true);
    });
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
      // Driven: its due time is in the store already (written by its last plan on any replica, by
      // the store when a subscription is added or an installation saved, or adopted at the loop's
      // start): the loop outside wakes it when that falls due, so building parts costs no query.
      if (!driven) onTimer();
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
    async fire(seen) {
      if (!running) return;
      // The plan after it goes on (busy() counts it): the loop outside wakes its next tenant.
      await new Promise<void>((woke) => onTimer(seen, woke));
    },
    busy: () => queued > 0 || runs.size > 0,
    nextWakeAt: () => wakeAt,
    track(id, run) {
      const abort = new AbortController();
      const promise = run(abort.signal).finally(() => {
        runs.delete(id);
        driven?.settled?.();
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
