/**
 * The one clock type of platdesk, shared by the limiter, the digest scheduler and the store
 * (CONVENTIONS 3: factories take their clock; tests pass test/helpers/fake-clock.ts).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * The real clock. `now()` is epoch milliseconds that never step backwards: the process start's
 * wall time plus the monotonic `performance.now()`, so a wall-clock correction (NTP, DST-free by
 * construction) cannot open the limiter's window early or move a timer. Over a process's life it
 * can drift from the wall clock by the host's clock error, a few ms per day.
 */
export const realClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A timer that must not keep a stopping process alive (real timers only; fake handles pass through). */
export function unrefTimer(handle: unknown): unknown {
  if (
    typeof handle === 'object' &&
    handle !== null &&
    'unref' in handle &&
    typeof handle.unref === 'function'
  ) {
    handle.unref();
  }
  return handle;
}
