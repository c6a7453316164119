/**
 * Versioned schema migrations, applied in order at start; append only: never edit or reorder a
 * migration that has shipped.
 *
 * One list for both engines. Each step is written in SQLite's dialect (STRICT tables, so a wrong
 * type is an error, not a silent conversion: https://www.sqlite.org/stricttables.html) and
 * translated for PostgreSQL by `forPostgres`, a handful of type renames, so the two schemas
 * cannot drift apart. Times are integer milliseconds since the epoch on both.
 *
 * The version: SQLite keeps it in `PRAGMA user_version` (as before issue 12, so existing files
 * carry on); PostgreSQL in the one-row table `platdesk_schema`. Each step runs in its own
 * transaction that re-reads the version, and on PostgreSQL the whole run holds a session
 * advisory lock, so two processes starting together migrate once.
 *
 * Rolling upgrades (docs/operations.md "Upgrades"): replicas of the previous build keep running
 * while a new one migrates. Every migration says whether they may (`rollout`), and from now on
 * migrations are written expand/contract so that they can: add tables, columns with defaults and
 * indexes, never drop, rename or rebuild what an older build still reads or writes in the same
 * release (test/store/migration-rollout.test.ts refuses an 'online' one that does). What a step
 * still rebuilds or changes, it locks first (PostgreSQL: every existing table it names, ACCESS
 * EXCLUSIVE, before its first statement), so an older replica's write waits for the step and lands
 * in the table as it is after, or fails, but is never copied out and dropped; SQLite's step holds
 * the database's write lock from its BEGIN IMMEDIATE. Each step also records, for the replicas
 * already running, the oldest schema version a build must know to keep writing
 * (`platdesk_rollout`, see compatibleFrom), and on PostgreSQL tells them at its commit (NOTIFY
 * platdesk_schema): a replica that finds the schema moved past it by a step older builds cannot
 * live with stops taking paid work (store/database-watch.ts).
 */
import { sql } from 'kysely';
import type { Db } from './schema.js';

