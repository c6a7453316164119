/**
 * Digest subscriptions and their run records (store.ts DigestStore describes the states). Every
 * state change is one conditional UPDATE (it wins or changes nothing) or one transaction under
 * the 'digests' lock, so two processes on one database can never both hold a run.
 */
import type { Selectable } from 'kysely';
import type { DigestRunsTable, DigestSubscriptionsTable, Executor, StoreContext } from './schema.js';
import { takeLock } from './schema.js';
import { writeAudit } from './settings.js';
import type {
  DigestRun,
  DigestRunKind,
  DigestStore,
  DigestSubscription,
  Lease,
  NewDigestRun,
  RunClaim,
} from './store.js';

type SubscriptionRow = Selectable<DigestSubscriptionsTable>;
type RunRow = Selectable<DigestRunsTable>;

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

function toSubscription(row: SubscriptionRow): DigestSubscription {
  return {
    id: row.id,
    ownerId: row.owner_id,
    shopLabel: row.shop_label,
    channelId: row.channel_id,
    localTime: row.local_time,
    timeZone: row.time_zone,
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
  };
}

function toRun(row: RunRow): DigestRun {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    kind: row.kind,
    localDate: row.local_date,
    windowStart: new Date(row.window_start),
    windowEnd: new Date(row.window_end),
    state: row.state,
    attempts: row.attempts,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: date(row.lease_expires_at),
    nextAttemptAt: date(row.next_attempt_at),
    lastError: row.last_error,
    noticeTs: row.notice_ts,
    messageTs: row.message_ts,
    summaryJson: row.summary_json,
    chargedPoints: row.charged_points,
    calls: row.calls,
    estimatePoints: row.estimate_points,
    requestedBy: row.requested_by,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Errors are stored for operators; a huge one is cut. */
const ERROR_MAX = 1000;

const changed = (result: { numUpdatedRows: bigint }) => result.numUpdatedRows === 1n;

export function createDigests({ db, nowMs }: StoreContext): DigestStore {
  const runRow = (ex: Executor, id: number) =>
    ex.selectFrom('digest_runs').selectAll().where('id', '=', id).executeTakeFirst();
  const runOf = async (ex: Executor, id: number): Promise<DigestRun | null> => {
    const row = await runRow(ex, id);
    return row ? toRun(row) : null;
  };
  const mustRun = async (ex: Executor, id: number): Promise<DigestRun> => {
    const run = await runOf(ex, id);
    if (!run) throw new Error(`digest run ${id} vanished`);
    return run;
  };
  const scheduledRow = (ex: Executor, subscriptionId: number, localDate: string) =>
    ex
      .selectFrom('digest_runs')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .where('local_date', '=', localDate)
      .where('kind', '=', 'scheduled')
      .executeTakeFirst();
  const newRun = async (ex: Executor, kind: DigestRunKind, input: NewDigestRun, lease: Lease) => {
    const now = lease.now.getTime();
    const row = await ex
      .insertInto('digest_runs')
      .values({
        subscription_id: input.subscriptionId,
        kind,
        local_date: input.localDate,
        window_start: input.windowStart.getTime(),
        window_end: input.windowEnd.getTime(),
        state: 'running',
        attempts: 1,
        lease_owner: lease.owner,
        lease_expires_at: now + lease.ms,
        next_attempt_at: null,
        last_error: null,
        notice_ts: null,
        message_ts: null,
        summary_json: null,
        estimate_points: null,
        requested_by: input.requestedBy,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRun(row);
  };
  const leaseOf = (lease: Lease) => ({ now: lease.now.getTime(), expires: lease.now.getTime() + lease.ms });

  return {
    add: (input) =>
      db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('digest_subscriptions')
          .values({
            owner_id: input.ownerId,
            shop_label: input.shopLabel,
            channel_id: input.channelId,
            local_time: input.localTime,
            time_zone: input.timeZone,
            created_by: input.createdBy,
            created_at: nowMs(),
            removed_at: null,
            removed_by: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await writeAudit(trx, nowMs, {
          actorId: input.createdBy,
          action: 'digest.add',
          detail: `#${row.id}: owner ${input.ownerId} → ${input.channelId} at ${input.localTime} ${input.timeZone}`,
        });
        return toSubscription(row);
      }),
    async get(id) {
      const row = await db
        .selectFrom('digest_subscriptions')
        .selectAll()
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
      return row ? toSubscription(row) : null;
    },
    async list() {
      const rows = await db
        .selectFrom('digest_subscriptions')
        .selectAll()
        .where('removed_at', 'is', null)
        .orderBy('id')
        .execute();
      return rows.map(toSubscription);
    },
    remove: (id, actorId) =>
      db.transaction().execute(async (trx) => {
        const removed = changed(
          await trx
            .updateTable('digest_subscriptions')
            .set({ removed_at: nowMs(), removed_by: actorId })
            .where('id', '=', id)
            .where('removed_at', 'is', null)
            .executeTakeFirst(),
        );
        if (removed) await writeAudit(trx, nowMs, { actorId, action: 'digest.remove', detail: `#${id}` });
        return removed;
      }),

    claimScheduled: (input, lease) =>
      db.transaction().execute(async (trx): Promise<RunClaim> => {
        await takeLock(trx, 'digests');
        const row = await scheduledRow(trx, input.subscriptionId, input.localDate);
        if (!row) return { claimed: true, run: await newRun(trx, 'scheduled', input, lease), how: 'new' };
        const { now, expires } = leaseOf(lease);
        // Takeover of a crashed run: its lease has expired.
        const takenOver = await trx
          .updateTable('digest_runs')
          .set((eb) => ({
            lease_owner: lease.owner,
            lease_expires_at: expires,
            attempts: eb('attempts', '+', 1),
            updated_at: now,
          }))
          .where('id', '=', row.id)
          .where('state', '=', 'running')
          .where('lease_expires_at', '<=', now)
          .executeTakeFirst();
        if (changed(takenOver)) return { claimed: true, run: await mustRun(trx, row.id), how: 'takeover' };
        const retried = await trx
          .updateTable('digest_runs')
          .set((eb) => ({
            state: 'running',
            lease_owner: lease.owner,
            lease_expires_at: expires,
            attempts: eb('attempts', '+', 1),
            next_attempt_at: null,
            updated_at: now,
          }))
          .where('id', '=', row.id)
          .where('state', '=', 'failed')
          .where('next_attempt_at', 'is not', null)
          .where('next_attempt_at', '<=', now)
          .executeTakeFirst();
        if (changed(retried)) return { claimed: true, run: await mustRun(trx, row.id), how: 'retry' };
        const orphaned = changed(
          await trx
            .updateTable('digest_runs')
            .set({
              state: 'unknown',
              lease_owner: null,
              lease_expires_at: null,
              updated_at: now,
              last_error: 'platdesk stopped while posting: the digest may or may not have been posted',
            })
            .where('id', '=', row.id)
            .where('state', '=', 'posting')
            .where('lease_expires_at', '<=', now)
            .executeTakeFirst(),
        );
        return { claimed: false, run: orphaned ? await mustRun(trx, row.id) : toRun(row), orphaned };
      }),
    createManual: (input, lease) => newRun(db, 'manual', input, lease),
    run: (id) => runOf(db, id),
    async scheduledRun(subscriptionId, localDate) {
      const row = await scheduledRow(db, subscriptionId, localDate);
      return row ? toRun(row) : null;
    },
    async lastRun(subscriptionId) {
      const row = await db
        .selectFrom('digest_runs')
        .selectAll()
        .where('subscription_id', '=', subscriptionId)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? toRun(row) : null;
    },
    async previousPosted(subscriptionId, beforeLocalDate) {
      const row = await db
        .selectFrom('digest_runs')
        .selectAll()
        .where('subscription_id', '=', subscriptionId)
        .where('kind', '=', 'scheduled')
        .where('state', '=', 'posted')
        .where('local_date', '<', beforeLocalDate)
        .orderBy('local_date', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? toRun(row) : null;
    },
    async renew(runId, lease) {
      const { now, expires } = leaseOf(lease);
      return changed(
        await db
          .updateTable('digest_runs')
          .set({ lease_expires_at: expires, updated_at: now })
          .where('id', '=', runId)
          .where('lease_owner', '=', lease.owner)
          .where('state', 'in', ['running', 'posting'])
          .executeTakeFirst(),
      );
    },
    async release(runId, owner, at) {
      const now = at.getTime();
      return changed(
        await db
          .updateTable('digest_runs')
          .set({ lease_expires_at: now, updated_at: now })
          .where('id', '=', runId)
          .where('lease_owner', '=', owner)
          .where('state', '=', 'running')
          .executeTakeFirst(),
      );
    },
    async addCharge(runId, points, calls) {
      await db
        .updateTable('digest_runs')
        .set((eb) => ({ charged_points: eb('charged_points', '+', points), calls: eb('calls', '+', calls) }))
        .where('id', '=', runId)
        .execute();
    },
    async markPosting(runId, lease, summaryJson) {
      const { now, expires } = leaseOf(lease);
      return changed(
        await db
          .updateTable('digest_runs')
          .set({ state: 'posting', summary_json: summaryJson, lease_expires_at: expires, updated_at: now })
          .where('id', '=', runId)
          .where('lease_owner', '=', lease.owner)
          .where('state', '=', 'running')
          .executeTakeFirst(),
      );
    },
    async markPosted(runId, owner, ts, at) {
      return changed(
        await db
          .updateTable('digest_runs')
          .set({
            state: 'posted',
            message_ts: ts,
            lease_owner: null,
            lease_expires_at: null,
            next_attempt_at: null,
            updated_at: at.getTime(),
          })
          .where('id', '=', runId)
          .where('lease_owner', '=', owner)
          .where('state', '=', 'posting')
          .executeTakeFirst(),
      );
    },
    async markFailed(runId, owner, failure) {
      return changed(
        await db
          .updateTable('digest_runs')
          .set({
            state: 'failed',
            last_error: failure.error.slice(0, ERROR_MAX),
            next_attempt_at: failure.nextAttemptAt?.getTime() ?? null,
            lease_owner: null,
            lease_expires_at: null,
            updated_at: failure.now.getTime(),
          })
          .where('id', '=', runId)
          .where('lease_owner', '=', owner)
          .where('state', 'in', ['running', 'posting'])
          .executeTakeFirst(),
      );
    },
    async awaitApproval(runId, owner, estimate, at) {
      return changed(
        await db
          .updateTable('digest_runs')
          .set({
            state: 'awaiting_approval',
            estimate_points: estimate,
            lease_owner: null,
            lease_expires_at: null,
            updated_at: at.getTime(),
          })
          .where('id', '=', runId)
          .where('lease_owner', '=', owner)
          .where('state', '=', 'running')
          .executeTakeFirst(),
      );
    },
    async claimApproved(runId, lease, approvedBy) {
      const { now, expires } = leaseOf(lease);
      // Single use: a second click finds the run no longer awaiting approval.
      const row = await db
        .updateTable('digest_runs')
        .set((eb) => ({
          state: 'running',
          lease_owner: lease.owner,
          lease_expires_at: expires,
          attempts: eb('attempts', '+', 1),
          requested_by: approvedBy,
          updated_at: now,
        }))
        .where('id', '=', runId)
        .where('state', '=', 'awaiting_approval')
        .returningAll()
        .executeTakeFirst();
      return row ? toRun(row) : null;
    },
    async setNoticeTs(runId, ts) {
      await db.updateTable('digest_runs').set({ notice_ts: ts }).where('id', '=', runId).execute();
    },
    async setMessageTs(runId, ts) {
      await db.updateTable('digest_runs').set({ message_ts: ts }).where('id', '=', runId).execute();
    },
  };
}
