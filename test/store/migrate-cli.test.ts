/**
 * `node dist/migrate.js` (src/store/migrate-cli.ts; the built entry is run in test/start.test.ts)
 * through real databases: `--plan` says what the next rollout needs and changes nothing, the
 * migrations run from it, an offline step is refused while platdesk processes still use the
 * PostgreSQL database, and PLATDESK_MIGRATE=job leaves a starting replica to check the schema only.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/engine.js';
import {
  MIGRATIONS,
  type Migration,
  migrate,
  planRollout,
  StoreSchemaBehindError,
  schemaVersion,
} from '../../src/store/migrations.js';
import { postgresDialect } from '../../src/store/postgres-dialect.js';
import type { Schema } from '../../src/store/schema.js';
import { SOLE_LOCK } from '../../src/store/sole-lock.js';
import { migrationsBefore, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const run = promisify(execFile);
const ROOT = process.cwd();
/** The command, with only the database settings in its environment. */
const cli = (args: string[], env: Record<string, string>) =>
  run(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'src/store/migrate-cli.ts'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );

/** A database as the build before the tenants migration (12, offline) left it. */
const OLDER = 'CREATE TABLE settings_v11';

const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

async function olderDatabase(engine: 'sqlite' | 'postgres') {
  const db = await testDatabase(engine);
  databases.push(db);
  const kysely = new Kysely<Schema>({
    dialect:
      engine === 'sqlite'
        ? new SqliteDialect({ database: new Database(db.options.path as string) })
        : postgresDialect(db.options.url as string, {
            poolMax: 1,
            connectTimeoutMs: 3000,
            queryTimeoutMs: 10_000,
          }),
  });
  await migrate(kysely, engine, migrationsBefore(OLDER));
  const env =
    engine === 'sqlite'
      ? { DATABASE_PATH: db.options.path as string }
      : { DATABASE_URL: db.options.url as string };
  return { db, kysely, env, from: migrationsBefore(OLDER).length };
}

describe('the rollout plan', () => {
  const step = (rollout: Migration['rollout'], summary = rollout): Migration => ({
    rollout,
    summary,
    sql: '',
  });
  const list = [step('online'), step('offline'), step('online'), step('online')];

  it('nothing, a rolling update, older replicas stopped first, or a newer build', () => {
    expect(planRollout(4, null, list)).toMatchObject({ needs: 'nothing', pending: [] });
    expect(planRollout(2, null, list)).toMatchObject({
      needs: 'rolling-update',
      pending: [
        { version: 3, rollout: 'online' },
        { version: 4, rollout: 'online' },
      ],
    });
    expect(planRollout(1, null, list)).toMatchObject({ needs: 'stop-older-replicas' });
    expect(planRollout(6, 3, list)).toMatchObject({ needs: 'newer', compatible: true });
    expect(planRollout(6, 5, list)).toMatchObject({ needs: 'newer', compatible: false });
    expect(planRollout(6, null, list)).toMatchObject({ needs: 'newer', compatible: false });
  });
});

describe('node dist/migrate.js', () => {
  it('SQLite: --plan names each pending step with its class and what the rollout needs, changing nothing; then it migrates', async () => {
    const { kysely, env, from } = await olderDatabase('sqlite');
    try {
      const plan = await cli(['--plan'], env);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain(
        `database schema: version ${from}; this build knows ${MIGRATIONS.length}`,
      );
      expect(plan.stdout).toContain(`pending: ${MIGRATIONS.length - from}`);
      expect(plan.stdout).toMatch(new RegExp(`\\s${from + 1}\\s+offline\\s+a tenant on every row`));
      expect(plan.stdout).toMatch(/\s16\s+online\s+distributed mode/);
      expect(plan.stdout).toContain('next rollout: stop every replica of the older build first');
      const json = JSON.parse((await cli(['--plan', '--json'], env)).stdout) as Record<string, unknown>;
      expect(json).toMatchObject({
        engine: 'sqlite',
        found: from,
        known: MIGRATIONS.length,
        needs: 'stop-older-replicas',
      });
      expect(await schemaVersion(kysely, 'sqlite')).toBe(from);

      // SQLite: one process, no database lock to ask; it migrates.
      const applied = await cli([], env);
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain(`migrated from version ${from} to ${MIGRATIONS.length}`);
      expect(await schemaVersion(kysely, 'sqlite')).toBe(MIGRATIONS.length);
      const again = await cli(['--plan'], env);
      expect(again.stdout).toContain('up to date: the next rollout needs no migration');
    } finally {
      await kysely.destroy();
    }
  }, 60_000);

  it('PostgreSQL: an offline step is refused while a platdesk process uses the database; --while-running goes on', async () => {
    const { kysely, env, from, db } = await olderDatabase('postgres');
    // A replica of the older build: it holds the database lock, shared, as replicas with Redis do.
    const replica = new pg.Client({ connectionString: db.options.url as string });
    await replica.connect();
    try {
      await replica.query('SELECT pg_advisory_lock_shared($1::bigint)', [SOLE_LOCK.toString()]);
      const plan = await cli(['--plan'], env);
      expect(plan.stdout).toContain('platdesk processes connected now: 1');
      const refused = await cli([], env);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain('refused: 1 platdesk process(es) still use this database');
      expect(await schemaVersion(kysely, 'postgres')).toBe(from);
      const forced = await cli(['--while-running'], env);
      expect(forced.code, forced.stderr).toBe(0);
      expect(await schemaVersion(kysely, 'postgres')).toBe(MIGRATIONS.length);
    } finally {
      await replica.end();
      await kysely.destroy();
    }
  }, 60_000);

  it('wrong arguments exit 2 with the usage', async () => {
    const wrong = await cli(['--nope'], { DATABASE_PATH: ':memory:' });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('usage: node dist/migrate.js');
  });
});

describe('PLATDESK_MIGRATE=job', () => {
  it.each(['sqlite', 'postgres'] as const)(
    '%s: a replica starting on a schema with migrations pending does not migrate it and says to run the Job',
    async (engine) => {
      const { kysely, from, db } = await olderDatabase(engine);
      try {
        const options = db.options;
        await expect(openStore({ ...options, migrate: false })).rejects.toBeInstanceOf(
          StoreSchemaBehindError,
        );
        await expect(openStore({ ...options, migrate: false })).rejects.toThrow(
          `The database schema is version ${from} and this build needs ${MIGRATIONS.length}`,
        );
        expect(await schemaVersion(kysely, engine)).toBe(from);
        await migrate(kysely, engine);
        const store = await openStore({ ...options, migrate: false });
        await store.close();
      } finally {
        await kysely.destroy();
      }
    },
  );
});
