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
    // So a database administrator (and test/slack/tenant-resources) tells the store's sessions
    // from the database lock's (`platdesk lock (…)`) and anything else.
    application_name: 'platdesk',
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

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

interface Waiter {
  grant(): void;
}

/**
 * A pool that hands its connections out by class (bulk-work.ts): a connection that comes free goes
 * to the longest-waiting work of any other kind first (claims, renewals, requests), and only then
 * to bulk work, which never holds more than `bulkMax` at once. Every connection is asked for here,
 * so pg's own queue stays empty. A wait is bounded as pg bounds its own: other work fails after
 * `connectionTimeoutMillis`, bulk work after `bulkWaitMs`, each as a pool that cannot give a
 * connection does (the store is unavailable to it).
 */
class BulkBoundPool extends pg.Pool {
  readonly #max: number;
  readonly #bulkMax: number;
  readonly #waitMs: number;
  readonly #bulkWaitMs: number;
  #held = 0;
  #bulkHeld = 0;
  readonly #waiting: Waiter[] = [];
  readonly #bulkWaiting: Waiter[] = [];

  constructor(config: pg.PoolConfig & { max: number; bulkMax: number; bulkWaitMs: number }) {
    const { bulkMax, bulkWaitMs, ...rest } = config;
    super(rest);
    this.#max = config.max;
    this.#bulkMax = bulkMax;
    this.#waitMs = config.connectionTimeoutMillis ?? 0;
    this.#bulkWaitMs = bulkWaitMs;
  }

  // Kysely asks with no callback; pg's own pool.query() passes one (unused here: not ordered).
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    if (callback !== undefined) {
      super.connect(callback);
      return undefined;
    }
    return this.#checkOut(isBulkStoreWork());
  }

  async #checkOut(bulk: boolean): Promise<pg.PoolClient> {
    await this.#turn(bulk);
    let client: pg.PoolClient;
    try {
      client = await super.connect();
    } catch (error) {
      this.#endTurn(bulk);
      throw error;
    }
    // pg sets release anew on every checkout: this one ends this turn, once.
    const release = client.release;
    let released = false;
    client.release = (err?: Error | boolean) => {
      if (!released) {
        released = true;
        this.#endTurn(bulk);
      }
      return release.call(client, err);
    };
    return client;
  }

  #free(bulk: boolean): boolean {
    return this.#held < this.#max && (!bulk || this.#bulkHeld < this.#bulkMax);
  }

  #take(bulk: boolean): void {
    this.#held++;
    if (bulk) this.#bulkHeld++;
  }

  #turn(bulk: boolean): Promise<void> {
    const queue = bulk ? this.#bulkWaiting : this.#waiting;
    // Nobody of its kind ahead of it, and for bulk work no other work waiting either.
    if (this.#free(bulk) && queue.length === 0 && (!bulk || this.#waiting.length === 0)) {
      this.#take(bulk);
      return Promise.resolve();
    }
    const waitMs = bulk ? this.#bulkWaitMs : this.#waitMs;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          if (timer) clearTimeout(timer);
          this.#take(bulk);
          resolve();
        },
      };
      const timer =
        waitMs > 0
          ? setTimeout(() => {
              queue.splice(queue.indexOf(waiter), 1);
              reject(
                new Error(
                  `timeout exceeded when trying to connect: ${bulk ? 'bulk ' : ''}store work waited ${waitMs} ms for a connection`,
                ),
              );
            }, waitMs)
          : null;
      queue.push(waiter);
    });
  }

  #endTurn(bulk: boolean): void {
    this.#held--;
    if (bulk) this.#bulkHeld--;
    for (;;) {
      if (this.#waiting.length > 0 && this.#free(false)) (this.#waiting.shift() as Waiter).grant();
      else if (this.#bulkWaiting.length > 0 && this.#free(true))
        (this.#bulkWaiting.shift() as Waiter).grant();
      else return;
    }
  }
}
