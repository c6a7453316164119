/**
 * Confirmed lookups cut by a crash (issue 10): a claim is held by one process under a lease it
 * renews while it runs (store.ts ClaimHolder). A running claim whose holder is gone — its lease
 * ran out, or the holder is certainly gone (instance.ts: a process of this host that no longer
 * exists, or an earlier start of this one) — is marked interrupted, exactly once across
 * processes, and never run again: its call may already have been charged.
 */
import { type Instance, isCertainlyGone } from '../instance.js';
import type { Store } from '../store/store.js';
import type { Pending } from './types.js';

/**
 * How long a claim stays held without renewal: renewed every CLAIM_RENEW_MS, so a live holder
 * keeps it through a few missed beats; a holder on another host that died is seen within this.
 */
export const CLAIM_LEASE_MS = 30_000;
export const CLAIM_RENEW_MS = 10_000;

/** Marks interrupted every running claim whose holder is gone; returns those this caller marked. */
export async function interruptGoneClaims(store: Store, me: Instance, now: Date): Promise<Pending[]> {
  const marked: Pending[] = [];
  for (const claim of await store.pending.runningClaims<Pending['request'], Pending['quote']>()) {
    if (claim.claimedBy === me.id) continue;
    const leaseOver = claim.leaseExpiresAt === null || claim.leaseExpiresAt.getTime() <= now.getTime();
    if (!leaseOver && !(claim.claimedBy !== null && isCertainlyGone(claim.claimedBy, me))) continue;
    const interrupted = await store.pending.interrupt<Pending['request'], Pending['quote']>(
      claim.id,
      claim.claimedBy,
    );
    if (interrupted) marked.push(interrupted);
  }
  return marked;
}
