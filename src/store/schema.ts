/**
 * The tables as Kysely sees them: one typed description that every sub-store's queries are
 * checked against, on either engine. Times are integer milliseconds since the epoch on both
 * engines (BIGINT on PostgreSQL, parsed back to number by engine.ts), so the row mapping is
 * the same code for SQLite and PostgreSQL.
 */
import { type Generated, type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { SecretBox } from './secrets.js';

export interface PendingLookupsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
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
  state: 'pending' | 'running' | 'done' | 'failed' | 'cancelled' | 'interrupted';
  state_changed_at: number;
  result_json: string | null;
  claimed_by: string | null;
  lease_expires_at: number | null;
  claim_epoch: Generated<number>;
  calls_sent: Generated<number>;
  /** The agent's plan (its shortcut batch id) this lookup is a step of; null otherwise. */
  plan_id: Generated<string | null>;
}

export interface LedgerTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  id: Generated<number>;
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
  /** The id fixed before the call (unique): a second write of the same charge is a no-op. */
  charge_id: string;
  /** Workflow Builder steps (migration 14): the workflow and the step's callback id; else null. */
  workflow_execution_id: string | null;
  step_id: string | null;
}

export interface UserPrefsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  user_id: string;
  confirm_threshold: number | null;
  updated_at: number;
}

export interface AuditLogTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  id: Generated<number>;
  at: number;
  actor_id: string;
  action: string;
  detail: string;
}

export interface SettingsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  key: string;
  value_json: string;
  updated_at: number;
  updated_by: string;
}

export interface DigestSubscriptionsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  id: Generated<number>;
  owner_id: string;
  shop_label: string;
  channel_id: string;
  local_time: string;
  time_zone: string;
  created_by: string;
  created_at: number;
  removed_at: number | null;
  removed_by: string | null;
  /** Comma-separated lists (NULL: every day / no filter); see store.ts DigestSubscription. */
  times: string | null;
  days: string | null;
  layout: Generated<'thread' | 'single'>;
  flags: string | null;
  statuses: string | null;
}

export interface DigestRunsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  id: Generated<number>;
  subscription_id: number;
  kind: 'scheduled' | 'manual';
  local_date: string;
  window_start: number;
  window_end: number;
  state: LeasedRunState;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  next_attempt_at: number | null;
  last_error: string | null;
  notice_ts: string | null;
  message_ts: string | null;
  summary_json: string | null;
  charged_points: Generated<number>;
  calls: Generated<number>;
  estimate_points: number | null;
  requested_by: string | null;
  created_at: number;
  updated_at: number;
  /** Bumped by every claim: the holder's writes name it (runs.ts). */
  epoch: Generated<number>;
  /** When its holder last sent (or was about to send) the keyed post (migration 21). */
  post_attempt_at: number | null;
  /** Where a history check cut short by Slack's rate limit goes on from (migration 21). */
  check_progress: string | null;
}

export interface DigestPagesTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  run_id: number;
  window_index: number;
  page: number;
  total_pages: number;
  orders_json: string;
  order_count: number;
  points: number;
  attempt: number;
  epoch: number;
  charge_key: string;
  created_at: number;
}

type LeasedRunState = 'running' | 'posting' | 'posted' | 'failed' | 'awaiting_approval' | 'unknown';

export interface AlertSubscriptionsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  id: Generated<number>;
  owner_id: string;
  shop_label: string;
  channel_id: string;
  within_hours: number;
  every_minutes: number;
  hours_from: string;
  hours_to: string;
  time_zone: string;
  cap_points: number;
  created_by: string;
  created_at: number;
  notice_ts: string | null;
  removed_at: number | null;
  removed_by: string | null;
}

export interface AlertChecksTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  id: Generated<number>;
  subscription_id: number;
  slot_at: number;
  local_date: string;
  state: LeasedRunState;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  next_attempt_at: number | null;
  last_error: string | null;
  message_ts: string | null;
  charged_points: Generated<number>;
  calls: Generated<number>;
  estimate_points: number | null;
  created_at: number;
  updated_at: number;
  epoch: Generated<number>;
  post_attempt_at: number | null;
  check_progress: string | null;
}

export interface AlertOrdersTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  subscription_id: number;
  order_sn: string;
  check_id: number;
  seq: number;
  state: 'pending' | 'alerted' | 'handled' | 'shipped' | 'unknown';
  message_ts: string | null;
  goods_name: string;
  goods_count: number;
  amount_fen: number;
  last_ship_time: number;
  claimed_by: string | null;
  claimed_at: number | null;
  done_by: string | null;
  done_at: number | null;
  reminded_at: number | null;
}

export interface AlertCapDaysTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  subscription_id: number;
  local_date: string;
  asked_at: number | null;
  approved_by: string | null;
  approved_at: number | null;
}

