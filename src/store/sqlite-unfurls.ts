/**
 * SQLite implementation of store/unfurls.ts (tables of migration 3). Every check-then-write is
 * one statement or one IMMEDIATE transaction, so two Slack deliveries handled at once (the
 * composer and the posted link_shared, or a retry) cannot both win.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type {
  BatchClaim,
  BatchState,
  BeginAutoResult,
  ShortcutBatch,
  ShortcutBatches,
  UnfurlRecord,
  UnfurlState,
  UnfurlStore,
} from './unfurls.js';

interface RecordRow {
  id: number;
  channel_id: string;
  item_id: string;
  user_id: string;
  created_at: number;
  state: UnfurlState;
  auto: number;
  pending_id: string | null;
  outcome_json: string | null;
}

const toRecord = (row: RecordRow): UnfurlRecord => ({
  id: row.id,
  channelId: row.channel_id,
  itemId: row.item_id,
  userId: row.user_id,
  createdAt: new Date(row.created_at),
  state: row.state,
  auto: row.auto === 1,
  pendingId: row.pending_id,
  outcomeJson: row.outcome_json,
});

export function createSqliteUnfurls(
  db: Database.Database,
  nowMs: () => number,
  transaction: <T>(fn: () => T) => T,
): UnfurlStore {
  const insertEvent = db.prepare<[string, number]>(
    'INSERT OR IGNORE INTO processed_events (event_id, at) VALUES (?, ?)',
  );
  const forgetEvents = db.prepare<[number]>('DELETE FROM processed_events WHERE at < ?');
  const selectRecent = db.prepare<[string, string, number], RecordRow>(
    `SELECT * FROM unfurl_records WHERE channel_id = ? AND item_id = ? AND created_at >= ?
     ORDER BY created_at DESC, id DESC`,
  );
  const selectBusyAuto = db.prepare<[string, string, number], RecordRow>(
    `SELECT * FROM unfurl_records WHERE channel_id = ? AND item_id = ? AND created_at >= ? AND auto = 1
     ORDER BY created_at DESC, id DESC LIMIT 1`,
  );
  const insertRecord = db.prepare<Omit<RecordRow, 'id'>>(
    `INSERT INTO unfurl_records (channel_id, item_id, user_id, created_at, state, auto, pending_id, outcome_json)
     VALUES (@channel_id, @item_id, @user_id, @created_at, @state, @auto, @pending_id, @outcome_json)`,
  );
  const selectRecord = db.prepare<[number], RecordRow>('SELECT * FROM unfurl_records WHERE id = ?');
  const deleteRecord = db.prepare<[number]>('DELETE FROM unfurl_records WHERE id = ?');
  const finishRecord = db.prepare<{
    id: number;
    state: UnfurlState;
    outcome: string | null;
    pending: string | null;
  }>(
    `UPDATE unfurl_records SET state = @state, outcome_json = @outcome, pending_id = COALESCE(@pending, pending_id)
     WHERE id = @id`,
  );
  const selectUsed = db.prepare<[string, string], { used: number }>(
    'SELECT used FROM auto_lookup_counts WHERE channel_id = ? AND day = ?',
  );
  const takeSlot = db.prepare<[string, string, number]>(
    `INSERT INTO auto_lookup_counts (channel_id, day, used, updated_at) VALUES (?, ?, 1, ?)
     ON CONFLICT (channel_id, day) DO UPDATE SET used = used + 1, updated_at = excluded.updated_at`,
  );
  const giveBackSlot = db.prepare<[number, string, string]>(
    `UPDATE auto_lookup_counts SET used = MAX(used - 1, 0), updated_at = ?
     WHERE channel_id = ? AND day = ?`,
  );
  const pruneRecords = db.prepare<[number]>('DELETE FROM unfurl_records WHERE created_at < ?');
  const pruneCounts = db.prepare<[number]>('DELETE FROM auto_lookup_counts WHERE updated_at < ?');
  const pruneBatches = db.prepare<[number]>('DELETE FROM shortcut_batches WHERE expires_at < ?');

  const used = (channelId: string, day: string) => selectUsed.get(channelId, day)?.used ?? 0;

  return {
    firstSeen(eventId, keepMs) {
      const now = nowMs();
      forgetEvents.run(now - keepMs);
      return insertEvent.run(eventId, now).changes === 1;
    },
    recent: (channelId, itemId, since) => selectRecent.all(channelId, itemId, since.getTime()).map(toRecord),
    beginAuto(input): BeginAutoResult {
      return transaction((): BeginAutoResult => {
        const busy = selectBusyAuto.get(input.channelId, input.itemId, input.since.getTime());
        if (busy) return { started: false, reason: 'busy', record: toRecord(busy) };
        const already = used(input.channelId, input.day);
        if (already >= input.cap) return { started: false, reason: 'capped', used: already };
        const now = nowMs();
        takeSlot.run(input.channelId, input.day, now);
        const row: Omit<RecordRow, 'id'> = {
          channel_id: input.channelId,
          item_id: input.itemId,
          user_id: input.userId,
          created_at: now,
          state: 'running',
          auto: 1,
          pending_id: null,
          outcome_json: null,
        };
        const id = Number(insertRecord.run(row).lastInsertRowid);
        return { started: true, record: toRecord({ id, ...row }), used: already + 1 };
      });
    },
    abandonAuto(id, day, keep) {
      transaction(() => {
        const row = selectRecord.get(id);
        if (!row) return;
        if (keep) finishRecord.run({ id, state: 'done', outcome: keep.outcomeJson, pending: null });
        else deleteRecord.run(id);
        giveBackSlot.run(nowMs(), row.channel_id, day);
      });
    },
    finishAuto(id, state, outcomeJson, pendingId) {
      finishRecord.run({ id, state, outcome: outcomeJson, pending: pendingId });
    },
    recordOffered(input) {
      const row: Omit<RecordRow, 'id'> = {
        channel_id: input.channelId,
        item_id: input.itemId,
        user_id: input.userId,
        created_at: nowMs(),
        state: 'offered',
        auto: 0,
        pending_id: input.pendingId,
        outcome_json: null,
      };
      const id = Number(insertRecord.run(row).lastInsertRowid);
      return toRecord({ id, ...row });
    },
    autoUsed: used,
    forgetEvents: (olderThan) => forgetEvents.run(olderThan.getTime()).changes,
    prune(olderThan) {
      const before = olderThan.getTime();
      return transaction(
        () =>
          pruneRecords.run(before).changes +
          pruneCounts.run(before).changes +
          pruneBatches.run(before).changes,
      );
    },
  };
}

interface BatchRow {
  id: string;
  user_id: string;
  kind: string;
  channel_id: string | null;
  thread_ts: string | null;
  payload_json: string;
  created_at: number;
  expires_at: number;
  state: BatchState;
  state_changed_at: number;
}

const toBatch = (row: BatchRow): ShortcutBatch => ({
  id: row.id,
  userId: row.user_id,
  kind: row.kind,
  channelId: row.channel_id,
  threadTs: row.thread_ts,
  payloadJson: row.payload_json,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
  state: row.state,
});

export function createSqliteShortcutBatches(db: Database.Database, nowMs: () => number): ShortcutBatches {
  const insert = db.prepare<[BatchRow]>(
    `INSERT INTO shortcut_batches (id, user_id, kind, channel_id, thread_ts, payload_json, created_at,
       expires_at, state, state_changed_at)
     VALUES (@id, @user_id, @kind, @channel_id, @thread_ts, @payload_json, @created_at, @expires_at,
       @state, @state_changed_at)`,
  );
  const select = db.prepare<[string], BatchRow>('SELECT * FROM shortcut_batches WHERE id = ?');
  // Single use (DESIGN rule 2): of any number of claims exactly one sees state = 'open'.
  const use = db.prepare<{ id: string; userId: string; now: number }>(
    `UPDATE shortcut_batches SET state = 'used', state_changed_at = @now
     WHERE id = @id AND user_id = @userId AND state = 'open' AND expires_at > @now`,
  );
  const get = (id: string) => {
    const row = select.get(id);
    return row ? toBatch(row) : null;
  };
  return {
    create(input) {
      const now = nowMs();
      const row: BatchRow = {
        id: randomUUID(),
        user_id: input.userId,
        kind: input.kind,
        channel_id: input.channelId,
        thread_ts: input.threadTs,
        payload_json: input.payloadJson,
        created_at: now,
        expires_at: now + input.ttlMs,
        state: 'open',
        state_changed_at: now,
      };
      insert.run(row);
      return toBatch(row);
    },
    get,
    claim(id, userId): BatchClaim {
      const now = nowMs();
      if (use.run({ id, userId, now }).changes === 1) {
        const batch = get(id);
        if (batch) return { ok: true, batch };
      }
      const batch = get(id);
      if (!batch) return { ok: false, reason: 'not_found', batch: null };
      if (batch.userId !== userId) return { ok: false, reason: 'not_yours', batch };
      if (batch.state !== 'open') return { ok: false, reason: 'already_used', batch };
      return { ok: false, reason: 'expired', batch };
    },
  };
}
