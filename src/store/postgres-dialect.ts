/**
 * The PostgreSQL dialect: a `pg` pool behind Kysely's PostgresDialect. Its own module so that
 * engine.ts imports it (and pg) only when DATABASE_URL selects PostgreSQL.
 */
import { type Dialect, PostgresDialect } from 'kysely';
import pg from 'pg';

export interface PostgresOptions {
  poolMax: number;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
  onPoolError?: (error: Error) => void;
}

// BIGINT (20) and NUMERIC (1700, what SUM of a BIGINT is) as numbers.
const TYPE_PARSERS = new Map<number, (value: string) => unknown>([
  [20, Number],
  [1700, Number],
]);

export function postgresDialect(url: string, options: PostgresOptions): Dialect {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.queryTimeoutMs,
    // Release idle connections so a restarted server is met with fresh ones.
    idleTimeoutMillis: 30_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        TYPE_PARSERS.get(oid) ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection whose server went away emits 'error' on the pool; unhandled, it would
  // end the process. The pool drops that connection; the next query connects anew.
  pool.on('error', (error) => options.onPoolError?.(error));
  // A connection cut while checked out (mid-query, e.g. on COMMIT) emits 'error' on its client,
  // which the pool only listens to while the client is idle: unhandled, it would end the
  // process. The same error fails the query in flight (a StoreUnavailableError to its caller),
  // and the pool drops the client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return new PostgresDialect({ pool });
}
