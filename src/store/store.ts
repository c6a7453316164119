/**
 * The Store contract (DESIGN.md "Layers": store/): everything platdesk keeps, behind one
 * asynchronous interface with two engines (store/engine.ts): SQLite through better-sqlite3 by
 * default (DATABASE_PATH), PostgreSQL through `pg` when DATABASE_URL is set. Both run the same
 * typed Kysely queries, one file per sub-store (pending.ts, ledger.ts, settings.ts, budgets.ts,
 * cache.ts, events.ts, shortcut-batches.ts, digests.ts, runs.ts, alerts.ts); what differs between
 * the engines is the connection (engine.ts) and the DDL type names (migrations.ts).
 *
 * Every guarantee that must hold across processes is a single conditional statement or one
 * transaction opened by a lock-row UPDATE (schema.ts takeLock, or a subscription's own row:
 * lockSubscription): the single-use claim of a
 * confirmation is `UPDATE ... WHERE state = 'pending'`, so of any number of claims on any
 * number of connections exactly one changes a row; a budget reservation is one conditional
 * upsert per running-total counter (`spent + reserved + p <= cap`) in a fixed order, all in one
 * transaction, so two processes can never both pass a cap, whatever the ledger's size. A claim
 * is written (and so durable) before its call starts: a caller awaits `pending.claim` first.
 *
 * What a second process must see lives here: confirmations with their claim holder and lease,
 * the ledger, settings and audit (access rules, shop registry, budgets, admins, language
 * choices), user preferences, budget reservations, the answer cache, processed event ids, unfurl
 * records and daily counts, shortcut batches, digest and ship-by alert subscriptions, their runs
 * and leases, alerted orders, and alerts sent (hourly account alerts, daily budget alerts).
 *
 * What stays in process memory, and why:
 * - the plat rate limiter's queue (plat/limiter.ts): the window itself is shared through Redis
 *   when REDIS_URL is set (plat/redis-limiter.ts), in process otherwise; the queue of callers
 *   waiting for a slot belongs to the process whose callers wait;
 * - single flight of identical lookups (lookups/single-flight.ts): shared through Redis with
 *   REDIS_URL (lookups/redis-single-flight.ts), in process otherwise; it saves money, it is not
 *   needed for correctness of money: claims, reservations and the ledger are in the store;
 * - which processes may share the database: not data but a PostgreSQL session lock held by each
 *   process (sole-lock.ts: alone without REDIS_URL, shared with it);
 * - lookups, digest runs and alert checks in progress (drained on shutdown; a claim's and a
 *   run's lease are in the store, so what a dead process held is reported or taken over elsewhere);
 * - charges waiting to be written while the store is unreachable (ledger.ts createChargeRecorder):
 *   a bounded buffer that is written as soon as the store answers again;
 * - Slack user-group membership and Slack locales (slack/): short caches of Slack's own answers;
 * - metrics (per process by nature: Prometheus scrapes each replica).
 */

import type { InstallationStore } from '@slack/bolt';

export interface Store {
  pending: PendingLookups;
  ledger: Ledger;
  prefs: UserPrefs;
  audit: AuditLog;
  settings: Settings;
  /** Daily digest subscriptions and run records (store/digests.ts). */
  digests: DigestStore;
  /** The pages each digest run bought, with their charges (store/digest-pages.ts). */
  digestPages: DigestPages;
  /** Every plat call about to be sent, written ahead of it (store/sent-calls.ts). */
  sentCalls: SentCalls;
  /** Ship-by alert subscriptions, their checks and the orders they alerted (store/alerts.ts). */
  alerts: AlertStore;
  /** Item-link unfurls: handled event ids, unfurl records, auto-lookup day counts (store/events.ts). */
  unfurls: UnfurlStore;
  /** What a shortcut's modal offered, claimed once by its Confirm (store/shortcut-batches.ts). */
  shortcutBatches: ShortcutBatches;
  /** The agent's thread memory and the feedback on its answers (store/agent.ts). */
  agent: AgentStore;
  /** People's tokens for AI clients (MCP, issue 37), hashed (store/mcp-tokens.ts). */
  mcpTokens: McpTokens;
  /** Running totals per cap and reservations of calls in flight (store/budgets.ts). */
  budgets: BudgetReservations;
  /** Answers kept for a while, shared by every process (store/cache.ts). */
  cache: AnswerCache;
  /** Admin alerts already sent, so every process sends each one once (store/cache.ts). */
  alertsSent: AlertsSent;
  /** Turns at periodic jobs, so one process of several does each (store/turns.ts). */
  turns: PeriodicTurns;
  /**
   * The tenant this Store is bound to (store/tenants.ts): every sub-store above reads only its
   * rows and stamps its inserts with it. The store openStore returns is bound to SINGLE_TENANT
   * (''), the one tenant of single-workspace mode.
   */
  readonly tenant: string;
  /**
   * The same contract bound to another tenant, over the same connections (cheap, cached): the
   * one way a caller reaches a tenant's data. Deployment-wide, whichever tenant a Store is bound
   * to: `turns`, the housekeeping prunes (pending.prune, cache.prune, alertsSent.prune,
   * unfurls.prune/forgetEvents, digests.pruneRuns, alerts.prune, budgets.prune,
   * sentCalls.unsettled/pruneRecorded: retention is the operator's), pending.renewClaims and
   * pending.runningClaims (a process's own claims, each naming its tenant), sentCalls.recent (the
   * one rate limit), and unfurls.firstSeen's Slack event ids (unique per app).
   */
  forTenant(tenant: string): Store;
  /** The tenants themselves and the cross-tenant readers of the schedulers (store/tenants.ts). */
  tenants: TenantDirectory;
  /** Slack installations of distributed mode, deployment-wide (keyed by tenant), tokens sealed (store/installations.ts). */
  installations: Installations;
  /** Each tenant's plat account, deployment-wide (keyed by tenant), token sealed (store/plat-accounts.ts). */
  platAccounts: PlatAccountStore;
  /** When each tenant's digests and alerts next need a look, deployment-wide (store/schedule-wakes.ts). */
  scheduleWakes: ScheduleWakes;
  /** 'sqlite' or 'postgres'. */
  readonly engine: 'sqlite' | 'postgres';
  /** Where the data is, without secrets (a file path, or postgres://user@host:port/db). */
  readonly location: string;
  /** Answers whether the database can be reached now (a trivial query with a short deadline). */
  ping(timeoutMs?: number): Promise<boolean>;
  /**
   * One look for the database watch (store/database-watch.ts), in one round trip: the lease
   * clock's now (PostgreSQL's own clock; on SQLite this process's) and the schema version.
   */
  probe(): Promise<{ nowMs: number; schemaVersion: number }>;
  /**
   * The oldest schema version a build must know to keep writing, as the newest migration run
   * recorded it (migrations.ts compatibleFrom); null when none recorded it.
   */
  schemaCompatibleFrom(): Promise<number | null>;
  /** Closes the store; calling it again does nothing. */
  close(): Promise<void>;
}

// ---- schedule wakes (issue 39) ----------------------------------------------------------------

export type WakeKind = 'digest' | 'alert';

