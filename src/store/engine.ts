/**
 * The two engines behind the Store contract, and the only code that differs between them: how a
 * connection is made and which failures mean "the database cannot be reached".
 *
 * - SQLite (default): one file through better-sqlite3 (DATABASE_PATH). WAL so readers never
 *   block the writer; busy_timeout so a second connection waits for a lock instead of failing.
 * - PostgreSQL (DATABASE_URL=postgres://…): a `pg` pool of DATABASE_POOL_MAX connections. BIGINT
 *   and NUMERIC come back as numbers (times are milliseconds, far below 2^53), so the row mapping
 *   is shared. An unreachable server is a StoreUnavailableError, never a crash: idle connections
 *   that die are dropped by the pool, and the next query connects again, so service resumes by
 *   itself when the server is back.
 */

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type SqliteDatabase,
  SqliteDialect,
  sql,
} from 'kysely';
import { type Clock, realClock } from '../clock.js';
import { LruMap } from '../lru-map.js';
import { createAgentStore } from './agent.js';
import { createAlerts } from './alerts.js';
import { backfillCounters, createBudgetReservations } from './budgets.js';
import { createAlertsSent, createAnswerCache } from './cache.js';
import { createDigestPages } from './digest-pages.js';
import { createDigests } from './digests.js';
import { StoreUnavailableError } from './errors.js';
import { createUnfurls } from './events.js';
import { createInstallations } from './installations.js';
import { createLedger } from './ledger.js';
import { createMcpTokens } from './mcp-tokens.js';
import {
  checkSchema,
  type Engine,
  migrate,
  schemaVersion as readSchemaVersion,
  recordedCompatibleFrom,
} from './migrations.js';
import { createPendingLookups } from './pending.js';
import { createPlatAccounts } from './plat-accounts.js';
import { createScheduleWakes } from './schedule-wakes.js';
import type { Schema, StoreContext } from './schema.js';
import { createSecretBox, type EncryptionKey } from './secrets.js';
import { createSentCalls } from './sent-calls.js';
import { createAuditLog, createSettings, createUserPrefs } from './settings.js';
import { createShortcutBatches } from './shortcut-batches.js';
import type { Store } from './store.js';
import { createTenantDirectory, SINGLE_TENANT } from './tenants.js';
import { createPeriodicTurns } from './turns.js';

/** Tenant-bound views of the store kept for reuse (more are built again on demand). */
export const TENANT_VIEWS_KEPT = 2_000;

export interface StoreOptions {
  /** postgres://… selects PostgreSQL; absent: SQLite at `path`. */
  url?: string | null;
  /** SQLite file; ':memory:' for a private one. */
  path?: string;
  /** PostgreSQL pool size (DATABASE_POOL_MAX). */
  poolMax?: number;
  /** The clock for every stored time and every expiry check (src/clock.ts; tests inject one). */
  clock?: Pick<Clock, 'now'>;
  /**
   * What stamps and judges leases and fences (DESIGN rule 9; StoreContext.leaseNow). 'database'
   * (the default): PostgreSQL's own clock inside each statement, or on SQLite the one process's
   * `clock`. Tests that move a fake clock pass it here too, so that it stands for the database's.
   */
  leaseClock?: Pick<Clock, 'now'> | 'database';
  /** Where pool errors of idle connections are reported (the server went away). */
  onPoolError?: (error: Error) => void;
  /** PLATDESK_ENCRYPTION_KEY's keys, the current first: secrets at rest are sealed with them. */
  encryptionKeys?: readonly EncryptionKey[];
  /**
   * false (PLATDESK_MIGRATE=job): the schema is only checked (migrations.ts checkSchema), a Job
   * having run `node dist/migrate.js`; default true, migrate at open.
   */
  migrate?: boolean;
}

/**
 * PostgreSQL's clock in ms since the epoch, read when the statement evaluates it:
 * `clock_timestamp()`, not `now()`, which is the start of the transaction (a claim waits for its
 * lock row inside one).
 */
export const DATABASE_NOW_MS = sql<number>`(floor(extract(epoch from clock_timestamp()) * 1000))::bigint`;

/** How long a SQLite connection waits for another one's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;
/** A PostgreSQL connection attempt that takes longer is a failure (not a hang). */
const CONNECT_TIMEOUT_MS = 3000;
/** No query may hang a Slack request: past this the server is treated as unreachable. */
const QUERY_TIMEOUT_MS = 10_000;

/** A connection to the database of `options`, before anything is read or migrated. */
export interface OpenedDatabase {
  db: Kysely<Schema>;
  engine: Engine;
  /** Where the data is, without secrets. */
  location: string;
}

/**
 * Connects to the database (SQLite file, or a PostgreSQL pool; pg is loaded only then) without
 * reading or migrating anything: openStore's first step, and `node dist/migrate.js`'s (with a
 * longer query timeout: a step may wait for an older replica's write, or rebuild a large table).
 */