/** One schema step. */
export interface Migration {
  /**
   * 'online': replicas of the previous build keep working while and after it runs (expand: new
   * tables, new columns with defaults, new indexes and functions). 'offline': every replica of an
   * older build must be stopped before it runs (it drops, renames or rebuilds what they use, or
   * they would write around what it adds): the rollout that brings it is a stop-then-start.
   */
  rollout: 'online' | 'offline';
  /** One line for `node dist/migrate.js --plan`: what it does, and for 'offline' why. */
  summary: string;
  /** SQLite DDL (translated by forPostgres); `-- postgres only` statements are left out on SQLite. */
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  // 1: the initial schema.
  {
    rollout: 'online',
    summary: 'the initial schema',
    sql: `
  CREATE TABLE pending_lookups (
    id               TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL,
    channel_id       TEXT,
    team_id          TEXT,
    request_json     TEXT NOT NULL,
    quote_json       TEXT NOT NULL,
    summary          TEXT NOT NULL,
    response_url     TEXT,
    created_at       INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    state            TEXT NOT NULL
                     CHECK (state IN ('pending', 'running', 'done', 'failed', 'cancelled')),
    state_changed_at INTEGER NOT NULL,
    result_json      TEXT
  ) STRICT;
  -- staleRunning() and prune()
  CREATE INDEX pending_lookups_state_changed ON pending_lookups (state, state_changed_at);
  CREATE INDEX pending_lookups_changed ON pending_lookups (state_changed_at);

  -- No foreign key to pending_lookups: the ledger outlives pruned confirmations.
  -- source has no CHECK so a new entry point needs no table rebuild.
  CREATE TABLE ledger (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    at             INTEGER NOT NULL,
    user_id        TEXT,
    channel_id     TEXT,
    operation      TEXT NOT NULL,
    edition        INTEGER,
    points         REAL NOT NULL,
    quota_calls    INTEGER NOT NULL,
    code           INTEGER NOT NULL,
    outcome        TEXT NOT NULL CHECK (outcome IN ('ok', 'error')),
    request_id     TEXT,
    correlation_id TEXT,
    pending_id     TEXT,
    source         TEXT NOT NULL
  ) STRICT;
  CREATE INDEX ledger_at ON ledger (at);
  CREATE INDEX ledger_user_at ON ledger (user_id, at);
  -- lastCharge(): newest row for an operation and edition, LIMIT 1
  CREATE INDEX ledger_operation_edition ON ledger (operation, edition, id);

  CREATE TABLE user_prefs (
    user_id           TEXT PRIMARY KEY,
    confirm_threshold REAL,
    updated_at        INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE audit_log (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       INTEGER NOT NULL,
    actor_id TEXT NOT NULL,
    action   TEXT NOT NULL,
    detail   TEXT NOT NULL
  ) STRICT;

  CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value_json TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    updated_by TEXT NOT NULL
  ) STRICT;
  `,
  },
  // 2: daily order digests (issue 6; store/digests.ts describes the run states).
  {
    rollout: 'online',
    summary: 'daily order digests: new tables',
    sql: `
  CREATE TABLE digest_subscriptions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_id    TEXT NOT NULL,
    shop_label  TEXT NOT NULL,
    channel_id  TEXT NOT NULL,
    local_time  TEXT NOT NULL,
    time_zone   TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    -- soft delete: run records keep their subscription
    removed_at  INTEGER,
    removed_by  TEXT
  ) STRICT;

  CREATE TABLE digest_runs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    subscription_id  INTEGER NOT NULL REFERENCES digest_subscriptions (id),
    kind             TEXT NOT NULL CHECK (kind IN ('scheduled', 'manual')),
    local_date       TEXT NOT NULL,
    window_start     INTEGER NOT NULL,
    window_end       INTEGER NOT NULL,
    state            TEXT NOT NULL
                     CHECK (state IN ('running', 'posting', 'posted', 'failed', 'awaiting_approval', 'unknown')),
    attempts         INTEGER NOT NULL,
    lease_owner      TEXT,
    lease_expires_at INTEGER,
    next_attempt_at  INTEGER,
    last_error       TEXT,
    notice_ts        TEXT,
    message_ts       TEXT,
    summary_json     TEXT,
    charged_points   REAL NOT NULL DEFAULT 0,
    calls            INTEGER NOT NULL DEFAULT 0,
    estimate_points  REAL,
    requested_by     TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
  ) STRICT;
  -- Exactly once per subscription per local day: a second scheduled run of a date cannot exist.
  CREATE UNIQUE INDEX digest_runs_once_a_day ON digest_runs (subscription_id, local_date)
    WHERE kind = 'scheduled';
  CREATE INDEX digest_runs_subscription ON digest_runs (subscription_id, id);
  `,
  },
  // 3: item-link unfurls, auto-lookup caps and shortcut batches (issue 5; store/events.ts).
  {
    rollout: 'online',
    summary: 'item-link unfurls, auto-lookup caps and shortcut batches: new tables',
    sql: `
  -- Events API ids already handled: a Slack retry is never processed twice, across restarts too.
  CREATE TABLE processed_events (
    event_id TEXT PRIMARY KEY,
    at       INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX processed_events_at ON processed_events (at);

  CREATE TABLE unfurl_records (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id   TEXT NOT NULL,
    item_id      TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('offered', 'running', 'done', 'failed')),
    auto         INTEGER NOT NULL,
    pending_id   TEXT,
    outcome_json TEXT
  ) STRICT;
  CREATE INDEX unfurl_records_channel_item ON unfurl_records (channel_id, item_id, created_at);
  CREATE INDEX unfurl_records_created ON unfurl_records (created_at);

  CREATE TABLE auto_lookup_counts (
    channel_id TEXT NOT NULL,
    day        TEXT NOT NULL,
    used       INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (channel_id, day)
  ) STRICT;

  CREATE TABLE shortcut_batches (
    id               TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL,
    kind             TEXT NOT NULL,
    channel_id       TEXT,
    thread_ts        TEXT,
    payload_json     TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('open', 'used')),
    state_changed_at INTEGER NOT NULL
  ) STRICT;

  -- AuditLog.list(limit, { action }): the admin alerts shown in the App Home.
  CREATE INDEX audit_log_action ON audit_log (action, id);
  `,
  },
  // 4: claims carry their holder and a lease, and a claim whose holder is gone is 'interrupted'
  // (issue 10; store.ts PendingLookups). A CHECK cannot be altered in SQLite: the table is rebuilt
  // (https://www.sqlite.org/lang_altertable.html#otheralter). Rows left running by an older build
  // have no holder: the first start after this migration reports them as interrupted.
  {
    rollout: 'offline',
    summary:
      "pending_lookups rebuilt with a claim holder and lease; an older build's running claims become interrupted",
    sql: `
  CREATE TABLE pending_lookups_v4 (
    id               TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL,
    channel_id       TEXT,
    team_id          TEXT,
    request_json     TEXT NOT NULL,
    quote_json       TEXT NOT NULL,
    summary          TEXT NOT NULL,
    response_url     TEXT,
    created_at       INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    state            TEXT NOT NULL
                     CHECK (state IN ('pending', 'running', 'done', 'failed', 'cancelled', 'interrupted')),
    state_changed_at INTEGER NOT NULL,
    result_json      TEXT,
    claimed_by       TEXT,
    lease_expires_at INTEGER
  ) STRICT;
  INSERT INTO pending_lookups_v4 (id, user_id, channel_id, team_id, request_json, quote_json, summary,
      response_url, created_at, expires_at, state, state_changed_at, result_json)
    SELECT id, user_id, channel_id, team_id, request_json, quote_json, summary,
      response_url, created_at, expires_at, state, state_changed_at, result_json
    FROM pending_lookups;
  DROP TABLE pending_lookups;
  ALTER TABLE pending_lookups_v4 RENAME TO pending_lookups;
  -- runningClaims() and prune()
  CREATE INDEX pending_lookups_state_changed ON pending_lookups (state, state_changed_at);
  CREATE INDEX pending_lookups_changed ON pending_lookups (state_changed_at);
  `,
  },
  // 5: ship-by alerts (issue 15; store/alerts.ts).
  {
    rollout: 'online',
    summary: 'ship-by alerts: new tables, new digest subscription columns',
    sql: `
  CREATE TABLE alert_subscriptions (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_id      TEXT NOT NULL,
    shop_label    TEXT NOT NULL,
    channel_id    TEXT NOT NULL,
    within_hours  INTEGER NOT NULL,
    every_minutes INTEGER NOT NULL,
    hours_from    TEXT NOT NULL,
    hours_to      TEXT NOT NULL,
    time_zone     TEXT NOT NULL,
    cap_points    REAL NOT NULL,
    created_by    TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    notice_ts     TEXT,
    removed_at    INTEGER,
    removed_by    TEXT
  ) STRICT;

  CREATE TABLE alert_checks (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    subscription_id  INTEGER NOT NULL REFERENCES alert_subscriptions (id),
    slot_at          INTEGER NOT NULL,
    local_date       TEXT NOT NULL,
    state            TEXT NOT NULL
                     CHECK (state IN ('running', 'posting', 'posted', 'failed', 'awaiting_approval', 'unknown')),
    attempts         INTEGER NOT NULL,
    lease_owner      TEXT,
    lease_expires_at INTEGER,
    next_attempt_at  INTEGER,
    last_error       TEXT,
    message_ts       TEXT,
    charged_points   REAL NOT NULL DEFAULT 0,
    calls            INTEGER NOT NULL DEFAULT 0,
    estimate_points  REAL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    -- One check per slot, whatever the number of instances or restarts.
    UNIQUE (subscription_id, slot_at)
  ) STRICT;
  CREATE INDEX alert_checks_day ON alert_checks (subscription_id, local_date);

  CREATE TABLE alert_orders (
    subscription_id INTEGER NOT NULL REFERENCES alert_subscriptions (id),
    order_sn        TEXT NOT NULL,
    check_id        INTEGER NOT NULL REFERENCES alert_checks (id),
    seq             INTEGER NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'alerted', 'handled', 'shipped', 'unknown')),
    message_ts      TEXT,
    goods_name      TEXT NOT NULL,
    goods_count     INTEGER NOT NULL,
    amount_fen      INTEGER NOT NULL,
    last_ship_time  INTEGER NOT NULL,
    claimed_by      TEXT,
    claimed_at      INTEGER,
    done_by         TEXT,
    done_at         INTEGER,
    reminded_at     INTEGER,
    -- An order is alerted once per subscription.
    PRIMARY KEY (subscription_id, order_sn)
  ) STRICT;
  CREATE INDEX alert_orders_message ON alert_orders (subscription_id, message_ts);
  -- A check reads the orders still due (orders(…, shipAfter)); housekeeping prunes the rest.
  CREATE INDEX alert_orders_due ON alert_orders (subscription_id, last_ship_time);
  CREATE INDEX alert_orders_ship_time ON alert_orders (last_ship_time);

  CREATE TABLE alert_cap_days (
    subscription_id INTEGER NOT NULL REFERENCES alert_subscriptions (id),
    local_date      TEXT NOT NULL,
    asked_at        INTEGER,
    approved_by     TEXT,
    approved_at     INTEGER,
    PRIMARY KEY (subscription_id, local_date)
  ) STRICT;

  -- Digests people keep enabled (issue 15): several times a day, chosen weekdays, a thread or one
  -- message, filters. Lists are comma-separated text (NULL: every day / no filter).
  ALTER TABLE digest_subscriptions ADD COLUMN times TEXT;
  ALTER TABLE digest_subscriptions ADD COLUMN days TEXT;
  ALTER TABLE digest_subscriptions ADD COLUMN layout TEXT NOT NULL DEFAULT 'single';
  ALTER TABLE digest_subscriptions ADD COLUMN flags TEXT;
  ALTER TABLE digest_subscriptions ADD COLUMN statuses TEXT;
  `,
  },
  // 6: shared state a second process must see (issue 12): budget reservations, the answer cache,
  // alerts sent, and the lock rows that serialize check-then-write transactions (schema.ts takeLock).
  {
    rollout: 'offline',
    summary:
      'budget reservations, the answer cache and alerts sent move into the database; an older build keeps them in memory, apart from the others',
    sql: `
  CREATE TABLE budget_reservations (
    id         TEXT PRIMARY KEY,
    user_id    TEXT,
    points     REAL NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX budget_reservations_expires ON budget_reservations (expires_at);

  CREATE TABLE answer_cache (
    key        TEXT PRIMARY KEY,
    value_json TEXT NOT NULL,
    stored_at  INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX answer_cache_stored ON answer_cache (stored_at);

  CREATE TABLE alerts_sent (
    key     TEXT PRIMARY KEY,
    sent_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE store_locks (
    name   TEXT PRIMARY KEY,
    bumped INTEGER NOT NULL
  ) STRICT;
  INSERT INTO store_locks (name, bumped) VALUES ('budgets', 0), ('digests', 0), ('alerts', 0), ('unfurls', 0);
  `,
  },
  // 7: every digest page bought once per run, and fenced run leases (issue 19 points 1 and 2).
  // Each claim of a run bumps its epoch; the holder's writes name the epoch they hold. Each page
  // a run fetched is a row, written in the transaction that adds its charge to the run, so a
  // takeover, a retry or "Run anyway" resumes after the last page recorded.
  {
    rollout: 'offline',
    summary: 'digest page records and run epochs; an older build neither bumps nor checks the epochs',
    sql: `
  ALTER TABLE digest_runs ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE alert_checks ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;

  CREATE TABLE digest_pages (
    run_id       INTEGER NOT NULL REFERENCES digest_runs (id),
    window_index INTEGER NOT NULL,
    page         INTEGER NOT NULL,
    total_pages  INTEGER NOT NULL,
    -- The orders as the summary needs them (digest/page-orders.ts): never receiver data.
    orders_json  TEXT NOT NULL,
    order_count  INTEGER NOT NULL,
    points       REAL NOT NULL,
    -- Which execution of the run bought it (digest_runs.attempts then), and under which epoch.
    attempt      INTEGER NOT NULL,
    epoch        INTEGER NOT NULL,
    -- digest:<run>:<window>:<page>, the same for every attempt: one charge per page.
    charge_key   TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (run_id, window_index, page)
  ) STRICT;
  `,
  },
  // 8: running totals for the caps and an idempotent ledger (issue 20; store/budgets.ts, ledger.ts).
  // Every charge carries the id fixed before its call, unique: writing it twice is a no-op. Spend
  // per scope (workspace '*', user, channel) and local period lives in spend_counters, updated in
  // the ledger row's own transaction; a reservation adds to `reserved` with one conditional
  // upsert per counter. Rows of older builds get a charge id of their own. Reservations of older
  // builds were counted by summing; they are dropped (they expire within minutes anyway). The
  // counters are filled from the existing ledger once, in the budget zone, at the first open
  // after this step (store/budgets.ts backfillCounters, flagged by the lock row below).
  {
    rollout: 'offline',
    summary:
      "ledger charge ids and the caps' running totals; an older build's reservations are dropped and its charges are not counted in the totals",
    sql: `
  ALTER TABLE ledger ADD COLUMN charge_id TEXT;
  UPDATE ledger SET charge_id = 'legacy:' || id;
  CREATE UNIQUE INDEX ledger_charge ON ledger (charge_id);
  -- charges of one lookup (fenced lookups check the ledger by the lookup's id)
  CREATE INDEX ledger_pending ON ledger (pending_id);

  CREATE TABLE spend_counters (
    scope      TEXT NOT NULL CHECK (scope IN ('workspace', 'user', 'channel')),
    subject    TEXT NOT NULL,
    period     TEXT NOT NULL CHECK (period IN ('daily', 'monthly')),
    period_key TEXT NOT NULL,
    spent      REAL NOT NULL,
    reserved   REAL NOT NULL,
    PRIMARY KEY (scope, subject, period, period_key)
  ) STRICT;

  DELETE FROM budget_reservations;
  ALTER TABLE budget_reservations ADD COLUMN holds TEXT NOT NULL DEFAULT '[]';
  INSERT INTO store_locks (name, bumped) VALUES ('counters-backfill', 0);
  `,
  },
  // 9: one replica's turn at a periodic job (store/turns.ts): the hourly housekeeping
  // is done by whichever replica takes the turn, not by all of them.
  {
    rollout: 'online',
    summary: "periodic_turns: one replica's turn at housekeeping (an older build prunes every hour anyway)",
    sql: `
  CREATE TABLE periodic_turns (
    name     TEXT PRIMARY KEY,
    holder   TEXT NOT NULL,
    taken_at INTEGER NOT NULL
  ) STRICT;
  -- Pruning digest runs by age (digests.pruneRuns) and alerts sent (alertsSent.prune).
  CREATE INDEX digest_runs_created ON digest_runs (created_at);
  CREATE INDEX alerts_sent_sent ON alerts_sent (sent_at);
  `,
  },
  // 10: fenced lookup claims (issue 20 pt 3; store/pending.ts fence). claim_epoch counts the claims
  // and takeovers of a row, so a holder's last check before a call names the claim it made;
  // calls_sent counts the calls its holder was allowed to send, so an interrupted lookup is known
  // to have been sent (never offered again) even while its charge is still on its way to the
  // ledger. (The charges of one lookup are read through migration 8's ledger_pending index.)
  {
    rollout: 'offline',
    summary: 'fenced lookup claims; an older build neither bumps nor checks claim epochs',
    sql: `
  ALTER TABLE pending_lookups ADD COLUMN claim_epoch INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE pending_lookups ADD COLUMN calls_sent INTEGER NOT NULL DEFAULT 0;
  `,
  },
  // 11: calls a leased run is about to send (store/sent-calls.ts): each attempt's charge id is
  // written before it is sent, so a holder killed after the plat API answered but before the
  // charge reached the ledger leaves a trace; the next claim of the run writes a ledger row for
  // each (code -1, cost unknown), and the rows go once their charge is in the ledger.
  {
    rollout: 'offline',
    summary:
      "sent_calls: charge ids written ahead; an older build's calls leave none, so a takeover cannot account for them",
    sql: `
  CREATE TABLE sent_calls (
    charge_id      TEXT PRIMARY KEY,
    -- digest:<run> or alert:<check>: the leased run that sends it
    run_key        TEXT NOT NULL,
    epoch          INTEGER NOT NULL,
    source         TEXT NOT NULL,
    operation      TEXT NOT NULL,
    edition        INTEGER,
    channel_id     TEXT,
    correlation_id TEXT,
    attempt        INTEGER NOT NULL,
    sent_at        INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX sent_calls_run ON sent_calls (run_key, epoch);
  `,
  },
  // 12: many workspaces in one deployment (issue 24; store/tenants.ts). Every row that belongs to
  // a workspace carries its tenant: the enterprise id of an org-wide Grid install, else the team
  // id; '' is the one tenant of single-workspace mode, so existing rows keep working unchanged.
  // Keys a tenant chooses (settings, prefs, counters, cache, alerts sent, day counts) become
  // unique per tenant: those tables are rebuilt (none has an identity column to carry over).
  // Rows keyed by a global id (uuids, identity ids, Slack event ids, charge ids) keep their keys.
  {
    rollout: 'offline',
    summary: 'a tenant on every row; settings, prefs, counters, the answer cache and alerts sent rebuilt',
    sql: `
  ALTER TABLE pending_lookups ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE ledger ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  DROP INDEX ledger_at;
  DROP INDEX ledger_user_at;
  DROP INDEX ledger_operation_edition;
  CREATE INDEX ledger_tenant_at ON ledger (tenant_id, at);
  CREATE INDEX ledger_tenant_user_at ON ledger (tenant_id, user_id, at);
  CREATE INDEX ledger_tenant_operation_edition ON ledger (tenant_id, operation, edition, id);
  ALTER TABLE audit_log ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  DROP INDEX audit_log_action;
  CREATE INDEX audit_log_tenant_action ON audit_log (tenant_id, action, id);
  ALTER TABLE digest_subscriptions ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE digest_runs ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE digest_pages ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE sent_calls ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE alert_subscriptions ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE alert_checks ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE alert_orders ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE alert_cap_days ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE processed_events ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE unfurl_records ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  DROP INDEX unfurl_records_channel_item;
  CREATE INDEX unfurl_records_tenant_channel_item ON unfurl_records (tenant_id, channel_id, item_id, created_at);
  ALTER TABLE shortcut_batches ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE budget_reservations ADD COLUMN tenant_id TEXT NOT NULL DEFAULT '';

  CREATE TABLE settings_v11 (
    tenant_id  TEXT NOT NULL,
    key        TEXT NOT NULL,
    value_json TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    updated_by TEXT NOT NULL,
    PRIMARY KEY (tenant_id, key)
  ) STRICT;
  INSERT INTO settings_v11 (tenant_id, key, value_json, updated_at, updated_by)
    SELECT '', key, value_json, updated_at, updated_by FROM settings;
  DROP TABLE settings;
  ALTER TABLE settings_v11 RENAME TO settings;

  CREATE TABLE user_prefs_v11 (
    tenant_id         TEXT NOT NULL,
    user_id           TEXT NOT NULL,
    confirm_threshold REAL,
    updated_at        INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
  ) STRICT;
  INSERT INTO user_prefs_v11 (tenant_id, user_id, confirm_threshold, updated_at)
    SELECT '', user_id, confirm_threshold, updated_at FROM user_prefs;
  DROP TABLE user_prefs;
  ALTER TABLE user_prefs_v11 RENAME TO user_prefs;

  CREATE TABLE auto_lookup_counts_v11 (
    tenant_id  TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    day        TEXT NOT NULL,
    used       INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, channel_id, day)
  ) STRICT;
  INSERT INTO auto_lookup_counts_v11 (tenant_id, channel_id, day, used, updated_at)
    SELECT '', channel_id, day, used, updated_at FROM auto_lookup_counts;
  DROP TABLE auto_lookup_counts;
  ALTER TABLE auto_lookup_counts_v11 RENAME TO auto_lookup_counts;

  CREATE TABLE spend_counters_v11 (
    tenant_id  TEXT NOT NULL,
    scope      TEXT NOT NULL CHECK (scope IN ('workspace', 'user', 'channel')),
    subject    TEXT NOT NULL,
    period     TEXT NOT NULL CHECK (period IN ('daily', 'monthly')),
    period_key TEXT NOT NULL,
    spent      REAL NOT NULL,
    reserved   REAL NOT NULL,
    PRIMARY KEY (tenant_id, scope, subject, period, period_key)
  ) STRICT;
  INSERT INTO spend_counters_v11 (tenant_id, scope, subject, period, period_key, spent, reserved)
    SELECT '', scope, subject, period, period_key, spent, reserved FROM spend_counters;
  DROP TABLE spend_counters;
  ALTER TABLE spend_counters_v11 RENAME TO spend_counters;

  CREATE TABLE answer_cache_v11 (
    tenant_id  TEXT NOT NULL,
    key        TEXT NOT NULL,
    value_json TEXT NOT NULL,
    stored_at  INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, key)
  ) STRICT;
  INSERT INTO answer_cache_v11 (tenant_id, key, value_json, stored_at)
    SELECT '', key, value_json, stored_at FROM answer_cache;
  DROP TABLE answer_cache;
  ALTER TABLE answer_cache_v11 RENAME TO answer_cache;
  CREATE INDEX answer_cache_stored ON answer_cache (stored_at);

  CREATE TABLE alerts_sent_v11 (
    tenant_id TEXT NOT NULL,
    key       TEXT NOT NULL,
    sent_at   INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, key)
  ) STRICT;
  INSERT INTO alerts_sent_v11 (tenant_id, key, sent_at) SELECT '', key, sent_at FROM alerts_sent;
  DROP TABLE alerts_sent;
  ALTER TABLE alerts_sent_v11 RENAME TO alerts_sent;
  CREATE INDEX alerts_sent_sent ON alerts_sent (sent_at);
  `,
  },
  // 13: the hot money paths as one statement each on PostgreSQL (issue 20's figures; callers in
  // store/budgets.ts and store/ledger.ts). A reservation, a charge against it and a release
  // were transactions of 3 to 7 round trips, and the workspace's counter row stayed locked from
  // its update to the COMMIT, i.e. across client round trips: every replica's reservation and
  // charge queued behind it. As functions, the row lock lasts only the server-side work.
  // Each takes the tenant (migration 12) and keeps to it as the Kysely paths do: its counters
  // (keyed by tenant), its reservations, its ledger rows and its own budget-zone setting.
  // Lock order as everywhere (budgets.ts): the reservation row, then the counters by
  // (scope, subject, period, key) in byte order (COLLATE "C", as JavaScript compares ASCII).
  // SQLite needs none of this (a transaction there never waits for a client round trip).
  {
    rollout: 'online',
    summary: 'PostgreSQL money functions (an older build does not call them)',
    sql: `
  -- postgres only: a reservation of tenant p_tenant, all or nothing. One conditional upsert per
  -- counter, in the order given (the caller sorts them); the first counter whose cap it would
  -- pass raises PD001 with the counter's index (1-based) as DETAIL, which undoes the whole
  -- statement. Returns what each counter held before (spent + reserved).
  CREATE FUNCTION platdesk_reserve(
    p_tenant text, p_id text, p_user_id text, p_points double precision, p_now bigint,
    p_expires bigint, p_holds text, p_scopes text[], p_subjects text[], p_periods text[],
    p_keys text[], p_caps double precision[]
  ) RETURNS double precision[] LANGUAGE plpgsql AS $$
  DECLARE
    v_before double precision;
    v_uses double precision[] := '{}';
  BEGIN
    FOR i IN 1 .. coalesce(array_length(p_scopes, 1), 0) LOOP
      INSERT INTO spend_counters AS c (tenant_id, scope, subject, period, period_key, spent, reserved)
      VALUES (p_tenant, p_scopes[i], p_subjects[i], p_periods[i], p_keys[i], 0, p_points)
      ON CONFLICT (tenant_id, scope, subject, period, period_key) DO UPDATE
      SET reserved = c.reserved + excluded.reserved
      WHERE c.spent + c.reserved + excluded.reserved <= p_caps[i]
      RETURNING c.spent + c.reserved - p_points INTO v_before;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'cap reached' USING ERRCODE = 'PD001', DETAIL = i::text;
      END IF;
      v_uses := v_uses || v_before;
    END LOOP;
    INSERT INTO budget_reservations (tenant_id, id, user_id, points, created_at, expires_at, holds)
    VALUES (p_tenant, p_id, p_user_id, p_points, p_now, p_expires, p_holds);
    RETURN v_uses;
  END $$;

  -- postgres only: deletes a reservation and gives what is left of it back to its counters, those
  -- of the tenant it was made by; false when there was none. With p_expired_at NULL (a release)
  -- only a reservation of p_tenant; else (the sweep) any tenant's, if expired at p_expired_at: a
  -- dead process's reservations are given back whoever made them.
  CREATE FUNCTION platdesk_give_back(p_tenant text, p_id text, p_expired_at bigint)
  RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    v_points double precision;
    v_holds text;
    v_tenant text;
  BEGIN
    DELETE FROM budget_reservations
    WHERE id = p_id
      AND CASE WHEN p_expired_at IS NULL THEN tenant_id = p_tenant
          ELSE expires_at <= p_expired_at END
    RETURNING points, holds, tenant_id INTO v_points, v_holds, v_tenant;
    IF NOT FOUND THEN
      RETURN false;
    END IF;
    IF v_points > 0 THEN
      INSERT INTO spend_counters AS c (tenant_id, scope, subject, period, period_key, spent, reserved)
      SELECT v_tenant, d.scope, d.subject, d.period, d.period_key, 0, -v_points * d.n
      FROM (
        SELECT h ->> 0 AS scope, h ->> 1 AS subject, h ->> 2 AS period, h ->> 3 AS period_key,
          count(*) AS n
        FROM json_array_elements(v_holds::json) AS t(h)
        GROUP BY 1, 2, 3, 4
      ) AS d
      ORDER BY d.scope COLLATE "C", d.subject COLLATE "C", d.period COLLATE "C",
        d.period_key COLLATE "C"
      ON CONFLICT (tenant_id, scope, subject, period, period_key) DO UPDATE
      SET reserved = c.reserved + excluded.reserved;
    END IF;
    RETURN true;
  END $$;

  -- postgres only: a charge of tenant p_tenant. The ledger row (nothing when its charge id is
  -- there already, charge ids being unique in the whole ledger: then NULL), its points taken out
  -- of the tenant's reservation it was made under, and both added to the tenant's counters given
  -- (spent) and the reservation's (reserved), merged and in order. The counters' periods were
  -- worked out in the budget zone of the tenant's setting p_zone_key as the caller last read it
  -- (p_zone_stored, NULL for none): if the setting is not that any more, PD002 and nothing.
  CREATE FUNCTION platdesk_record(
    p_tenant text, p_zone_key text, p_zone_stored text, p_charge_id text, p_at bigint,
    p_user_id text, p_channel_id text, p_operation text, p_edition bigint,
    p_points double precision, p_quota_calls bigint, p_code bigint, p_outcome text,
    p_request_id text, p_correlation_id text, p_pending_id text, p_source text,
    p_reservation_id text, p_scopes text[], p_subjects text[], p_periods text[], p_keys text[]
  ) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    v_id bigint;
    v_held double precision;
    v_holds text;
    v_taken double precision := 0;
  BEGIN
    IF (SELECT value_json FROM settings WHERE tenant_id = p_tenant AND key = p_zone_key)
        IS DISTINCT FROM p_zone_stored THEN
      RAISE EXCEPTION 'budget zone changed' USING ERRCODE = 'PD002';
    END IF;
    INSERT INTO ledger (tenant_id, charge_id, at, user_id, channel_id, operation, edition, points,
      quota_calls, code, outcome, request_id, correlation_id, pending_id, source)
    VALUES (p_tenant, p_charge_id, p_at, p_user_id, p_channel_id, p_operation, p_edition, p_points,
      p_quota_calls, p_code, p_outcome, p_request_id, p_correlation_id, p_pending_id, p_source)
    ON CONFLICT (charge_id) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NULL THEN
      RETURN NULL;
    END IF;
    IF p_reservation_id IS NOT NULL AND p_points > 0 THEN
      SELECT points, holds INTO v_held, v_holds FROM budget_reservations
      WHERE tenant_id = p_tenant AND id = p_reservation_id FOR UPDATE;
      IF FOUND AND v_held > 0 THEN
        v_taken := least(v_held, p_points);
        UPDATE budget_reservations SET points = v_held - v_taken
        WHERE tenant_id = p_tenant AND id = p_reservation_id;
      END IF;
    END IF;
    INSERT INTO spend_counters AS c (tenant_id, scope, subject, period, period_key, spent, reserved)
    SELECT p_tenant, scope, subject, period, period_key, sum(spent), sum(reserved)
    FROM (
      SELECT u.scope, u.subject, u.period, u.period_key, p_points AS spent,
        0::double precision AS reserved
      FROM unnest(p_scopes, p_subjects, p_periods, p_keys) AS u(scope, subject, period, period_key)
      UNION ALL
      SELECT h ->> 0, h ->> 1, h ->> 2, h ->> 3, 0, -v_taken
      FROM json_array_elements(CASE WHEN v_taken > 0 THEN v_holds ELSE '[]' END::json) AS t(h)
    ) AS d
    GROUP BY scope, subject, period, period_key
    HAVING sum(spent) <> 0 OR sum(reserved) <> 0
    ORDER BY scope COLLATE "C", subject COLLATE "C", period COLLATE "C", period_key COLLATE "C"
    ON CONFLICT (tenant_id, scope, subject, period, period_key) DO UPDATE
    SET spent = c.spent + excluded.spent, reserved = c.reserved + excluded.reserved;
    RETURN v_id;
  END $$;
  `,
  },
  // 14: workflow steps (issue 25; lookups/steps.ts). A charge of a Workflow Builder step names its
  // workflow and step (the triggering person is its user_id). Each step's approved spend is a
  // counter scope of its own ('step', subject = the step's callback id), kept per tenant with the
  // ledger row like the others. spend_counters' CHECK on scope cannot be altered in SQLite, so the
  // table is rebuilt (https://www.sqlite.org/lang_altertable.html#otheralter) with migration 12's
  // columns and key (tenant first) and every row kept.
  {
    rollout: 'offline',
    summary: "workflow steps: ledger columns, spend_counters rebuilt with the 'step' scope",
    sql: `
  ALTER TABLE ledger ADD COLUMN workflow_id TEXT;
  ALTER TABLE ledger ADD COLUMN step_id TEXT;
  CREATE TABLE spend_counters_v14 (
    tenant_id  TEXT NOT NULL,
    scope      TEXT NOT NULL CHECK (scope IN ('workspace', 'user', 'channel', 'step')),
    subject    TEXT NOT NULL,
    period     TEXT NOT NULL CHECK (period IN ('daily', 'monthly')),
    period_key TEXT NOT NULL,
    spent      REAL NOT NULL,
    reserved   REAL NOT NULL,
    PRIMARY KEY (tenant_id, scope, subject, period, period_key)
  ) STRICT;
  INSERT INTO spend_counters_v14 (tenant_id, scope, subject, period, period_key, spent, reserved)
    SELECT tenant_id, scope, subject, period, period_key, spent, reserved FROM spend_counters;
  DROP TABLE spend_counters;
  ALTER TABLE spend_counters_v14 RENAME TO spend_counters;
  `,
  },
  // 15: workflow steps (migration 14) on PostgreSQL's one-statement charge (migration 13):
  // platdesk_record writes the ledger's workflow_id and step_id too. Its argument list grows, so
  // the old one is dropped (CREATE OR REPLACE of a longer list would add an overload beside it).
  // A step's counters ('step' scope) need nothing here: platdesk_reserve and platdesk_record
  // take the counters from the caller (budgets.ts countersOf), and migration 14's CHECK admits it.
  {
    rollout: 'offline',
    summary: 'platdesk_record replaced with a longer argument list (the old one is dropped)',
    sql: `
  -- postgres only: the charge function with the old argument list.
  DROP FUNCTION platdesk_record(text, text, text, text, bigint, text, text, text, bigint,
    double precision, bigint, bigint, text, text, text, text, text, text, text[], text[], text[],
    text[]);

  -- postgres only: as migration 13's (caps-fast), and the ledger row names a workflow step's
  -- workflow and step (p_workflow_id, p_step_id; NULL for every other charge). A charge of tenant
  -- p_tenant. The ledger row (nothing when its charge id is
  -- there already, charge ids being unique in the whole ledger: then NULL), its points taken out
  -- of the tenant's reservation it was made under, and both added to the tenant's counters given
  -- (spent) and the reservation's (reserved), merged and in order. The counters' periods were
  -- worked out in the budget zone of the tenant's setting p_zone_key as the caller last read it
  -- (p_zone_stored, NULL for none): if the setting is not that any more, PD002 and nothing.
  CREATE OR REPLACE FUNCTION platdesk_record(
    p_tenant text, p_zone_key text, p_zone_stored text, p_charge_id text, p_at bigint,
    p_user_id text, p_channel_id text, p_operation text, p_edition bigint,
    p_points double precision, p_quota_calls bigint, p_code bigint, p_outcome text,
    p_request_id text, p_correlation_id text, p_pending_id text, p_source text,
    p_reservation_id text, p_scopes text[], p_subjects text[], p_periods text[], p_keys text[],
    p_workflow_id text, p_step_id text
  ) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    v_id bigint;
    v_held double precision;
    v_holds text;
    v_taken double precision := 0;
  BEGIN
    IF (SELECT value_json FROM settings WHERE tenant_id = p_tenant AND key = p_zone_key)
        IS DISTINCT FROM p_zone_stored THEN
      RAISE EXCEPTION 'budget zone changed' USING ERRCODE = 'PD002';
    END IF;
    INSERT INTO ledger (tenant_id, charge_id, at, user_id, channel_id, operation, edition, points,
      quota_calls, code, outcome, request_id, correlation_id, pending_id, source, workflow_id, step_id)
    VALUES (p_tenant, p_charge_id, p_at, p_user_id, p_channel_id, p_operation, p_edition, p_points,
      p_quota_calls, p_code, p_outcome, p_request_id, p_correlation_id, p_pending_id, p_source,
      p_workflow_id, p_step_id)
    ON CONFLICT (charge_id) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NULL THEN
      RETURN NULL;
    END IF;
    IF p_reservation_id IS NOT NULL AND p_points > 0 THEN
      SELECT points, holds INTO v_held, v_holds FROM budget_reservations
      WHERE tenant_id = p_tenant AND id = p_reservation_id FOR UPDATE;
      IF FOUND AND v_held > 0 THEN
        v_taken := least(v_held, p_points);
        UPDATE budget_reservations SET points = v_held - v_taken
        WHERE tenant_id = p_tenant AND id = p_reservation_id;
      END IF;
    END IF;
    INSERT INTO spend_counters AS c (tenant_id, scope, subject, period, period_key, spent, reserved)
    SELECT p_tenant, scope, subject, period, period_key, sum(spent), sum(reserved)
    FROM (
      SELECT u.scope, u.subject, u.period, u.period_key, p_points AS spent,
        0::double precision AS reserved
      FROM unnest(p_scopes, p_subjects, p_periods, p_keys) AS u(scope, subject, period, period_key)
      UNION ALL
      SELECT h ->> 0, h ->> 1, h ->> 2, h ->> 3, 0, -v_taken
      FROM json_array_elements(CASE WHEN v_taken > 0 THEN v_holds ELSE '[]' END::json) AS t(h)
    ) AS d
    GROUP BY scope, subject, period, period_key
    HAVING sum(spent) <> 0 OR sum(reserved) <> 0
    ORDER BY scope COLLATE "C", subject COLLATE "C", period COLLATE "C", period_key COLLATE "C"
    ON CONFLICT (tenant_id, scope, subject, period, period_key) DO UPDATE
    SET spent = c.spent + excluded.spent, reserved = c.reserved + excluded.reserved;
    RETURN v_id;
  END $$;
  `,
  },
  // 16: distributed mode (issue 24; store/installations.ts, store/plat-accounts.ts). One row per
  // Slack installation, keyed by its tenant (the enterprise id of an org-wide Grid install, else
  // the team id; tenants.erase deletes its rows here too); tokens are sealed (store/secrets.ts), never plain. `refreshes` is bumped by
  // the UPDATE that opens a token refresh, which is the per-installation lock. A workspace that
  // uninstalled keeps a row in tenant_erasures until its data is erased after the retention.
  {
    rollout: 'online',
    summary: 'distributed mode: installations, plat accounts, erasures (new tables)',
    sql: `
  CREATE TABLE slack_installations (
    tenant               TEXT PRIMARY KEY,
    enterprise_id        TEXT,
    enterprise_name      TEXT,
    team_id              TEXT,
    team_name            TEXT,
    is_enterprise_install INTEGER NOT NULL,
    app_id               TEXT,
    bot_id               TEXT NOT NULL,
    bot_user_id          TEXT NOT NULL,
    bot_scopes           TEXT NOT NULL,
    bot_token_sealed     TEXT NOT NULL,
    bot_refresh_sealed   TEXT,
    bot_expires_at       INTEGER,
    installer_user_id    TEXT NOT NULL,
    installed_at         INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    refreshes            INTEGER NOT NULL DEFAULT 0
  ) STRICT;

  CREATE TABLE plat_accounts (
    tenant       TEXT PRIMARY KEY,
    base_url     TEXT NOT NULL,
    token_sealed TEXT NOT NULL,
    updated_by   TEXT NOT NULL,
    updated_at   INTEGER NOT NULL,
    -- null until a call made with it answered; the code of the last refusal of the token
    verified_at  INTEGER,
    failure      TEXT
  ) STRICT;

  CREATE TABLE tenant_erasures (
    tenant         TEXT PRIMARY KEY,
    reason         TEXT NOT NULL,
    uninstalled_at INTEGER NOT NULL,
    erase_after    INTEGER NOT NULL,
    erased_at      INTEGER
  ) STRICT;
  CREATE INDEX tenant_erasures_due ON tenant_erasures (erased_at, erase_after);
  `,
  },
  // 17: the ledger's workflow column holds what Slack gives (wo-panel, issue 25). function_executed
  // carries the run of the workflow (workflow_execution_id, "Wx…") and no id of the workflow itself
  // (https://docs.slack.dev/reference/events/function_executed), so the column migration 14 named
  // workflow_id is renamed to say so. PostgreSQL's platdesk_record (migration 15) names the column
  // in its body: it is replaced by the same function writing the renamed column (its parameter
  // renamed too, which CREATE OR REPLACE cannot do, hence the DROP first).
  {
    rollout: 'offline',
    summary: "the ledger's workflow_id renamed workflow_execution_id; platdesk_record replaced",
    sql: `
  ALTER TABLE ledger RENAME COLUMN workflow_id TO workflow_execution_id;

  -- postgres only: migration 15's charge function, which writes the old column name.
  DROP FUNCTION platdesk_record(text, text, text, text, bigint, text, text, text, bigint,
    double precision, bigint, bigint, text, text, text, text, text, text, text[], text[], text[],
    text[], text, text);

  -- postgres only: as migration 15's, the ledger row naming a workflow step's run and step
  -- (p_workflow_execution_id, p_step_id; NULL for every other charge).
  CREATE OR REPLACE FUNCTION platdesk_record(
    p_tenant text, p_zone_key text, p_zone_stored text, p_charge_id text, p_at bigint,
    p_user_id text, p_channel_id text, p_operation text, p_edition bigint,
    p_points double precision, p_quota_calls bigint, p_code bigint, p_outcome text,
    p_request_id text, p_correlation_id text, p_pending_id text, p_source text,
    p_reservation_id text, p_scopes text[], p_subjects text[], p_periods text[], p_keys text[],
    p_workflow_execution_id text, p_step_id text
  ) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    v_id bigint;
    v_held double precision;
    v_holds text;
    v_taken double precision := 0;
  BEGIN
    IF (SELECT value_json FROM settings WHERE tenant_id = p_tenant AND key = p_zone_key)
        IS DISTINCT FROM p_zone_stored THEN
      RAISE EXCEPTION 'budget zone changed' USING ERRCODE = 'PD002';
    END IF;
    INSERT INTO ledger (tenant_id, charge_id, at, user_id, channel_id, operation, edition, points,
      quota_calls, code, outcome, request_id, correlation_id, pending_id, source, workflow_execution_id, step_id)
    VALUES (p_tenant, p_charge_id, p_at, p_user_id, p_channel_id, p_operation, p_edition, p_points,
      p_quota_calls, p_code, p_outcome, p_request_id, p_correlation_id, p_pending_id, p_source,
      p_workflow_execution_id, p_step_id)
    ON CONFLICT (charge_id) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NULL THEN
      RETURN NULL;
    END IF;
    IF p_reservation_id IS NOT NULL AND p_points > 0 THEN
      SELECT points, holds INTO v_held, v_holds FROM budget_reservations
      WHERE tenant_id = p_tenant AND id = p_reservation_id FOR UPDATE;
      IF FOUND AND v_held > 0 THEN
        v_taken := least(v_held, p_points);
        UPDATE budget_reservations SET points = v_held - v_taken
        WHERE tenant_id = p_tenant AND id = p_reservation_id;
      END IF;
    END IF;
    INSERT INTO spend_counters AS c (tenant_id, scope, subject, period, period_key, spent, reserved)
    SELECT p_tenant, scope, subject, period, period_key, sum(spent), sum(reserved)
    FROM (
      SELECT u.scope, u.subject, u.period, u.period_key, p_points AS spent,
        0::double precision AS reserved
      FROM unnest(p_scopes, p_subjects, p_periods, p_keys) AS u(scope, subject, period, period_key)
      UNION ALL
      SELECT h ->> 0, h ->> 1, h ->> 2, h ->> 3, 0, -v_taken
      FROM json_array_elements(CASE WHEN v_taken > 0 THEN v_holds ELSE '[]' END::json) AS t(h)
    ) AS d
    GROUP BY scope, subject, period, period_key
    HAVING sum(spent) <> 0 OR sum(reserved) <> 0
    ORDER BY scope COLLATE "C", subject COLLATE "C", period COLLATE "C", period_key COLLATE "C"
    ON CONFLICT (tenant_id, scope, subject, period, period_key) DO UPDATE
    SET spent = c.spent + excluded.spent, reserved = c.reserved + excluded.reserved;
    RETURN v_id;
  END $$;
  `,
  },
  // 18: what a call holds against the caps before it is sent (issue 33 finding 7): the largest
  // charge seen for its operation and edition (store/ledger.ts largestCharge), found by one
  // index probe rather than a walk of every row of the operation. The edition as
  // coalesce(edition, -1) (no edition is -1; editions are 1 to 99): PostgreSQL 15 reads the
  // newest end of an index only under equalities, and `edition IS NULL` is none (it scanned
  // every row of get-shop-id). An index only: online-safe (an older replica never minds it).
  {
    rollout: 'online',
    summary: 'an index for the largest charge seen per operation and edition',
    sql: `
  CREATE INDEX ledger_tenant_operation_edition_points
    ON ledger (tenant_id, operation, coalesce(edition, -1), points);
  `,
  },
  // 19: a placeholder is upgraded by its call's late charge (issue 33 finding 2; store/ledger.ts
  // certaintyOf). A row written for a call whose answer was never read (code -1 sent, -2 may not
  // have been sent; 0 points) by a takeover or a sweep is replaced by the real row when the holder,
  // alive but late (its store unreachable, the charge kept in memory), writes it under the same
  // charge id: the row's fields become the charge's, and its points are counted (and paid from its
  // reservation) as for a new row, in the same statement. A row never goes back to less certain.
  // Online-safe: the same argument list, replaced in place; an older replica calling it gets the
  // upgrade too (SQLite does the same in its Kysely transaction).
  {
    rollout: 'online',
    summary: "platdesk_record upgrades a placeholder by its call's late charge (same arguments)",
    sql: `
  -- postgres only: as migration 17's, and a placeholder under the charge id is upgraded.
  CREATE OR REPLACE FUNCTION platdesk_record(
    p_tenant text, p_zone_key text, p_zone_stored text, p_charge_id text, p_at bigint,
    p_user_id text, p_channel_id text, p_operation text, p_edition bigint,
    p_points double precision, p_quota_calls bigint, p_code bigint, p_outcome text,
    p_request_id text, p_correlation_id text, p_pending_id text, p_source text,
    p_reservation_id text, p_scopes text[], p_subjects text[], p_periods text[], p_keys text[],
    p_workflow_execution_id text, p_step_id text
  ) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    v_id bigint;
    v_code bigint;
    v_points double precision;
    v_held double precision;
    v_holds text;
    v_taken double precision := 0;
  BEGIN
    IF (SELECT value_json FROM settings WHERE tenant_id = p_tenant AND key = p_zone_key)
        IS DISTINCT FROM p_zone_stored THEN
      RAISE EXCEPTION 'budget zone changed' USING ERRCODE = 'PD002';
    END IF;
    INSERT INTO ledger (tenant_id, charge_id, at, user_id, channel_id, operation, edition, points,
      quota_calls, code, outcome, request_id, correlation_id, pending_id, source, workflow_execution_id, step_id)
    VALUES (p_tenant, p_charge_id, p_at, p_user_id, p_channel_id, p_operation, p_edition, p_points,
      p_quota_calls, p_code, p_outcome, p_request_id, p_correlation_id, p_pending_id, p_source,
      p_workflow_execution_id, p_step_id)
    ON CONFLICT (charge_id) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NULL THEN
      -- Written before: only a placeholder (0 points) that this row knows more than is upgraded.
      SELECT id, code, points INTO v_id, v_code, v_points FROM ledger
      WHERE tenant_id = p_tenant AND charge_id = p_charge_id FOR UPDATE;
      IF NOT FOUND OR v_points <> 0
          OR (CASE p_code WHEN -2 THEN 0 WHEN -1 THEN 1 ELSE 2 END)
            <= (CASE v_code WHEN -2 THEN 0 WHEN -1 THEN 1 ELSE 2 END) THEN
        RETURN NULL;
      END IF;
      UPDATE ledger SET at = p_at, user_id = p_user_id, channel_id = p_channel_id,
        operation = p_operation, edition = p_edition, points = p_points,
        quota_calls = p_quota_calls, code = p_code, outcome = p_outcome,
        request_id = p_request_id, correlation_id = p_correlation_id, pending_id = p_pending_id,
        source = p_source, workflow_execution_id = p_workflow_execution_id, step_id = p_step_id
      WHERE id = v_id;
    END IF;
    IF p_reservation_id IS NOT NULL AND p_points > 0 THEN
      SELECT points, holds INTO v_held, v_holds FROM budget_reservations
      WHERE tenant_id = p_tenant AND id = p_reservation_id FOR UPDATE;
      IF FOUND AND v_held > 0 THEN
        v_taken := least(v_held, p_points);
        UPDATE budget_reservations SET points = v_held - v_taken
        WHERE tenant_id = p_tenant AND id = p_reservation_id;
      END IF;
    END IF;
    INSERT INTO spend_counters AS c (tenant_id, scope, subject, period, period_key, spent, reserved)
    SELECT p_tenant, scope, subject, period, period_key, sum(spent), sum(reserved)
    FROM (
      SELECT u.scope, u.subject, u.period, u.period_key, p_points AS spent,
        0::double precision AS reserved
      FROM unnest(p_scopes, p_subjects, p_periods, p_keys) AS u(scope, subject, period, period_key)
      UNION ALL
      SELECT h ->> 0, h ->> 1, h ->> 2, h ->> 3, 0, -v_taken
      FROM json_array_elements(CASE WHEN v_taken > 0 THEN v_holds ELSE '[]' END::json) AS t(h)
    ) AS d
    GROUP BY scope, subject, period, period_key
    HAVING sum(spent) <> 0 OR sum(reserved) <> 0
    ORDER BY scope COLLATE "C", subject COLLATE "C", period COLLATE "C", period_key COLLATE "C"
    ON CONFLICT (tenant_id, scope, subject, period, period_key) DO UPDATE
    SET spent = c.spent + excluded.spent, reserved = c.reserved + excluded.reserved;
    RETURN v_id;
  END $$;
  `,
  },
  // 20: write-ahead records for every plat call (issue 33 findings 6, 11, 13, 16, 17;
  // store/sent-calls.ts). A lookup's calls are written ahead too (in its claim's fence), so their
  // rows name the ledger row's user, lookup and workflow step. `sent` tells a call whose request
  // was written to the service (marked just after) from one that may never have left (its holder
  // died in between): 1 for the rows of older builds, which wrote no mark and took every row as
  // sent. `written_at` is the database's clock when it was written ahead: when its call can at
  // the latest arrive, for a limiter starting on a fresh key set or after a fast restart.
  // Online-safe: columns and indexes added; older replicas' inserts keep working.
  {
    rollout: 'online',
    summary: 'sent_calls: sent mark, written_at, lookup columns and indexes',
    sql: `
  ALTER TABLE sent_calls ADD COLUMN sent INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE sent_calls ADD COLUMN written_at INTEGER;
  ALTER TABLE sent_calls ADD COLUMN user_id TEXT;
  ALTER TABLE sent_calls ADD COLUMN pending_id TEXT;
  ALTER TABLE sent_calls ADD COLUMN workflow_execution_id TEXT;
  ALTER TABLE sent_calls ADD COLUMN step_id TEXT;
  CREATE INDEX sent_calls_written ON sent_calls (written_at);
  CREATE INDEX sent_calls_sent_at ON sent_calls (sent_at);
  `,
  },
  // 21: a leased run's post attempt and its history check (issue 33 findings 5 and 10). A holder
  // stamps post_attempt_at, under its epoch, right before it sends a keyed post: the history check
  // reads a narrow window around that instant instead of everything since the run was created.
  // check_progress is where a history check cut short by Slack's rate limit goes on from (the
  // Slack side's opaque words: which method, its cursor, pages read). Added columns only: an
  // older replica's writes leave them NULL (online-safe).
  {
    rollout: 'online',
    summary:
      "digest runs and alert checks: the post attempt's time and a history check's progress (new columns)",
    sql: `
  ALTER TABLE digest_runs ADD COLUMN post_attempt_at INTEGER;
  ALTER TABLE digest_runs ADD COLUMN check_progress TEXT;
  ALTER TABLE alert_checks ADD COLUMN post_attempt_at INTEGER;
  ALTER TABLE alert_checks ADD COLUMN check_progress TEXT;
  `,
  },
  // 22: the agent (issue 36; store/agent.ts). What each thread's answers found, for follow-ups
  // ("the second one"): ids only, never receiver data or remarks, forgotten after 3 days; and the
  // feedback people gave the agent's answers (one vote per person and answer; a second replaces it).
  // New tables only: online-safe (an older replica never reads or writes them).
  {
    rollout: 'online',
    summary: 'the agent: thread memory and feedback (new tables)',
    sql: `
  CREATE TABLE agent_threads (
    tenant_id    TEXT NOT NULL DEFAULT '',
    channel_id   TEXT NOT NULL,
    thread_ts    TEXT NOT NULL,
    context_json TEXT NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, channel_id, thread_ts)
  ) STRICT;
  CREATE INDEX agent_threads_updated ON agent_threads (updated_at);

  CREATE TABLE agent_feedback (
    tenant_id  TEXT NOT NULL DEFAULT '',
    user_id    TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_ts TEXT NOT NULL,
    value      TEXT NOT NULL CHECK (value IN ('good', 'bad')),
    tools      TEXT NOT NULL,
    at         INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, user_id, channel_id, message_ts)
  ) STRICT;
  CREATE INDEX agent_feedback_at ON agent_feedback (tenant_id, at);
  `,
  },
  // 23: MCP tokens (issue 37; store/mcp-tokens.ts). A person's tokens for AI clients, kept only
  // as SHA-256 hashes (the token is shown once), with an expiry, a revocation and the last use.
  // A new table only: online-safe (an older replica never reads or writes it).
  {
    rollout: 'online',
    summary: 'MCP tokens for AI clients (a new table)',
    sql: `
  CREATE TABLE mcp_tokens (
    id           TEXT NOT NULL PRIMARY KEY,
    tenant_id    TEXT NOT NULL DEFAULT '',
    user_id      TEXT NOT NULL,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    client_name  TEXT,
    revoked_at   INTEGER,
    revoked_by   TEXT
  ) STRICT;
  CREATE INDEX mcp_tokens_user ON mcp_tokens (tenant_id, user_id, name);
  `,
  },
  // 24: the agent's plan a confirmed lookup is a step of (issue 36; agent/plans.ts). A step cut off
  // by a crash is marked interrupted by the claim sweep like any lookup; the plan id lets the
  // process that marked it tell the whole plan in its thread (which steps ran, which did not, what
  // the ledger holds). An added nullable column: an older replica's rows leave it NULL (online-safe).
  {
    rollout: 'online',
    summary: "pending lookups: the agent's plan a lookup is a step of (a new column)",
    sql: `
  ALTER TABLE pending_lookups ADD COLUMN plan_id TEXT;
  `,
  },
  // 25: who used a shortcut batch, and when its outcome was told (issue 36; agent/plans.ts). An
  // agent's plan whose process died after its Confirm and before its closing summary (its steps
  // never claimed, or all run) is found by the claim sweep and closed once. Added nullable
  // columns and an index (online-safe; no row rewritten). The sweep reads only batches with a
  // used_by: those used before this step, by a Cancel, or by an older replica's Confirm are
  // never closed by it (as before this step).
  {
    rollout: 'online',
    summary: 'shortcut batches: who used one, and when its outcome was told (new columns, an index)',
    sql: `
  ALTER TABLE shortcut_batches ADD COLUMN used_by TEXT;
  ALTER TABLE shortcut_batches ADD COLUMN settled_at INTEGER;
  CREATE INDEX shortcut_batches_unsettled ON shortcut_batches (kind, state, settled_at, state_changed_at);
  `,
  },
  // 26: when each tenant's digests and alerts next need a look (issue 39; store/schedule-wakes.ts):
  // one wake loop per replica reads the rows due through the index on due_at, instead of a timer
  // and a store poll per workspace. Tenants that already have subscriptions get their rows when a
  // replica of this build starts (ScheduleWakes.adoptMissing: due at once, each planned once).
  // The same loop sweeps the open runs of every tenant (digest/stranded.ts): an index on (state,
  // next_attempt_at) of each run table finds the few running, posting or due ones among every run kept.
  // The hourly reconciliation looks at the tenants that spent lately (TenantDirectory.spenders),
  // found through an index on the counters' period key, not at every tenant installed.
  // Online-safe: a new table and indexes; older replicas neither read nor write the table, and an
  // index changes no statement of theirs.
  {
    rollout: 'online',
    summary:
      "schedule_wakes: the next due time of each tenant's digests and alerts, indexed; open runs indexed",
    sql: `
  CREATE TABLE schedule_wakes (
    tenant_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    due_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, kind)
  );
  CREATE INDEX schedule_wakes_due ON schedule_wakes (due_at);
  CREATE INDEX digest_runs_open ON digest_runs (state, next_attempt_at);
  CREATE INDEX alert_checks_open ON alert_checks (state, next_attempt_at);
  CREATE INDEX spend_counters_period_key ON spend_counters (period_key);
  `,
  },
];