export interface ScheduleWakes {
  /**
   * The tenant's schedule of `kind` next needs a look at `atMs` (Infinity: nothing planned).
   * `seen`: the due time the wake-up before this plan consumed; the row is replaced only while it
   * still holds that, else (and without `seen`) the earlier of the two is kept.
   */
  set(tenant: string, kind: WakeKind, atMs: number, seen?: number): Promise<void>;
  /** What is due by `nowMs`, earliest first, at most `limit` (served by an index on the due time); a read, nothing taken. */
  due(nowMs: number, limit: number): Promise<{ tenant: string; kind: WakeKind; at: number }[]>;
  /**
   * Takes up to `limit` rows due by `nowMs`, earliest first, for this replica's wake-ups: moves
   * each to `untilMs` in one statement and returns them. Of several replicas taking at once, each
   * row goes to one. On PostgreSQL rows being written at that moment (another replica taking
   * them, a plan's due time) are skipped, or with `waitForLocked` waited for and taken if still
   * due. A replica that dies meanwhile leaves its rows due again at `untilMs`; the plan after a
   * wake-up replaces its row (`set` with seen = untilMs).
   */
  takeDue(
    nowMs: number,
    limit: number,
    untilMs: number,
    options?: { waitForLocked?: boolean },
  ): Promise<{ tenant: string; kind: WakeKind }[]>;
  /**
   * Adds a row, due now, for every tenant with live subscriptions or open runs of a kind and no
   * row (an older build added them during a rollout); returns how many.
   */
  adoptMissing(): Promise<number>;
  /** The earliest due time of any tenant, or null when nothing is planned. */
  next(): Promise<number | null>;
}

// ---- tenants -----------------------------------------------------------------------------------

export interface TenantDirectory {
  /** Every tenant that has a row anywhere, sorted ('' first when it has any). */
  list(): Promise<string[]>;
  /**
   * Moves every row of `from` to `to` in one transaction ("existing single-workspace data
   * migrates to its workspace on first install"). Where `to` already has a row under the same
   * key (a setting, a preference, a cached answer), `to`'s row is kept and `from`'s dropped;
   * spend counters are added together, so caps still count what was spent. Returns the rows moved.
   */
  adopt(from: string, to: string): Promise<number>;
  /** Deletes every row of the tenant, in one transaction; returns how many. */
  erase(tenant: string): Promise<number>;
  /** Live digest subscriptions of every tenant (each names its tenant), by tenant then id. */
  digestSubscriptions(): Promise<DigestSubscription[]>;
  /** Live alert subscriptions of every tenant (each names its tenant), by tenant then id. */
  alertSubscriptions(): Promise<AlertSubscription[]>;
  /**
   * The tenants that spent lately, whose caps' running totals the nightly reconciliation compares
   * with the ledger (lookups/reconcile.ts): a counter of a period keyed at or after `periodKey`
   * ('YYYY-MM' or 'YYYY-MM-DD': keys compare as text), a ledger row at or after `since`, or a
   * live reservation. Sorted. A tenant that spent nothing has nothing to compare.
   */
  spenders(periodKey: string, since: Date): Promise<string[]>;
  /** DigestStore.openRuns of every tenant (each names its tenant), by id: the replica's stranded-runs sweep. */
  openDigestRuns(): Promise<DigestRun[]>;
  /** AlertStore.openChecks of every tenant (each names its tenant), by id. */
  openAlertChecks(): Promise<AlertCheck[]>;
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
  /** The tenant it belongs to (store/tenants.ts; '' in single-workspace mode). */
  tenantId: string;
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
  /**
   * Bumped by every claim of the row (0: never claimed, or claimed by a build before fencing):
   * the fencing token of the claim (DESIGN rule 8). A holder checks it just before each call.
   */
  claimEpoch: number;
  /** Calls its holder was allowed to send (each passed `fence`): > 0 means it may have been charged. */
  callsSent: number;
  /**
   * The agent's plan this lookup is a step of (its shortcut batch id, agent/plans.ts), so a step
   * cut off by a crash is told in the plan's thread with the rest of the plan; null otherwise.
   */
  planId: string | null;
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
  /**
   * A fixed id (default: a fresh random one). With a fixed id, create is idempotent: when the row
   * exists it is returned as stored (a redelivered workflow step finds its first delivery's row).
   */
  id?: string;
  userId: string;
  channelId: string | null;
  teamId: string | null;
  request: R;
  quote: Q;
  summary: string;
  responseUrl: string | null;
  /** How long the Confirm button stays valid. */
  ttlMs: number;
  /** The agent's plan it is a step of (PendingLookup.planId). */
  planId?: string | null;
}

/**
 * Why a running claim may be interrupted: its lease ran out at least this long ago (judged by the
 * lease clock: DESIGN rule 9), or its holder's process is certainly gone (instance.ts
 * isCertainlyGone: it cannot renew or call any more, so there is no lease to wait for).
 */
export type InterruptGrounds = { leaseOverForMs: number } | { holderGone: true };

export interface PendingLookups {
  create<R, Q>(input: NewPendingLookup<R, Q>): Promise<PendingLookup<R, Q>>;
  get<R = unknown, Q = unknown>(id: string): Promise<PendingLookup<R, Q> | null>;
  /**
   * Atomically moves pending → running for this user, if not expired, marked with the holder and
   * its lease: one conditional UPDATE, then a read-back to tell why it failed. Of any number of
   * concurrent claims (on any number of connections) exactly one wins. Failure reasons, first
   * match: not_found, not_yours, cancelled, interrupted, already_used (running/done/failed), expired.
   */
  claim<R = unknown, Q = unknown>(
    id: string,
    userId: string,
    holder: ClaimHolder,
  ): Promise<ClaimResult<R, Q>>;
  /** pending → cancelled, by the same rules and reasons as claim. */
  cancel<R = unknown, Q = unknown>(id: string, userId: string): Promise<ClaimResult<R, Q>>;
  /**
   * running → cancelled for its user, only while no call of it was sent (calls_sent = 0): a claim
   * taken ahead of its turn (the steps of an agent's plan, claimed at its Confirm) given up by a
   * Stop, or by its holder when it will not run it. One conditional UPDATE against the fence's
   * (which counts a call in the same statement that checks the claim): of a withdrawal and a call
   * racing, exactly one happens. False: it was not running unsent (a call went, or it ended).
   */
  withdraw(id: string, userId: string): Promise<boolean>;
  /**
   * running → done | failed, storing the rendered result. Returns false (and changes nothing)
   * when the row is missing or not running.
   */
  finish(id: string, state: 'done' | 'failed', resultJson: string | null): Promise<boolean>;
  /**
   * Extends the lease of every running claim of this holder whose lease has not run out; returns
   * how many. A lease that ran out stays out (its holder was paused or cut off past it, and
   * another process may be deciding about it): that claim's next fence fails.
   */
  renewClaims(holder: ClaimHolder): Promise<number>;
  /**
   * The holder's last check just before it sends a call (issue 20 pt 3): one conditional UPDATE
   * that succeeds only while the claim is still running under this holder and epoch and its lease
   * has not run out; it then extends the lease and counts the call as sent, and writes the call
   * ahead (`writeAhead`: SentCalls.record) in the same transaction. False: the claim was lost
   * (interrupted, taken over, or its lease ran out), nothing is written, and the call must not be
   * sent. A store that cannot be reached rejects: no call either.
   */
  fence(id: string, holder: ClaimHolder, epoch: number, writeAhead?: SentCall): Promise<boolean>;
  /**
   * Every running claim, oldest first, with its holder and lease, so a process can tell which
   * ones belong to a holder that is gone.
   */
  runningClaims<R = unknown, Q = unknown>(): Promise<PendingLookup<R, Q>[]>;
  /**
   * running → interrupted, only while the claim is still running under `claimedBy` (and `epoch`,
   * when given: the claim as the caller read it) and on the `grounds` given, judged in the same
   * statement: its lease ran out at least `leaseOverForMs` ago by the lease clock (a holder that
   * renewed since the caller read it keeps it), or its holder is certainly gone (instance.ts).
   * The old holder's next `fence` then fails (the epoch is kept: 0 still tells a claim of a build
   * before fencing). Of several processes deciding at once, exactly one gets the row back, and
   * only that one tells the user. Never re-run.
   */
  interrupt<R = unknown, Q = unknown>(
    id: string,
    claimedBy: string | null,
    epoch: number | undefined,
    grounds: InterruptGrounds,
  ): Promise<PendingLookup<R, Q> | null>;
  /**
   * Housekeeping: deletes rows whose state changed before `olderThan` and that expired before it
   * (a live confirmation is never removed, nor a running claim). Returns the number deleted.
   */
  prune(olderThan: Date): Promise<number>;
}

