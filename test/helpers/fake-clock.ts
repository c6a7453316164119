/**
 * A manual clock with timers, for code that takes `{ now, setTimeout, clearTimeout }` as a
 * dependency (CONVENTIONS.md item 3). Time moves only through `advance`/`advanceTo`, which fire
 * due timers in order of due time (ties: in the order they were set), each at its own due time.
 *
 * The `…Async` variants do the same but let promise reactions run before the first timer and
 * after each one (`flushMicrotasks`), so that what a timer's callback sets off through promises
 * (a task settling, a limiter releasing its slot) happens at that timer's time, as it would on a
 * real clock, and not after the whole advance.
 *
 * Flushing microtasks is not enough for code that waits on real I/O (a PostgreSQL round trip
 * before a scheduler sets its next timer): `settleWith` registers what to wait for as well (a
 * scheduler's `idle()`), and the `…Async` variants wait for it before the first timer and after
 * each, so time never jumps past a timer that is about to be set.
 */
export interface FakeClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void;
  advanceTo(time: number): void;
  /** Moves to the next timer's due time and fires it (and any others due then); false if none. */
  next(): boolean;
  /** Timers set and not yet fired or cleared. */
  pending(): number;
  /**
   * Adds something the `…Async` variants wait for before the first timer and after each (e.g. a
   * scheduler's `idle`); returns a function that removes it.
   */
  settleWith(settle: () => Promise<unknown>): () => void;
  /** `advance`, flushing microtasks before the first timer and after each. */
  advanceAsync(ms: number): Promise<void>;
  advanceToAsync(time: number): Promise<void>;
  /** Fires timers one after another (time jumping to each), flushing after each, until none is left. */
  runAllAsync(maxTimers?: number): Promise<void>;
}

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * Lets every pending promise reaction run, chains included: the real `setImmediate` callback runs
 * only once the microtask queue is empty. (The fake clock does not replace Node's timers.)
 */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function createFakeClock(start = 0): FakeClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, Timer>();
  const settlers = new Set<() => Promise<unknown>>();

  /** Promise reactions, then everything registered with settleWith (which may set timers). */
  async function settle(): Promise<void> {
    await flushMicrotasks();
    if (settlers.size === 0) return;
    await Promise.all([...settlers].map((s) => s()));
    await flushMicrotasks();
  }

  function earliest(): Timer | undefined {
    let first: Timer | undefined;
    for (const timer of timers.values()) {
      if (!first || timer.at < first.at || (timer.at === first.at && timer.id < first.id)) first = timer;
    }
    return first;
  }

  function checkForward(time: number): void {
    if (time < now) throw new RangeError(`cannot go back in time (${time} < ${now})`);
  }

  /** Fires the earliest timer if it is due by `time`; false if none is. */
  function fireNext(time: number): boolean {
    const timer = earliest();
    if (!timer || timer.at > time) return false;
    timers.delete(timer.id);
    now = Math.max(now, timer.at);
    timer.fn();
    return true;
  }

  function advanceTo(time: number): void {
    checkForward(time);
    while (fireNext(time)) {
      // each step fires one due timer at its own time
    }
    now = time;
  }

  async function advanceToAsync(time: number): Promise<void> {
    checkForward(time);
    await settle();
    while (fireNext(time)) await settle();
    now = time;
  }

  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      // Like Node: a delay below 1 ms (or not a number) becomes 1 ms.
      timers.set(id, { id, at: now + (Number.isFinite(ms) && ms >= 1 ? ms : 1), fn });
      return id;
    },
    clearTimeout(handle) {
      if (typeof handle === 'number') timers.delete(handle);
    },
    advance: (ms) => advanceTo(now + ms),
    advanceTo,
    next() {
      const timer = earliest();
      if (!timer) return false;
      advanceTo(timer.at);
      return true;
    },
    pending: () => timers.size,
    settleWith(settler) {
      settlers.add(settler);
      return () => settlers.delete(settler);
    },
    advanceAsync: (ms) => advanceToAsync(now + ms),
    advanceToAsync,
    async runAllAsync(maxTimers = 100_000) {
      await settle();
      for (let fired = 0; fired < maxTimers; fired++) {
        if (!fireNext(Number.POSITIVE_INFINITY)) return;
        await settle();
      }
      throw new Error(`runAllAsync: still timers after ${maxTimers} (a timer that re-arms itself forever?)`);
    },
  };
}
