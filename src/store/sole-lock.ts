/**
 * "Alone or shared" on PostgreSQL (issue 13): a process without REDIS_URL keeps its rate limiter
 * and single flight in memory, so two such processes on one database would each allow the full
 * plat rate limit. Each process therefore holds a session advisory lock on SOLE_LOCK for its
 * lifetime, on a connection of its own (a pool connection would be recycled and drop the lock):
 *
 * - without REDIS_URL: `pg_try_advisory_lock` (exclusive): nobody else may use the database;
 * - with REDIS_URL: `pg_try_advisory_lock_shared`: any number of replicas, none without Redis.
 *
 * Failing to take it at start is DatabaseInUseError (start-up stops with its one line). If the
 * connection is lost later (server restart, network), the lock went with it: it is retaken as
 * soon as the database answers again; if another process took it meanwhile, that is logged as an
 * error and reported by health() (/healthz 503) until this process holds it again, never ignored.
 * SQLite needs nothing of this: one file on one machine.
 *
 * Never stale (issue 20 pt 4): `held()` is true only while the lock was confirmed within
 * `heartbeatMs + QUERY_TIMEOUT_MS` (taken, or a heartbeat answered), and the process's limiter
 * refuses every plat call while it is false (plat/gated-limiter.ts). The server, for its part,
 * ends a session that stops answering, and so releases its lock, only well after that: TCP
 * keepalive probes and a TCP user timeout on both ends, a statement timeout, and (PostgreSQL 14+)
 * an idle-session timeout the heartbeat keeps from firing while the process lives. So a process
 * cut off from its database has stopped calling before another process can take the lock.
 *
 * The same session LISTENs to migrations.ts SCHEMA_CHANNEL: a migration step, run by a newer
 * build, notifies at its commit, and this process's database watch looks at the schema at once
 * (store/database-watch.ts) instead of at its next look.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { describeUrl, isUnreachable } from './engine.js';
import { DatabaseInUseError, StoreUnavailableError } from './errors.js';
import { SCHEMA_CHANNEL } from './migrations.js';
import type { Db } from './schema.js';

/**
 * The advisory lock key, the same in every platdesk build: "platsol" in ASCII. Distinct from the
 * migration lock ("platmig", migrations.ts), so a running process never blocks migrations.
 */
export const SOLE_LOCK = 0x706c6174_736f6cn;
const CLASS_ID = String(SOLE_LOCK >> 32n);
const OBJ_ID = String(SOLE_LOCK & 0xffff_ffffn);

export type SoleLockMode = 'exclusive' | 'shared';