// ---- spend ledger --------------------------------------------------------------------------

/** Where a charge came from; 'agent': a plan the agent ran after its Confirm (issue 36). */
export type LedgerSource =
  | 'interactive'
  | 'digest'
  | 'alert'
  | 'unfurl'
  | 'shortcut'
  | 'workflow'
  | 'agent'
  | 'mcp';

export interface LedgerEntry {
  id: number;
  /**
   * Fixed before the call (lookups: the lookup's id, the call's place in it and the attempt;
   * digests and alerts: their run or check, its attempt, the call and the attempt): unique in
   * the ledger, so writing a charge twice is a no-op (DESIGN rule 8).
   */
  chargeId: string;
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
  /** A Workflow Builder step's charge (source 'workflow'): its workflow id; else null. */
  workflowExecutionId: string | null;
  /** A Workflow Builder step's charge: the step's callback id (its counter scope 'step'); else null. */
  stepId: string | null;
}

/** A charge to write; the workflow fields default to null (every source but 'workflow'). */
export type NewLedgerEntry = Omit<LedgerEntry, 'id' | 'workflowExecutionId' | 'stepId'> &
  Partial<Pick<LedgerEntry, 'workflowExecutionId' | 'stepId'>>;

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

/**
 * A reservation (BudgetReservations) the charge is paid from: the charge's points, up to what is
 * left of it, move from its counters' `reserved` to `spent` in the ledger row's transaction.
 */
export interface RecordOptions {
  reservationId?: string | null;
}

export interface Ledger {
  /**
   * Writes the charge and adds its points to the running totals (workspace, user, channel; day
   * and month in the budget zone), in one transaction. A charge id already written is a no-op
   * (nothing counted twice): the stored row is returned either way.
   */
  record(entry: NewLedgerEntry, options?: RecordOptions): Promise<LedgerEntry>;
  /** Every charge of one lookup (its pending id), oldest first: what it has cost so far. */
  byPending(pendingId: string): Promise<LedgerEntry[]>;
  /**
   * The points of the newest successful (code 0) entry for this operation and edition (null
   * edition for operations without editions), or null if none: the "last charge seen" of a quote.
   * Error responses are left out because what they withhold says nothing about a normal call, and
   * so are rows of 0 points: every call that reached the service is a row, and a 0 there is an
   * answer that reported no charge, not a price.
   */
  lastCharge(operation: string, edition: number | null): Promise<number | null>;
  /**
   * The most any one call of this operation and edition was charged (points > 0, whatever its
   * code: an error answer's withholding was taken too), or null if none: what a call of it holds
   * against the caps before it is sent (lookups/lookup-service.ts holdFor). O(log n) on the
   * ledger_tenant_operation_edition_points index.
   */
  largestCharge(operation: string, edition: number | null): Promise<number | null>;
  /** Sums over [from, to), optionally for one user, one channel and/or one source. */
  totals(
    q: LedgerRange & { userId?: string; channelId?: string; source?: LedgerSource },
  ): Promise<LedgerTotals>;
  /**
   * Grouped sums over [from, to) for reports. 'user': key is the user id, null for scheduled
   * work; 'operation': the operation; ordered by points, highest first. (Days are counted in the
   * budget zone by lookups/reports.ts, from totals per local day: SQLite knows no IANA zones.)
   */
  groupTotals(by: 'user', q: LedgerRange & { userId?: string }): Promise<LedgerGroupRow<string | null>[]>;
  groupTotals(by: 'operation', q: LedgerRange & { userId?: string }): Promise<LedgerGroupRow[]>;
  /** Entries in [from, to), newest first, for one user or all; at most `limit` (default: all). */
  list(q: LedgerRange & { userId?: string; limit?: number }): Promise<LedgerEntry[]>;
  /** What the calls of one confirmed lookup cost together (its pendingId), retries included. */
  chargesOf(pendingId: string): Promise<LedgerTotals>;
  /**
   * Entries in [from, to), oldest first, read page by page (for CSV export): no connection is
   * held between pages, so the store stays usable while the caller writes them out.
   */
  iterate(q: LedgerRange & { userId?: string }): AsyncIterableIterator<LedgerEntry>;
}

// ---- user preferences ----------------------------------------------------------------------

export interface UserPrefs {
  /** null = always ask (the default); N = skip the confirmation for calls quoted under N points. */
  getConfirmThreshold(userId: string): Promise<number | null>;
  /** null clears it (back to always asking). */
  setConfirmThreshold(userId: string, points: number | null): Promise<void>;
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
  record(e: Omit<AuditRecord, 'at'>): Promise<void>;
  /** The newest `limit` records, newest first; only those of one action when `filter.action` is given. */
  list(limit: number, filter?: { action?: string }): Promise<AuditRecord[]>;
}

/**
 * Generic key → JSON settings that survive restarts (admins, access rules, budgets, shops).
 * Every change writes an audit row in the same transaction.
 */
export interface Settings {
  /** The stored value, unchecked: validate it (zod) where its shape is known. */
  get<T>(key: string): Promise<T | null>;
  /** value must be JSON-serializable (not undefined, a function or a bigint). */
  set(key: string, value: unknown, actorId: string): Promise<void>;
  /** Returns whether the key existed; audits only an actual deletion. */
  delete(key: string, actorId: string): Promise<boolean>;
}

// ---- budget reservations and running totals --------------------------------------------------

/** 'step': a Workflow Builder step's approved spend (subject: the step's callback id). */
export type CapScope = 'user' | 'channel' | 'workspace' | 'step';

/**
 * One cap that applies to a reservation: a scope (the workspace, a user, a channel), its local
 * period (store/periods.ts: the key of the day or month in the budget zone) and its points.
 */
export interface CapLimit {
  scope: CapScope;
  /** '*' for the workspace, else the user or channel id. */
  subject: string;
  period: 'daily' | 'monthly';
  /** 'YYYY-MM-DD' or 'YYYY-MM' (periods.ts periodKeys). */
  key: string;
  cap: number;
}

/** A cap with what is spent in its period: the counter's spent plus reserved. */
export interface CapUse extends CapLimit {
  spent: number;
}

export type ReserveResult =
  | { ok: true; id: string; uses: CapUse[] }
  /** `exceeded`: the first cap that `points` more would pass; nothing was reserved. */
  | { ok: false; exceeded: CapUse; uses: CapUse[] };

/** A counter that does not match the ledger (or the live reservations), found by reconcile(). */
export interface CounterDifference {
  scope: CapScope;
  subject: string;
  period: 'daily' | 'monthly';
  key: string;
  /** 'spent': against the ledger's rows; 'reserved': against the live reservations. */
  field: 'spent' | 'reserved';
  counter: number;
  expected: number;
}

