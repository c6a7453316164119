/**
 * LeasedRuns on SQLite: the lease SQL that digest runs (sqlite-digests.ts) and alert checks
 * (sqlite-alerts.ts) share. Every transition is one conditional UPDATE, so it wins or changes
 * nothing, and two instances on one database file can never both hold a run.
 */
import type Database from 'better-sqlite3';
import type { ExistingRunClaim, Lease, LeasedRun, LeasedRunState, LeasedRuns } from './runs.js';

/** The tables holding leased runs (a fixed list: the name is interpolated into the SQL). */
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

/** Errors are stored for operators; a huge one is cut. */
const ERROR_MAX = 1000;

type LeaseParams = { id: number; owner: string; now: number; expires: number };

const leaseParams = (id: number, lease: Lease): LeaseParams => ({
  id,
  owner: lease.owner,
  now: lease.now.getTime(),
  expires: lease.now.getTime() + lease.ms,
});

/**
 * `orphanError` is what an operator reads on a run whose post was interrupted (it names what was
 * being posted).
 */
export function createSqliteLeasedRuns(
  db: Database.Database,
  table: LeasedRunTable,
  orphanError: string,
): LeasedRuns {
  // Takeover of a crashed run: its lease has expired.
  const takeOver = db.prepare<LeaseParams>(
    `UPDATE ${table} SET lease_owner = @owner, lease_expires_at = @expires, attempts = attempts + 1,
       updated_at = @now
     WHERE id = @id AND state = 'running' AND lease_expires_at <= @now`,
  );
  const takeRetry = db.prepare<LeaseParams>(
    `UPDATE ${table} SET state = 'running', lease_owner = @owner, lease_expires_at = @expires,
       attempts = attempts + 1, next_attempt_at = NULL, updated_at = @now
     WHERE id = @id AND state = 'failed' AND next_attempt_at IS NOT NULL AND next_attempt_at <= @now`,
  );
  const orphan = db.prepare<{ id: number; now: number; error: string }>(
    `UPDATE ${table} SET state = 'unknown', lease_owner = NULL, lease_expires_at = NULL, updated_at = @now,
       last_error = @error
     WHERE id = @id AND state = 'posting' AND lease_expires_at <= @now`,
  );
  const renew = db.prepare<LeaseParams>(
    `UPDATE ${table} SET lease_expires_at = @expires, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state IN ('running', 'posting')`,
  );
  const holdRunning = db.prepare<LeaseParams>(
    `UPDATE ${table} SET lease_expires_at = @expires, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state = 'running'`,
  );
  const release = db.prepare<{ id: number; owner: string; now: number }>(
    `UPDATE ${table} SET lease_expires_at = @now, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state = 'running'`,
  );
  const addCharge = db.prepare<[number, number, number]>(
    `UPDATE ${table} SET charged_points = charged_points + ?, calls = calls + ? WHERE id = ?`,
  );
  const toPosting = db.prepare<LeaseParams>(
    `UPDATE ${table} SET state = 'posting', lease_expires_at = @expires, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state = 'running'`,
  );
  const toPosted = db.prepare<{ id: number; owner: string; ts: string | null; now: number }>(
    `UPDATE ${table} SET state = 'posted', message_ts = @ts, lease_owner = NULL, lease_expires_at = NULL,
       next_attempt_at = NULL, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state = 'posting'`,
  );
  const toFailed = db.prepare<{ id: number; owner: string; error: string; next: number | null; now: number }>(
    `UPDATE ${table} SET state = 'failed', last_error = @error, next_attempt_at = @next,
       lease_owner = NULL, lease_expires_at = NULL, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state IN ('running', 'posting')`,
  );
  const toAwaiting = db.prepare<{ id: number; owner: string; estimate: number; now: number }>(
    `UPDATE ${table} SET state = 'awaiting_approval', estimate_points = @estimate,
       lease_owner = NULL, lease_expires_at = NULL, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state = 'running'`,
  );
  const approve = db.prepare<LeaseParams>(
    `UPDATE ${table} SET state = 'running', lease_owner = @owner, lease_expires_at = @expires,
       attempts = attempts + 1, updated_at = @now
     WHERE id = @id AND state = 'awaiting_approval'`,
  );

  return {
    claimExisting: (id, lease): ExistingRunClaim => {
      const params = leaseParams(id, lease);
      if (takeOver.run(params).changes === 1) return 'takeover';
      if (takeRetry.run(params).changes === 1) return 'retry';
      if (orphan.run({ id, now: params.now, error: orphanError }).changes === 1) return 'orphaned';
      return null;
    },
    renew: (id, lease) => renew.run(leaseParams(id, lease)).changes === 1,
    holdRunning: (id, lease) => holdRunning.run(leaseParams(id, lease)).changes === 1,
    release: (id, owner, now) => release.run({ id, owner, now: now.getTime() }).changes === 1,
    addCharge: (id, points, calls) => {
      addCharge.run(points, calls, id);
    },
    markPosting: (id, lease) => toPosting.run(leaseParams(id, lease)).changes === 1,
    markPosted: (id, owner, ts, now) => toPosted.run({ id, owner, ts, now: now.getTime() }).changes === 1,
    markFailed: (id, owner, failure) =>
      toFailed.run({
        id,
        owner,
        error: failure.error.slice(0, ERROR_MAX),
        next: failure.nextAttemptAt?.getTime() ?? null,
        now: failure.now.getTime(),
      }).changes === 1,
    awaitApproval: (id, owner, estimate, now) =>
      toAwaiting.run({ id, owner, estimate, now: now.getTime() }).changes === 1,
    claimApproved: (id, lease) => approve.run(leaseParams(id, lease)).changes === 1,
  };
}