export interface ProcessedEventsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  event_id: string;
  at: number;
}

export interface UnfurlRecordsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  id: Generated<number>;
  channel_id: string;
  item_id: string;
  user_id: string;
  created_at: number;
  state: 'offered' | 'running' | 'done' | 'failed';
  /** 0 or 1 (SQLite has no boolean; the same column type on both engines). */
  auto: number;
  pending_id: string | null;
  outcome_json: string | null;
}

export interface AutoLookupCountsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  channel_id: string;
  day: string;
  used: number;
  updated_at: number;
}

/** The agent's thread memory (migration 18, store/agent.ts). */
export interface AgentThreadsTable {
  tenant_id: string;
  channel_id: string;
  thread_ts: string;
  context_json: string;
  updated_at: number;
}

/** A person's MCP tokens, hashed (migration 19, store/mcp-tokens.ts). */
export interface McpTokensTable {
  id: string;
  tenant_id: string;
  user_id: string;
  name: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  client_name: string | null;
  revoked_at: number | null;
  revoked_by: string | null;
}

/** Feedback on the agent's answers (migration 18, store/agent.ts). */
export interface AgentFeedbackTable {
  tenant_id: string;
  user_id: string;
  channel_id: string;
  message_ts: string;
  value: 'good' | 'bad';
  tools: string;
  at: number;
}

export interface ShortcutBatchesTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  id: string;
  user_id: string;
  kind: string;
  channel_id: string | null;
  thread_ts: string | null;
  payload_json: string;
  created_at: number;
  expires_at: number;
  state: 'open' | 'used';
  state_changed_at: number;
  /** The process (instance id) whose claim used it; null while open, or used by an older build. */
  used_by: string | null;
  /** When what became of it was told (an agent plan's closing summary); null: not yet. */
  settled_at: number | null;
}

export interface BudgetReservationsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  id: string;
  /** null: scheduled work, counted against the workspace caps only. */
  user_id: string | null;
  points: number;
  created_at: number;
  /** A reservation whose process died stops counting here (the call's deadline plus a margin). */
  expires_at: number;
  /** JSON [scope, subject, period, period_key][]: the counters whose `reserved` holds `points`. */
  holds: string;
}

/** Running totals per scope and local period (store/budgets.ts). */
export interface SpendCountersTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  scope: 'workspace' | 'user' | 'channel' | 'step';
  /** '*' for the workspace, else the user or channel id. */
  subject: string;
  period: 'daily' | 'monthly';
  /** 'YYYY-MM-DD' or 'YYYY-MM' in the budget zone (store/periods.ts). */
  period_key: string;
  /** Points of the ledger rows of the period (written in the same transaction as each row). */
  spent: number;
  /** Points held by live reservations. */
  reserved: number;
}

export interface AnswerCacheTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  key: string;
  value_json: string;
  stored_at: number;
}

export interface AlertsSentTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  key: string;
  sent_at: number;
}

/** Whose turn a periodic job was last, and when (store/turns.ts). */
export interface PeriodicTurnsTable {
  name: string;
  holder: string;
  taken_at: number;
}

/** Named rows whose UPDATE opens a check-then-write transaction (takeLock below). */
export interface StoreLocksTable {
  name: string;
  bumped: number;
}

export interface SentCallsTable {
  /** The tenant the row belongs to (store/tenants.ts): '' in single-workspace mode. */
  tenant_id: string;
  charge_id: string;
  run_key: string;
  epoch: number;
  source: string;
  operation: string;
  edition: number | null;
  channel_id: string | null;
  correlation_id: string | null;
  attempt: number;
  sent_at: number;
  /** 1 once the request was written to the service (or a row of a build before the mark); else 0. */
  sent: Generated<number>;
  /** The database's clock when written ahead (null: a row of a build before migration 20). */
  written_at: number | null;
  user_id: string | null;
  pending_id: string | null;
  workflow_execution_id: string | null;
  step_id: string | null;
}

export interface SlackInstallationsTable {
  tenant: string;
  enterprise_id: string | null;
  enterprise_name: string | null;
  team_id: string | null;
  team_name: string | null;
  is_enterprise_install: number;
  app_id: string | null;
  bot_id: string;
  bot_user_id: string;
  bot_scopes: string;
  bot_token_sealed: string;
  bot_refresh_sealed: string | null;
  bot_expires_at: number | null;
  installer_user_id: string;
  installed_at: number;
  updated_at: number;
  refreshes: Generated<number>;
}

export interface PlatAccountsTable {
  tenant: string;
  base_url: string;
  token_sealed: string;
  updated_by: string;
  updated_at: number;
  verified_at: number | null;
  failure: string | null;
}