export interface BudgetReservations {
  /** Each cap with its spend now (counter spent + reserved); for the quote's check and warnings. */
  uses(caps: readonly CapLimit[]): Promise<CapUse[]>;
  /**
   * One transaction: one conditional upsert per cap's counter, in a fixed order
   * (`spent + reserved + points <= cap`), all or nothing, then the reservation row, which counts
   * until released, consumed by the charges written against it, or expired (`ttlMs`: a process
   * that died mid-call). O(1) in the ledger's size; two processes can never both pass a cap.
   */
  reserve(input: {
    userId: string | null;
    points: number;
    caps: readonly CapLimit[];
    ttlMs: number;
  }): Promise<ReserveResult>;
  /**
   * Grows a live reservation by `points` on every counter it holds, under the same condition,
   * all or nothing, and moves its expiry to now + ttlMs (a retry about to be sent). False: a
   * cap would be passed (nothing changed), or the reservation is gone.
   */
  extend(id: string, points: number, ttlMs: number): Promise<boolean>;
  /** Gives back what is left of a reservation (its charges are in the ledger, or the call made none). */
  release(id: string): Promise<void>;
  /** Gives back expired reservations (each exactly once, whichever process sees it); how many. */
  prune(): Promise<number>;
  /**
   * Compares the counters of these periods with the ledger's rows (spent) and the live
   * reservations (reserved), in one consistent read; every difference found. Changes nothing.
   */
  reconcile(
    periods: readonly { period: 'daily' | 'monthly'; key: string; from: Date; to: Date }[],
  ): Promise<CounterDifference[]>;
}

// ---- answer cache and alerts -----------------------------------------------------------------

export interface AnswerCache {
  /** The value stored under key at or after `notBefore`, or null. */
  get(key: string, notBefore: Date): Promise<{ valueJson: string; storedAt: Date } | null>;
  set(key: string, valueJson: string): Promise<void>;
  /** Housekeeping: entries stored before `olderThan`. */
  prune(olderThan: Date): Promise<number>;
  clear(): Promise<void>;
}

export interface AlertsSent {
  /**
   * Records that the alert `key` is sent now, unless it was sent less than `minIntervalMs` ago:
   * true for exactly one caller of any number racing (that one sends it).
   */
  claim(key: string, minIntervalMs: number): Promise<boolean>;
  /** The newest alerts whose key starts with `prefix`, newest first (the App Home shows them). */
  recent(prefix: string, limit: number): Promise<{ key: string; sentAt: Date }[]>;
  /**
   * Housekeeping: forgets alerts sent before `olderThan`; returns how many. A key claimed "once
   * ever" must hold its own period (the budget alerts' keys hold their day), so forgetting it
   * after that period has passed cannot send it again.
   */
  prune(olderThan: Date): Promise<number>;
}

export interface PeriodicTurns {
  /**
   * Takes the turn at the job `name` for `holder`, unless a turn was taken less than `periodMs`
   * ago (by anyone): true for at most one caller of any number racing, on both engines.
   */
  take(name: string, holder: string, periodMs: number): Promise<boolean>;
  /** When the last turn at `name` was taken (by anyone), or null when none was. */
  takenAt(name: string): Promise<Date | null>;
}

// ---- leased runs (digest runs and alert checks) ----------------------------------------------

/**
 * Who claims a run, and for how long. The store stamps the lease from its lease clock (the
 * database's: DESIGN rule 9), never from the claimer's: `leaseExpiresAt` is in that clock, so a
 * holder measures its own time left from when it asked (digest/run-fence.ts), not from it.
 */
export interface Lease {
  owner: string;
  ms: number;
}

/** The holder of a claimed run: its owner and the epoch its claim set (a fencing token). */
export interface RunHolder {
  owner: string;
  epoch: number;
}

/** A holder's lease, to extend it or to move the run on. */
export type HeldLease = Lease & RunHolder;

export type LeasedRunState = 'running' | 'posting' | 'posted' | 'failed' | 'awaiting_approval' | 'unknown';

/** What every leased run records, whatever it is a run of. */
export interface LeasedRun {
  id: number;
  /** The tenant it belongs to (store/tenants.ts; '' in single-workspace mode). */
  tenantId: string;
  subscriptionId: number;
  state: LeasedRunState;
  /** Executions started (the first one included). */
  attempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  /**
   * Set while failed and a retry is planned, or while unknown and the history check is planned;
   * null once given up (unknown with no check: the history could not be read, admins were told).
   */
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
  /** Bumped by every claim (1 for a new run): the holder's writes must name it. */
  epoch: number;
  /**
   * When its holder last was about to send its keyed post (stamped under its epoch right before
   * the post): the history check reads a narrow window around it. Null: no post was attempted
   * by this build (a run an older replica left may still have posted: read from its creation).
   */
  postAttemptAt: Date | null;
  /**
   * Where a history check cut short by Slack's rate limit goes on from (the Slack side's words);
   * null: from the start.
   */
  checkProgress: string | null;
}

/** A post whose outcome Slack left unclear. */
export interface UnknownPost {
  error: string;
  /** When to read the channel's history for the post's key; null: it cannot be read (given up). */
  checkAt: Date | null;
  now: Date;
  /** Where the next history check goes on from (a check the rate limit cut short); default null. */
  checkProgress?: string | null;
}

export interface RunFailure {
  error: string;
  /** When to retry; null gives up. */
  nextAttemptAt: Date | null;
  now: Date;
}

/**
 * How long after an unclear post, or after the lease of a holder that stopped while posting, the
 * channel's history is read for the post's key (digest/posted-once.ts): a request still on its
 * way to Slack has landed by then, so "not in the history" means it never will be. Longer than a
 * run's lease (22 s, digest/run-fence.ts) + a keyed post's timeout (20 s,
 * slack/scheduled-posts.ts KEYED_POST_TIMEOUT_MS) + the largest clock-skew budget (config.ts CLOCK_SKEW_BUDGET_MAX_MS; issue 33 finding 5):
 * a holder that passed its fence's check just before its lease ran out has its post answered or
 * abandoned well before anyone reads the history for it (test/digest/posting-ends.test.ts checks
 * the sum).
 */
export const POST_SETTLE_MS = 50_000;

/**
 * How an existing run was claimed: taken over (its holder's lease expired while running), taken
 * for its due retry, taken to verify a post whose outcome is unknown (state 'posting': the holder
 * reads the channel's history for the post's key before posting), or not at all (someone holds
 * it, or it is finished or waiting). A 'posting' run whose holder's lease expired becomes
 * 'unknown' with its check due POST_SETTLE_MS after that lease.
 */
export type ExistingRunClaim = 'takeover' | 'retry' | 'verify' | null;

/**
 * Whether a claim could change the run now: its holder's lease has expired (a takeover, or a post
 * left unknown), or its retry or history check is due. Lets a scheduler skip a write transaction.
 */
export function claimable(run: LeasedRun, nowMs: number): boolean {
  switch (run.state) {
    case 'running':
    case 'posting':
      return run.leaseExpiresAt === null || run.leaseExpiresAt.getTime() <= nowMs;
    case 'failed':
    case 'unknown':
      return run.nextAttemptAt !== null && run.nextAttemptAt.getTime() <= nowMs;
    default:
      return false;
  }
}

// ---- digests --------------------------------------------------------------------------------

export interface DigestSubscription {
  id: number;
  /** The tenant it belongs to (store/tenants.ts; '' in single-workspace mode). */
  tenantId: string;
  /** paging-orders owner_id. */
  ownerId: string;
  /** What the admin typed (a shop alias or the owner id), for display. */
  shopLabel: string;
  channelId: string;
  /** 'HH:MM' in timeZone. */
  localTime: string;
  /** Canonical IANA zone name. */
  timeZone: string;
  createdBy: string;
  createdAt: Date;
  /** Every time of day it is posted, ascending ('HH:MM'); localTime is the first. */
  times: string[];
  /** Days of the week it is posted (0 Sunday … 6 Saturday, in timeZone); null: every day. */
  days: number[] | null;
  /** 'thread': a summary in the channel and the details as replies; 'single': one message. */
  layout: DigestLayout;
  /** Only orders with these remark flags (1 red … 5 purple); null: all. */
  flags: number[] | null;
  /** Only orders in these statuses (1 awaiting shipment, 2 shipped, 3 received); null: all. */
  statuses: number[] | null;
}

