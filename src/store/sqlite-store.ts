/**
 * The default Store: one SQLite file through better-sqlite3 (DESIGN.md: DATABASE_PATH).
 * WAL so readers never block the writer; busy_timeout so a second connection (another process,
 * or a test) waits for a lock instead of failing; every write path is a single statement or an
 * IMMEDIATE transaction, so it takes the write lock up front and cannot deadlock on an upgrade.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';
import { createSqliteAlerts } from './sqlite-alerts.js';
import { createSqliteDigests } from './sqlite-digests.js';
import { createSqliteShortcutBatches, createSqliteUnfurls } from './sqlite-unfurls.js';
import type {
  AuditLog,
  AuditRecord,
  ClaimHolder,
  ClaimResult,
  Ledger,
  LedgerEntry,
  LedgerGroupBy,
  LedgerGroupRow,
  LedgerRange,
  LedgerSource,
  LedgerTotals,
  NewLedgerEntry,
  NewPendingLookup,
  PendingLookup,
  PendingLookups,
  PendingState,
  Settings,
  Store,
  UserPrefs,
} from './store.js';

export interface SqliteStoreOptions {
  /** The clock for every stored time and every expiry check (tests inject one). */
  now?: () => Date;
}

/** How long a connection waits for another one's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/** Opens (creating if needed) and migrates the store at `path`; ':memory:' for a private one. */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  // '' is SQLite's private temporary database; neither it nor ':memory:' has a directory.
  if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  const now = options.now ?? (() => new Date());
  const nowMs = (): number => now().getTime();

  const transaction = <T>(fn: () => T): T =>
    db
      .transaction((): T => {
        const result = fn();
        if (isPromiseLike(result)) {
          // Throwing here rolls the transaction back; the awaited part would run after COMMIT.
          throw new TypeError('Store.transaction() takes a synchronous function; it returned a promise');
        }
        return result;
      })
      // IMMEDIATE: take the write lock at BEGIN (nested calls become savepoints).
      .immediate();

  const audit = createAuditLog(db, nowMs);
  return {
    pending: createPendingLookups(db, nowMs),
    ledger: createLedger(db),
    prefs: createUserPrefs(db, nowMs),
    audit,
    settings: createSettings(db, nowMs, audit, transaction),
    digests: createSqliteDigests(db, nowMs, audit, transaction),
    alerts: createSqliteAlerts(db, nowMs, audit, transaction),
    unfurls: createSqliteUnfurls(db, nowMs, transaction),
    shortcutBatches: createSqliteShortcutBatches(db, nowMs),
    transaction,
    close: () => {
      if (db.open) db.close();
    },
  };
}

function isPromiseLike(value: unknown): boolean {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

// ---- JSON with dates -----------------------------------------------------------------------

// Requests hold Dates (OrderFilters.startTime/endTime); plain JSON would bring them back as
// strings. A Date is written as {"$date": ms} and revived on read.
function toJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const original = this[key];
    return original instanceof Date ? { $date: original.getTime() } : v;
  });
}

function fromJson<T>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const ms = (v as { $date?: unknown }).$date;
      if (keys.length === 1 && typeof ms === 'number') return new Date(ms);
    }
    return v;
  }) as T;
}

// ---- pending lookups -----------------------------------------------------------------------

interface PendingRow {
  id: string;
  user_id: string;
  channel_id: string | null;
  team_id: string | null;
  request_json: string;
  quote_json: string;
  summary: string;
  response_url: string | null;
  created_at: number;
  expires_at: number;
  state: PendingState;
  state_changed_at: number;
  result_json: string | null;
  claimed_by: string | null;
  lease_expires_at: number | null;
}

