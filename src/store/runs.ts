/**
 * Leased runs: the one mechanism behind digest runs (digests.ts) and ship-by alert checks
 * (alerts.ts). A run is held under a lease (owner instance + expiry) so a second instance cannot
 * execute it at the same time, and a crashed holder's run is taken over once its lease expired.
 *
 * States every leased run shares:
 *   running ──▶ posting ──▶ posted
 *      │  ▲        │
 *      │  └──┐     └─(lease expired: the post may or may not have reached Slack)──▶ unknown
 *      ├──▶ failed (next_attempt_at: retried until null)
 *      └──▶ awaiting_approval (over the cost cap) ──(an admin's approval)──▶ running
 *
 * What a run is *of* (a digest's local date, an alert's slot) and what it carries (a summary, the
 * alerted orders) stays with its own store; this contract is only the lease and its transitions.
 */

/** Who holds a run, and until when. */
export interface Lease {
  owner: string;
  now: Date;
  ms: number;
}

export type LeasedRunState = 'running' | 'posting' | 'posted' | 'failed' | 'awaiting_approval' | 'unknown';

/** What every leased run records, whatever it is a run of. */
export interface LeasedRun {
  id: number;
  subscriptionId: number;
  state: LeasedRunState;
  /** Executions started (the first one included). */
  attempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  /** Set while failed and a retry is planned; null once given up. */
  nextAttemptAt: Date | null;
  lastError: string | null;
  /** The message the run posted. */
  messageTs: string | null;
  /** Points withheld by every call of every attempt. */
  chargedPoints: number;
  /** Calls that reached the service, charged or not (one ledger row each). */
  calls: number;
  /** The cost estimate that needed an admin's approval. */
  estimatePoints: number | null;
  createdAt: Date;
}

export interface RunFailure {
  error: string;
  /** When to retry; null gives up. */
  nextAttemptAt: Date | null;
  now: Date;
}

/**
 * How an existing run was claimed: taken over (its holder's lease expired while running), taken
 * for its due retry, found orphaned (its lease expired while posting: now 'unknown'; exactly one
 * claimer sees this), or not at all (someone holds it, or it is finished or waiting).
 */
export type ExistingRunClaim = 'takeover' | 'retry' | 'orphaned' | null;

/**
 * Whether a claim could take the run now: its holder's lease has expired (a takeover, or an
 * orphaned post to mark), or its retry is due. Lets a scheduler skip a write transaction.
 */
export function claimable(run: LeasedRun, nowMs: number): boolean {
  switch (run.state) {
    case 'running':
    case 'posting':
      return run.leaseExpiresAt === null || run.leaseExpiresAt.getTime() <= nowMs;
    case 'failed':
      return run.nextAttemptAt !== null && run.nextAttemptAt.getTime() <= nowMs;
    default:
      return false;
  }
}

/** The lease transitions of one run table, by run id. Each is one conditional UPDATE. */
export interface LeasedRuns {
  /** Call inside the caller's IMMEDIATE transaction, after finding the run row. */
  claimExisting(id: number, lease: Lease): ExistingRunClaim;
  /** Extends the caller's lease (running or posting); false when the caller no longer holds it. */
  renew(id: number, lease: Lease): boolean;
  /** Extends the caller's lease only while still running (before anything is posted). */
  holdRunning(id: number, lease: Lease): boolean;
  /** Gives the lease up at once (shutdown), so another instance may take the run over now. */
  release(id: number, owner: string, now: Date): boolean;
  /** Adds calls and their charges; unconditional, since they happened whoever holds the run. */
  addCharge(id: number, points: number, calls: number): void;
  /** running → posting under the caller's lease (from here a crash leaves the post unknown). */
  markPosting(id: number, lease: Lease): boolean;
  /** posting → posted, releasing the lease. */
  markPosted(id: number, owner: string, messageTs: string | null, now: Date): boolean;
  /** running | posting → failed, releasing the lease. */
  markFailed(id: number, owner: string, failure: RunFailure): boolean;
  /** running → awaiting_approval, releasing the lease. */
  awaitApproval(id: number, owner: string, estimatePoints: number, now: Date): boolean;
  /** awaiting_approval → running under the caller's lease (single-use: a second caller gets false). */
  claimApproved(id: number, lease: Lease): boolean;
}
