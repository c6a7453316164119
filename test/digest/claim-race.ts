/**
 * The digest claim race: contenders on different threads, each with its own connection to one
 * SQLite file, meet at a spin barrier before each local date and claim its scheduled run at once.
 */
import type { Store } from '../../src/store/store.js';

export interface DigestRaceInput {
  path: string;
  subscriptionId: number;
  dates: string[];
  contenders: number;
  /** Int32Array over a SharedArrayBuffer of one element: arrivals at the barrier so far. */
  arrivals: Int32Array;
}

export function raceClaims(store: Store, input: DigestRaceInput, owner: string): boolean[] {
  const deadline = Date.now() + 10_000;
  return input.dates.map((localDate, round) => {
    Atomics.add(input.arrivals, 0, 1);
    while (Atomics.load(input.arrivals, 0) < input.contenders * (round + 1)) {
      // A spin, not Atomics.wait: the point is to release every contender in the same microsecond.
      if (Date.now() > deadline) throw new Error(`digest race: contenders never met at round ${round}`);
    }
    const now = new Date();
    return store.digests.claimScheduled(
      {
        subscriptionId: input.subscriptionId,
        localDate,
        windowStart: now,
        windowEnd: now,
        requestedBy: null,
      },
      { owner, now, ms: 60_000 },
    ).claimed;
  });
}
