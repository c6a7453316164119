/**
 * Leased runs: the lease SQL that digest runs (digests.ts) and ship-by alert checks (alerts.ts)
 * share (store.ts "leased runs" describes the states). Every transition is one conditional
 * UPDATE, so it wins or changes nothing, and two processes on one database can never both hold a
 * run. The table name is one of a fixed list, so the statements are plain SQL templates (the same
 * text on both engines) rather than a typed builder per table.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Executor, StoreContext } from './schema.js';
import {
  type ExistingRunClaim,
  type HeldLease,
  type Lease,
  type LeasedRun,
  type LeasedRunState,
  POST_SETTLE_MS,
  type RunFailure,
  type RunHolder,
  type UnknownPost,
} from './store.js';

/** The tables holding leased runs (a fixed list: the name is an identifier in the SQL). */
export type LeasedRunTable = 'digest_runs' | 'alert_checks';

/** The columns every leased-run table has. */
export interface LeasedRunRow {
  id: number;
  tenant_id: string;
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
  epoch: number;
  post_attempt_at: number | null;
  check_progress: string | null;
}

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

export const toLeasedRun = (r: LeasedRunRow): LeasedRun => ({
  id: r.id,
  tenantId: r.tenant_id,
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
  epoch: r.epoch,
  postAttemptAt: date(r.post_attempt_at),
  checkProgress: r.check_progress,
});

/**
 * The lease transitions of one run table, by run id. Each is one conditional UPDATE. Every claim
 * bumps the run's epoch (a fencing token: Kleppmann, "How to do distributed locking"); every
 * write of a holder names the owner AND the epoch it claimed, so a holder whose lease ran out and
 * was claimed again (even by the same process) changes nothing any more. Leases are stamped and
 * judged by the lease clock inside each statement (StoreContext.leaseNow: the database's), so
 * the holder's clock and the claimer's never meet; a lease that ran out is not extended (a holder
 * paused past it finds it lost, whether or not another claim came first).
 */
