/**
 * Replicas that must not take paid work, as real processes on one PostgreSQL database and one
 * Redis (DESIGN rule 9; issue 33 pts 3 and 9): one runs under `faketime -f '+2s'` (Debian's
 * libfaketime: its clock 2 s ahead of the database's, past the 500 ms skew budget), and a newer
 * build migrates the database under both. Each refusing replica says why on /healthz (503) and
 * /metrics, and its users read why, with nothing sent to the plat API.
 */

import { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import { MIGRATIONS, type Migration, migrate } from '../../src/store/migrations.js';
import { postgresDialect } from '../../src/store/postgres-dialect.js';
import type { Schema } from '../../src/store/schema.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { createLimiterKeys, type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replica-cluster.js';
import { type ReplicaSlack, replicaSlack } from '../helpers/replica-slack.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const SECRET = 'database-watch-secret';
const PLAT_TOKEN = 'database-watch-test';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** The replica whose clock runs 2 s ahead. */
const AHEAD = 1;
const CLOCK_WORDS = "This platdesk server's clock is out of step with its database";
const UPGRADE_WORDS = 'platdesk is being upgraded';

describe('replicas that refuse paid work: a clock off the database, a schema moved past them', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let fake: FakeSlack;
  let cluster: ReplicaCluster;
  let slack: ReplicaSlack;
  let databaseUrl: string;
  let lookups = 0;

  /** A lookup of its own asked and confirmed on one replica: its answer's text. */
  async function lookUpOn(index: number): Promise<string> {
    lookups += 1;
    const replica = cluster.at(index);
    const { confirmation } = await slack.ask(replica, '/shop', `ww watch-${lookups}`, { userId: 'U0WATCH1' });
    const { answer } = await slack.confirm(replica, confirmation, { userId: 'U0WATCH1' });
    return textOf(answer);
  }

  async function metricsOf(index: number): Promise<string> {
    return (await fetch(`${cluster.at(index).metricsUrl}/metrics`)).text();
  }
  const metric = (text: string, series: string): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    if (!line) throw new Error(`no ${series} in /metrics`);
    return Number(line.slice(series.length + 1));
  };

  async function healthUntil(index: number, status: number, ms: number) {
    const end = performance.now() + ms;
    for (;;) {
      const health = await cluster.health(index);
      if (health.status === status || performance.now() > end) return health;
      await sleep(50);
    }
  }

  beforeAll(async () => {
    redis = await startRedisServer();
    await createLimiterKeys(redis.url);
    databaseUrl = await createPostgresDatabase();
    // Migrated here once, so the replicas start on a current schema.
    await (await openStore({ url: databaseUrl })).close();
    sandbox = createSandbox({ token: PLAT_TOKEN });
    const platUrl = await sandbox.listen(0);
    fake = await startSlackApiServer();
    slack = replicaSlack(fake, SECRET, 'w');
    cluster = await startReplicaCluster(2, {
      env: {
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        PLAT_BASE_URL: platUrl,
        PLAT_TOKEN,
        REDIS_URL: redis.url,
        DATABASE_URL: databaseUrl,
      },
      wrapperOf: (index) => (index === AHEAD ? ['faketime', '-f', '+2s'] : []),
    });
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
    await fake?.close();
    await sandbox?.close();
    await redis?.close();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  }, 30_000);

  it('the replica 2 s ahead of the database says so on /healthz and /metrics, and its Confirm sends nothing and says why; the other answers', async () => {
    const health = await cluster.health(AHEAD);
    expect(health.status, cluster.output()).toBe(503);
    expect(String(health.body.problems)).toMatch(
      /this replica's clock is \d+ ms ahead of the database's \(budget 500 ms\)/,
    );
    const ahead = await metricsOf(AHEAD);
    expect(metric(ahead, 'platdesk_clock_skew_ms')).toBeLessThan(-1_500);
    expect(metric(ahead, 'platdesk_clock_skew_ms')).toBeGreaterThan(-2_800);
    expect(metric(ahead, 'platdesk_clock_skew_budget_ms')).toBe(500);
    expect(metric(ahead, 'platdesk_paid_work_refused{reason="clock_skew"}')).toBe(1);

    expect((await cluster.health(0)).status, cluster.output()).toBe(200);
    const onTime = await metricsOf(0);
    expect(Math.abs(metric(onTime, 'platdesk_clock_skew_ms'))).toBeLessThan(300);
    expect(metric(onTime, 'platdesk_paid_work_refused{reason="clock_skew"}')).toBe(0);

    const before = sandbox.stats().calls;
    const refused = await lookUpOn(AHEAD);
    expect(refused).toContain(CLOCK_WORDS);
    expect(refused).toContain('nothing was charged');
    expect(sandbox.stats().calls).toBe(before);
    expect(await lookUpOn(0)).toContain('No shop was found for seller account');
    expect(sandbox.stats().calls).toBe(before + 1);
  }, 60_000);

  it('a newer build migrates: an online step leaves the replicas working; an offline one stops their paid work at once (NOTIFY), on /healthz, /metrics and to users', async () => {
    const db = new Kysely<Schema>({
      dialect: postgresDialect(databaseUrl, { poolMax: 1, connectTimeoutMs: 3000, queryTimeoutMs: 10_000 }),
    });
    const online: Migration = {
      rollout: 'online',
      summary: 'a newer build adds a table',
      sql: 'CREATE TABLE newer_build_notes (id INTEGER PRIMARY KEY, note TEXT) STRICT;',
    };
    const offline: Migration = {
      rollout: 'offline',
      summary: 'a newer build renames a column older builds write',
      sql: 'ALTER TABLE newer_build_notes RENAME COLUMN note TO body;',
    };
    try {
      await migrate(db, 'postgres', [...MIGRATIONS, online]);
      await sleep(1_000);
      expect((await cluster.health(0)).status, cluster.output()).toBe(200);
      expect(metric(await metricsOf(0), 'platdesk_schema_version{of="database"}')).toBe(
        MIGRATIONS.length + 1,
      );
      const before = sandbox.stats().calls;
      expect(await lookUpOn(0)).toContain('No shop was found for seller account');
      expect(sandbox.stats().calls).toBe(before + 1);

      await migrate(db, 'postgres', [...MIGRATIONS, online, offline]);
      const migratedAt = performance.now();
      // Told at the step's commit, not at the next look 5 s later.
      const health = await healthUntil(0, 503, 5_000);
      expect(performance.now() - migratedAt).toBeLessThan(2_000);
      expect(health.status).toBe(503);
      expect(String(health.body.problems)).toContain(
        `the database schema is version ${MIGRATIONS.length + 2}, migrated past this build (${MIGRATIONS.length})`,
      );
      const metrics = await metricsOf(0);
      expect(metric(metrics, 'platdesk_paid_work_refused{reason="schema_newer"}')).toBe(1);
      expect(metric(metrics, 'platdesk_schema_version{of="build"}')).toBe(MIGRATIONS.length);
      expect(
        cluster
          .at(0)
          .logs()
          .some((l) => String(l.msg).startsWith('paid work stopped: the database schema')),
      ).toBe(true);
      const refused = await lookUpOn(0);
      expect(refused).toContain(UPGRADE_WORDS);
      expect(sandbox.stats().calls).toBe(before + 1);
    } finally {
      await db.destroy();
    }
  }, 60_000);
});
