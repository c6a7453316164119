/**
 * Three platdesk processes on one Redis (issue 13, "Tests with real parts"): each is `npm start`'s
 * entry point in its own child process (test/helpers/replica-cluster.ts), driven over signed HTTP
 * (test/helpers/replica-slack.ts); every plat call goes to the one sandbox in this process, which
 * counts and timestamps arrivals; every Slack call goes to one fake Slack Web API server.
 *
 * Each replica has its own SQLite file for now: the store is still per process, so every lookup is
 * asked and confirmed on the same replica, and the ledger is the sum of the three files. Once the
 * PostgreSQL store is merged the replicas share one DATABASE_URL, and the cases that need a shared
 * store (one Confirm clicked on all three replicas, identical lookups on different replicas, a
 * digest due while all three run) are written against this same cluster.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisLimiter } from '../../src/plat/redis-limiter.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import { arrivalsBetween, largestInAnyWindow } from '../helpers/arrivals.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replica-cluster.js';
import { type ReplicaSlack, replicaSlack } from '../helpers/replica-slack.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';

const SECRET = 'replicas-secret';
const PLAT_TOKEN = 'replicas-test';
const REPLICAS = 3;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A lookup of its own: /shop ww <id> is one get-shop-id call, answered "no shop was found". */
const shopOf = (wwid: string) => `No shop was found for messaging account *${wwid}*`;
const userOf = (i: number) => `U${2000 + (i % 12)}`;

/**
 * A new Redis key set starts fenced for a replica's call deadline + window (15 s + 1 s): calls
 * granted before a loss could still arrive. This empty server has granted nothing, so a limiter
 * with a short deadline creates the key set and its fence is spent before the replicas join; the
 * replicas' own behaviour (joining, granting, losing the keys) is unchanged.
 * `npm run bench:replicas` measures the full fence on an empty Redis.
 */
async function createLimiterKeys(url: string): Promise<void> {
  const limiter = createRedisLimiter({ url, deadlineMs: 200 });
  try {
    await limiter.ready();
  } finally {
    await limiter.stop();
  }
}

