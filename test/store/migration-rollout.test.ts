/**
 * Migrations while replicas of the older build still run (issue 33 pt 9, issue 38 pt 3): every
 * migration says whether they may (`rollout`), an 'online' one may not drop, rename or rebuild
 * what they use, and a step that still rebuilds a table keeps their writes: on PostgreSQL it
 * locks the tables it changes before it copies anything, so a write committed meanwhile is in the
 * rebuilt table (it was lost before: copied out, then dropped); on SQLite its BEGIN IMMEDIATE
 * does the same.
 */
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  compatibleFrom,
  MIGRATIONS,
  type Migration,
  migrate,
  recordedCompatibleFrom,
  tablesChangedBy,
} from '../../src/store/migrations.js';
import { postgresDialect } from '../../src/store/postgres-dialect.js';
import type { Schema } from '../../src/store/schema.js';
import { migrationsBefore, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

/**
 * What an older build's reads and writes may not survive while it still runs: a table or column
 * dropped or renamed, rows copied out (a rebuild) or rewritten, a column's type or nullness
 * changed, a NOT NULL column added without a default (its INSERTs would fail).
 */
const NOT_ONLINE: readonly [string, RegExp][] = [
  ['drops something', /\bDROP\b/i],
  ['renames something', /\bRENAME\b/i],
  ['copies rows (a rebuild)', /\bINSERT\s+INTO\s+\w+[^;]*?\bSELECT\b/i],
  ['rewrites rows', /\bUPDATE\s+\w+\s+SET\b/i],
  ['deletes rows', /\bDELETE\s+FROM\b/i],
  ['empties a table', /\bTRUNCATE\b/i],
  ['changes a column', /\bALTER\s+COLUMN\b/i],
  [
    'adds a NOT NULL column without a default',
    /\bADD\s+COLUMN\s+\w+\s+\w+\s+NOT\s+NULL\b(?![^;,]*\bDEFAULT\b)/i,
  ],
];

const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

describe('migration rollout classes', () => {
  it.each(MIGRATIONS.map((m, i) => [i + 1, m] as const))(
    'migration %i says what a rollout needs, and is online only if older replicas survive it',
    (_n, migration) => {
      expect(['online', 'offline']).toContain(migration.rollout);
      expect(migration.summary.trim().length).toBeGreaterThan(10);
      // Function bodies ($$…$$) are code run when called, not by the migration.
      const text = migration.sql.replace(/--.*$/gm, '').replace(/\$\$[\s\S]*?\$\$/g, '');
      const reasons = NOT_ONLINE.filter(([, pattern]) => pattern.test(text)).map(([why]) => why);
      if (reasons.length > 0) expect(migration.rollout, `it ${reasons.join(', ')}`).toBe('offline');
    },
  );

  it('the check catches what it is for, and a pure expand passes', () => {
    const flagged = (sql: string) => NOT_ONLINE.some(([, pattern]) => pattern.test(sql));
    expect(flagged('CREATE TABLE t_v2 (a INTEGER) STRICT;\nINSERT INTO t_v2 (a) SELECT a FROM t;')).toBe(
      true,
    );
    expect(flagged('ALTER TABLE t RENAME COLUMN a TO b;')).toBe(true);
    expect(flagged('ALTER TABLE t ADD COLUMN b INTEGER NOT NULL;')).toBe(true);
    expect(flagged("ALTER TABLE t ADD COLUMN b TEXT NOT NULL DEFAULT '';")).toBe(false);
    expect(flagged('CREATE TABLE u (a INTEGER) STRICT;\nCREATE INDEX u_a ON u (a);')).toBe(false);
  });

  it('compatibleFrom is the last offline step; tablesChangedBy names what a step changes or copies from', () => {
    const step = (rollout: Migration['rollout']): Migration => ({ rollout, summary: rollout, sql: '' });
    const list = [step('online'), step('offline'), step('online'), step('online')];
    expect([0, 1, 2, 3, 4].map((v) => compatibleFrom(list, v))).toEqual([0, 0, 2, 2, 2]);
    expect(
      tablesChangedBy(`CREATE TABLE spend_counters_v14 (a INTEGER) STRICT;
        INSERT INTO spend_counters_v14 (a) SELECT a FROM spend_counters;
        DROP TABLE spend_counters;
        ALTER TABLE spend_counters_v14 RENAME TO spend_counters;
        ALTER TABLE ledger ADD COLUMN step_id TEXT;`).sort(),
    ).toEqual(['ledger', 'spend_counters', 'spend_counters_v14']);
  });
});

/** The migration that rebuilds spend_counters (workflow steps' 'step' scope). */
const REBUILD = 'CREATE TABLE spend_counters_v14';
const upToRebuild = () => MIGRATIONS.slice(0, migrationsBefore(REBUILD).length + 1);
const counter = `tenant_id = '' AND scope = 'workspace' AND subject = '*' AND period = 'daily' AND period_key = '2026-11-20'`;

describe('a rebuild while an older replica writes (PostgreSQL)', () => {
  it('a write committed while the step runs is in the rebuilt table, and one sent during it waits and lands there too', async () => {
    const db = await testDatabase('postgres');
    databases.push(db);
    const url = db.options.url as string;
    const kysely = new Kysely<Schema>({
      dialect: postgresDialect(url, { poolMax: 2, connectTimeoutMs: 3000, queryTimeoutMs: 30_000 }),
    });
    const older = new pg.Client({ connectionString: url });
    const another = new pg.Client({ connectionString: url });
    const watcher = new pg.Client({ connectionString: url });
    await Promise.all([older.connect(), another.connect(), watcher.connect()]);
    try {
      await migrate(kysely, 'postgres', migrationsBefore(REBUILD));
      await older.query(
        `INSERT INTO spend_counters (tenant_id, scope, subject, period, period_key, spent, reserved)
         VALUES ('', 'workspace', '*', 'daily', '2026-11-20', 10, 0)`,
      );
      // An older replica's charge, in its transaction, not committed yet.
      await older.query('BEGIN');
      await older.query(`UPDATE spend_counters SET spent = spent + 5 WHERE ${counter}`);
      const migrating = migrate(kysely, 'postgres', upToRebuild());
      // The step waits for that write (for its table lock now; for its DROP before this change).
      const waiting = async () =>
        (
          await watcher.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
        ).rows[0]?.n ?? 0;
      for (let i = 0; i < 250 && (await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await waiting()).toBeGreaterThan(0);
      // Another write of an older replica, sent now: it queues behind the step.
      const later = another.query(`UPDATE spend_counters SET spent = spent + 7 WHERE ${counter}`);
      await older.query('COMMIT');
      expect(await migrating).toBe(upToRebuild().length);
      expect((await later).rowCount).toBe(1);
      const { rows } = await watcher.query<{ spent: number; scope_check: string }>(
        `SELECT spent FROM spend_counters WHERE ${counter}`,
      );
      expect(rows.map((r) => Number(r.spent))).toEqual([22]);
      // The rebuilt table is the one in use: it admits the scope the step added.
      await watcher.query(
        `INSERT INTO spend_counters (tenant_id, scope, subject, period, period_key, spent, reserved)
         VALUES ('', 'step', 'lookup_waybill', 'daily', '2026-11-20', 1, 0)`,
      );
      expect(await recordedCompatibleFrom(kysely)).toBe(upToRebuild().length);
    } finally {
      await Promise.all([older.end(), another.end(), watcher.end()]);
      await kysely.destroy();
    }
  });
});

describe('a rebuild while an older replica writes (SQLite)', () => {
  it("the step's BEGIN IMMEDIATE waits for the open write, then copies it", async () => {
    const db = await testDatabase('sqlite');
    databases.push(db);
    const path = db.options.path as string;
    const kysely = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(path) }) });
    try {
      await migrate(kysely, 'sqlite', migrationsBefore(REBUILD));
      // An older replica (another thread: better-sqlite3 waits for a lock synchronously) opens a
      // write and commits it 300 ms later, while the step is waiting for the database's lock.
      const worker = new Worker(
        `const Database = require('better-sqlite3');
         const { parentPort, workerData } = require('node:worker_threads');
         const db = new Database(workerData.path, { timeout: 5000 });
         db.exec("INSERT INTO spend_counters (tenant_id, scope, subject, period, period_key, spent, reserved) VALUES ('', 'workspace', '*', 'daily', '2026-11-20', 10, 0)");
         db.exec('BEGIN IMMEDIATE');
         db.exec(\`UPDATE spend_counters SET spent = spent + 5 WHERE ${counter}\`);
         parentPort.postMessage('open');
         setTimeout(() => { db.exec('COMMIT'); db.close(); parentPort.postMessage('committed'); }, 300);`,
        { eval: true, workerData: { path } },
      );
      const messages: string[] = [];
      const committed = new Promise<void>((resolve) =>
        worker.on('message', (m: string) => {
          messages.push(m);
          if (m === 'committed') resolve();
        }),
      );
      while (!messages.includes('open')) await new Promise((r) => setTimeout(r, 10));
      expect(await migrate(kysely, 'sqlite', upToRebuild())).toBe(upToRebuild().length);
      await committed;
      await worker.terminate();
      const raw = new Database(path, { readonly: true });
      expect(raw.prepare(`SELECT spent FROM spend_counters WHERE ${counter}`).pluck().all()).toEqual([15]);
      raw.close();
    } finally {
      await kysely.destroy();
    }
  });
});