export type DigestLayout = 'thread' | 'single';

/** The options default to today's digest: once a day at localTime, every day, one message, no filter. */
export type NewDigestSubscription = Omit<
  DigestSubscription,
  'id' | 'createdAt' | 'tenantId' | 'times' | 'days' | 'layout' | 'flags' | 'statuses'
> &
  Partial<Pick<DigestSubscription, 'times' | 'days' | 'layout' | 'flags' | 'statuses'>>;

/** scheduled: the one run of a local date; manual: "Run now", as many as admins ask for. */
export type DigestRunKind = 'scheduled' | 'manual';

/** A leased run (runs.ts) of a digest. */
export interface DigestRun extends LeasedRun {
  kind: DigestRunKind;
  /** 'YYYY-MM-DD' in the subscription's zone. */
  localDate: string;
  /** The orders read: [windowStart, windowEnd). */
  windowStart: Date;
  windowEnd: Date;
  /** The failure notice posted in the channel (at most one per run). */
  noticeTs: string | null;
  /** The digest message (or, for "Run now", its progress message until the digest replaces it). */
  messageTs: string | null;
  /** digest/summarize.ts DigestSummary as JSON: kept from 'posting' on. */
  summaryJson: string | null;
  /** Slack user who ran it now or approved it; null for the scheduler. */
  requestedBy: string | null;
  updatedAt: Date;
}

export interface NewDigestRun {
  subscriptionId: number;
  localDate: string;
  windowStart: Date;
  windowEnd: Date;
  requestedBy: string | null;
}

export type RunClaim =
  /**
   * The caller holds the run now. `how`: first execution, lease takeover, a due retry, or a
   * history check of a post left unknown ('verify': the run is 'posting').
   */
  | { claimed: true; run: DigestRun; how: 'new' | 'takeover' | 'retry' | 'verify' }
  /** Someone else holds it, or it is finished, waiting for approval, a retry or a history check. */
  | { claimed: false; run: DigestRun };

export interface DigestStore {
  add(input: NewDigestSubscription): Promise<DigestSubscription>;
  /** An active subscription. */
  get(id: number): Promise<DigestSubscription | null>;
  /** Active subscriptions, oldest first. */
  list(): Promise<DigestSubscription[]>;
  /** Soft delete (run records keep pointing at it); audited. False when not found or already removed. */
  remove(id: number, actorId: string): Promise<boolean>;
  /**
   * Housekeeping: deletes the runs created before `olderThan` (with the rows that belong to
   * them, children first) except a run still held under a live lease; returns how many runs.
   */
  pruneRuns(olderThan: Date): Promise<number>;

  /**
   * Claims the scheduled run of (subscription, local date) in one transaction under the digest's lock: creates
   * it, takes over a 'running' one whose lease has expired, or takes a 'failed' one whose retry
   * is due. Of any number of instances claiming at once, exactly one gets `claimed: true`.
   */
  claimScheduled(input: NewDigestRun, lease: Lease): Promise<RunClaim>;
  /**
   * A "Run now" run, held by the caller, created under the digest's lock; null while another "Run
   * now" of the subscription is open (running, posting, or its post unknown: two at once buy
   * the pages once) and, with `newestRunId`, unless that run is still the subscription's newest
   * (a "Run again" is single-use across processes).
   */
  createManual(input: NewDigestRun, lease: Lease, newestRunId?: number): Promise<DigestRun | null>;
  run(id: number): Promise<DigestRun | null>;
  scheduledRun(subscriptionId: number, localDate: string): Promise<DigestRun | null>;
  /** The newest run of any kind. */
  lastRun(subscriptionId: number): Promise<DigestRun | null>;
  /** The newest posted scheduled run with local_date < beforeLocalDate (the comparison base). */
  previousPosted(subscriptionId: number, beforeLocalDate: string): Promise<DigestRun | null>;

  /**
   * Extends the caller's lease; false when the caller no longer holds the run (another claim
   * bumped the epoch, or it is no longer running or posting).
   */
  renew(runId: number, lease: HeldLease): Promise<boolean>;
  /** Gives the lease up at once (shutdown), so another instance may take the run over now. */
  release(runId: number, holder: RunHolder, now: Date): Promise<boolean>;
  /** Adds calls and their charges; unconditional, since they happened whoever holds the run. */
  addCharge(runId: number, points: number, calls: number): Promise<void>;
  /** running → posting, storing the summary, if the caller still holds it. */
  markPosting(runId: number, lease: HeldLease, summaryJson: string): Promise<boolean>;
  /** posting → posted. */
  markPosted(runId: number, holder: RunHolder, messageTs: string, now: Date): Promise<boolean>;
  /** posting → unknown: Slack's answer to the post was unclear (digest/posted-once.ts). */
  markUnknown(runId: number, holder: RunHolder, unknown: UnknownPost): Promise<boolean>;
  /**
   * Stamps the holder's post attempt (still posting, under its epoch), right before it sends the
   * keyed post: false when the run is no longer the holder's (it must not post). Clears
   * checkProgress (a new post means a new window).
   */
  markPostAttempt(runId: number, holder: RunHolder, at: Date): Promise<boolean>;
  /**
   * running → failed, releasing the lease. Never from posting (issue 33 finding 4): a run whose
   * post may have been sent goes to its history check (markUnknown), or, when Slack surely
   * refused the holder's own post, to markRefused.
   */
  markFailed(
    runId: number,
    holder: RunHolder,
    failure: { error: string; nextAttemptAt: Date | null; now: Date },
  ): Promise<boolean>;
  /**
   * posting → failed: Slack surely refused the holder's post (an `ok: false` it answered before
   * doing anything), and an earlier post of the run is surely absent (the holder verified, or no
   * earlier attempt posted). A retry may then post without reading the history.
   */
  markRefused(
    runId: number,
    holder: RunHolder,
    failure: { error: string; nextAttemptAt: Date | null; now: Date },
  ): Promise<boolean>;
  /**
   * Runs that wait for something a claim would do, of any kind and any local date: running or
   * posting (a live lease, or one that ran out), failed with a retry planned, unknown with a
   * history check planned (the stranded-runs sweep, digest/stranded.ts).
   */
  openRuns(): Promise<DigestRun[]>;
  /**
   * Claims an existing run by id, of any kind and day, under the digest's lock (as claimScheduled
   * claims an existing one): a takeover of an expired lease, a due retry, a due history check.
   */
  claimRun(runId: number, lease: Lease): Promise<RunClaim>;
  /** running → awaiting_approval, releasing the lease. */
  awaitApproval(runId: number, holder: RunHolder, estimatePoints: number, now: Date): Promise<boolean>;
  /** awaiting_approval → running under the caller's lease (single-use: a second click gets null). */
  claimApproved(runId: number, lease: Lease, approvedBy: string): Promise<DigestRun | null>;
  setNoticeTs(runId: number, ts: string): Promise<void>;
  setMessageTs(runId: number, ts: string): Promise<void>;
}

/** One page a digest run bought (store/digest-pages.ts). */
export interface DigestPage {
  runId: number;
  /** Which of the run's time windows (digest/fetch-orders.ts splitWindows), from 0. */
  window: number;
  /** The page number sent (from 0). */
  page: number;
  /** The window's pages, as this page's answer counted them. */
  totalPages: number;
  /**
   * The page's orders as the summary needs them, as JSON whose shape belongs to digest/
   * (page-orders.ts): never receiver data (DESIGN rule 6).
   */
  ordersJson: string;
  orderCount: number;
  /** withholding_money of the call that bought it. */
  points: number;
  /** The run's execution (attempts then) that bought it. */
  attempt: number;
  /** The holder's epoch that recorded it. */
  epoch: number;
  /** digest:<run>:<window>:<page>: one charge per page, whichever attempt bought it. */
  chargeKey: string;
  createdAt: Date;
}