export async function connectDatabase(
  options: Pick<StoreOptions, 'url' | 'path' | 'poolMax' | 'onPoolError'> & { queryTimeoutMs?: number },
): Promise<OpenedDatabase> {
  const url = options.url ?? null;
  const engine: Engine = url ? 'postgres' : 'sqlite';
  const location = url ? describeUrl(url) : (options.path ?? ':memory:');
  // pg and Kysely's PostgreSQL dialect are loaded only when DATABASE_URL selects them.
  const dialect = url
    ? (await import('./postgres-dialect.js')).postgresDialect(url, {
        poolMax: options.poolMax ?? 10,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        queryTimeoutMs: options.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
        ...(options.onPoolError ? { onPoolError: options.onPoolError } : {}),
      })
    : sqliteDialect(options.path ?? ':memory:');
  return { db: new Kysely<Schema>({ dialect: unavailableAs(dialect, engine, location) }), engine, location };
}

/** Opens and migrates the store; throws StoreUnavailableError or StoreSchemaTooNewError. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const clock = options.clock ?? realClock;
  const { db, engine, location } = await connectDatabase(options);
  try {
    await (options.migrate === false ? checkSchema(db, engine) : migrate(db, engine));
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }
  const keys = options.encryptionKeys ?? [];
  const secrets = keys.length > 0 ? createSecretBox(keys) : null;
  const leaseClock = options.leaseClock ?? 'database';
  const ctx: StoreContext = {
    db,
    nowMs: () => Math.floor(clock.now()),
    leaseNow:
      leaseClock === 'database' && engine === 'postgres'
        ? () => DATABASE_NOW_MS
        : () => {
            const ms = Math.floor((leaseClock === 'database' ? clock : leaseClock).now());
            // Typed, so that PostgreSQL can add a lease's length to it (a test's clock there).
            return sql<number>`CAST(${ms} AS BIGINT)`;
          },
    engine,
    tenant: SINGLE_TENANT,
    secrets,
  };
  try {
    await backfillCounters(ctx);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }
  let closed: Promise<void> | null = null;
  // One Store per tenant over the same connections: sub-stores are stateless closures, so the
  // views of the tenants used lately are kept and others built again when needed (issue 39: a
  // process does not keep something for every tenant it ever met).
  const bound = new LruMap<string, Store>(TENANT_VIEWS_KEPT);
  const forTenant = (tenant: string): Store => {
    let store = bound.get(tenant);
    if (!store) {
      store = bindTenant({ ...ctx, tenant }, shared);
      bound.set(tenant, store);
    }
    return store;
  };
  const shared: SharedParts = {
    engine,
    location,
    forTenant,
    tenants: createTenantDirectory(db, forTenant),
    // Keyed by tenant explicitly (the install flow runs before a tenant is known).
    installations: createInstallations(ctx),
    platAccounts: createPlatAccounts(ctx),
    scheduleWakes: createScheduleWakes(db, engine),
    async ping(timeoutMs = 2000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const answered = sql`SELECT 1`.execute(db).then(
        () => true,
        () => false,
      );
      const ok = await Promise.race([answered, late]);
      clearTimeout(timer);
      return ok;
    },
    async probe() {
      if (leaseClock === 'database' && engine === 'postgres') {
        const { rows } = await sql<{ now_ms: number; version: number }>`
          SELECT ${DATABASE_NOW_MS} AS now_ms, (SELECT version FROM platdesk_schema) AS version`.execute(db);
        return { nowMs: Number(rows[0]?.now_ms), schemaVersion: Number(rows[0]?.version ?? 0) };
      }
      const schemaVersion = await readSchemaVersion(db, engine);
      return { nowMs: Math.floor((leaseClock === 'database' ? clock : leaseClock).now()), schemaVersion };
    },
    schemaCompatibleFrom: () => recordedCompatibleFrom(db),
    close() {
      closed ??= db.destroy();
      return closed;
    },
  };
  return forTenant(SINGLE_TENANT);
}

/** What every tenant's Store shares: the connections and what spans tenants. */
type SharedParts = Pick<
  Store,
  | 'engine'
  | 'location'
  | 'forTenant'
  | 'tenants'
  | 'installations'
  | 'platAccounts'
  | 'scheduleWakes'
  | 'ping'
  | 'probe'
  | 'schemaCompatibleFrom'
  | 'close'
>;

/** The sub-stores bound to `ctx.tenant`, over the shared connections. */
function bindTenant(ctx: StoreContext, shared: SharedParts): Store {
  return {
    ...shared,
    tenant: ctx.tenant,
    pending: createPendingLookups(ctx),
    ledger: createLedger(ctx),
    prefs: createUserPrefs(ctx),
    audit: createAuditLog(ctx),
    settings: createSettings(ctx),
    digests: createDigests(ctx),
    digestPages: createDigestPages(ctx),
    sentCalls: createSentCalls(ctx),
    unfurls: createUnfurls(ctx),
    shortcutBatches: createShortcutBatches(ctx),
    agent: createAgentStore(ctx),
    mcpTokens: createMcpTokens(ctx),
    budgets: createBudgetReservations(ctx),
    cache: createAnswerCache(ctx),
    alerts: createAlerts(ctx),
    alertsSent: createAlertsSent(ctx),
    turns: createPeriodicTurns(ctx),
  };
}