export interface LeasedRuns {
  /** Call inside the caller's locked transaction (`db`), after finding the run row. */
  claimExisting(db: Executor, id: number, lease: Lease): Promise<ExistingRunClaim>;
  /**
   * Extends the caller's lease (running or posting); false when the caller no longer holds it:
   * claimed again, or its lease ran out.
   */
  renew(id: number, lease: HeldLease): Promise<boolean>;
  /** Extends the caller's live lease only while still running (before anything is posted). */
  holdRunning(db: Executor, id: number, lease: HeldLease): Promise<boolean>;
  /** Gives the lease up at once (shutdown), so another instance may take the run over now. */
  release(id: number, holder: RunHolder, now: Date): Promise<boolean>;
  /** Adds calls and their charges; unconditional, since they happened whoever holds the run. */
  addCharge(id: number, points: number, calls: number): Promise<void>;
  /**
   * Adds a charge while the caller still holds the run (running, its epoch): inside the caller's
   * transaction, so what the charge bought is recorded with it or not at all.
   */
  addHeldCharge(db: Executor, id: number, holder: RunHolder, points: number, calls: number): Promise<boolean>;
  /** running → posting under the caller's live lease (from here a crash leaves the post unknown). */
  markPosting(db: Executor, id: number, lease: HeldLease): Promise<boolean>;
  /** posting → posted, releasing the lease. */
  markPosted(
    db: Executor,
    id: number,
    holder: RunHolder,
    messageTs: string | null,
    now: Date,
  ): Promise<boolean>;
  /**
   * running → failed, releasing the lease. Never from posting (issue 33 finding 4): a retry of a
   * failed run posts without reading the history, so only a run that surely posted nothing may
   * fail; a posting run goes to markUnknown (its history check), or to markRefused.
   */
  markFailed(id: number, holder: RunHolder, failure: RunFailure): Promise<boolean>;
  /** posting → failed: Slack surely refused the holder's post (store.ts DigestStore.markRefused). */
  markRefused(id: number, holder: RunHolder, failure: RunFailure): Promise<boolean>;
  /** posting → unknown (Slack's answer was unclear), releasing the lease; see UnknownPost. */
  markUnknown(db: Executor, id: number, holder: RunHolder, unknown: UnknownPost): Promise<boolean>;
  /** Stamps the holder's post attempt while it still holds the run in posting (the store's fence of a post). */
  markPostAttempt(id: number, holder: RunHolder, at: Date): Promise<boolean>;
  /** running → awaiting_approval, releasing the lease. */
  awaitApproval(id: number, holder: RunHolder, estimatePoints: number, now: Date): Promise<boolean>;
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
export function createLeasedRuns(
  /** Every statement names the run's tenant too: a run id of another tenant changes nothing. */
  { db, nowMs, leaseNow, tenant }: Pick<StoreContext, 'db' | 'nowMs' | 'leaseNow' | 'tenant'>,
  name: LeasedRunTable,
  orphanError: string,
): LeasedRuns {
  const table = sql.table(name);
  /** The lease clock now (L), and a lease of `ms` from it; `now` is updated_at (the process's). */
  const span = (lease: Lease) => {
    const at = leaseNow();
    return { at, expires: sql<number>`${at} + ${lease.ms}`, now: nowMs() };
  };
  /** → failed, releasing the lease, from the one state given (running: markFailed; posting: markRefused). */
  const fail = (id: number, holder: RunHolder, failure: RunFailure, from: 'running' | 'posting') => {
    const at = failure.now.getTime();
    return changedOne(
      db,
      sql`UPDATE ${table} SET state = 'failed', last_error = ${failure.error.slice(0, ERROR_MAX)},
        next_attempt_at = ${failure.nextAttemptAt?.getTime() ?? null}, lease_owner = NULL,
        lease_expires_at = NULL, updated_at = ${at}
      WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${holder.owner} AND epoch = ${holder.epoch} AND state = ${from}`,
    );
  };
  return {
    async claimExisting(trx, id, lease) {
      const { at, expires, now } = span(lease);
      // Takeover of a crashed run: its lease has expired.
      if (
        await changedOne(
          trx,
          sql`UPDATE ${table} SET lease_owner = ${lease.owner}, lease_expires_at = ${expires},
            attempts = attempts + 1, epoch = epoch + 1, updated_at = ${now}
          WHERE tenant_id = ${tenant} AND id = ${id} AND state = 'running' AND lease_expires_at <= ${at}`,
        )
      )
        return 'takeover';
      if (
        await changedOne(
          trx,
          sql`UPDATE ${table} SET state = 'running', lease_owner = ${lease.owner},
            lease_expires_at = ${expires}, attempts = attempts + 1, epoch = epoch + 1,
            next_attempt_at = NULL, updated_at = ${now}
          WHERE tenant_id = ${tenant} AND id = ${id} AND state = 'failed' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ${at}`,
        )
      )
        return 'retry';
      // Posted once (digest/posted-once.ts): a holder that stopped while posting leaves the post
      // unknown; its history check is due once a request it may still have had in flight has landed.
      await sql`UPDATE ${table} SET state = 'unknown', lease_owner = NULL, lease_expires_at = NULL,
          next_attempt_at = lease_expires_at + ${POST_SETTLE_MS}, updated_at = ${now},
          last_error = ${orphanError}
        WHERE tenant_id = ${tenant} AND id = ${id} AND state = 'posting' AND lease_expires_at <= ${at}`.execute(
        trx,
      );
      if (
        await changedOne(
          trx,
          sql`UPDATE ${table} SET state = 'posting', lease_owner = ${lease.owner},
            lease_expires_at = ${expires}, attempts = attempts + 1, epoch = epoch + 1,
            next_attempt_at = NULL, updated_at = ${now}
          WHERE tenant_id = ${tenant} AND id = ${id} AND state = 'unknown' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ${at}`,
        )
      )
        return 'verify';
      return null;
    },
    renew(id, lease) {
      const { at, expires, now } = span(lease);
      return changedOne(
        db,
        sql`UPDATE ${table} SET lease_expires_at = ${expires}, updated_at = ${now}
        WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${lease.owner} AND epoch = ${lease.epoch} AND state IN ('running', 'posting')
          AND lease_expires_at > ${at}`,
      );
    },
    holdRunning(trx, id, lease) {
      const { at, expires, now } = span(lease);
      return changedOne(
        trx,
        sql`UPDATE ${table} SET lease_expires_at = ${expires}, updated_at = ${now}
        WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${lease.owner} AND epoch = ${lease.epoch} AND state = 'running'
          AND lease_expires_at > ${at}`,
      );
    },
    release(id, holder, now) {
      return changedOne(
        db,
        sql`UPDATE ${table} SET lease_expires_at = ${leaseNow()}, updated_at = ${now.getTime()}
        WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${holder.owner} AND epoch = ${holder.epoch} AND state = 'running'`,
      );
    },
    async addCharge(id, points, calls) {
      await sql`UPDATE ${table} SET charged_points = charged_points + ${points}, calls = calls + ${calls}
        WHERE tenant_id = ${tenant} AND id = ${id}`.execute(db);
    },
    addHeldCharge(trx, id, holder, points, calls) {
      return changedOne(
        trx,
        sql`UPDATE ${table} SET charged_points = charged_points + ${points}, calls = calls + ${calls}
        WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${holder.owner} AND epoch = ${holder.epoch} AND state = 'running'`,
      );
    },
    markPosting(trx, id, lease) {
      const { at, expires, now } = span(lease);
      return changedOne(
        trx,
        sql`UPDATE ${table} SET state = 'posting', lease_expires_at = ${expires}, updated_at = ${now}
        WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${lease.owner} AND epoch = ${lease.epoch} AND state = 'running'
          AND lease_expires_at > ${at}`,
      );
    },
    markPosted(trx, id, holder, messageTs, now) {
      const at = now.getTime();
      return changedOne(
        trx,
        sql`UPDATE ${table} SET state = 'posted', message_ts = ${messageTs}, lease_owner = NULL,
          lease_expires_at = NULL, next_attempt_at = NULL, check_progress = NULL, updated_at = ${at}
        WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${holder.owner} AND epoch = ${holder.epoch} AND state = 'posting'`,
      );
    },
    markFailed: (id, holder, failure) => fail(id, holder, failure, 'running'),
    markRefused: (id, holder, failure) => fail(id, holder, failure, 'posting'),
    markUnknown(trx, id, holder, unknown) {
      const at = unknown.now.getTime();
      return changedOne(
        trx,
        sql`UPDATE ${table} SET state = 'unknown', last_error = ${unknown.error.slice(0, ERROR_MAX)},
          next_attempt_at = ${unknown.checkAt?.getTime() ?? null}, lease_owner = NULL,
          lease_expires_at = NULL, check_progress = ${unknown.checkProgress ?? null}, updated_at = ${at}
        WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${holder.owner} AND epoch = ${holder.epoch} AND state = 'posting'`,
      );
    },
    markPostAttempt(id, holder, at) {
      const ms = at.getTime();
      return changedOne(
        db,
        sql`UPDATE ${table} SET post_attempt_at = ${ms}, check_progress = NULL, updated_at = ${ms}
        WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${holder.owner} AND epoch = ${holder.epoch} AND state = 'posting'`,
      );
    },
    awaitApproval(id, holder, estimatePoints, now) {
      const at = now.getTime();
      return changedOne(
        db,
        sql`UPDATE ${table} SET state = 'awaiting_approval', estimate_points = ${estimatePoints},
          lease_owner = NULL, lease_expires_at = NULL, updated_at = ${at}
        WHERE tenant_id = ${tenant} AND id = ${id} AND lease_owner = ${holder.owner} AND epoch = ${holder.epoch} AND state = 'running'`,
      );
    },
    claimApproved(trx, id, lease) {
      const { expires, now } = span(lease);
      return changedOne(
        trx,
        sql`UPDATE ${table} SET state = 'running', lease_owner = ${lease.owner}, lease_expires_at = ${expires},
          attempts = attempts + 1, epoch = epoch + 1, updated_at = ${now}
        WHERE tenant_id = ${tenant} AND id = ${id} AND state = 'awaiting_approval'`,
      );
    },
  };
}