/**
 * A schema newer than this build: fine while the newer build's steps since are all 'online' (it
 * recorded that builds of this version may still write); StoreSchemaTooNewError otherwise.
 */
async function newerSchema(db: Db, found: number, known: number): Promise<number> {
  const from = await recordedCompatibleFrom(db);
  if (from === null || from > known) throw new StoreSchemaTooNewError(found, known);
  return found;
}

/**
 * Checks the schema without changing it (PLATDESK_MIGRATE=job: a Job runs `node dist/migrate.js`
 * before the rollout): throws StoreSchemaBehindError when migrations are pending, and
 * StoreSchemaTooNewError when a newer build moved it past what this one may write.
 */
export async function checkSchema(
  db: Db,
  engine: Engine,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number> {
  const found = await schemaVersion(db, engine);
  if (found > migrations.length) return newerSchema(db, found, migrations.length);
  if (found < migrations.length) throw new StoreSchemaBehindError(found, migrations.length);
  return found;
}

export class StoreSchemaBehindError extends Error {
  readonly code = 'store_schema_behind';
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `The database schema is version ${found} and this build needs ${known}; PLATDESK_MIGRATE=job leaves ` +
        'migrating to `node dist/migrate.js`: run it (or a Job with it) first, or set PLATDESK_MIGRATE=start.',
    );
    this.name = 'StoreSchemaBehindError';
  }
}