function sqliteDialect(path: string): Dialect {
  return new SqliteDialect({
    database: async () => {
      // '' is SQLite's private temporary database; neither it nor ':memory:' has a directory.
      if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
      const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
      db.pragma('journal_mode = WAL');
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.pragma('foreign_keys = ON');
      return withStatementCache(db);
    },
  });
}

/** Prepared SQLite statements kept per connection (their SQL texts are the store's, so few). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 keeping its prepared statements by SQL text. Kysely prepares every query anew,
 * and preparing costs several times what running a one-row statement does (measured: ~300 µs
 * against ~25 µs for an answer-cache read), all of it while SQLite's one connection is held. A
 * statement still iterating (a stream) is busy: then a fresh one is prepared for the caller.
 */
function withStatementCache(db: Database.Database): SqliteDatabase {
  const cache = new LruMap<string, Database.Statement>(STATEMENT_CACHE_SIZE);
  return {
    close: () => db.close(),
    prepare(sql) {
      const cached = cache.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = db.prepare(sql);
      if (!cached) cache.set(sql, statement);
      return statement;
    },
  };
}

/** postgres://user@host:port/db: the URL without password or parameters, for messages. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `${u.protocol}//${user}${u.host}${u.pathname}`;
  } catch {
    return 'postgres://(unparsable DATABASE_URL)';
  }
}

// ---- "unreachable" as one error ---------------------------------------------------------------

const NODE_NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const PG_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection ended|the database system is (starting up|shutting down|in recovery)/i;

/** Whether an error means the database cannot be reached (as opposed to a bad query). */
export function isUnreachable(error: unknown, engine: Engine): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NODE_NET_CODES.has(code)) return true;
    // SQLSTATE class 08 (connection exception), 57P0x (shutdown, cannot connect now), 53300.
    if (engine === 'postgres' && (/^08/.test(code) || /^57P0/.test(code) || code === '53300')) return true;
    if (engine === 'sqlite' && /^SQLITE_(BUSY|IOERR|FULL|CANTOPEN|READONLY)/.test(code)) return true;
  }
  if (engine === 'postgres' && PG_MESSAGES.test(error.message)) return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isUnreachable(cause, engine);
}

/** The dialect with every "cannot reach the database" failure turned into StoreUnavailableError. */
function unavailableAs(dialect: Dialect, engine: Engine, location: string): Dialect {
  const map = (error: unknown): never => {
    if (isUnreachable(error, engine)) throw new StoreUnavailableError(engine, location, error);
    throw error;
  };
  const connections = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const wrapConnection = (connection: DatabaseConnection): DatabaseConnection => {
    let wrapped = connections.get(connection);
    if (!wrapped) {
      // A Proxy, not a copy: the driver calls private (symbol) methods on what it handed out.
      wrapped = new Proxy(connection, {
        get(target, key) {
          if (key === 'executeQuery')
            return (query: Parameters<DatabaseConnection['executeQuery']>[0]) =>
              target.executeQuery(query).catch(map);
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      connections.set(connection, wrapped);
    }
    return wrapped;
  };
  const unwrap = new WeakMap<DatabaseConnection, DatabaseConnection>();
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver(): Driver {
      const driver = dialect.createDriver();
      const original = (c: DatabaseConnection) => unwrap.get(c) ?? c;
      return {
        init: () => driver.init().catch(map),
        async acquireConnection(options) {
          const connection = await driver.acquireConnection(options).catch(map);
          const wrapped = wrapConnection(connection);
          unwrap.set(wrapped, connection);
          return wrapped;
        },
        beginTransaction: (c, settings) => driver.beginTransaction(original(c), settings).catch(map),
        commitTransaction: (c) => driver.commitTransaction(original(c)).catch(map),
        rollbackTransaction: (c) => driver.rollbackTransaction(original(c)).catch(map),
        releaseConnection: (c) => driver.releaseConnection(original(c)),
        destroy: () => driver.destroy(),
        ...(driver.savepoint
          ? {
              savepoint: (c, name, compile) =>
                (driver.savepoint as NonNullable<Driver['savepoint']>)(original(c), name, compile),
            }
          : {}),
        ...(driver.rollbackToSavepoint
          ? {
              rollbackToSavepoint: (c, name, compile) =>
                (driver.rollbackToSavepoint as NonNullable<Driver['rollbackToSavepoint']>)(
                  original(c),
                  name,
                  compile,
                ),
            }
          : {}),
        ...(driver.releaseSavepoint
          ? {
              releaseSavepoint: (c, name, compile) =>
                (driver.releaseSavepoint as NonNullable<Driver['releaseSavepoint']>)(
                  original(c),
                  name,
                  compile,
                ),
            }
          : {}),
      };
    },
  };
}
