/**
 * DigestStore on SQLite (migration 2). Every state change is one conditional UPDATE (it wins or
 * changes nothing) or runs in the caller-supplied IMMEDIATE transaction, so two instances on one
 * database file can never both hold a run.
 */
import type Database from 'better-sqlite3';
import type {
  DigestLayout,
  DigestRun,
  DigestRunKind,
  DigestRunState,
  DigestStore,
  DigestSubscription,
  Lease,
  NewDigestRun,
  NewDigestSubscription,
  RunClaim,
} from './digests.js';
import type { AuditLog } from './store.js';

interface SubscriptionRow {
  id: number;
  owner_id: string;
  shop_label: string;
  channel_id: string;
  local_time: string;
  time_zone: string;
  created_by: string;
  created_at: number;
  times: string | null;
  days: string | null;
  layout: DigestLayout;
  flags: string | null;
  statuses: string | null;
}

const csv = (list: readonly (string | number)[] | null | undefined): string | null =>
  list && list.length > 0 ? list.join(',') : null;
const numbers = (text: string | null): number[] | null => (text ? text.split(',').map(Number) : null);

interface RunRow {
  id: number;
  subscription_id: number;
  kind: DigestRunKind;
  local_date: string;
  window_start: number;
  window_end: number;
  state: DigestRunState;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  next_attempt_at: number | null;
  last_error: string | null;
  notice_ts: string | null;
  message_ts: string | null;
  summary_json: string | null;
  charged_points: number;
  calls: number;
  estimate_points: number | null;
  requested_by: string | null;
  created_at: number;
  updated_at: number;
}

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
    times: row.times ? row.times.split(',') : [row.local_time],
    days: numbers(row.days),
    layout: row.layout,
    flags: numbers(row.flags),
    statuses: numbers(row.statuses),
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

