/**
 * Schema migrations, applied in order; `PRAGMA user_version` holds how many have run.
 * Append only: never edit or reorder a migration that has shipped.
 *
 * Dates are integer milliseconds since the epoch. Tables are STRICT so a wrong type is an error,
 * not a silent conversion (https://www.sqlite.org/stricttables.html).
 */
import type Database from 'better-sqlite3';

export const MIGRATIONS: readonly string[] = [
  // 1: the initial schema.
  `
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
];

export class StoreSchemaTooNewError extends Error {
  readonly code = 'store_schema_too_new';
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `The database schema is version ${found} but this build knows only up to ${known}: ` +
        'it was written by a newer platdesk. Upgrade, or point DATABASE_PATH at another file.',
    );
    this.name = 'StoreSchemaTooNewError';
  }
}

function userVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the schema up to date; returns the version reached. Each step runs in its own
 * IMMEDIATE transaction and re-reads user_version inside it, so two processes opening the same
 * file at once apply each migration exactly once.
 */
export function migrate(db: Database.Database, migrations: readonly string[] = MIGRATIONS): number {
  const found = userVersion(db);
  if (found > migrations.length) throw new StoreSchemaTooNewError(found, migrations.length);
  const step = db.transaction((): boolean => {
    const version = userVersion(db);
    const sql = migrations[version];
    if (sql === undefined) return false;
    db.exec(sql);
    // PRAGMA takes no bound parameters; version is an integer we computed.
    db.pragma(`user_version = ${version + 1}`);
    return true;
  });
  while (step.immediate()) {
    // one migration per transaction
  }
  return userVersion(db);
}