/** The row with its JSON read back as the caller's types (the store does not check them). */
function toPending<R, Q>(row: PendingRow): PendingLookup<R, Q> {
  return {
    id: row.id,
    userId: row.user_id,
    channelId: row.channel_id,
    teamId: row.team_id,
    request: fromJson<R>(row.request_json),
    quote: fromJson<Q>(row.quote_json),
    summary: row.summary,
    responseUrl: row.response_url,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    state: row.state,
    stateChangedAt: new Date(row.state_changed_at),
    resultJson: row.result_json,
    claimedBy: row.claimed_by,
    leaseExpiresAt: row.lease_expires_at === null ? null : new Date(row.lease_expires_at),
  };
}

function createPendingLookups(db: Database.Database, nowMs: () => number): PendingLookups {
  const insert = db.prepare<[PendingRow]>(
    `INSERT INTO pending_lookups (id, user_id, channel_id, team_id, request_json, quote_json, summary,
       response_url, created_at, expires_at, state, state_changed_at, result_json, claimed_by,
       lease_expires_at)
     VALUES (@id, @user_id, @channel_id, @team_id, @request_json, @quote_json, @summary,
       @response_url, @created_at, @expires_at, @state, @state_changed_at, @result_json, @claimed_by,
       @lease_expires_at)`,
  );
  const select = db.prepare<[string], PendingRow>('SELECT * FROM pending_lookups WHERE id = ?');
  // The whole single-use guarantee (DESIGN rule 2) is this one statement: SQLite runs it under
  // the write lock, so of any number of claims on any number of connections exactly one sees
  // state = 'pending' and changes a row.
  const moveFromPending = db.prepare<{
    id: string;
    userId: string;
    to: PendingState;
    now: number;
    holder: string | null;
    lease: number | null;
  }>(
    `UPDATE pending_lookups SET state = @to, state_changed_at = @now, claimed_by = @holder,
       lease_expires_at = @lease
     WHERE id = @id AND state = 'pending' AND user_id = @userId AND expires_at > @now`,
  );
  const renew = db.prepare<{ holder: string; lease: number }>(
    `UPDATE pending_lookups SET lease_expires_at = @lease
     WHERE state = 'running' AND claimed_by = @holder`,
  );
  const selectRunning = db.prepare<[], PendingRow>(
    `SELECT * FROM pending_lookups WHERE state = 'running' ORDER BY state_changed_at, id`,
  );
  // `IS` matches a NULL holder (a claim of an older build) to NULL.
  const interruptRunning = db.prepare<{ id: string; holder: string | null; now: number }>(
    `UPDATE pending_lookups SET state = 'interrupted', state_changed_at = @now
     WHERE id = @id AND state = 'running' AND claimed_by IS @holder`,
  );
  const finishRunning = db.prepare<{ id: string; to: PendingState; now: number; result: string | null }>(
    `UPDATE pending_lookups SET state = @to, state_changed_at = @now, result_json = @result
     WHERE id = @id AND state = 'running'`,
  );
  const deleteOld = db.prepare<{ before: number }>(
    `DELETE FROM pending_lookups WHERE state_changed_at < @before AND expires_at < @before
       AND state <> 'running'`,
  );

  function move<R, Q>(
    id: string,
    userId: string,
    to: 'running' | 'cancelled',
    holder: ClaimHolder | null,
  ): ClaimResult<R, Q> {
    const now = nowMs();
    const claim = { holder: holder?.instanceId ?? null, lease: holder ? now + holder.leaseMs : null };
    if (moveFromPending.run({ id, userId, to, now, ...claim }).changes === 1) {
      const row = select.get(id);
      // Rows are never deleted while live (prune keeps unexpired ones), so this is present.
      if (row) return { ok: true, pending: toPending<R, Q>(row) };
    }
    const row = select.get(id);
    if (!row) return { ok: false, reason: 'not_found', pending: null };
    const pending = toPending<R, Q>(row);
    // Owner first, so another user learns nothing about the state of someone else's request.
    if (row.user_id !== userId) return { ok: false, reason: 'not_yours', pending };
    if (row.state === 'cancelled') return { ok: false, reason: 'cancelled', pending };
    if (row.state === 'interrupted') return { ok: false, reason: 'interrupted', pending };
    if (row.state !== 'pending') return { ok: false, reason: 'already_used', pending };
    return { ok: false, reason: 'expired', pending };
  }

  return {
    create<R, Q>(input: NewPendingLookup<R, Q>): PendingLookup<R, Q> {
      const now = nowMs();
      const row: PendingRow = {
        id: randomUUID(),
        user_id: input.userId,
        channel_id: input.channelId,
        team_id: input.teamId,
        request_json: toJson(input.request),
        quote_json: toJson(input.quote),
        summary: input.summary,
        response_url: input.responseUrl,
        created_at: now,
        expires_at: now + input.ttlMs,
        state: 'pending',
        state_changed_at: now,
        result_json: null,
        claimed_by: null,
        lease_expires_at: null,
      };
      insert.run(row);
      return toPending<R, Q>(row);
    },
    get<R, Q>(id: string) {
      const row = select.get(id);
      return row ? toPending<R, Q>(row) : null;
    },
    claim: <R, Q>(id: string, userId: string, holder: ClaimHolder) =>
      move<R, Q>(id, userId, 'running', holder),
    cancel: <R, Q>(id: string, userId: string) => move<R, Q>(id, userId, 'cancelled', null),
    finish: (id, state, resultJson) =>
      finishRunning.run({ id, to: state, now: nowMs(), result: resultJson }).changes === 1,
    renewClaims: (holder) =>
      renew.run({ holder: holder.instanceId, lease: nowMs() + holder.leaseMs }).changes,
    runningClaims: <R, Q>() => selectRunning.all().map((row) => toPending<R, Q>(row)),
    interrupt<R, Q>(id: string, claimedBy: string | null) {
      if (interruptRunning.run({ id, holder: claimedBy, now: nowMs() }).changes !== 1) return null;
      const row = select.get(id);
      return row ? toPending<R, Q>(row) : null;
    },
    prune: (olderThan) => deleteOld.run({ before: olderThan.getTime() }).changes,
  };
}