export class StoreSchemaTooNewError extends Error {
  readonly code = 'store_schema_too_new';
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `The database schema is version ${found} but this build of platdesk knows only up to ${known}: ` +
        'a newer platdesk has migrated it. Run the newer build, or point DATABASE_URL / DATABASE_PATH at another database.',
    );
    this.name = 'StoreSchemaTooNewError';
  }
}

/** SQLite DDL → PostgreSQL DDL; the only engine-specific part of the schema. */
export function forPostgres(sqliteDdl: string): string {
  return sqliteDdl
    .replace(/INTEGER PRIMARY KEY AUTOINCREMENT/g, 'BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY')
    .replace(/\bINTEGER\b/g, 'BIGINT')
    .replace(/\bREAL\b/g, 'DOUBLE PRECISION')
    .replace(/\)\s*STRICT;/g, ');');
}

/**
 * The oldest schema version a build must know to keep writing a database at `version`: the last
 * 'offline' step up to it (an older build was to be stopped before that one ran), 0 when none.
 */
export function compatibleFrom(migrations: readonly Migration[], version: number): number {
  for (let v = Math.min(version, migrations.length); v > 0; v--)
    if (migrations[v - 1]?.rollout === 'offline') return v;
  return 0;
}

/** What the next rollout of this build needs, for `node dist/migrate.js --plan`. */
export interface RolloutPlan {
  /** The database's schema version, and the newest this build knows. */
  found: number;
  known: number;
  /** The steps this build would apply, in order. */
  pending: { version: number; rollout: Migration['rollout']; summary: string }[];
  /**
   * nothing: up to date. rolling-update: every pending step is online, so replicas of the older
   * build may run while it is applied and until they are replaced. stop-older-replicas: a pending
   * step is offline: every replica of an older build must be stopped before it runs. newer: a
   * newer build migrated the database already; `compatible` says whether this build may still
   * write it (only online steps since).
   */
  needs: 'nothing' | 'rolling-update' | 'stop-older-replicas' | 'newer';
  /** With `needs: 'newer'`: whether this build may run on it. */
  compatible?: boolean;
}

