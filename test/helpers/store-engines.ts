/**
 * The store engines every contract suite runs against (CONVENTIONS 13): SQLite (a file in a temp
 * directory) and PostgreSQL (a fresh database on the run's test server, globalSetup). A factory
 * opens any number of stores on one database, as separate processes or replicas would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore, type StoreOptions } from '../../src/store/engine.js';
import { MIGRATIONS, type Migration } from '../../src/store/migrations.js';
import type { AlertsSent, Store } from '../../src/store/store.js';

export type EngineName = 'sqlite' | 'postgres';
export const ENGINES: readonly EngineName[] = ['sqlite', 'postgres'];

/** One database of one engine, for one suite or test. */
export interface TestDatabase {
  engine: EngineName;
  /** Options that open a store on this database (url for PostgreSQL, path for SQLite). */
  options: Pick<StoreOptions, 'url' | 'path'>;
  /**
   * Opens another store (another pool, another connection) on it. A test's `clock` stands for the
   * database's clock too (leases and fences), unless it asks for `leaseClock: 'database'`.
   */
  open(extra?: Omit<StoreOptions, 'url' | 'path'>): Promise<Store>;
  /**
   * `n` stores to race against each other. PostgreSQL: n stores, n pools, as n processes would
   * have. SQLite: one store n times. better-sqlite3 waits for a lock synchronously, so a second
   * connection on the same thread would block the very thread that must release the lock; the
   * cross-process case of SQLite is the two-thread race in store-contract.test.ts.
   */
  openMany(n: number, extra?: Omit<StoreOptions, 'url' | 'path'>): Promise<Store[]>;
  /** Closes every store opened here and drops the database. */
  dispose(): Promise<void>;
}

/** A new empty database on the run's PostgreSQL test server; its URL. */
export async function createPostgresDatabase(): Promise<string> {
  const admin = inject('postgresUrl');
  const name = `t_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return admin.replace(/\/postgres$/, `/${name}`);
}

export async function dropPostgresDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export async function testDatabase(engine: EngineName): Promise<TestDatabase> {
  const opened: Store[] = [];
  let options: Pick<StoreOptions, 'url' | 'path'>;
  let cleanup: () => Promise<void>;
  if (engine === 'postgres') {
    const url = await createPostgresDatabase();
    options = { url };
    cleanup = () => dropPostgresDatabase(url);
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-sqlite-'));
    options = { path: join(dir, 'platdesk.sqlite') };
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  const db: TestDatabase = {
    engine,
    options,
    async open(extra = {}) {
      const leaseClock = extra.leaseClock ?? extra.clock;
      const store = await openStore({ ...options, ...extra, ...(leaseClock ? { leaseClock } : {}) });
      opened.push(store);
      return store;
    },
    async openMany(n, extra = {}) {
      if (engine === 'sqlite') {
        const store = await db.open(extra);
        return Array.from({ length: n }, () => store);
      }
      // One at a time: the first migrates, the rest find the schema current.
      const stores: Store[] = [];
      for (let i = 0; i < n; i++) stores.push(await db.open(extra));
      return stores;
    },
    async dispose() {
      await Promise.all([...new Set(opened)].map((s) => s.close()));
      await cleanup();
    },
  };
  return db;
}

/**
 * A SQLite store for a test that is not about the engine (what main's tests opened with the
 * synchronous store): a file path, or ':memory:'; `now` is the test's wall clock.
 */
export function openTestStore(path = ':memory:', options: { now?: () => Date } = {}): Promise<Store> {
  const now = options.now;
  return openStore({ path, ...(now ? { clock: { now: () => now().getTime() } } : {}) });
}

/** AlertsSent kept in a Map, for units that send admin alerts without a store (store.ts AlertsSent). */
export function alertsSentInMemory(now: () => number = Date.now): AlertsSent {
  const sent = new Map<string, number>();
  return {
    async claim(key, minIntervalMs) {
      const last = sent.get(key);
      if (last !== undefined && now() - last < minIntervalMs) return false;
      sent.set(key, now());
      return true;
    },
    async recent(prefix, limit) {
      return [...sent.entries()]
        .filter(([key]) => key.startsWith(prefix))
        .sort((a, b) => b[1] - a[1])
        .slice(0, limit)
        .map(([key, at]) => ({ key, sentAt: new Date(at) }));
    },
    async prune(olderThan) {
      const old = [...sent.entries()].filter(([, at]) => at < olderThan.getTime());
      for (const [key] of old) sent.delete(key);
      return old.length;
    },
  };
}

/**
 * The migrations before the one whose text holds `marker` (a database as an older platdesk left
 * it); a marker no migration holds fails the test rather than running all but the last.
 */
export function migrationsBefore(marker: string): readonly Migration[] {
  const at = MIGRATIONS.findIndex((m) => m.sql.includes(marker));
  if (at < 0) throw new Error(`no migration holds ${JSON.stringify(marker)}`);
  return MIGRATIONS.slice(0, at);
}