// ---- ledger --------------------------------------------------------------------------------

interface LedgerRow {
  id: number;
  at: number;
  user_id: string | null;
  channel_id: string | null;
  operation: string;
  edition: number | null;
  points: number;
  quota_calls: number;
  code: number;
  outcome: 'ok' | 'error';
  request_id: string | null;
  correlation_id: string | null;
  pending_id: string | null;
  source: string;
}

type TotalsRow = { points: number; quota_calls: number; calls: number };
type GroupRow = TotalsRow & { key: string | null };

function toLedgerEntry(row: LedgerRow): LedgerEntry {
  return {
    id: row.id,
    at: new Date(row.at),
    userId: row.user_id,
    channelId: row.channel_id,
    // Not checked against the operation names on read, so an export never fails on a row from
    // before an operation was renamed.
    operation: row.operation,
    edition: row.edition,
    points: row.points,
    quotaCalls: row.quota_calls,
    code: row.code,
    outcome: row.outcome,
    requestId: row.request_id,
    correlationId: row.correlation_id,
    pendingId: row.pending_id,
    source: row.source as LedgerSource,
  };
}

const toTotals = (row: TotalsRow): LedgerTotals => ({
  points: row.points,
  quotaCalls: row.quota_calls,
  calls: row.calls,
});

/** Named parameters of the ledger queries; only the ones a query names are bound. */
interface LedgerParams {
  from: number;
  to: number;
  userId?: string;
  channelId?: string;
  limit?: number;
}

const SUMS =
  'COALESCE(SUM(points), 0) AS points, COALESCE(SUM(quota_calls), 0) AS quota_calls, COUNT(*) AS calls';

const GROUP_KEYS: Record<LedgerGroupBy, { key: string; order: string }> = {
  user: { key: 'user_id', order: 'points DESC, key' },
  operation: { key: 'operation', order: 'points DESC, key' },
};