export function planRollout(
  found: number,
  recordedFrom: number | null,
  migrations: readonly Migration[] = MIGRATIONS,
): RolloutPlan {
  const known = migrations.length;
  if (found > known)
    return {
      found,
      known,
      pending: [],
      needs: 'newer',
      compatible: recordedFrom !== null && recordedFrom <= known,
    };
  const pending = migrations
    .slice(found)
    .map((m, i) => ({ version: found + i + 1, rollout: m.rollout, summary: m.summary }));
  const needs =
    pending.length === 0
      ? 'nothing'
      : pending.some((p) => p.rollout === 'offline')
        ? 'stop-older-replicas'
        : 'rolling-update';
  return { found, known, pending, needs };
}

/**
 * The tables that exist before a step and that it changes (ALTER, DROP, UPDATE, DELETE) or copies
 * out of (INSERT … SELECT … FROM): the step locks them before its first statement.
 */
export function tablesChangedBy(ddl: string): string[] {
  const found = new Set<string>();
  // Comments, and function bodies ($$…$$: code that runs when called, not now), say nothing.
  const text = ddl.replace(/--.*$/gm, '').replace(/\$\$[\s\S]*?\$\$/g, '');
  const patterns = [
    /\bALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(\w+)/gi,
    /\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(\w+)/gi,
    /\bUPDATE\s+(\w+)\s+SET\b/gi,
    /\bDELETE\s+FROM\s+(\w+)/gi,
    /\bINSERT\s+INTO\s+\w+[^;]*?\bSELECT\b[^;]*?\bFROM\s+(\w+)/gi,
  ];
  for (const pattern of patterns)
    for (const m of text.matchAll(pattern)) found.add((m[1] as string).toLowerCase());
  return [...found];
}

