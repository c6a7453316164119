/**
 * Persistence behind an interface (DESIGN.md "Layers": store/). SQLite is the default backend
 * (sqlite-store.ts); nothing here knows about SQLite.
 *
 * Why the interface is synchronous: the default store is embedded (better-sqlite3, synchronous by
 * design), and the one operation that must be exactly right — claiming a confirmation so a double
 * click or a Slack retry never charges twice (DESIGN rule 2) — is a single conditional UPDATE that
 * either wins or does not. A synchronous call cannot be interleaved with other work on this
 * process, and `transaction(fn)` can hold only synchronous code, so no `await` can ever split a
 * read from the write that depends on it. A networked backend would implement an async twin of
 * this interface and wrap it; callers would change only by adding `await`.
 */
import type { AlertStore } from './alerts.js';
import type { DigestStore } from './digests.js';
import type { ShortcutBatches, UnfurlStore } from './unfurls.js';

export interface Store {
  pending: PendingLookups;
  ledger: Ledger;
  prefs: UserPrefs;
  audit: AuditLog;
  settings: Settings;
  /** Daily digest subscriptions and run records (store/digests.ts). */
  digests: DigestStore;
  /** Ship-by alert subscriptions, their checks and the orders they alerted (store/alerts.ts). */
  alerts: AlertStore;
  /** Item-link unfurls: handled event ids, unfurl records, auto-lookup day counts (store/unfurls.ts). */
  unfurls: UnfurlStore;
  /** What a shortcut's modal offered, claimed once by its Confirm (store/unfurls.ts). */
  shortcutBatches: ShortcutBatches;
  /**
   * Runs fn in one transaction (nested calls become savepoints). fn must be synchronous: a
   * function that returns a promise is rejected and rolled back, since its awaited part would run
   * after the commit.
   */
  transaction<T>(fn: () => T): T;
  /** Closes the store; calling it again does nothing. */
  close(): void;
}

// ---- pending lookups (confirmations) -------------------------------------------------------

/**
 * pending → running (claimed by Confirm) → done | failed; pending → cancelled (Cancel);
 * running → interrupted (its holder died before it finished: never run again, the call may have
 * been charged). An expired row stays 'pending': expiry is decided at claim time against `expiresAt`.
 */
export type PendingState = 'pending' | 'running' | 'done' | 'failed' | 'cancelled' | 'interrupted';

/**
 * Who claims: a process, by an id of its own, holding its claims under a lease it renews while it
 * runs. Works the same whether one process or several share the database: a claim whose lease
 * ran out, or whose holder is known to be gone, belongs to nobody.
 */
export interface ClaimHolder {
  instanceId: string;
  leaseMs: number;
}

/**
 * A charged lookup awaiting its user's Confirm (DESIGN rule 2). Stored server-side; the button
 * carries only its id, so a forged or replayed button value cannot change what is charged.
 * `request` and `quote` are stored as JSON whose shape belongs to the layer above (lookups/:
 * LookupRequest and Quote); the store does not know it, so the readers name it (`get<R, Q>`),
 * as with JSON.parse.
 */
export interface PendingLookup<R = unknown, Q = unknown> {
  /** crypto.randomUUID(): 122 random bits, unguessable. */
  id: string;
  userId: string;
  channelId: string | null;
  teamId: string | null;
  request: R;
  quote: Q;
  /** What the confirmation said would be queried, for the answer and for audit. */
  summary: string;
  responseUrl: string | null;
  createdAt: Date;
  expiresAt: Date;
  state: PendingState;
  stateChangedAt: Date;
  /**
   * JSON of the rendered answer or error, set when done/failed, so a repeated click can be
   * answered from it without a call.
   */
  resultJson: string | null;
  /** The instance that claimed it (null before a claim, and for claims of builds before leases). */
  claimedBy: string | null;
  /** Until when the claim is held, renewed while it runs; null before a claim. */
  leaseExpiresAt: Date | null;
}

export type ClaimFailure =
  | 'not_found'
  | 'expired'
  | 'not_yours'
  | 'already_used'
  | 'cancelled'
  | 'interrupted';

/**
 * `pending` is the row as read after the failed claim (null only for not_found), so the caller
 * can answer a repeated click from `resultJson`. For not_yours it is another user's request:
 * show it to nobody.
 */
export type ClaimResult<R = unknown, Q = unknown> =
  | { ok: true; pending: PendingLookup<R, Q> }
  | { ok: false; reason: ClaimFailure; pending: PendingLookup<R, Q> | null };

export interface NewPendingLookup<R = unknown, Q = unknown> {
  userId: string;
  channelId: string | null;
  teamId: string | null;
  request: R;
  quote: Q;
  summary: string;
  responseUrl: string | null;
  /** How long the Confirm button stays valid. */
  ttlMs: number;
}

