/**
 * Confirmed lookups cut off from their holder (issues 10 and 20): a claim is held by one process
 * under a lease it renews while it runs (store.ts ClaimHolder), and fenced: just before each call
 * the holder re-checks it (store `fence`: same holder, same epoch, lease not run out), so a
 * holder that lost it sends nothing more.
 *
 * A running claim whose holder is gone is marked interrupted, exactly once across processes, and
 * never run again: its holder is certainly gone (instance.ts: a process of this host, boot and pid
 * namespace that no longer runs, or an earlier process with this one's pid), or its lease ran out
 * longer ago than the longest call can take (the client's deadline with retries: a holder cut off
 * from the store passed its last fence before its lease ran out, so whatever it sent is over by
 * then). The lease is judged in the interrupt's own UPDATE by the lease clock (the database's:
 * DESIGN rule 9), never by this process's clock or by what it read a moment before.
 *
 * Before anything is offered again, what is known is read (`interruptedTruth`): whether a call
 * was sent (the fence counts them), what the ledger holds for the lookup, and its answer if it
 * was kept; a lookup that may have been charged is never offered again.
 */
import { placeholderFor } from '../digest/sent-calls.js';
import { type Instance, isCertainlyGone } from '../instance.js';
import { NO_ANSWER_CODE } from '../plat/codes.js';
import { fromJson } from '../store/json.js';
import { MAYBE_NOT_SENT_CODE } from '../store/ledger.js';
import type { InterruptGrounds, LedgerTotals, Store } from '../store/store.js';
import { requestKey } from './cache.js';
import type { LookupOutcome, Pending } from './types.js';

/**
 * How long a claim stays held without renewal: renewed every CLAIM_RENEW_MS (and at each fence),
 * so a live holder keeps it through a few missed beats.
 */
export const CLAIM_LEASE_MS = 30_000;
export const CLAIM_RENEW_MS = 10_000;

/**
 * Marks interrupted every running claim whose holder is gone; returns those this caller marked.
 * `graceMs`: the longest a call can take (plat/client.ts longestCallMs), waited after a lease
 * ran out before its claim is taken as gone. Each claim of another holder is one conditional
 * UPDATE that decides by the lease as stored then (a claim whose lease is live changes nothing).
 */
export async function interruptGoneClaims(store: Store, me: Instance, graceMs: number): Promise<Pending[]> {
  const marked: Pending[] = [];
  for (const claim of await store.pending.runningClaims<Pending['request'], Pending['quote']>()) {
    if (claim.claimedBy === me.id) continue;
    const grounds: InterruptGrounds =
      claim.claimedBy !== null && isCertainlyGone(claim.claimedBy, me)
        ? { holderGone: true }
        : { leaseOverForMs: graceMs };
    // Running claims are read across tenants; each is interrupted in its own tenant.
    const tenantStore = store.forTenant(claim.tenantId);
    const interrupted = await tenantStore.pending.interrupt<Pending['request'], Pending['quote']>(
      claim.id,
      claim.claimedBy,
      claim.claimEpoch,
      grounds,
    );
    if (!interrupted) continue;
    marked.push(interrupted);
    await settleLookupCalls(tenantStore, interrupted.id);
  }
  return marked;
}

/**
 * The calls an interrupted lookup wrote ahead whose charge never reached the ledger get their row
 * (digest/sent-calls.ts placeholderFor: -1 sent with no answer read, -2 may not have been sent),
 * so what the user and the admins are told next is what the ledger holds; a holder alive after
 * all that still writes a real charge upgrades its row. Written straight to the ledger: if the
 * store fails now, the rows stay written ahead and housekeeping settles them later.
 */
export async function settleLookupCalls(store: Store, pendingId: string): Promise<number> {
  const runKey = `lookup:${pendingId}`;
  const lost = await store.sentCalls.unanswered(runKey, Number.MAX_SAFE_INTEGER);
  for (const call of lost) await store.ledger.record(placeholderFor(call));
  await store.sentCalls.forgetRecorded(runKey);
  return lost.length;
}

/** What is known of an interrupted lookup, read before anything is said or offered. */
export type InterruptedTruth =
  /** No call of it was sent: nothing was charged; it may be offered again. */
  | { sent: false }
  | {
      /** A call was sent (or, for a claim of an older build, may have been): never offered again. */
      sent: true;
      /** The ledger's rows for it (calls 0: no charge recorded yet). */
      charged: LedgerTotals;
      /**
       * Of them, calls whose answer was never read (code -1): the service may have charged
       * them, and what it charged is not known to platdesk.
       */
      costUnknown: number;
      /**
       * Calls written ahead whose holder died before it could tell whether they left (code -2):
       * counted in no figure; if one reached the service, what it charged is not known.
       */
      maybeNotSent: number;
      /**
       * Its answer, when one was kept (the answer cache, stored since it was asked), stating what
       * the ledger holds for this lookup rather than what the call that kept it cost.
       */
      answer: LookupOutcome | null;
    };

/** What the ledger holds for one lookup: its charges, and the calls whose charge is not known. */
export interface LookupCharges {
  charged: LedgerTotals;
  /** Calls sent whose answer was never read (code -1): the service may have charged them. */
  costUnknown: number;
  /** Calls that may never have been sent (code -2): counted in no figure. */
  maybeNotSent: number;
}

export async function chargesOfLookup(
  store: Pick<Store, 'ledger'>,
  pendingId: string,
): Promise<LookupCharges> {
  const rows = await store.ledger.byPending(pendingId);
  // A call that may never have been sent (-2) counts in no figure (store/ledger.ts).
  const counted = rows.filter((r) => r.code !== MAYBE_NOT_SENT_CODE);
  return {
    charged: {
      points: counted.reduce((n, r) => n + r.points, 0),
      quotaCalls: counted.reduce((n, r) => n + r.quotaCalls, 0),
      calls: counted.length,
    },
    costUnknown: counted.filter((r) => r.code === NO_ANSWER_CODE).length,
    maybeNotSent: rows.length - counted.length,
  };
}

export async function interruptedTruth(
  store: Pick<Store, 'ledger' | 'cache'>,
  pending: Pending,
): Promise<InterruptedTruth> {
  const { charged, costUnknown, maybeNotSent } = await chargesOfLookup(store, pending.id);
  // Epoch 0: claimed by a build before fencing, which counted no calls: it may have sent one.
  const sent = pending.callsSent > 0 || pending.claimEpoch === 0 || charged.calls > 0;
  if (!sent) return { sent: false };
  const hit = await store.cache.get(requestKey(pending.request), pending.createdAt);
  if (!hit) return { sent: true, charged, costUnknown, maybeNotSent, answer: null };
  const { attempts: _attempts, ...kept } = fromJson<LookupOutcome>(hit.valueJson);
  const answer = {
    ...kept,
    chargedPoints: charged.points,
    ...('quotaCalls' in kept ? { quotaCalls: charged.quotaCalls } : {}),
  } as LookupOutcome;
  return { sent: true, charged, costUnknown, maybeNotSent, answer };
}
