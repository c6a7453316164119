/**
 * The PostgreSQL dialect: a `pg` pool behind Kysely's PostgresDialect. Its own module so that
 * engine.ts imports it (and pg) only when DATABASE_URL selects PostgreSQL.
 */
import { type Dialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { bulkConnections, isBulkStoreWork } from './bulk-work.js';

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
  const pool = new BulkBoundPool({
    connectionString: url,
    max: options.poolMax,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.queryTimeoutMs,
    // Release idle connections so a restarted server is met with fresh ones.
    idleTimeoutMillis: 30_000,
    bulkMax: bulkConnections(options.poolMax),
    bulkWaitMs: options.queryTimeoutMs,
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

/**
 * A pool whose bulk work (bulk-work.ts) holds at most `bulkMax` connections at once: the others
 * stay free for claims, renewals and requests. Bulk work past that waits here, first come first
 * served, at most `bulkWaitMs` (then it fails as a pool that cannot give a connection does: the
 * store is unavailable to it); anything else goes straight to the pool.
 */
type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

class BulkBoundPool extends pg.Pool {
  readonly #bulkMax: number;
  readonly #bulkWaitMs: number;
  #bulkHeld = 0;
  readonly #waiting: { grant: () => void }[] = [];

  constructor(config: pg.PoolConfig & { bulkMax: number; bulkWaitMs: number }) {
    const { bulkMax, bulkWaitMs, ...rest } = config;
    super(rest);
    this.#bulkMax = bulkMax;
    this.#bulkWaitMs = bulkWaitMs;
  }

  // Kysely asks with no callback; pg's own pool.query() passes one (not used here: not bound).
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    if (callback !== undefined) {
      super.connect(callback);
      return undefined;
    }
    return isBulkStoreWork() ? this.#connectBulk() : super.connect();
  }

  async #connectBulk(): Promise<pg.PoolClient> {
    await this.#takeBulkTurn();
    let client: pg.PoolClient;
    try {
      client = await super.connect();
    } catch (error) {
      this.#endBulkTurn();
      throw error;
    }
    // pg sets release anew on every checkout: this one ends this turn, once.
    const release = client.release;
    let released = false;
    client.release = (err?: Error | boolean) => {
      if (!released) {
        released = true;
        this.#endBulkTurn();
      }
      return release.call(client, err);
    };
    return client;
  }

  #takeBulkTurn(): Promise<void> {
    if (this.#bulkHeld < this.#bulkMax) {
      this.#bulkHeld++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          this.#bulkHeld++;
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(
          new Error(
            `timeout exceeded when trying to connect: bulk store work waited ${this.#bulkWaitMs} ms for one of its ${this.#bulkMax} connections`,
          ),
        );
      }, this.#bulkWaitMs);
      this.#waiting.push(waiter);
    });
  }

  #endBulkTurn(): void {
    this.#bulkHeld--;
    this.#waiting.shift()?.grant();
  }
}