function createLedger(db: Database.Database): Ledger {
  const insert = db.prepare<[Omit<LedgerRow, 'id'>]>(
    `INSERT INTO ledger (at, user_id, channel_id, operation, edition, points, quota_calls, code, outcome,
       request_id, correlation_id, pending_id, source)
     VALUES (@at, @user_id, @channel_id, @operation, @edition, @points, @quota_calls, @code, @outcome,
       @request_id, @correlation_id, @pending_id, @source)`,
  );
  // `edition IS ?` matches NULL to NULL and still uses ledger_operation_edition; the scan walks
  // that index backwards from the newest id and stops at the first successful row.
  const lastChargeStmt = db.prepare<[string, number | null], { points: number }>(
    `SELECT points FROM ledger WHERE operation = ? AND edition IS ? AND code = 0 AND points > 0
     ORDER BY id DESC LIMIT 1`,
  );

  // The WHERE clause varies with the optional filters; each variant is prepared once.
  const statements = new Map<string, Database.Statement<[LedgerParams]>>();
  const prepared = (sql: string): Database.Statement<[LedgerParams]> => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare<[LedgerParams]>(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  };
  const where = (q: LedgerRange & { userId?: string; channelId?: string }): [string, LedgerParams] => {
    const params: LedgerParams = { from: q.from.getTime(), to: q.to.getTime() };
    let sql = 'WHERE at >= @from AND at < @to';
    if (q.userId !== undefined) {
      sql += ' AND user_id = @userId';
      params.userId = q.userId;
    }
    if (q.channelId !== undefined) {
      sql += ' AND channel_id = @channelId';
      params.channelId = q.channelId;
    }
    return [sql, params];
  };

  function groupTotals(
    by: LedgerGroupBy,
    q: LedgerRange & { userId?: string },
  ): LedgerGroupRow<string | null>[] {
    const [filter, params] = where(q);
    const { key, order } = GROUP_KEYS[by];
    const rows = prepared(
      `SELECT ${key} AS key, ${SUMS} FROM ledger ${filter} GROUP BY 1 ORDER BY ${order}`,
    ).all(params) as GroupRow[];
    return rows.map((row) => ({ key: row.key, ...toTotals(row) }));
  }

  return {
    record(entry: NewLedgerEntry): LedgerEntry {
      const row: Omit<LedgerRow, 'id'> = {
        at: entry.at.getTime(),
        user_id: entry.userId,
        channel_id: entry.channelId,
        operation: entry.operation,
        edition: entry.edition,
        points: entry.points,
        quota_calls: entry.quotaCalls,
        code: entry.code,
        outcome: entry.outcome,
        request_id: entry.requestId,
        correlation_id: entry.correlationId,
        pending_id: entry.pendingId,
        source: entry.source,
      };
      const id = Number(insert.run(row).lastInsertRowid);
      return { ...entry, id };
    },
    lastCharge: (operation, edition) => lastChargeStmt.get(operation, edition)?.points ?? null,
    totals(q) {
      const [filter, params] = where(q);
      return toTotals(prepared(`SELECT ${SUMS} FROM ledger ${filter}`).get(params) as TotalsRow);
    },
    // The overloads in Ledger narrow the key type; one implementation serves them all.
    groupTotals: groupTotals as Ledger['groupTotals'],
    list(q) {
      const [filter, params] = where(q);
      // LIMIT -1: no limit.
      params.limit = q.limit ?? -1;
      const rows = prepared(`SELECT * FROM ledger ${filter} ORDER BY at DESC, id DESC LIMIT @limit`).all(
        params,
      ) as LedgerRow[];
      return rows.map(toLedgerEntry);
    },
    *iterate(q) {
      const [filter, params] = where(q);
      const rows = prepared(`SELECT * FROM ledger ${filter} ORDER BY at, id`).iterate(params);
      for (const row of rows) yield toLedgerEntry(row as LedgerRow);
    },
  };
}