export interface ScheduleWakesTable {
  tenant_id: string;
  kind: string;
  due_at: number;
}

export interface TenantErasuresTable {
  tenant: string;
  reason: string;
  uninstalled_at: number;
  erase_after: number;
  erased_at: number | null;
}

export interface Schema {
  sent_calls: SentCallsTable;
  pending_lookups: PendingLookupsTable;
  ledger: LedgerTable;
  user_prefs: UserPrefsTable;
  audit_log: AuditLogTable;
  settings: SettingsTable;
  digest_subscriptions: DigestSubscriptionsTable;
  digest_runs: DigestRunsTable;
  digest_pages: DigestPagesTable;
  alert_subscriptions: AlertSubscriptionsTable;
  alert_checks: AlertChecksTable;
  alert_orders: AlertOrdersTable;
  alert_cap_days: AlertCapDaysTable;
  processed_events: ProcessedEventsTable;
  unfurl_records: UnfurlRecordsTable;
  auto_lookup_counts: AutoLookupCountsTable;
  shortcut_batches: ShortcutBatchesTable;
  agent_threads: AgentThreadsTable;
  agent_feedback: AgentFeedbackTable;
  mcp_tokens: McpTokensTable;
  budget_reservations: BudgetReservationsTable;
  spend_counters: SpendCountersTable;
  answer_cache: AnswerCacheTable;
  alerts_sent: AlertsSentTable;
  store_locks: StoreLocksTable;
  periodic_turns: PeriodicTurnsTable;
  slack_installations: SlackInstallationsTable;
  plat_accounts: PlatAccountsTable;
  tenant_erasures: TenantErasuresTable;
  schedule_wakes: ScheduleWakesTable;
}

export type Db = Kysely<Schema>;
/** A connection or an open transaction: sub-store helpers that take part in a caller's transaction. */
export type Executor = Kysely<Schema> | Transaction<Schema>;

/** What every sub-store is built from. */
export interface StoreContext {
  db: Db;
  /**
   * The tenant every query of the sub-stores built from this context is bound to: reads are
   * filtered by it and inserts stamped with it (store/tenants.ts).
   */
  tenant: string;
  /** The process's clock (ms): stored times (created_at, updated_at…), periods, expiries of confirmations. */
  nowMs: () => number;
  /**
   * The lease clock's now (ms) as SQL, for every lease and fence (DESIGN rule 9, "One clock for
   * leases"): on PostgreSQL the database's own clock, `clock_timestamp()` evaluated inside the
   * statement, so a lease written by one replica and judged by another is stamped and compared
   * by one clock whatever theirs say; on SQLite the one process's clock (`nowMs`). Call it once
   * per statement (on SQLite it is a bound value of that moment).
   */
  leaseNow: () => RawBuilder<number>;
  engine: 'sqlite' | 'postgres';
  /** Seals secrets at rest (PLATDESK_ENCRYPTION_KEY); null when no key is configured. */
  secrets: SecretBox | null;
}

/**
 * Opens a check-then-write transaction by updating the named lock row first. That one UPDATE
 * serializes every transaction that names the same lock on both engines: on PostgreSQL it
 * holds the row lock until COMMIT, on SQLite it takes the database write lock at once (a
 * deferred BEGIN followed by a read would otherwise fail to upgrade when another process wrote
 * in between). Plain SQL, no engine branch: the same code runs on both.
 */
export async function takeLock(trx: Transaction<Schema>, name: StoreLockName): Promise<void> {
  await trx
    .updateTable('store_locks')
    .set((eb) => ({ bumped: eb('bumped', '+', 1) }))
    .where('name', '=', name)
    .execute();
}

/** The lock rows created by the migrations. */
export type StoreLockName = 'budgets' | 'digests' | 'alerts' | 'unfurls';

/**
 * Opens a check-then-write transaction of one subscription's runs (a claim, a "Run now"), as
 * takeLock does, by an UPDATE of the subscription's row that changes nothing: on PostgreSQL it
 * holds that row's lock until COMMIT, so claims of one digest or alert are serialized and claims
 * of different ones are not (issue 39: a global lock row held across each claim's round trips
 * made a hundred digests due in one minute on three replicas wait for each other, seconds each);
 * on SQLite it takes the database write lock at once, as takeLock. `subscription` is its id, or
 * SQL that selects it (a run's) in the same statement, so nothing is read before the lock.
 */
export async function lockSubscription(
  trx: Transaction<Schema>,
  table: 'digest_subscriptions' | 'alert_subscriptions',
  subscription: number | RawBuilder<unknown>,
): Promise<void> {
  await sql`UPDATE ${sql.table(table)} SET id = id WHERE id = ${subscription}`.execute(trx);
}