/** What the lock logs through (pino's logger is one). */
type LogFn = (obj: object, msg: string) => void;
export interface LockLogger {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

export interface SoleLockOptions {
  url: string;
  /** 'exclusive' without REDIS_URL, 'shared' with it. */
  mode: SoleLockMode;
  logger: LockLogger;
  /** How often a lost lock is tried again (default 1 s). */
  retryMs?: number;
  /** How often the lock's connection is checked with a trivial query (default 5 s). */
  heartbeatMs?: number;
}

export interface SoleLockHealth {
  mode: SoleLockMode;
  held: boolean;
  /** Why it is not held, for /healthz; null while held. */
  problem: string | null;
}

export interface SoleLock {
  health(): SoleLockHealth;
  /** Held and confirmed within heartbeatMs + the query timeout: plat calls may be sent. */
  held(): boolean;
  /** Calls `listener` whenever a migration step commits (a NOTIFY on SCHEMA_CHANNEL). */
  onSchemaChange(listener: () => void): void;
  /** Ends the connection (the server releases the lock); calling it again does nothing. */
  release(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 3000;
const QUERY_TIMEOUT_MS = 5000;
/**
 * How long the server keeps the session of a process that stopped answering (TCP keepalive:
 * 10 s idle + 3 probes 5 s apart; unacknowledged data: 25 s; idle session: 30 s). Above the
 * longest a process goes on calling without a confirmation (heartbeatMs + QUERY_TIMEOUT_MS, 10 s
 * by default): whoever takes the lock next finds the previous holder already refusing.
 */
export const SERVER_RELEASE_MS = 25_000;
const SERVER_IDLE_SESSION_MS = 30_000;

/** Takes the lock or throws DatabaseInUseError (held elsewhere) / StoreUnavailableError. */
export async function takeSoleLock(options: SoleLockOptions): Promise<SoleLock> {
  const { url, mode, logger } = options;
  const location = describeUrl(url);
  const retryMs = options.retryMs ?? 1000;
  const heartbeatMs = options.heartbeatMs ?? 5000;
  /** Past this without a confirmation the lock is not counted as held, whatever the socket says. */
  const staleAfterMs = heartbeatMs + QUERY_TIMEOUT_MS;
  if (staleAfterMs >= SERVER_RELEASE_MS)
    throw new RangeError(`heartbeatMs must leave the lock confirmed well within ${SERVER_RELEASE_MS} ms`);

  const first = await attempt(url, mode, location);
  if (!first.ok) throw first.error;
  let client: pg.Client | null = first.client;
  let confirmedAt = performance.now();
  const held = () => client !== null && performance.now() - confirmedAt <= staleAfterMs;
  let problem: string | null = null;
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  const schemaListeners: (() => void)[] = [];

  const watch = (c: pg.Client) => {
    // Unhandled, a connection's 'error' would end the process.
    c.on('error', (error) => lost(c, error));
    c.on('notification', (message) => {
      if (message.channel === SCHEMA_CHANNEL) for (const listener of schemaListeners) listener();
    });
    c.on('end', () => lost(c, new Error('connection ended')));
    schedule(heartbeatMs, () => heartbeat(c));
  };
  // A trivial query now and then: a dead link is noticed within heartbeatMs + the query timeout,
  // and an idle_session_timeout on the server never ends this connection.
  const heartbeat = async (c: pg.Client) => {
    try {
      await c.query('SELECT 1');
      if (client !== c) return;
      confirmedAt = performance.now();
      schedule(heartbeatMs, () => heartbeat(c));
    } catch (error) {
      lost(c, error);
    }
  };
  function schedule(ms: number, run: () => Promise<void>) {
    clearTimeout(timer);
    if (released) return;
    timer = setTimeout(() => void run(), ms);
    timer.unref();
  }
  function lost(c: pg.Client, error: unknown) {
    if (released || client !== c) return;
    client = null;
    problem = `the database lock of this process was lost with its connection (${reason(error)}); retaking it`;
    logger.warn({ err: error, mode }, 'the database lock connection was lost; retaking the lock');
    void c.end().catch(() => undefined);
    schedule(retryMs, retake);
  }
  async function retake() {
    const result = await attempt(url, mode, location);
    if (released) {
      if (result.ok) await result.client.end().catch(() => undefined);
      return;
    }
    if (result.ok) {
      client = result.client;
      confirmedAt = performance.now();
      problem = null;
      logger.info({ mode }, 'the database lock is held again');
      watch(result.client);
      return;
    }
    if (result.error instanceof DatabaseInUseError) {
      const next = `the database lock was lost and another process took it: ${result.error.message}`;
      if (next !== problem) logger.error({ mode }, next);
      problem = next;
    }
    schedule(retryMs, retake);
  }

  watch(first.client);
  return {
    held,
    health: () => {
      if (held()) return { mode, held: true, problem: null };
      const why =
        problem ??
        `the database lock of this process has not been confirmed for over ${Math.round(staleAfterMs / 1000)} s`;
      return { mode, held: false, problem: `${why}; plat calls are refused until it is held again` };
    },
    onSchemaChange(listener) {
      schemaListeners.push(listener);
    },
    async release() {
      if (released) return;
      released = true;
      clearTimeout(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}

/**
 * How many platdesk processes use this database now: the sessions holding SOLE_LOCK, in either
 * mode (every platdesk on PostgreSQL holds it for its whole life). `node dist/migrate.js` asks
 * before an offline step.
 */
export async function platdeskProcessesConnected(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.classid = ${CLASS_ID}::oid AND l.objid = ${OBJ_ID}::oid
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(db);
  return rows[0]?.n ?? 0;
}

type Attempt = { ok: true; client: pg.Client } | { ok: false; error: Error };

async function attempt(url: string, mode: SoleLockMode, location: string): Promise<Attempt> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    // The server's side of the same bounds (PostgreSQL runtime settings, sent at connect).
    statement_timeout: QUERY_TIMEOUT_MS,
    idle_in_transaction_session_timeout: QUERY_TIMEOUT_MS,
    options: [
      '-c tcp_keepalives_idle=10',
      '-c tcp_keepalives_interval=5',
      '-c tcp_keepalives_count=3',
      `-c tcp_user_timeout=${SERVER_RELEASE_MS}`,
    ].join(' '),
    // This end: a dead link is seen by the heartbeat's query timeout; keepalive keeps NATs open.
    keepAlive: true,
    keepAliveInitialDelayMillis: 5000,
    // Seen in pg_stat_activity: which connection holds the lock.
    application_name: `platdesk lock (${mode})`,
  });
  // Until watched: a failure during these first queries is reported through their promises.
  const ignore = () => undefined;
  client.on('error', ignore);
  try {
    await client.connect();
    // idle_session_timeout exists from PostgreSQL 14 on (an unknown setting at connect would refuse it).
    await client.query(
      `SELECT set_config('idle_session_timeout', $1, false) WHERE current_setting('server_version_num')::int >= 140000`,
      [String(SERVER_IDLE_SESSION_MS)],
    );
    const take = mode === 'exclusive' ? 'pg_try_advisory_lock' : 'pg_try_advisory_lock_shared';
    const { rows } = await client.query<{ ok: boolean }>(`SELECT ${take}($1::bigint) AS ok`, [
      SOLE_LOCK.toString(),
    ]);
    if (rows[0]?.ok) {
      await client.query(`LISTEN ${SCHEMA_CHANNEL}`);
      client.removeListener('error', ignore);
      return { ok: true, client };
    }
    const held = await client.query<{ mode: string }>(
      `SELECT l.mode FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
          AND l.classid = $1::oid AND l.objid = $2::oid
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [CLASS_ID, OBJ_ID],
    );
    await client.end().catch(() => undefined);
    const modes = new Set(held.rows.map((r) => r.mode));
    const other = modes.has('ExclusiveLock') ? 'exclusive' : modes.has('ShareLock') ? 'shared' : null;
    return { ok: false, error: new DatabaseInUseError(inUseMessage(mode, other, location)) };
  } catch (error) {
    await client.end().catch(() => undefined);
    return {
      ok: false,
      error: isUnreachable(error, 'postgres')
        ? new StoreUnavailableError('postgres', location, error)
        : error instanceof Error
          ? error
          : new Error(String(error)),
    };
  }
}

/** One line for the operator: who holds the database, and what to change. */
function inUseMessage(mine: SoleLockMode, other: SoleLockMode | null, location: string): string {
  if (mine === 'exclusive' && other === 'exclusive')
    return `another platdesk process uses this database (${location}) without REDIS_URL; two such processes would each allow the full plat rate limit: stop the other one, or give every process the same REDIS_URL`;
  if (mine === 'exclusive' && other === 'shared')
    return `replicas with REDIS_URL use this database (${location}); set REDIS_URL here too (the same one), or point DATABASE_URL at another database`;
  if (mine === 'shared' && other === 'exclusive')
    return `another platdesk process uses this database (${location}) without REDIS_URL, so it must run alone; stop it, or restart it with the same REDIS_URL as this one`;
  return `another platdesk process holds this database's lock (${location}); it has just let go: try again`;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
