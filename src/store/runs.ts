/**
 * Leased runs: the lease SQL that digest runs (digests.ts) and ship-by alert checks (alerts.ts)
 * share (store.ts "leased runs" describes the states). Every transition is one conditional
 * UPDATE, so it wins or changes nothing, and two processes on one database can never both hold a
 * run. The table name is one of a fixed list, so the statements are plain SQL templates (the same
 * text on both engines) rather than a typed builder per table.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Executor } from './schema.js';
import {
  type ExistingRunClaim,
  type Lease,
  type LeasedRun,
  type LeasedRunState,
  POST_SETTLE_MS,
  type RunFailure,
  type UnknownPost,
} from './store.js';

/** The tables holding leased runs (a fixed list: the name is an identifier in the SQL). */
export type LeasedRunTable = 'digest_runs' | 'alert_checks';

/** The columns every leased-run table has. */
export interface LeasedRunRow {
  id: number;
  subscription_id: number;
  state: LeasedRunState;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  next_attempt_at: number | null;
  last_error: string | null;
  message_ts: string | null;
  charged_points: number;
  calls: number;
  estimate_points: number | null;
  created_at: number;
}

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

export const toLeasedRun = (r: LeasedRunRow): LeasedRun => ({
  id: r.id,
  subscriptionId: r.subscription_id,
  state: r.state,
  attempts: r.attempts,
  leaseOwner: r.lease_owner,
  leaseExpiresAt: date(r.lease_expires_at),
  nextAttemptAt: date(r.next_attempt_at),
  lastError: r.last_error,
  messageTs: r.message_ts,
  chargedPoints: r.charged_points,
  calls: r.calls,
  estimatePoints: r.estimate_points,
  createdAt: new Date(r.created_at),
});

/** The lease transitions of one run table, by run id. Each is one conditional UPDATE. */
export interface LeasedRuns {
  /** Call inside the caller's locked transaction (`db`), after finding the run row. */
  claimExisting(db: Executor, id: number, lease: Lease): Promise<ExistingRunClaim>;
  /** Extends the caller's lease (running or posting); false when the caller no longer holds it. */
  renew(id: number, lease: Lease): Promise<boolean>;
  /** Extends the caller's lease only while still running (before anything is posted). */
  holdRunning(db: Executor, id: number, lease: Lease): Promise<boolean>;
  /** Gives the lease up at once (shutdown), so another instance may take the run over now. */
  release(id: number, owner: string, now: Date): Promise<boolean>;
  /** Adds calls and their charges; unconditional, since they happened whoever holds the run. */
  addCharge(id: number, points: number, calls: number): Promise<void>;
  /** running → posting under the caller's lease (from here a crash leaves the post unknown). */
  markPosting(db: Executor, id: number, lease: Lease): Promise<boolean>;
  /** posting → posted, releasing the lease. */
  markPosted(db: Executor, id: number, owner: string, messageTs: string | null, now: Date): Promise<boolean>;
  /** running | posting → failed, releasing the lease. */
  markFailed(id: number, owner: string, failure: RunFailure): Promise<boolean>;
  /** posting → unknown (Slack's answer was unclear), releasing the lease; see UnknownPost. */
  markUnknown(db: Executor, id: number, owner: string, unknown: UnknownPost): Promise<boolean>;
  /** running → awaiting_approval, releasing the lease. */
  awaitApproval(id: number, owner: string, estimatePoints: number, now: Date): Promise<boolean>;
  /** awaiting_approval → running under the caller's lease (single-use: a second caller gets false). */
  claimApproved(db: Executor, id: number, lease: Lease): Promise<boolean>;
}

/** Errors are stored for operators; a huge one is cut. */
const ERROR_MAX = 1000;

async function changedOne(db: Executor, query: RawBuilder<unknown>): Promise<boolean> {
  const result = await query.execute(db);
  return result.numAffectedRows === 1n;
}

/**
 * `orphanError` is what an operator reads on a run whose post was interrupted (it names what was
 * being posted) until its history check runs.
 */