export type NewDigestPage = Pick<
  DigestPage,
  'window' | 'page' | 'totalPages' | 'ordersJson' | 'orderCount' | 'points'
>;

export interface DigestPages {
  /**
   * In one transaction: adds the page's charge (points, one call) to the run and records the
   * page, only while `holder` holds the run (running, under its epoch). False, with nothing
   * written, when it does not.
   */
  record(runId: number, holder: RunHolder, page: NewDigestPage): Promise<boolean>;
  /** The run's pages, by window and page. */
  list(runId: number): Promise<DigestPage[]>;
}

/**
 * A call about to be sent (a lookup's, a digest run's, an alert check's): its charge id, written
 * before it is sent, and what a ledger row for it needs should its answer never be read.
 */
export interface SentCall {
  chargeId: string;
  /** `lookup:<pending id>`, `digest:<run>` or `alert:<check>`. */
  runKey: string;
  /** The claim's epoch that sends it. */
  epoch: number;
  source: LedgerSource;
  operation: string;
  edition: number | null;
  channelId: string | null;
  correlationId: string | null;
  attempt: number;
  sentAt: Date;
  /** A lookup's call: the ledger row's user, lookup and workflow step (null for scheduled work). */
  userId?: string | null;
  pendingId?: string | null;
  workflowExecutionId?: string | null;
  stepId?: string | null;
}

/** A call as written ahead, with what is known of its send. */
export interface WrittenCall extends SentCall {
  /**
   * Its request was written to the service (marked just after): it reached the service, or may
   * have. False: its holder died (or was cut off) between the write ahead and that mark, so it
   * may never have left (docs/money.md, "What the ledger knows of a call").
   */
  sent: boolean;
}

/** A call written ahead lately (any tenant), by the database's clock: when it can still arrive. */
export interface RecentCall {
  /** How long ago it was written ahead, by the database's clock. */
  writtenAgoMs: number;
  /**
   * How long ago its answer was read (its ledger row's time, another replica's clock perhaps,
   * against the database's now), null while it has none (a placeholder is none either).
   */
  answeredAgoMs: number | null;
}

export interface SentCalls {
  /**
   * Written before the call is sent, its mark cleared; written again (a retried preparation),
   * its times are those of the last write.
   */
  record(call: SentCall): Promise<void>;
  /** Its request was written to the service. */
  markSent(chargeId: string): Promise<void>;
  /**
   * The call was not sent after all, or surely never reached the service: its row goes, and so
   * does a "may not have been sent" ledger row a sweep wrote for it meanwhile.
   */
  withdraw(chargeId: string): Promise<void>;
  /** Calls of `runKey` sent under an epoch before `epoch` whose charge id has no ledger row. */
  unanswered(runKey: string, epoch: number): Promise<WrittenCall[]>;
  /** Forgets the calls of `runKey` whose charge is in the ledger. */
  forgetRecorded(runKey: string): Promise<void>;
  /**
   * Housekeeping, every tenant: calls written ahead before `before` whose charge id has no
   * ledger row (nobody settled them), oldest first, at most `limit`; each names its tenant.
   */
  unsettled(before: Date, limit: number): Promise<(WrittenCall & { tenantId: string })[]>;
  /** Housekeeping, every tenant: forgets calls written ahead before `before` whose charge is in the ledger. */
  pruneRecorded(before: Date): Promise<number>;
  /**
   * Every tenant: the calls written ahead within the last `withinMs` of the database's clock
   * (a limiter starting: which of them may still arrive).
   */
  recent(withinMs: number): Promise<RecentCall[]>;
}

// ---- ship-by alerts -------------------------------------------------------------------------

export interface AlertSubscription {
  id: number;
  /** The tenant it belongs to (store/tenants.ts; '' in single-workspace mode). */
  tenantId: string;
  /** paging-orders owner_id. */
  ownerId: string;
  /** What the admin typed (alias or owner id), for display. */
  shopLabel: string;
  channelId: string;
  /** Orders whose latest ship time falls within this many hours are alerted. */
  withinHours: number;
  everyMinutes: number;
  /** Working hours 'HH:MM'–'HH:MM' in timeZone: checks run only then. */
  hoursFrom: string;
  hoursTo: string;
  timeZone: string;
  /** Points this alert may spend a local day without an admin's approval. */
  capPoints: number;
  createdBy: string;
  createdAt: Date;
}

export type NewAlertSubscription = Omit<AlertSubscription, 'id' | 'createdAt' | 'tenantId'>;

/** A leased run (runs.ts) of an alert: one check of one slot. */
export interface AlertCheck extends LeasedRun {
  /** The slot's instant (the check's due time). */
  slotAt: Date;
  /** 'YYYY-MM-DD' of the slot in the subscription's zone (the day of the cost cap). */
  localDate: string;
  /** The alert message this check posted (null when it found nothing new). */
  messageTs: string | null;
}

export type AlertOrderState = 'pending' | 'alerted' | 'handled' | 'shipped' | 'unknown';

/** What an alert shows of an order: never receiver data (DESIGN rule 6). */
export interface AlertOrderFacts {
  orderSn: string;
  goodsName: string;
  goodsCount: number;
  amountFen: number;
  lastShipTime: Date;
}

export interface AlertOrder extends AlertOrderFacts {
  subscriptionId: number;
  checkId: number;
  state: AlertOrderState;
  messageTs: string | null;
  claimedBy: string | null;
  claimedAt: Date | null;
  /** Who pressed Handled, when it is handled. */
  doneBy: string | null;
  doneAt: Date | null;
  remindedAt: Date | null;
}

export type AlertCheckClaim =
  | { claimed: true; check: AlertCheck; how: 'new' | 'takeover' | 'retry' | 'verify' }
  | { claimed: false; check: AlertCheck };

export type ClaimOrderResult =
  | { ok: true; order: AlertOrder }
  /** Someone else has it (or it is done): `order` names who. */
  | { ok: false; reason: 'taken' | 'done' | 'not_found'; order: AlertOrder | null };

export interface AlertStore {
  add(input: NewAlertSubscription): Promise<AlertSubscription>;
  get(id: number): Promise<AlertSubscription | null>;
  list(): Promise<AlertSubscription[]>;
  remove(id: number, actorId: string): Promise<boolean>;

