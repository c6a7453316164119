/**
 * Caps as running totals across three replicas (issue 20, "Tests with real parts"): three
 * platdesk processes on one PostgreSQL database and one Redis (test/helpers/replica-cluster.ts),
 * a workspace daily cap of 100 points, and 60 Confirms of 5-point lookups clicked at once, spread
 * over the replicas. Every reservation is one conditional update of the same counter from three
 * pools: exactly 20 calls reach the sandbox, the other 40 are clearly refused before any call,
 * and the counters, the ledger and the sandbox's own charges agree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spendSettings } from '../../src/lookups/settings.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import { periodsOf } from '../../src/store/periods.js';
import type { Store } from '../../src/store/store.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { createLimiterKeys, type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replica-cluster.js';
import { type ReplicaSlack, replicaSlack } from '../helpers/replica-slack.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const SECRET = 'caps-secret';
const ADMIN = 'U0CAPADMIN';
const PLAT_TOKEN = 'caps-test';
const REPLICAS = 3;
const ZONE = 'Asia/Shanghai';
const REFUSED = 'would exceed the workspace daily cap';

describe('a workspace daily cap across three replicas on PostgreSQL and Redis', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let fake: FakeSlack;
  let cluster: ReplicaCluster;
  let slack: ReplicaSlack;
  let databaseUrl: string;
  let store: Store;

  beforeAll(async () => {
    redis = await startRedisServer();
    await createLimiterKeys(redis.url);
    databaseUrl = await createPostgresDatabase();
    store = await openStore({ url: databaseUrl });
    await spendSettings(store.settings).setBudgets(
      {
        timezone: ZONE,
        workspace: { daily: 100, monthly: null },
        perUser: { daily: null, monthly: null },
        users: {},
        channels: {},
      },
      ADMIN,
    );
    // get-shop-id at 5 points, at the sandbox and in the app's quotes.
    sandbox = createSandbox({ token: PLAT_TOKEN, prices: { 'get-shop-id': 5 } });
    const platUrl = await sandbox.listen(0);
    fake = await startSlackApiServer();
    slack = replicaSlack(fake, SECRET, 'c');
    cluster = await startReplicaCluster(REPLICAS, {
      env: {
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        PLAT_BASE_URL: platUrl,
        PLAT_TOKEN,
        PLAT_PRICES: 'get-shop-id=5',
        REDIS_URL: redis.url,
        DATABASE_URL: databaseUrl,
        PLATDESK_ADMINS: ADMIN,
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await fake?.close();
    await sandbox?.close();
    await redis?.close();
    await store?.close();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  }, 30_000);

  it('60 Confirms of 5-point lookups at once: exactly 20 calls, 40 clear refusals, counters = ledger = sandbox', async () => {
    const asked = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const replica = cluster.at(i % REPLICAS);
        const userId = `U${3000 + (i % 15)}`;
        const { confirmation } = await slack.ask(replica, '/shop', `ww caps-lookup-${i}`, { userId });
        return { confirmation, userId, i };
      }),
    );
    expect(sandbox.stats().calls).toBe(0);

    // Each Confirm on another replica than its ask: the reservations race from three pools.
    const answers = await Promise.all(
      asked.map(({ confirmation, userId, i }) =>
        slack.confirm(cluster.at((i + 1) % REPLICAS), confirmation, { userId, timeoutMs: 60_000 }),
      ),
    );
    const said = answers.map((a) => textOf(a.answer));
    const answered = said.filter((t) => t.includes('No shop was found'));
    const refused = said.filter((t) => t.includes(REFUSED));
    expect(answered, cluster.output()).toHaveLength(20);
    expect(answered.every((t) => t.includes('Charged 5 points'))).toBe(true);
    expect(
      refused,
      said.find((t) => !t.includes('No shop was found')),
    ).toHaveLength(40);

    const stats = sandbox.stats();
    expect(stats.calls).toBe(20);
    expect(stats.charges.points).toBe(100);
    const ledger = await store.ledger.totals({ from: new Date(0), to: new Date(Date.now() + 3_600_000) });
    expect(ledger).toMatchObject({ calls: 20, points: 100 });
    const today = periodsOf(Date.now(), ZONE);
    const [workspace] = await store.budgets.uses([
      { scope: 'workspace', subject: '*', period: 'daily', key: today.daily.key, cap: 100 },
    ]);
    // spent + reserved: every reservation was paid or given back.
    expect(workspace?.spent).toBe(100);
    expect(await store.budgets.reconcile([today.daily, today.monthly])).toEqual([]);
  }, 180_000);
});
