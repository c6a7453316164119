/**
 * The timer loop both schedulers run (digests, ship-by alerts): one timer for the next thing to
 * do, never longer than `maxSleepMs` (so work added by another instance and clock changes are
 * seen within that time), and the runs in flight, so a stop aborts them and waits.
 */
import { unrefTimer } from '../clock.js';
import type { DigestClock } from './types.js';

/** The schedulers run on platdesk's one real clock; their timers are unref'd (see arm). */
export { realClock } from '../clock.js';

export interface WakeLoopOptions {
  clock: DigestClock;
  maxSleepMs: number;
  /** The next time anything may need doing (ms), without claiming anything. */
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
  nextWakeAt(): number | null;
  /** Tracks a run under `id` until it settles, then plans again. */
  track<T>(id: number, run: (signal: AbortSignal) => Promise<T>): Promise<T>;
  inFlight(id: number): boolean;
  /** Resolves when no run is in flight. */
  idle(): Promise<void>;
}

export function createWakeLoop(options: WakeLoopOptions): WakeLoop {
  const { clock } = options;
  let timer: unknown = null;
  let wakeAt: number | null = null;
  let running = false;
  const runs = new Map<number, { promise: Promise<unknown>; abort: AbortController }>();

  /** The plan or wake-up under way (the store answers asynchronously), so idle() can wait for it. */
  let busy: Promise<void> = Promise.resolve();
  /** Bumped by every arm(): a plan that a newer arm() overtook does not set the timer. */
  let generation = 0;

  function arm(): void {
    if (!running) return;
    const mine = ++generation;
    const now = clock.now();
    busy = busy
      .then(() => options.plan(now))
      .catch((error: unknown) => {
        // The store could not be read: look again after the longest sleep.
        options.onError(error);
        return now + options.maxSleepMs;
      })
      .then((planned) => {
        if (!running || mine !== generation) return;
        if (timer !== null) clock.clearTimeout(timer);
        const at = Math.min(planned, now + options.maxSleepMs);
        // Something due already was looked at just now and could not be claimed (the store refused
        // or changed under us): look again in a second rather than spin.
        const delay = at > now ? at - now : 1000;
        wakeAt = now + delay;
        // A scheduler must not keep a stopping process alive.
        timer = unrefTimer(clock.setTimeout(onTimer, delay));
      });
  }

  function onTimer(): void {
    timer = null;
    wakeAt = null;
    const now = clock.now();
    busy = busy
      .then(() => options.wake(now))
      .catch((error: unknown) => options.onError(error))
      .then(() => arm());
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
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
      wakeAt = null;
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
    async idle() {
      for (;;) {
        const waited = busy;
        await waited;
        if (runs.size > 0) await Promise.allSettled([...runs.values()].map((r) => r.promise));
        else if (busy === waited) return;
      }
    },
  };
}