// ---- user preferences ----------------------------------------------------------------------

function createUserPrefs(db: Database.Database, nowMs: () => number): UserPrefs {
  const select = db.prepare<[string], { confirm_threshold: number | null }>(
    'SELECT confirm_threshold FROM user_prefs WHERE user_id = ?',
  );
  const upsert = db.prepare<[string, number | null, number]>(
    `INSERT INTO user_prefs (user_id, confirm_threshold, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET confirm_threshold = excluded.confirm_threshold,
       updated_at = excluded.updated_at`,
  );
  return {
    getConfirmThreshold: (userId) => select.get(userId)?.confirm_threshold ?? null,
    setConfirmThreshold(userId, points) {
      if (points !== null && !(Number.isFinite(points) && points >= 0)) {
        throw new RangeError(`confirm threshold must be a finite number ≥ 0 or null, got ${points}`);
      }
      upsert.run(userId, points, nowMs());
    },
  };
}

// ---- audit log and settings ----------------------------------------------------------------

function createAuditLog(db: Database.Database, nowMs: () => number): AuditLog {
  const insert = db.prepare<[number, string, string, string]>(
    'INSERT INTO audit_log (at, actor_id, action, detail) VALUES (?, ?, ?, ?)',
  );
  type AuditRow = { at: number; actor_id: string; action: string; detail: string };
  const select = db.prepare<[number], AuditRow>(
    'SELECT at, actor_id, action, detail FROM audit_log ORDER BY id DESC LIMIT ?',
  );
  const selectAction = db.prepare<[string, number], AuditRow>(
    'SELECT at, actor_id, action, detail FROM audit_log WHERE action = ? ORDER BY id DESC LIMIT ?',
  );
  return {
    record: (e) => {
      insert.run(nowMs(), e.actorId, e.action, e.detail);
    },
    list: (limit, filter): AuditRecord[] => {
      const rows = filter?.action === undefined ? select.all(limit) : selectAction.all(filter.action, limit);
      return rows.map((row) => ({
        at: new Date(row.at),
        actorId: row.actor_id,
        action: row.action,
        detail: row.detail,
      }));
    },
  };
}

/** Audit details are for people reading a log; a huge value is cut. */
const AUDIT_DETAIL_MAX = 2000;

function auditDetail(key: string, json: string | null): string {
  const text = json === null ? key : `${key} = ${json}`;
  return text.length > AUDIT_DETAIL_MAX ? `${text.slice(0, AUDIT_DETAIL_MAX - 1)}…` : text;
}

function createSettings(
  db: Database.Database,
  nowMs: () => number,
  audit: AuditLog,
  transaction: <T>(fn: () => T) => T,
): Settings {
  const select = db.prepare<[string], { value_json: string }>(
    'SELECT value_json FROM settings WHERE key = ?',
  );
  const upsert = db.prepare<[string, string, number, string]>(
    `INSERT INTO settings (key, value_json, updated_at, updated_by) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at,
       updated_by = excluded.updated_by`,
  );
  const remove = db.prepare<[string]>('DELETE FROM settings WHERE key = ?');
  return {
    get<T>(key: string): T | null {
      const row = select.get(key);
      return row ? fromJson<T>(row.value_json) : null;
    },
    set(key, value, actorId) {
      // JSON.stringify returns undefined (not a string) for undefined, functions and symbols.
      const json = toJson(value) as string | undefined;
      if (json === undefined) throw new TypeError(`setting ${key}: value is not JSON-serializable`);
      transaction(() => {
        upsert.run(key, json, nowMs(), actorId);
        audit.record({ actorId, action: 'settings.set', detail: auditDetail(key, json) });
      });
    },
    delete: (key, actorId) =>
      transaction(() => {
        const deleted = remove.run(key).changes > 0;
        if (deleted) audit.record({ actorId, action: 'settings.delete', detail: auditDetail(key, null) });
        return deleted;
      }),
  };
}