/** The channel a migration step notifies at its commit (PostgreSQL); the payload is the new version. */
export const SCHEMA_CHANNEL = 'platdesk_schema';

/** Any 64-bit number, the same in every platdesk: the advisory lock that serializes migrations. */
const MIGRATION_LOCK = 0x706c6174_6d6967n; // "platmig"

export type Engine = 'sqlite' | 'postgres';

async function readVersion(db: Db, engine: Engine): Promise<number> {
  if (engine === 'postgres')
    await sql`CREATE TABLE IF NOT EXISTS platdesk_schema (version INTEGER NOT NULL)`.execute(db);
  return schemaVersion(db, engine);
}

/** The schema version of the database, read only (0 for an empty one). */
export async function schemaVersion(db: Db, engine: Engine): Promise<number> {
  if (engine === 'sqlite') {
    const { rows } = await sql<{ user_version: number }>`PRAGMA user_version`.execute(db);
    return rows[0]?.user_version ?? 0;
  }
  const { rows } = await sql<{ version: number }>`
    SELECT version FROM platdesk_schema WHERE to_regclass('platdesk_schema') IS NOT NULL`.execute(db);
  return rows[0]?.version ?? 0;
}

/**
 * What the newest migration run recorded: the oldest schema version a build must know to keep
 * writing (compatibleFrom); null when no run of a build that records it has happened.
 */
