/**
 * The claim races of store-contract.test.ts (SQLite): contenders on different threads, each with
 * its own connection to one file, meet at a spin barrier before each id and claim it at once, so
 * every claim overlaps with the others' claims of the same row. The rows are confirmations, or
 * with `digestSubscriptionId` the scheduled digest runs of that subscription.
 */
import { threadId } from 'node:worker_threads';
import type { Store } from '../../src/store/store.js';

export interface ClaimRaceInput {
  path: string;
  /** Confirmation ids, or (with digestSubscriptionId) the local dates of its scheduled runs. */
  ids: string[];
  digestSubscriptionId?: number;
  userId: string;
  contenders: number;
  /** Int32Array over a SharedArrayBuffer of one element: arrivals at the barrier so far. */
  arrivals: Int32Array;
}

export interface ClaimRaceResults {
  wins: boolean[];
  reasons: (string | null)[];
}

/** Claims every id in turn, in lock-step with the other contenders. */
export async function runContender(store: Store, input: ClaimRaceInput): Promise<ClaimRaceResults> {
  const deadline = Date.now() + 10_000;
  const results = [];
  for (const [round, id] of input.ids.entries()) {
    Atomics.add(input.arrivals, 0, 1);
    while (Atomics.load(input.arrivals, 0) < input.contenders * (round + 1)) {
      // A spin, not Atomics.wait: the point is to release every contender in the same microsecond.
      if (Date.now() > deadline) throw new Error(`claim race: contenders never met at round ${round}`);
    }
    results.push(await claimOne(store, input, id));
  }
  return { wins: results.map((r) => r.ok), reasons: results.map((r) => (r.ok ? null : r.reason)) };
}

async function claimOne(
  store: Store,
  input: ClaimRaceInput,
  id: string,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const subscriptionId = input.digestSubscriptionId;
  if (subscriptionId === undefined)
    return store.pending.claim(id, input.userId, {
      instanceId: `contender-${input.userId}`,
      leaseMs: 30_000,
    });
  // A lease names its holder: each thread is another instance.
  const now = new Date();
  const { claimed } = await store.digests.claimScheduled(
    { subscriptionId, localDate: id, windowStart: now, windowEnd: now, requestedBy: null },
    { owner: `contender-${threadId}`, ms: 60_000 },
  );
  return claimed ? { ok: true } : { ok: false, reason: 'held' };
}
