/**
 * A manual clock with timers, for code that takes `{ now, setTimeout, clearTimeout }` as a
 * dependency (CONVENTIONS.md item 3). Time moves only through `advance`/`advanceTo`, which fire
 * due timers in order of due time (ties: in the order they were set), each at its own due time.
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
}

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

export function createFakeClock(start = 0): FakeClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, Timer>();

  function earliest(): Timer | undefined {
    let first: Timer | undefined;
    for (const timer of timers.values()) {
      if (!first || timer.at < first.at || (timer.at === first.at && timer.id < first.id)) first = timer;
    }
    return first;
  }

  function advanceTo(time: number): void {
    if (time < now) throw new RangeError(`cannot go back in time (${time} < ${now})`);
    for (let timer = earliest(); timer && timer.at <= time; timer = earliest()) {
      timers.delete(timer.id);
      now = Math.max(now, timer.at);
      timer.fn();
    }
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
  };
}