  /**
   * Claims the check of (subscription, slot): creates it, takes over a 'running' one whose lease
   * expired, takes a 'failed' one whose retry is due, or an 'unknown' one whose history check is
   * due ('verify'; a 'posting' one whose lease expired becomes 'unknown' first, runs.ts). Creating
   * a check gives up the retries of the subscription's older failed checks (the new check reads
   * everything anew).
   */
  claimCheck(
    input: { subscriptionId: number; slotAt: Date; localDate: string },
    lease: Lease,
  ): Promise<AlertCheckClaim>;
  check(id: number): Promise<AlertCheck | null>;
  checkAt(subscriptionId: number, slotAt: Date): Promise<AlertCheck | null>;
  /** The newest check that fetched (posted), for the next estimate. */
  lastPosted(subscriptionId: number): Promise<AlertCheck | null>;
  /** Checks that wait for a retry, a history check or a lease expiry (for the scheduler's timer). */
  openChecks(): Promise<AlertCheck[]>;
  /** Points charged by the subscription's checks of a local date. */
  spentOn(subscriptionId: number, localDate: string): Promise<number>;
  renew(checkId: number, lease: HeldLease): Promise<boolean>;
  release(checkId: number, holder: RunHolder, now: Date): Promise<boolean>;
  addCharge(checkId: number, points: number, calls: number): Promise<void>;
  /**
   * Records orders found by a check as 'pending' (an order that already has a row is left
   * alone) and adopts the subscription's pending rows left by an earlier attempt (not those of a
   * check whose post is in doubt: 'posting' or 'unknown', it posts them or finds them); returns every
   * pending row, most urgent first. Only the holder's call counts: false lease → null.
   */
  recordPending(
    checkId: number,
    lease: HeldLease,
    orders: readonly AlertOrderFacts[],
  ): Promise<AlertOrder[] | null>;
  /** running → posting under the lease. */
  markPosting(checkId: number, lease: HeldLease): Promise<boolean>;
  /** posting → posted; the pending rows become 'alerted' with the message (null: nothing was new). */
  markPosted(checkId: number, holder: RunHolder, messageTs: string | null, now: Date): Promise<boolean>;
  /**
   * posting → unknown (digest/posted-once.ts). Given up (`checkAt` null): its pending rows become
   * 'unknown', so no later check posts them again.
   */
  markUnknown(checkId: number, holder: RunHolder, unknown: UnknownPost): Promise<boolean>;
  /** As DigestStore.markPostAttempt. */
  markPostAttempt(checkId: number, holder: RunHolder, at: Date): Promise<boolean>;
  /** running → failed (never from posting: DigestStore.markFailed). */
  markFailed(
    checkId: number,
    holder: RunHolder,
    failure: { error: string; nextAttemptAt: Date | null; now: Date },
  ): Promise<boolean>;
  /** posting → failed on Slack's sure refusal of the holder's post (DigestStore.markRefused). */
  markRefused(
    checkId: number,
    holder: RunHolder,
    failure: { error: string; nextAttemptAt: Date | null; now: Date },
  ): Promise<boolean>;
  awaitApproval(checkId: number, holder: RunHolder, estimatePoints: number, now: Date): Promise<boolean>;
  /** awaiting_approval → running for the caller (single-use). */
  claimApproved(checkId: number, lease: Lease): Promise<AlertCheck | null>;

  /**
   * Orders of the subscription in these states, most urgent first; with `shipAfter`, only those
   * whose latest ship time is at or after it (a check needs no others).
   */
  orders(subscriptionId: number, states: readonly AlertOrderState[], shipAfter?: Date): Promise<AlertOrder[]>;
  /**
   * Housekeeping: deletes orders whose latest ship time is before `before`, and checks created
   * before it that no order points at. Returns the rows deleted.
   */
  prune(before: Date): Promise<number>;
  order(subscriptionId: number, orderSn: string): Promise<AlertOrder | null>;
  /** The orders one alert message carries, in the order they were listed. */
  ordersOfMessage(subscriptionId: number, messageTs: string): Promise<AlertOrder[]>;
  /** Claim: only an alerted, unclaimed order (or the claimer's own again). */
  claimOrder(subscriptionId: number, orderSn: string, userId: string, now: Date): Promise<ClaimOrderResult>;
  /** Handled: alerted → handled. */
  handleOrder(subscriptionId: number, orderSn: string, userId: string, now: Date): Promise<ClaimOrderResult>;
  /** alerted → shipped, once; false when it was not alerted. */
  markShipped(subscriptionId: number, orderSn: string, now: Date): Promise<boolean>;
  /** Sets reminded_at once; true for the one caller that set it. */
  markReminded(subscriptionId: number, orderSn: string, now: Date): Promise<boolean>;

  /** The day's cap approval: who approved the subscription's spending past its cap that local day. */
  approvedOn(subscriptionId: number, localDate: string): Promise<string | null>;
  approveDay(subscriptionId: number, localDate: string, userId: string, now: Date): Promise<void>;
  /** Whether the admins were asked that day already; true for the first caller only. */
  markAsked(subscriptionId: number, localDate: string, now: Date): Promise<boolean>;
  /** The failure notice in the channel (one per streak of failures), or null. */
  noticeTs(subscriptionId: number): Promise<string | null>;
  setNoticeTs(subscriptionId: number, ts: string | null): Promise<void>;
}

// ---- unfurls, events and shortcut batches ------------------------------------------------------

export type UnfurlState = 'offered' | 'running' | 'done' | 'failed';

export interface UnfurlRecord {
  id: number;
  channelId: string;
  itemId: string;
  /** Who posted the link (automatic lookups) or clicked Look up (offered ones). */
  userId: string;
  createdAt: Date;
  /**
   * offered: a Look up click was offered a confirmation (`pendingId`: its pending lookup, whose
   * result is the earlier result once done); running → done | failed: an automatic lookup.
   */
  state: UnfurlState;
  auto: boolean;
  pendingId: string | null;
  /** The item outcome (lookups/types.ts LookupOutcome of kind 'item') as JSON, once done. */
  outcomeJson: string | null;
}

export type BeginAutoResult =
  /** This caller runs the automatic lookup; `used` counts it. */
  | { started: true; record: UnfurlRecord; used: number }
  /** An automatic lookup of this item in this channel is running, done or failed within the window. */
  | { started: false; reason: 'busy'; record: UnfurlRecord }
  /** The channel's cap is used up for the day: nothing recorded, nothing taken. */
  | { started: false; reason: 'capped'; used: number };

export interface UnfurlStore {
  /**
   * Records an Events API event id and answers whether it was new (false: a retry or a
   * duplicate delivery). Ids older than `keepMs` are forgotten on the way.
   */
  firstSeen(eventId: string, keepMs: number): Promise<boolean>;
  /** Records of (channel, item) created at or after `since`, newest first. */
  recent(channelId: string, itemId: string, since: Date): Promise<UnfurlRecord[]>;
  /**
   * In one transaction under the unfurls lock: unless an automatic lookup of (channel, item) is running, done
   * or failed since `since`, and unless `cap` automatic lookups of the channel were already
   * counted on `day`, takes one of the day's lookups and records a running one.
   */
  beginAuto(input: {
    channelId: string;
    itemId: string;
    userId: string;
    since: Date;
    day: string;
    cap: number;
  }): Promise<BeginAutoResult>;
  /**
   * An automatic lookup that did not call after all (refused, or answered from the cache): its
   * record is removed when `keep` is false, and the day's count is given back.
   */
  abandonAuto(id: number, day: string, keep?: { outcomeJson: string }): Promise<void>;
  /** running → done | failed. */
  finishAuto(
    id: number,
    state: 'done' | 'failed',
    outcomeJson: string | null,
    pendingId: string | null,
  ): Promise<void>;
  /** A Look up click that was offered a lookup (its pending id). */
  recordOffered(input: {
    channelId: string;
    itemId: string;
    userId: string;
    pendingId: string;
  }): Promise<UnfurlRecord>;
  /** Automatic lookups counted for a channel on a day. */
  autoUsed(channelId: string, day: string): Promise<number>;
  /** Housekeeping: unfurl records, day counts and expired shortcut batches older than `olderThan`. */
  prune(olderThan: Date): Promise<number>;
  /** Housekeeping: forgets event ids handled before `olderThan`; returns how many. */
  forgetEvents(olderThan: Date): Promise<number>;
}

export type BatchState = 'open' | 'used';

