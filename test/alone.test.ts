/**
 * "Alone or shared" (issue 13) through real processes of `npm start`'s entry point (src/main.ts
 * through tsx) on the test PostgreSQL: without REDIS_URL a process is alone on its database, so a
 * second process without Redis, or replicas with Redis, cannot join it (and one without Redis
 * cannot join replicas); processes with the same REDIS_URL share the database. A refused process
 * says so in one line on stderr and exits 1, before touching the schema. Then, in process, what
 * /healthz says when the lock was lost and another process took it.
 */
import { resolve } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SOLE_LOCK } from '../src/store/sole-lock.js';
import { type PlatdeskHarness, startPlatdeskHarness } from './helpers/platdesk-harness.js';
import { type RedisServer, startRedisServer } from './helpers/redis-server.js';
import { type ReplicaCluster, startReplicaCluster } from './helpers/replica-cluster.js';
import { type MainRun, runMain as runMainProcess } from './helpers/run-main.js';
import { type FakeSlack, startSlackApiServer } from './helpers/slack-api-server.js';
import { createPostgresDatabase, dropPostgresDatabase } from './helpers/store-engines.js';

const ROOT = resolve(import.meta.dirname, '..');

/** One `npm start` that is expected to refuse: its exit code and output. */
function runMain(env: Record<string, string>): Promise<MainRun> {
  return runMainProcess({ PORT: '0', ...env }, { cwd: ROOT, killAfterMs: 40_000 });
}

/** The schema version platdesk recorded in the database (0 when it never migrated). */
async function schemaVersion(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: number }>(
      `SELECT version FROM platdesk_schema UNION ALL SELECT 0 LIMIT 1`,
    );
    return rows[0]?.version ?? 0;
  } catch {
    return 0;
  } finally {
    await client.end();
  }
}

describe('alone or shared on one PostgreSQL database (child processes of src/main.ts)', () => {
  let fake: FakeSlack;
  let redis: RedisServer;
  let base: Record<string, string>;
  let database: string;
  const clusters: ReplicaCluster[] = [];

  beforeAll(async () => {
    fake = await startSlackApiServer();
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await fake?.close();
    await redis?.close();
  });
  afterEach(async () => {
    await Promise.all(clusters.splice(0).map((c) => c.stop()));
    await dropPostgresDatabase(database);
  });

  async function setUp(): Promise<void> {
    database = await createPostgresDatabase();
    base = {
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: 'alone-secret',
      SLACK_API_URL: fake.apiUrl,
      PLAT_SANDBOX: '1',
      DATABASE_URL: database,
    };
  }
  async function start(count: number, env: Record<string, string>): Promise<ReplicaCluster> {
    const cluster = await startReplicaCluster(count, { env: { ...base, ...env } });
    clusters.push(cluster);
    // With Redis a replica answers 503 until its first connection to Redis is up.
    for (let i = 0; i < count; i++) {
      let status = (await cluster.health(i)).status;
      for (let n = 0; n < 100 && status !== 200; n++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await cluster.health(i)).status;
      }
      expect(status, cluster.output()).toBe(200);
    }
    return cluster;
  }
  /** Exactly one line on stderr, exit 1. */
  function refusedLine(run: MainRun): string {
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    return lines[0] ?? '';
  }

  it('two without Redis: the second exits 1 with one line, and the first runs on', async () => {
    await setUp();
    const first = await start(1, {});
    const line = refusedLine(await runMain(base));
    expect(line).toBe(
      `platdesk cannot start: another platdesk process uses this database (${database}) without REDIS_URL; two such processes would each allow the full plat rate limit: stop the other one, or give every process the same REDIS_URL`,
    );
    expect(await first.health(0)).toMatchObject({
      status: 200,
      body: { ok: true, databaseLock: { mode: 'exclusive', held: true } },
    });
  }, 90_000);

  it('replicas with Redis first: a process without Redis refuses', async () => {
    await setUp();
    await start(1, { REDIS_URL: redis.url });
    const line = refusedLine(await runMain(base));
    expect(line).toBe(
      `platdesk cannot start: replicas with REDIS_URL use this database (${database}); set REDIS_URL here too (the same one), or point DATABASE_URL at another database`,
    );
  }, 90_000);

  it('a process without Redis first: one with Redis refuses', async () => {
    await setUp();
    await start(1, {});
    const line = refusedLine(await runMain({ ...base, REDIS_URL: redis.url }));
    expect(line).toBe(
      `platdesk cannot start: another platdesk process uses this database (${database}) without REDIS_URL, so it must run alone; stop it, or restart it with the same REDIS_URL as this one`,
    );
  }, 90_000);

  it('two with the same Redis: both start and report the shared lock', async () => {
    await setUp();
    const cluster = await start(2, { REDIS_URL: redis.url });
    for (const i of [0, 1])
      expect(await cluster.health(i)).toMatchObject({
        status: 200,
        body: { ok: true, databaseLock: { mode: 'shared', held: true } },
      });
  }, 90_000);

  it('a refused process leaves a fresh database untouched (the lock comes before migrations)', async () => {
    await setUp();
    // Held by a session that is not platdesk's: the refused process must not migrate around it.
    const holder = new pg.Client({ connectionString: database });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${SOLE_LOCK})`);
      const run = await runMain(base);
      expect(refusedLine(run)).toMatch(/^platdesk cannot start: another platdesk process uses this database/);
      expect(await schemaVersion(database)).toBe(0);
    } finally {
      await holder.end();
    }
  }, 90_000);
});

describe('/healthz when the database lock was lost and another process took it', () => {
  let h: PlatdeskHarness;
  let other: pg.Client | null = null;
  afterAll(async () => {
    await other?.end();
    await h?.close();
  });

  it('answers 503 naming the problem, and 200 again once this process holds it', async () => {
    h = await startPlatdeskHarness({ engine: 'postgres' });
    const health = async () => {
      const res = await fetch(`${h.platdesk.metricsUrl}/healthz`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await health()).toMatchObject({
      status: 200,
      body: { databaseLock: { mode: 'exclusive', held: true } },
    });
    // The lock's connection is cut and, in the gap, another session takes the lock. (The test
    // server has no password, so the store's location is its URL.)
    other = new pg.Client({ connectionString: h.platdesk.store.location });
    await other.connect();
    await other.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'platdesk lock (exclusive)'`,
    );
    let taken = false;
    for (let i = 0; i < 100 && !taken; i++) {
      const { rows } = await other.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${SOLE_LOCK}) AS ok`);
      taken = rows[0]?.ok === true;
      if (!taken) await new Promise((r) => setTimeout(r, 20));
    }
    expect(taken).toBe(true);
    let seen = await health();
    for (let i = 0; i < 60 && !String(seen.body.problems ?? '').includes('another process took it'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await health();
    }
    expect(seen.status).toBe(503);
    expect(seen.body).toMatchObject({ ok: false, databaseLock: { mode: 'exclusive', held: false } });
    expect((seen.body.problems as string[]).join('\n')).toMatch(
      /the database lock was lost and another process took it: another platdesk process uses this database .* without REDIS_URL/,
    );
    await other.end();
    other = null;
    for (let i = 0; i < 60 && seen.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await health();
    }
    expect(seen).toMatchObject({ status: 200, body: { ok: true, databaseLock: { held: true } } });
  }, 30_000);
});