export function createLeasedRuns(db: Executor, name: LeasedRunTable, orphanError: string): LeasedRuns {
  const table = sql.table(name);
  const span = (lease: Lease) => ({ now: lease.now.getTime(), expires: lease.now.getTime() + lease.ms });
  return {
    async claimExisting(trx, id, lease) {
      const { now, expires } = span(lease);
      // Takeover of a crashed run: its lease has expired.
      if (
        await changedOne(
          trx,
          sql`UPDATE ${table} SET lease_owner = ${lease.owner}, lease_expires_at = ${expires},
            attempts = attempts + 1, updated_at = ${now}
          WHERE id = ${id} AND state = 'running' AND lease_expires_at <= ${now}`,
        )
      )
        return 'takeover';
      if (
        await changedOne(
          trx,
          sql`UPDATE ${table} SET state = 'running', lease_owner = ${lease.owner},
            lease_expires_at = ${expires}, attempts = attempts + 1, next_attempt_at = NULL, updated_at = ${now}
          WHERE id = ${id} AND state = 'failed' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ${now}`,
        )
      )
        return 'retry';
      // Posted once (digest/posted-once.ts): a holder that stopped while posting leaves the post
      // unknown; its history check is due once a request it may still have had in flight has landed.
      await sql`UPDATE ${table} SET state = 'unknown', lease_owner = NULL, lease_expires_at = NULL,
          next_attempt_at = lease_expires_at + ${POST_SETTLE_MS}, updated_at = ${now},
          last_error = ${orphanError}
        WHERE id = ${id} AND state = 'posting' AND lease_expires_at <= ${now}`.execute(trx);
      if (
        await changedOne(
          trx,
          sql`UPDATE ${table} SET state = 'posting', lease_owner = ${lease.owner},
            lease_expires_at = ${expires}, attempts = attempts + 1, next_attempt_at = NULL, updated_at = ${now}
          WHERE id = ${id} AND state = 'unknown' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ${now}`,
        )
      )
        return 'verify';
      return null;
    },
    renew(id, lease) {
      const { now, expires } = span(lease);
      return changedOne(
        db,
        sql`UPDATE ${table} SET lease_expires_at = ${expires}, updated_at = ${now}
        WHERE id = ${id} AND lease_owner = ${lease.owner} AND state IN ('running', 'posting')`,
      );
    },
    holdRunning(trx, id, lease) {
      const { now, expires } = span(lease);
      return changedOne(
        trx,
        sql`UPDATE ${table} SET lease_expires_at = ${expires}, updated_at = ${now}
        WHERE id = ${id} AND lease_owner = ${lease.owner} AND state = 'running'`,
      );
    },
    release(id, owner, now) {
      const at = now.getTime();
      return changedOne(
        db,
        sql`UPDATE ${table} SET lease_expires_at = ${at}, updated_at = ${at}
        WHERE id = ${id} AND lease_owner = ${owner} AND state = 'running'`,
      );
    },
    async addCharge(id, points, calls) {
      await sql`UPDATE ${table} SET charged_points = charged_points + ${points}, calls = calls + ${calls}
        WHERE id = ${id}`.execute(db);
    },
    markPosting(trx, id, lease) {
      const { now, expires } = span(lease);
      return changedOne(
        trx,
        sql`UPDATE ${table} SET state = 'posting', lease_expires_at = ${expires}, updated_at = ${now}
        WHERE id = ${id} AND lease_owner = ${lease.owner} AND state = 'running'`,
      );
    },
    markPosted(trx, id, owner, messageTs, now) {
      const at = now.getTime();
      return changedOne(
        trx,
        sql`UPDATE ${table} SET state = 'posted', message_ts = ${messageTs}, lease_owner = NULL,
          lease_expires_at = NULL, next_attempt_at = NULL, updated_at = ${at}
        WHERE id = ${id} AND lease_owner = ${owner} AND state = 'posting'`,
      );
    },
    markFailed(id, owner, failure) {
      const at = failure.now.getTime();
      return changedOne(
        db,
        sql`UPDATE ${table} SET state = 'failed', last_error = ${failure.error.slice(0, ERROR_MAX)},
          next_attempt_at = ${failure.nextAttemptAt?.getTime() ?? null}, lease_owner = NULL,
          lease_expires_at = NULL, updated_at = ${at}
        WHERE id = ${id} AND lease_owner = ${owner} AND state IN ('running', 'posting')`,
      );
    },
    markUnknown(trx, id, owner, unknown) {
      const at = unknown.now.getTime();
      return changedOne(
        trx,
        sql`UPDATE ${table} SET state = 'unknown', last_error = ${unknown.error.slice(0, ERROR_MAX)},
          next_attempt_at = ${unknown.checkAt?.getTime() ?? null}, lease_owner = NULL,
          lease_expires_at = NULL, updated_at = ${at}
        WHERE id = ${id} AND lease_owner = ${owner} AND state = 'posting'`,
      );
    },
    awaitApproval(id, owner, estimatePoints, now) {
      const at = now.getTime();
      return changedOne(
        db,
        sql`UPDATE ${table} SET state = 'awaiting_approval', estimate_points = ${estimatePoints},
          lease_owner = NULL, lease_expires_at = NULL, updated_at = ${at}
        WHERE id = ${id} AND lease_owner = ${owner} AND state = 'running'`,
      );
    },
    claimApproved(trx, id, lease) {
      const { now, expires } = span(lease);
      return changedOne(
        trx,
        sql`UPDATE ${table} SET state = 'running', lease_owner = ${lease.owner}, lease_expires_at = ${expires},
          attempts = attempts + 1, updated_at = ${now}
        WHERE id = ${id} AND state = 'awaiting_approval'`,
      );
    },
  };
}