/** The lookups a shortcut's modal offers; claimed once by the modal's Confirm. */
export interface ShortcutBatch {
  /** crypto.randomUUID(). */
  id: string;
  userId: string;
  /** Which shortcut: items | waybills | shops | any (the global shortcut). */
  kind: string;
  /** Where the message was (null for the global shortcut). */
  channelId: string | null;
  /** The thread to answer in (the message's thread, or the message itself). */
  threadTs: string | null;
  /** What was found (lookups/message-refs.ts), as JSON. */
  payloadJson: string;
  createdAt: Date;
  expiresAt: Date;
  state: BatchState;
  /** When it was used (or created, while open). */
  stateChangedAt: Date;
  /** The process (instance id) whose claim used it; null while open, or used by an older build. */
  usedBy: string | null;
  /** When what became of it was told (an agent plan's closing summary); null: not yet. */
  settledAt: Date | null;
}

export type BatchClaim =
  | { ok: true; batch: ShortcutBatch }
  | {
      ok: false;
      reason: 'not_found' | 'not_yours' | 'already_used' | 'expired';
      batch: ShortcutBatch | null;
    };

export interface ShortcutBatches {
  create(input: {
    /** A fixed id (default a fresh random one): the agent's plan names its steps' rows with it first. */
    id?: string;
    userId: string;
    kind: string;
    channelId: string | null;
    threadTs: string | null;
    payloadJson: string;
    ttlMs: number;
  }): Promise<ShortcutBatch>;
  get(id: string): Promise<ShortcutBatch | null>;
  /**
   * open → used, for its user, before expiry: one conditional UPDATE, so exactly one claim wins.
   * `usedBy`: the claiming process's instance id, kept so a sweep can tell when it is gone.
   */
  claim(id: string, userId: string, usedBy?: string): Promise<BatchClaim>;
  /**
   * Deployment-wide: used batches of `kind` not yet settled, used by a claim that named its
   * process (`usedBy`: a Confirm, not a Cancel), at or after `usedSince`,
   * oldest first (at most a page), each with its tenant.
   */
  unsettled(kind: string, usedSince: Date): Promise<{ tenantId: string; batch: ShortcutBatch }[]>;
  /** Marks a used batch settled (its outcome told): true for exactly one caller. */
  settle(id: string): Promise<boolean>;
}

// ---- the agent (issue 36) ------------------------------------------------------------------

/** A vote on one of the agent's answers. */
export interface AgentFeedback {
  userId: string;
  channelId: string;
  messageTs: string;
  value: 'good' | 'bad';
  /** The tools of the plan the answer was about, comma-separated (no question text is kept). */
  tools: string;
  at: Date;
}

export interface AgentStore {
  /** What a thread's last answer found (JSON, agent/memory.ts), or null. */
  thread(channelId: string, threadTs: string): Promise<string | null>;
  /** Replaces it. */
  setThread(channelId: string, threadTs: string, contextJson: string): Promise<void>;
  /** One vote per person and answer: a second one replaces the first. */
  addFeedback(feedback: AgentFeedback): Promise<void>;
  /** Votes since `since`: counts, and the newest few. */
  feedback(since: Date, limit: number): Promise<{ good: number; bad: number; recent: AgentFeedback[] }>;
  /** Housekeeping: threads untouched since `olderThan` are forgotten; returns how many. */
  prune(olderThan: Date): Promise<number>;
}

// ---- MCP tokens (issue 37) --------------------------------------------------------------------

/** A token as platdesk keeps it: never the token itself, only its hash. */
export interface McpToken {
  id: string;
  tenant: string;
  userId: string;
  name: string;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  /** The name the AI client gave at its last use (MCP initialize's clientInfo), if any. */
  clientName: string | null;
  revokedAt: Date | null;
}

export interface McpTokens {
  /** Stores a new token (its hash); false when this person already has a live one of that name. */
  create(token: {
    id: string;
    userId: string;
    name: string;
    hash: string;
    expiresAt: Date;
  }): Promise<boolean>;
  /**
   * The token with this hash, in any tenant (a bearer token names its tenant only through its
   * row; the hash is unique across tenants), revoked and expired ones too.
   */
  byHash(hash: string): Promise<McpToken | null>;
  /** A person's tokens not revoked (expired ones included, so they can see why), newest first; null: everyone's. */
  list(userId: string | null): Promise<McpToken[]>;
  /** Revokes the live token of this name (of this person, or of anyone when userId is null); how many. */
  revoke(name: string, userId: string | null, by: string): Promise<number>;
  /** Notes a use (at most once a minute per token is enough for "last used"). */
  used(id: string, at: Date, clientName: string | null): Promise<void>;
}

// ---- Slack installations and plat accounts (distributed mode) --------------------------------

/** An installation as platdesk keeps it (tokens opened; sealed in the row). */
export interface InstallationRecord {
  /** The enterprise id of an org-wide Grid install, else the team id. */
  tenant: string;
  enterpriseId: string | null;
  enterpriseName: string | null;
  teamId: string | null;
  teamName: string | null;
  isEnterpriseInstall: boolean;
  appId: string | null;
  botId: string;
  botUserId: string;
  botScopes: string[];
  botToken: string;
  /** Set when the app has token rotation on. */
  botRefreshToken: string | null;
  botExpiresAt: Date | null;
  /** Who installed it: that tenant's first admin. */
  installerUserId: string;
  installedAt: Date;
  updatedAt: Date;
}

export type NewInstallation = Omit<InstallationRecord, 'installedAt' | 'updatedAt'>;

/** What a refresh grant answered. */
export interface TokenRefresh {
  token: string;
  refreshToken: string;
  expiresAt: Date;
}

/** A tenant that uninstalled: its data is erased after `eraseAfter`. */
export interface TenantErasure {
  tenant: string;
  /** `app_uninstalled`, `tokens_revoked` or `admin_request`. */
  reason: string;
  uninstalledAt: Date;
  eraseAfter: Date;
  erasedAt: Date | null;
}

export interface Installations extends InstallationStore {
  /** Writes (or replaces) a tenant's installation; cancels an erasure not yet done. */
  save(record: NewInstallation): Promise<void>;
  get(tenant: string): Promise<InstallationRecord | null>;
  /**
   * Under the installation's lock, reads it again and, if it still has a refresh token and
   * `due` says so, calls `refresh` and stores what it answers. Returns the installation as it is
   * after (null when there is none). Two callers at once make one `refresh` call.
   */
  refreshUnderLock(
    tenant: string,
    due: (current: InstallationRecord) => boolean,
    refresh: (current: InstallationRecord) => Promise<TokenRefresh>,
  ): Promise<InstallationRecord | null>;
  /**
   * Deletes the tenant's Slack tokens and plat account at once and schedules the erasure of its
   * data; returns whether an installation was there.
   */
  uninstall(tenant: string, erasure: { reason: string; eraseAfter: Date }): Promise<boolean>;
  erasure(tenant: string): Promise<TenantErasure | null>;
  /** Erasures whose retention has passed and that are not done yet. */
  dueErasures(now: Date): Promise<TenantErasure[]>;
  markErased(tenant: string): Promise<void>;
  /** Every installed tenant. */
  tenants(): Promise<string[]>;
  /** Seals every token under the current key; returns how many rows changed (0 when all are). */
  reseal(): Promise<number>;
}

export interface PlatAccountRecord {
  tenant: string;
  baseUrl: string;
  token: string;
  updatedBy: string;
  updatedAt: Date;
  /** When a call made with this token was first accepted; null until then. */
  verifiedAt: Date | null;
  /** The code of the last refusal of the token (e.g. 401), cleared when it is set again. */
  failure: string | null;
}

export interface PlatAccountStore {
  set(tenant: string, account: { baseUrl: string; token: string }, actorId: string): Promise<void>;
  get(tenant: string): Promise<PlatAccountRecord | null>;
  markVerified(tenant: string): Promise<void>;
  markRefused(tenant: string, code: string): Promise<void>;
  delete(tenant: string): Promise<void>;
  reseal(): Promise<number>;
}
