/**
 * Figures from the sandbox's arrival times (`sandbox.arrivals()`, in its rate clock): the largest
 * count in any sliding window of a phase, the calls of a time span, and the sustained rate. The
 * window is counted as the sandbox counts it (src/sandbox/rate-window.ts), so a phase's figure and
 * `stats().maxInWindow` agree.
 */
import { RateWindow } from '../../src/sandbox/rate-window.js';

/** The arrivals in [from, to). */
export function arrivalsBetween(
  times: readonly number[],
  from: number,
  to = Number.POSITIVE_INFINITY,
): number[] {
  return times.filter((t) => t >= from && t < to);
}

/** The largest number of these arrivals inside any sliding window of `windowMs` (spec §8: 1000). */
export function largestInAnyWindow(times: readonly number[], windowMs = 1000): number {
  const window = new RateWindow({ windowMs, limit: Number.POSITIVE_INFINITY });
  for (const t of [...times].sort((a, b) => a - b)) window.record(t);
  return window.snapshot().maxInWindow;
}

/**
 * The sustained rate under saturation, in calls per second: the calls after the first window
 * over the time from the first arrival to the last. The first window's burst comes at once (every
 * slot free), so counting it would overstate the rate a long run keeps (n − 1 over the span of
 * 300 calls read 10.06/s where the slots allow 10/(1 s + latency + margin)).
 */
export function sustainedRate(times: readonly number[], windowMs = 1000): number {
  if (times.length < 2) return Number.NaN;
  const sorted = [...times].sort((a, b) => a - b);
  const first = sorted[0] ?? 0;
  const span = (sorted[sorted.length - 1] ?? 0) - first;
  const burst = sorted.filter((t) => t < first + windowMs).length;
  return ((sorted.length - burst) * 1000) / span;
}
