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
  DigestStore,
  DigestSubscription,
  NewDigestRun,
  NewDigestSubscription,
  RunClaim,
} from './digests.js';
import type { Lease } from './runs.js';
import { createSqliteLeasedRuns, type LeasedRunRow, toLeasedRun } from './sqlite-runs.js';
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

interface RunRow extends LeasedRunRow {
  kind: DigestRunKind;
  local_date: string;
  window_start: number;
  window_end: number;
  notice_ts: string | null;
  summary_json: string | null;
  requested_by: string | null;
  updated_at: number;
}

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
    ...toLeasedRun(row),
    kind: row.kind,
    localDate: row.local_date,
    windowStart: new Date(row.window_start),
    windowEnd: new Date(row.window_end),
    noticeTs: row.notice_ts,
    summaryJson: row.summary_json,
    requestedBy: row.requested_by,
    updatedAt: new Date(row.updated_at),
  };
}

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
  const runs = createSqliteLeasedRuns(
    db,
    'digest_runs',
    'platdesk stopped while posting: the digest may or may not have been posted',
  );
  const setSummary = db.prepare<[string, number]>('UPDATE digest_runs SET summary_json = ? WHERE id = ?');
  const setRequestedBy = db.prepare<[string, number]>('UPDATE digest_runs SET requested_by = ? WHERE id = ?');
  const setNotice = db.prepare<[string, number]>('UPDATE digest_runs SET notice_ts = ? WHERE id = ?');
  const setMessage = db.prepare<[string, number]>('UPDATE digest_runs SET message_ts = ? WHERE id = ?');

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
        const how = runs.claimExisting(row.id, lease);
        if (how === 'takeover' || how === 'retry') return { claimed: true, run: mustRun(row.id), how };
        const orphaned = how === 'orphaned';
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
    renew: runs.renew,
    release: runs.release,
    addCharge: runs.addCharge,
    // The summary is stored with the move to 'posting', in one transaction (a post needs it).
    markPosting: (runId, lease, summaryJson) =>
      transaction(() => {
        if (!runs.markPosting(runId, lease)) return false;
        setSummary.run(summaryJson, runId);
        return true;
      }),
    markPosted: runs.markPosted,
    markFailed: runs.markFailed,
    awaitApproval: runs.awaitApproval,
    claimApproved: (runId, lease, approvedBy) =>
      transaction(() => {
        if (!runs.claimApproved(runId, lease)) return null;
        setRequestedBy.run(approvedBy, runId);
        return runOf(runId);
      }),
    setNoticeTs: (runId, ts) => {
      setNotice.run(ts, runId);
    },
    setMessageTs: (runId, ts) => {
      setMessage.run(ts, runId);
    },
  };
}