export async function recordedCompatibleFrom(db: Db): Promise<number | null> {
  try {
    const { rows } = await sql<{ compatible_from: number }>`
      SELECT compatible_from FROM platdesk_rollout`.execute(db);
    return rows[0] ? Number(rows[0].compatible_from) : null;
  } catch {
    // No such table: the database was last migrated by a build before it.
    return null;
  }
}

/**
 * Brings the schema up to date; returns the version reached. Throws StoreSchemaTooNewError,
 * before changing anything, when the database is newer than this build.
 */
export async function migrate(
  db: Db,
  engine: Engine,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number> {
  if (engine === 'sqlite') return migrateSteps(db, engine, migrations);
  // A session lock on one pooled connection: migrations run on that same connection, so the
  // lock is held for exactly as long as they take, and released even if one fails.
  return db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      return await migrateSteps(conn, engine, migrations);
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}

/**
 * One statement at a time: better-sqlite3 prepares exactly one. A statement ends with ';' at the
 * end of a line, except inside a $$-quoted function body. A statement whose leading comment
 * starts with `postgres only` is left out on SQLite.
 */
export function statements(ddl: string, engine: Engine): string[] {
  const parts = ddl.split('$$');
  const found: string[] = [];
  let current = '';
  for (const [i, part] of parts.entries()) {
    if (i % 2 === 1) {
      current += `$$${part}$$`;
      continue;
    }
    const pieces = part.split(/;\s*(?:\n|$)/);
    for (const [k, piece] of pieces.entries()) {
      current += piece;
      if (k < pieces.length - 1) {
        found.push(current);
        current = '';
      }
    }
  }
  found.push(current);
  return found
    .map((s) => s.trim())
    .filter((s) => s.replace(/--.*$/gm, '').trim() !== '')
    .filter((s) => engine === 'postgres' || !/^--\s*postgres only\b/.test(s));
}

/**
 * Locks, before its first statement, every existing table the step changes (tablesChangedBy): an
 * older replica's write in between would otherwise be copied out by an INSERT … SELECT before it
 * committed and lost with the DROP that follows. Its writes now wait for the step's commit, then
 * find the table as the step left it (PostgreSQL looks the name up again after the wait): they
 * land there, or fail on what the step changed, never silently.
 */
async function lockChangedTables(trx: Db, ddl: string): Promise<void> {
  const names = tablesChangedBy(ddl);
  if (names.length === 0) return;
  const { rows } = await sql<{ name: string }>`
    SELECT name FROM unnest(${names}::text[]) AS t(name) WHERE to_regclass(name) IS NOT NULL`.execute(trx);
  if (rows.length === 0) return;
  await sql`LOCK TABLE ${sql.join(rows.map((r) => sql.id(r.name)))} IN ACCESS EXCLUSIVE MODE`.execute(trx);
}

async function migrateSteps(db: Db, engine: Engine, migrations: readonly Migration[]): Promise<number> {
  const found = await readVersion(db, engine);
  if (found > migrations.length) return newerSchema(db, found, migrations.length);
  // Up to date (every start but the first after an upgrade): this one read is all it costs.
  if (found === migrations.length) return found;
  while (await step(db, engine, migrations)) {
    // one migration per transaction
  }
  return readVersion(db, engine);
}

/** A step that PostgreSQL ended as one side of a deadlock is tried again this many times. */
const DEADLOCK_RETRIES = 3;

/** Applies the next migration, if any, in one transaction; false when there is none. */
async function step(db: Db, engine: Engine, migrations: readonly Migration[]): Promise<boolean> {
  const apply = async (trx: Db): Promise<boolean> => {
    // Re-read inside the step: another process may have applied it meanwhile.
    const version = await readVersion(trx, engine);
    const migration = migrations[version];
    if (migration === undefined) return false;
    if (engine === 'postgres') await lockChangedTables(trx, migration.sql);
    for (const statement of statements(
      engine === 'sqlite' ? migration.sql : forPostgres(migration.sql),
      engine,
    ))
      await sql.raw(statement).execute(trx);
    const next = version + 1;
    if (engine === 'sqlite') {
      // PRAGMA takes no bound parameters; version is an integer we computed.
      await sql.raw(`PRAGMA user_version = ${next}`).execute(trx);
    } else {
      await sql`DELETE FROM platdesk_schema`.execute(trx);
      await sql`INSERT INTO platdesk_schema (version) VALUES (${next})`.execute(trx);
    }
    await sql`CREATE TABLE IF NOT EXISTS platdesk_rollout (compatible_from INTEGER NOT NULL)`.execute(trx);
    await sql`DELETE FROM platdesk_rollout`.execute(trx);
    await sql`INSERT INTO platdesk_rollout (compatible_from) VALUES (${compatibleFrom(migrations, next)})`.execute(
      trx,
    );
    // Delivered at commit to every session that LISTENs (the replicas' database locks).
    if (engine === 'postgres') await sql`SELECT pg_notify(${SCHEMA_CHANNEL}, ${String(next)})`.execute(trx);
    return true;
  };
  if (engine === 'postgres')
    for (let attempt = 0; ; attempt++) {
      try {
        return await db.transaction().execute((trx) => apply(trx));
      } catch (error) {
        // 40P01: this step and an older replica's transaction waited for each other's locks.
        if ((error as { code?: unknown }).code !== '40P01' || attempt >= DEADLOCK_RETRIES) throw error;
      }
    }
  // SQLite: IMMEDIATE takes the write lock at BEGIN, so two processes opening one file cannot
  // both read version N and then both apply step N+1.
  return db.connection().execute(async (conn) => {
    await sql`BEGIN IMMEDIATE`.execute(conn);
    try {
      const applied = await apply(conn);
      await sql`COMMIT`.execute(conn);
      return applied;
    } catch (error) {
      await sql`ROLLBACK`.execute(conn);
      throw error;
    }
  });
}