describe('three replicas on one Redis', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let fake: FakeSlack;
  let cluster: ReplicaCluster;
  let slack: ReplicaSlack;
  const dir = mkdtempSync(join(tmpdir(), 'platdesk-replicas-'));
  const databaseOf = (i: number) => join(dir, `replica-${i}.sqlite`);

  /** Ledger rows of every replica's store (one PostgreSQL database once merged). */
  async function ledgerRows(): Promise<number[]> {
    const rows: number[] = [];
    for (let i = 0; i < REPLICAS; i++) {
      const store = await openStore({ path: databaseOf(i) });
      try {
        rows.push(
          (await store.ledger.totals({ from: new Date(0), to: new Date(Date.now() + 3_600_000) })).calls,
        );
      } finally {
        await store.close();
      }
    }
    return rows;
  }

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
    sandbox = createSandbox({ token: PLAT_TOKEN });
    const platUrl = await sandbox.listen(0);
    fake = await startSlackApiServer();
    slack = replicaSlack(fake, SECRET);
    cluster = await startReplicaCluster(REPLICAS, {
      env: {
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        PLAT_BASE_URL: platUrl,
        PLAT_TOKEN,
        REDIS_URL: redis.url,
      },
      envOf: (i) => ({ DATABASE_PATH: databaseOf(i) }),
    });
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
    await fake?.close();
    await sandbox?.close();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('60 distinct lookups confirmed at once over the replicas: ≤10 in any sliding second at the sandbox, all answered, one ledger row per call', async () => {
    const before = sandbox.stats().calls;
    const ledgerBefore = await ledgerRows();
    const from = performance.now();
    const asked = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const replica = cluster.at(i % REPLICAS);
        const wwid = `replica-lookup-${i}`;
        const { confirmation } = await slack.ask(replica, '/shop', `ww ${wwid}`, { userId: userOf(i) });
        return { replica, wwid, confirmation, userId: userOf(i) };
      }),
    );
    expect(sandbox.stats().calls).toBe(before);

    const answers = await Promise.all(
      asked.map(({ replica, confirmation, userId }) => slack.confirm(replica, confirmation, { userId })),
    );
    asked.forEach(({ wwid }, i) => {
      const said = textOf(answers[i]?.answer);
      expect(said, cluster.output()).toContain(shopOf(wwid));
      expect(said).toContain('Charged 2 points');
    });

    const calls = arrivalsBetween(sandbox.arrivals(), from);
    expect(calls).toHaveLength(60);
    expect(sandbox.stats().calls - before).toBe(60);
    expect(largestInAnyWindow(calls)).toBeLessThanOrEqual(10);
    // Every call is a ledger row, written by the replica that made it (20 each).
    const ledger = (await ledgerRows()).map((rows, i) => rows - (ledgerBefore[i] ?? 0));
    expect(ledger).toEqual([20, 20, 20]);
    expect(sandbox.stats().maxInWindow).toBeLessThanOrEqual(10);
  }, 60_000);

  it('Redis stopped: a clear "temporarily unavailable" within seconds and no call; restarted without its keys: lookups resume within 5 s, still ≤10 a second', async () => {
    const lookups = (prefix: string, n: number) =>
      Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const replica = cluster.at(i % REPLICAS);
          const wwid = `${prefix}-${i}`;
          const { confirmation } = await slack.ask(replica, '/shop', `ww ${wwid}`, { userId: userOf(i) });
          return { replica, wwid, confirmation, userId: userOf(i) };
        }),
      );
    // Asked while Redis is up (a confirmation makes no plat call either way).
    const whileDown = await lookups('redis-down', REPLICAS);
    const afterReturn = await lookups('redis-back', REPLICAS);
    const burst = await lookups('redis-burst', 30);

    await redis.kill();
    const killedAt = performance.now();
    const refused = await Promise.all(
      whileDown.map(({ replica, confirmation, userId }) => slack.confirm(replica, confirmation, { userId })),
    );
    for (const { answer, ms } of refused) {
      const said = textOf(answer);
      expect(said, cluster.output()).toContain('platdesk is temporarily unavailable');
      expect(said).toContain('nothing was sent');
      expect(ms).toBeLessThan(5000);
    }
    for (let i = 0; i < REPLICAS; i++) {
      const health = await healthUntil(i, 503, 5000);
      expect(health.status).toBe(503);
      expect(String((health.body.problems as string[] | undefined)?.[0])).toMatch(/^Redis unreachable/);
    }

    await redis.start();
    const restartedAt = performance.now();
    // Calls granted before Redis died may still be on their way for a moment (a grant is used
    // within half a window or given back); after that, nothing may arrive until it is back.
    expect(arrivalsBetween(sandbox.arrivals(), killedAt + 1000, restartedAt)).toEqual([]);

    // Each replica answers again within 5 s of Redis's return: once its /healthz is 200 it takes
    // lookups (before that it refuses them as unavailable, at once).
    const resumed = await Promise.all(
      afterReturn.map(async ({ replica, wwid, confirmation, userId }) => {
        expect((await healthUntil(replica.index, 200, 5000)).status).toBe(200);
        const { answer } = await slack.confirm(replica, confirmation, { userId });
        expect(textOf(answer), cluster.output()).toContain(shopOf(wwid));
        return performance.now() - restartedAt;
      }),
    );
    expect(Math.max(...resumed)).toBeLessThan(5000);

    // A burst on the new key set: the three processes rejoined it, still 10 slots in all.
    const burstFrom = performance.now();
    const answers = await Promise.all(
      burst.map(({ replica, confirmation, userId }) => slack.confirm(replica, confirmation, { userId })),
    );
    burst.forEach(({ wwid }, i) => {
      expect(textOf(answers[i]?.answer), cluster.output()).toContain(shopOf(wwid));
    });
    const calls = arrivalsBetween(sandbox.arrivals(), burstFrom);
    expect(calls).toHaveLength(30);
    expect(largestInAnyWindow(arrivalsBetween(sandbox.arrivals(), restartedAt))).toBeLessThanOrEqual(10);
    expect(sandbox.stats().maxInWindow).toBeLessThanOrEqual(10);
  }, 60_000);

  it('kill -9 of a replica holding every slot mid-call: the others wait, then answer once its slots come back, and all 10 come back', async () => {
    const victim = 0;
    const others = [1, 2].map((i) => cluster.at(i));
    // The victim's ten calls never get an answer: they hold all ten slots until it dies.
    sandbox.setFaults([{ kind: 'hang', operations: ['get-shop-id'], count: 10 }]);
    const before = sandbox.stats().calls;
    const hung = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        slack.ask(cluster.at(victim), '/shop', `ww kill-hung-${i}`, { userId: userOf(i) }),
      ),
    );
    await Promise.all(
      hung.map(({ confirmation }, i) =>
        slack.click(cluster.at(victim), 'platdesk.confirm', confirmation.confirm.value, {
          userId: userOf(i),
        }),
      ),
    );
    while (sandbox.stats().calls < before + 10) await sleep(20);

    // One lookup on each other replica: confirmed, but no slot is free anywhere.
    const waiting = await Promise.all(
      others.map(async (replica, i) => {
        const wwid = `kill-waiting-${i}`;
        const { confirmation } = await slack.ask(replica, '/shop', `ww ${wwid}`, { userId: userOf(i) });
        return { replica, wwid, confirmation, userId: userOf(i) };
      }),
    );
    const answered = waiting.map(({ replica, confirmation, userId }) =>
      slack.confirm(replica, confirmation, { userId, timeoutMs: 20_000 }),
    );
    await sleep(1500);
    expect(sandbox.stats().calls, 'a replica took a slot another replica holds').toBe(before + 10);

    await cluster.kill(victim);
    const killedAt = performance.now();
    const answers = await Promise.all(answered);
    waiting.forEach(({ wwid }, i) => {
      expect(textOf(answers[i]?.answer), cluster.output()).toContain(shopOf(wwid));
    });
    const firstAfter = Math.min(...arrivalsBetween(sandbox.arrivals(), killedAt));
    // A dead holder's lease lapses 5 s (lease TTL) + a window after its last renewal.
    expect(firstAfter - killedAt).toBeLessThan(10_000);

    // All ten slots are back: ten lookups confirmed at once on the two survivors, each call kept
    // in flight 3 s, all arrive within 3 s of the first (were one slot still held, the tenth would
    // wait for one of the nine to settle plus a window: 4 s after the first).
    await sleep(1100); // the two answered calls' slots rest a window after settling
    sandbox.setFaults([{ kind: 'latency', ms: 3000, operations: ['get-shop-id'] }]);
    const burst = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const replica = others[i % 2] ?? cluster.at(1);
        const wwid = `kill-after-${i}`;
        const { confirmation } = await slack.ask(replica, '/shop', `ww ${wwid}`, { userId: userOf(i) });
        return { replica, wwid, confirmation, userId: userOf(i) };
      }),
    );
    const burstFrom = performance.now();
    const burstAnswers = await Promise.all(
      burst.map(({ replica, confirmation, userId }) => slack.confirm(replica, confirmation, { userId })),
    );
    burst.forEach(({ wwid }, i) => {
      expect(textOf(burstAnswers[i]?.answer), cluster.output()).toContain(shopOf(wwid));
    });
    const calls = arrivalsBetween(sandbox.arrivals(), burstFrom);
    expect(calls).toHaveLength(10);
    expect(Math.max(...calls) - Math.min(...calls)).toBeLessThan(3000);
    expect(sandbox.stats().maxInWindow).toBeLessThanOrEqual(10);
    sandbox.setFaults([]);
  }, 60_000);
});