export function createSqliteDigests(
  db: Database.Database,
  nowMs: () => number,
  audit: AuditLog,
  transaction: <T>(fn: () => T) => T,
): DigestStore {
  const insertSub = db.prepare<[Omit<SubscriptionRow, 'id'>]>(
    `INSERT INTO digest_subscriptions (owner_id, shop_label, channel_id, local_time, time_zone, created_by, created_at,
       times, days, layout, flags, statuses)
     VALUES (@owner_id, @shop_label, @channel_id, @local_time, @time_zone, @created_by, @created_at,
       @times, @days, @layout, @flags, @statuses)`,
  );
  const selectSub = db.prepare<[number], SubscriptionRow>(
    'SELECT * FROM digest_subscriptions WHERE id = ? AND removed_at IS NULL',
  );
  const selectSubs = db.prepare<[], SubscriptionRow>(
    'SELECT * FROM digest_subscriptions WHERE removed_at IS NULL ORDER BY id',
  );
  const removeSub = db.prepare<[number, string, number]>(
    'UPDATE digest_subscriptions SET removed_at = ?, removed_by = ? WHERE id = ? AND removed_at IS NULL',
  );

  const selectRun = db.prepare<[number], RunRow>('SELECT * FROM digest_runs WHERE id = ?');
  const selectScheduled = db.prepare<[number, string], RunRow>(
    `SELECT * FROM digest_runs WHERE subscription_id = ? AND local_date = ? AND kind = 'scheduled'`,
  );
  const selectLast = db.prepare<[number], RunRow>(
    'SELECT * FROM digest_runs WHERE subscription_id = ? ORDER BY id DESC LIMIT 1',
  );
  const selectPrevious = db.prepare<[number, string], RunRow>(
    `SELECT * FROM digest_runs WHERE subscription_id = ? AND kind = 'scheduled' AND state = 'posted'
       AND local_date < ? ORDER BY local_date DESC LIMIT 1`,
  );
  const insertRun = db.prepare<{
    subscription_id: number;
    kind: DigestRunKind;
    local_date: string;
    window_start: number;
    window_end: number;
    owner: string;
    expires: number;
    requested_by: string | null;
    now: number;
  }>(
    `INSERT INTO digest_runs (subscription_id, kind, local_date, window_start, window_end, state, attempts,
       lease_owner, lease_expires_at, requested_by, created_at, updated_at)
     VALUES (@subscription_id, @kind, @local_date, @window_start, @window_end, 'running', 1,
       @owner, @expires, @requested_by, @now, @now)`,
  );
  type LeaseParams = { id: number; owner: string; now: number; expires: number };
  // Takeover of a crashed run: its lease has expired.
  const takeOver = db.prepare<LeaseParams>(
    `UPDATE digest_runs SET lease_owner = @owner, lease_expires_at = @expires, attempts = attempts + 1,
       updated_at = @now
     WHERE id = @id AND state = 'running' AND lease_expires_at <= @now`,
  );
  const takeRetry = db.prepare<LeaseParams>(
    `UPDATE digest_runs SET state = 'running', lease_owner = @owner, lease_expires_at = @expires,
       attempts = attempts + 1, next_attempt_at = NULL, updated_at = @now
     WHERE id = @id AND state = 'failed' AND next_attempt_at IS NOT NULL AND next_attempt_at <= @now`,
  );
  const orphan = db.prepare<{ id: number; now: number }>(
    `UPDATE digest_runs SET state = 'unknown', lease_owner = NULL, lease_expires_at = NULL, updated_at = @now,
       last_error = 'platdesk stopped while posting: the digest may or may not have been posted'
     WHERE id = @id AND state = 'posting' AND lease_expires_at <= @now`,
  );
  const renew = db.prepare<LeaseParams>(
    `UPDATE digest_runs SET lease_expires_at = @expires, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state IN ('running', 'posting')`,
  );
  const release = db.prepare<{ id: number; owner: string; now: number }>(
    `UPDATE digest_runs SET lease_expires_at = @now, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state = 'running'`,
  );
  const addCharge = db.prepare<[number, number, number]>(
    'UPDATE digest_runs SET charged_points = charged_points + ?, calls = calls + ? WHERE id = ?',
  );
  const toPosting = db.prepare<LeaseParams & { summary: string }>(
    `UPDATE digest_runs SET state = 'posting', summary_json = @summary, lease_expires_at = @expires,
       updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state = 'running'`,
  );
  const toPosted = db.prepare<{ id: number; owner: string; ts: string; now: number }>(
    `UPDATE digest_runs SET state = 'posted', message_ts = @ts, lease_owner = NULL, lease_expires_at = NULL,
       next_attempt_at = NULL, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state = 'posting'`,
  );
  const toFailed = db.prepare<{ id: number; owner: string; error: string; next: number | null; now: number }>(
    `UPDATE digest_runs SET state = 'failed', last_error = @error, next_attempt_at = @next,
       lease_owner = NULL, lease_expires_at = NULL, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state IN ('running', 'posting')`,
  );
  const toAwaiting = db.prepare<{ id: number; owner: string; estimate: number; now: number }>(
    `UPDATE digest_runs SET state = 'awaiting_approval', estimate_points = @estimate,
       lease_owner = NULL, lease_expires_at = NULL, updated_at = @now
     WHERE id = @id AND lease_owner = @owner AND state = 'running'`,
  );
  const approve = db.prepare<LeaseParams & { by: string }>(
    `UPDATE digest_runs SET state = 'running', lease_owner = @owner, lease_expires_at = @expires,
       attempts = attempts + 1, requested_by = @by, updated_at = @now
     WHERE id = @id AND state = 'awaiting_approval'`,
  );
  const setNotice = db.prepare<[string, number]>('UPDATE digest_runs SET notice_ts = ? WHERE id = ?');
  const setMessage = db.prepare<[string, number]>('UPDATE digest_runs SET message_ts = ? WHERE id = ?');

  const leaseParams = (id: number, lease: Lease): LeaseParams => ({
    id,
    owner: lease.owner,
    now: lease.now.getTime(),
    expires: lease.now.getTime() + lease.ms,
  });
  const runOf = (id: number): DigestRun | null => {
    const row = selectRun.get(id);
    return row ? toRun(row) : null;
  };
  const mustRun = (id: number): DigestRun => {
    const run = runOf(id);
    if (!run) throw new Error(`digest run ${id} vanished`);
    return run;
  };
  const newRun = (kind: DigestRunKind, input: NewDigestRun, lease: Lease): number =>
    Number(
      insertRun.run({
        subscription_id: input.subscriptionId,
        kind,
        local_date: input.localDate,
        window_start: input.windowStart.getTime(),
        window_end: input.windowEnd.getTime(),
        owner: lease.owner,
        expires: lease.now.getTime() + lease.ms,
        requested_by: input.requestedBy,
        now: lease.now.getTime(),
      }).lastInsertRowid,
    );

  return {
    add(input: NewDigestSubscription) {
      const row: Omit<SubscriptionRow, 'id'> = {
        owner_id: input.ownerId,
        shop_label: input.shopLabel,
        channel_id: input.channelId,
        local_time: input.localTime,
        time_zone: input.timeZone,
        created_by: input.createdBy,
        created_at: nowMs(),
        times: csv(input.times),
        days: csv(input.days),
        layout: input.layout ?? 'single',
        flags: csv(input.flags),
        statuses: csv(input.statuses),
      };
      return transaction(() => {
        const id = Number(insertSub.run(row).lastInsertRowid);
        audit.record({
          actorId: input.createdBy,
          action: 'digest.add',
          detail:
            `#${id}: owner ${input.ownerId} → ${input.channelId} at ${row.times ?? input.localTime} ` +
            `${input.timeZone}${row.days ? ` days ${row.days}` : ''} ${row.layout}` +
            `${row.flags ? ` flags ${row.flags}` : ''}${row.statuses ? ` statuses ${row.statuses}` : ''}`,
        });
        return toSubscription({ id, ...row });
      });
    },
    get: (id) => {
      const row = selectSub.get(id);
      return row ? toSubscription(row) : null;
    },
    list: () => selectSubs.all().map(toSubscription),
    remove: (id, actorId) =>
      transaction(() => {
        const removed = removeSub.run(nowMs(), actorId, id).changes === 1;
        if (removed) audit.record({ actorId, action: 'digest.remove', detail: `#${id}` });
        return removed;
      }),

    claimScheduled: (input, lease) =>
      transaction((): RunClaim => {
        const row = selectScheduled.get(input.subscriptionId, input.localDate);
        if (!row) return { claimed: true, run: mustRun(newRun('scheduled', input, lease)), how: 'new' };
        const params = leaseParams(row.id, lease);
        if (takeOver.run(params).changes === 1)
          return { claimed: true, run: mustRun(row.id), how: 'takeover' };
        if (takeRetry.run(params).changes === 1) return { claimed: true, run: mustRun(row.id), how: 'retry' };
        const orphaned = orphan.run({ id: row.id, now: params.now }).changes === 1;
        return { claimed: false, run: orphaned ? mustRun(row.id) : toRun(row), orphaned };
      }),
    createManual: (input, lease) => mustRun(newRun('manual', input, lease)),
    run: runOf,
    scheduledRun: (subscriptionId, localDate) => {
      const row = selectScheduled.get(subscriptionId, localDate);
      return row ? toRun(row) : null;
    },
    lastRun: (subscriptionId) => {
      const row = selectLast.get(subscriptionId);
      return row ? toRun(row) : null;
    },
    previousPosted: (subscriptionId, beforeLocalDate) => {
      const row = selectPrevious.get(subscriptionId, beforeLocalDate);
      return row ? toRun(row) : null;
    },
    renew: (runId, lease) => renew.run(leaseParams(runId, lease)).changes === 1,
    release: (runId, owner, now) => release.run({ id: runId, owner, now: now.getTime() }).changes === 1,
    addCharge: (runId, points, calls) => {
      addCharge.run(points, calls, runId);
    },
    markPosting: (runId, lease, summaryJson) =>
      toPosting.run({ ...leaseParams(runId, lease), summary: summaryJson }).changes === 1,
    markPosted: (runId, owner, ts, now) =>
      toPosted.run({ id: runId, owner, ts, now: now.getTime() }).changes === 1,
    markFailed: (runId, owner, failure) =>
      toFailed.run({
        id: runId,
        owner,
        error: failure.error.slice(0, ERROR_MAX),
        next: failure.nextAttemptAt?.getTime() ?? null,
        now: failure.now.getTime(),
      }).changes === 1,
    awaitApproval: (runId, owner, estimate, now) =>
      toAwaiting.run({ id: runId, owner, estimate, now: now.getTime() }).changes === 1,
    claimApproved: (runId, lease, approvedBy) =>
      approve.run({ ...leaseParams(runId, lease), by: approvedBy }).changes === 1 ? runOf(runId) : null,
    setNoticeTs: (runId, ts) => {
      setNotice.run(ts, runId);
    },
    setMessageTs: (runId, ts) => {
      setMessage.run(ts, runId);
    },
  };
}