export interface PendingLookups {
  create<R, Q>(input: NewPendingLookup<R, Q>): PendingLookup<R, Q>;
  get<R = unknown, Q = unknown>(id: string): PendingLookup<R, Q> | null;
  /**
   * Atomically moves pending → running for this user, if not expired, marked with the holder and
   * its lease: one conditional UPDATE, then a read-back to tell why it failed. Of any number of
   * concurrent claims (on any number of connections) exactly one wins. Failure reasons, first
   * match: not_found, not_yours, cancelled, interrupted, already_used (running/done/failed), expired.
   */
  claim<R = unknown, Q = unknown>(id: string, userId: string, holder: ClaimHolder): ClaimResult<R, Q>;
  /** pending → cancelled, by the same rules and reasons as claim. */
  cancel<R = unknown, Q = unknown>(id: string, userId: string): ClaimResult<R, Q>;
  /**
   * running → done | failed, storing the rendered result. Returns false (and changes nothing)
   * when the row is missing or not running.
   */
  finish(id: string, state: 'done' | 'failed', resultJson: string | null): boolean;
  /** Extends the lease of every running claim of this holder; returns how many. */
  renewClaims(holder: ClaimHolder): number;
  /**
   * Every running claim, oldest first, with its holder and lease, so a process can tell which
   * ones belong to a holder that is gone.
   */
  runningClaims<R = unknown, Q = unknown>(): PendingLookup<R, Q>[];
  /**
   * running → interrupted, only while the claim is still running under `claimedBy` (a holder that
   * renewed or finished it meanwhile keeps it): of several processes deciding at once, exactly one
   * gets the row back, and only that one tells the user. Never re-run: the call may have been charged.
   */
  interrupt<R = unknown, Q = unknown>(id: string, claimedBy: string | null): PendingLookup<R, Q> | null;
  /**
   * Housekeeping: deletes rows whose state changed before `olderThan` and that expired before it
   * (a live confirmation is never removed, nor a running claim). Returns the number deleted.
   */
  prune(olderThan: Date): number;
}

// ---- spend ledger --------------------------------------------------------------------------

export type LedgerSource = 'interactive' | 'digest' | 'alert' | 'unfurl' | 'shortcut';

export interface LedgerEntry {
  id: number;
  at: Date;
  /** null for scheduled work (digests). */
  userId: string | null;
  channelId: string | null;
  /** A plat operation name (plat/operations.ts). */
  operation: string;
  edition: number | null;
  /** withholding_money reported, in points (1 point = 0.01 yuan); 0 when nothing was withheld. */
  points: number;
  /** Calls of the item quota used. */
  quotaCalls: number;
  /** The envelope code: 0 for success. */
  code: number;
  outcome: 'ok' | 'error';
  requestId: string | null;
  correlationId: string | null;
  pendingId: string | null;
  source: LedgerSource;
}

export type NewLedgerEntry = Omit<LedgerEntry, 'id'>;

export interface LedgerTotals {
  points: number;
  quotaCalls: number;
  calls: number;
}

/** [from, to): from inclusive, to exclusive. */
export interface LedgerRange {
  from: Date;
  to: Date;
}

export type LedgerGroupBy = 'user' | 'operation';

export interface LedgerGroupRow<K extends string | null = string> extends LedgerTotals {
  key: K;
}

export interface Ledger {
  record(entry: NewLedgerEntry): LedgerEntry;
  /**
   * The points of the newest successful (code 0) entry for this operation and edition (null
   * edition for operations without editions), or null if none: the "last charge seen" of a quote.
   * Error responses are left out because what they withhold says nothing about a normal call, and
   * so are rows of 0 points: every call that reached the service is a row, and a 0 there is an
   * answer that reported no charge, not a price.
   */
  lastCharge(operation: string, edition: number | null): number | null;
  /** Sums over [from, to), optionally for one user and/or one channel. */
  totals(q: LedgerRange & { userId?: string; channelId?: string }): LedgerTotals;
  /**
   * Grouped sums over [from, to) for reports. 'user': key is the user id, null for scheduled
   * work; 'operation': the operation; ordered by points, highest first. (Days are counted in the
   * budget zone by lookups/reports.ts, from totals per local day: SQLite knows no IANA zones.)
   */
  groupTotals(by: 'user', q: LedgerRange & { userId?: string }): LedgerGroupRow<string | null>[];
  groupTotals(by: 'operation', q: LedgerRange & { userId?: string }): LedgerGroupRow[];
  /** Entries in [from, to), newest first, for one user or all; at most `limit` (default: all). */
  list(q: LedgerRange & { userId?: string; limit?: number }): LedgerEntry[];
  /**
   * Entries in [from, to), oldest first, streamed (for CSV export). While the iterator is open
   * the SQLite connection is busy: finish or `return()` it before using the store again.
   */
  iterate(q: LedgerRange & { userId?: string }): IterableIterator<LedgerEntry>;
}

// ---- user preferences ----------------------------------------------------------------------

export interface UserPrefs {
  /** null = always ask (the default); N = skip the confirmation for calls quoted under N points. */
  getConfirmThreshold(userId: string): number | null;
  /** null clears it (back to always asking). */
  setConfirmThreshold(userId: string, points: number | null): void;
}

// ---- audit log and settings ----------------------------------------------------------------

export interface AuditRecord {
  at: Date;
  actorId: string;
  action: string;
  detail: string;
}

/** Who changed which setting ("changes are logged with who made them"). */
export interface AuditLog {
  record(e: Omit<AuditRecord, 'at'>): void;
  /** The newest `limit` records, newest first; only those of one action when `filter.action` is given. */
  list(limit: number, filter?: { action?: string }): AuditRecord[];
}

/**
 * Generic key → JSON settings that survive restarts (admins, access rules, budgets, shops).
 * Every change writes an audit row in the same transaction.
 */
export interface Settings {
  /** The stored value, unchecked: validate it (zod) where its shape is known. */
  get<T>(key: string): T | null;
  /** value must be JSON-serializable (not undefined, a function or a bigint). */
  set(key: string, value: unknown, actorId: string): void;
  /** Returns whether the key existed; audits only an actual deletion. */
  delete(key: string, actorId: string): boolean;
}
