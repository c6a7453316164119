/**
 * Fenced digest leases across processes (issue 19 points 1 and 2, "Tests with real parts"): three
 * platdesk processes (test/helpers/replica-cluster.ts) on one PostgreSQL database and one Redis,
 * every plat call to the one sandbox in this process, every Slack call to one fake Slack server.
 *
 * To stop a holder at a known point (after its 2nd page is recorded, before its 3rd call is
 * sent), the 2nd page is answered late (a sandbox latency fault on that page) and, the
 * moment it arrives, this process takes every slot of the shared Redis limiter with interactive
 * calls of its own: the holder records the page, then waits in the limiter for its 3rd call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Limiter } from '../../src/plat/limiter.js';
import { createRedisLimiter } from '../../src/plat/redis-limiter.js';
import { buildOrderBook } from '../../src/sandbox/fixtures.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import type { DigestRun, DigestSubscription, Store } from '../../src/store/store.js';
import { arrivalsBetween } from '../helpers/arrivals.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type Replica, type ReplicaCluster, startReplicaCluster } from '../helpers/replica-cluster.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const SECRET = 'takeover-secret';
const ADMIN = 'U0TAKEADMIN';
const PLAT_TOKEN = 'takeover-test';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const BUSY = SANDBOX_FIXTURES.owners.busy;
const SMALL = SANDBOX_FIXTURES.owners.small;
const CHANNELS = { kill: 'C0KILLED1', pause: 'C0PAUSED1' } as const;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const pagesOf = (orders: number) => Math.max(1, Math.ceil(orders / 100));

/** As in replicas.test.ts: a new Redis key set's fence is spent before the replicas join. */
async function createLimiterKeys(url: string): Promise<void> {
  const limiter = createRedisLimiter({ url, deadlineMs: 200 });
  try {
    await limiter.ready();
  } finally {
    await limiter.stop();
  }
}

describe('a digest holder killed or paused on three replicas (PostgreSQL + Redis)', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let fake: FakeSlack;
  let cluster: ReplicaCluster;
  let databaseUrl: string;
  let store: Store;
  /** This process's own member of the shared limiter: it takes every slot when told to. */
  let blocker: Limiter;
  let anchor = 0;
  const counts = { [BUSY]: 0, [SMALL]: 0 };
  const subs = {} as Record<keyof typeof CHANNELS, { sub: DigestSubscription; dueAt: number }>;

  /** Orders of `owner` in [from, to) as the sandbox has them. */
  const ordersIn = (owner: string, from: number, to: number) =>
    (buildOrderBook(anchor, counts).get(owner) ?? []).filter(
      (o) => o.confirm_time >= from && o.confirm_time < to,
    ).length;

  /** Takes all 10 slots with calls that last until the returned function is called. */
  async function takeEverySlot(): Promise<() => void> {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await new Promise<void>((allTaken) => {
      let taken = 0;
      for (let i = 0; i < 10; i++)
        void blocker.schedule(
          async () => {
            taken += 1;
            if (taken === 10) allTaken();
            await gate;
          },
          { priority: 'interactive' },
        );
    });
    return release;
  }

  const runOf = async (which: keyof typeof CHANNELS): Promise<DigestRun | null> =>
    store.digests.scheduledRun(subs[which].sub.id, new Date(subs[which].dueAt).toISOString().slice(0, 10));

  async function until<T>(
    what: string,
    probe: () => Promise<T | null | undefined | false>,
    ms: number,
  ): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${cluster.output()}`);
      await sleep(20);
    }
  }

  /** The replica that logged the claim of run `runId` (the holder). */
  function holderOf(runId: number, not?: Replica): Replica | null {
    return (
      cluster.replicas.find(
        (r) => r !== not && r.logs().some((l) => l.msg === 'digest run claimed' && l.runId === runId),
      ) ?? null
    );
  }

  const pagingCalls = () => sandbox.stats().callsByOperation['paging-orders'];
  const digestPosts = (channel: string) =>
    fake
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === channel && String(c.body.text ?? '').includes('Orders digest of'));

  beforeAll(async () => {
    redis = await startRedisServer();
    await createLimiterKeys(redis.url);
    databaseUrl = await createPostgresDatabase();
    store = await openStore({ url: databaseUrl });
    // Two digests. The first was made an hour ago for this minute, which has begun: every replica
    // finds it due at start-up (a missed slot of today is caught up). The second is due at the
    // first whole minute ≥ 75 s from now, after the first test is done (about 30 s from start-up).
    // Not in the last two minutes of a UTC day: the first's slot would be yesterday's.
    const toMidnight = DAY - (Date.now() % DAY);
    if (toMidnight < 2 * MINUTE) await sleep(toMidnight + 1_000);
    const kill = Math.floor(Date.now() / MINUTE) * MINUTE;
    const pause = Math.ceil((Date.now() + 75_000) / MINUTE) * MINUTE;
    // createSandbox anchors its orders at Date.now() (its default clock) when it is created.
    anchor = Date.now();
    // 6 pages (501–600 orders) in each digest's 24 h window.
    for (const [owner, dueAt] of [
      [BUSY, kill],
      [SMALL, pause],
    ] as const) {
      for (let perDay = 520; perDay <= 700; perDay += 10) {
        counts[owner] = perDay * 3;
        if (pagesOf(ordersIn(owner, dueAt - DAY, dueAt)) === 6) break;
      }
    }
    sandbox = createSandbox({ token: PLAT_TOKEN, orderCounts: counts });
    const platUrl = await sandbox.listen(0);
    const anHourAgo = await openStore({ url: databaseUrl, clock: { now: () => Date.now() - 60 * MINUTE } });
    for (const [which, owner, dueAt] of [
      ['kill', BUSY, kill],
      ['pause', SMALL, pause],
    ] as const) {
      const sub = await (which === 'kill' ? anHourAgo : store).digests.add({
        ownerId: owner,
        shopLabel: owner,
        channelId: CHANNELS[which],
        localTime: hhmm(dueAt),
        timeZone: 'UTC',
        createdBy: ADMIN,
      });
      subs[which] = { sub, dueAt };
    }
    await anHourAgo.close();
    // The first digest's 2nd page is answered 6 s late: its run starts as the first replica is up,
    // and the test must have taken every limiter slot before that page is recorded.
    sandbox.setFaults([{ kind: 'latency', ms: 6000, operations: ['paging-orders'], pages: [1], count: 1 }]);
    fake = await startSlackApiServer();
    blocker = createRedisLimiter({ url: redis.url, deadlineMs: 120_000 });
    await blocker.ready();
    cluster = await startReplicaCluster(3, {
      env: {
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        PLAT_BASE_URL: platUrl,
        PLAT_TOKEN,
        REDIS_URL: redis.url,
        DATABASE_URL: databaseUrl,
        PLATDESK_ADMINS: ADMIN,
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await blocker?.stop();
    await fake?.close();
    await sandbox?.close();
    await redis?.close();
    await store?.close();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  }, 30_000);

  it('a 6-page digest whose holder is killed (SIGKILL) after its 2nd page: taken over and resumed within 30 s; 6 paging-orders calls in all, posted once, ledger rows = calls, run charge = sum of its pages', async () => {
    const { dueAt } = subs.kill;
    expect(pagesOf(ordersIn(BUSY, dueAt - DAY, dueAt)), 'the window is 6 pages').toBe(6);
    // Nothing else bought pages: the run began with the replicas (the fault is set in beforeAll).
    const before = 0;

    // The 2nd page arrives (answered 6 s late): every limiter slot is taken meanwhile.
    await until('the 2nd page to arrive', async () => pagingCalls() >= before + 2, 60_000);
    const release = await takeEverySlot();
    const run = await until(
      '2 pages recorded',
      async () => {
        const r = await runOf('kill');
        return r && (await store.digestPages.list(r.id)).length === 2 ? r : null;
      },
      10_000,
    );
    const holder = holderOf(run.id);
    expect(holder, cluster.output()).not.toBeNull();
    if (!holder) return;
    await sleep(300);
    // The holder waits in the limiter for its 3rd page: no other call went out.
    expect(pagingCalls()).toBe(before + 2);
    await cluster.kill(holder.index);
    const killedAt = performance.now();
    release();

    const posted = await until(
      'the digest to be posted',
      async () => {
        const r = await runOf('kill');
        return r?.state === 'posted' ? r : null;
      },
      45_000,
    );
    const resumedAfter = Math.min(...arrivalsBetween(sandbox.arrivals(), killedAt)) - killedAt;
    expect(resumedAfter, 'the takeover resumed the fetch within 30 s').toBeLessThan(30_000);

    await sleep(1000);
    expect(pagingCalls() - before).toBe(6);
    const recorded = await store.digestPages.list(posted.id);
    expect(recorded.map((p) => p.page)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(recorded.map((p) => p.attempt)).toEqual([1, 1, 2, 2, 2, 2]);
    expect(digestPosts(CHANNELS.kill)).toHaveLength(1);
    const ledger = (await store.ledger.list({ from: new Date(0), to: new Date(Date.now() + DAY) })).filter(
      (e) => e.correlationId === `digest-${posted.id}`,
    );
    expect(ledger).toHaveLength(6);
    expect(posted.chargedPoints).toBe(recorded.reduce((n, p) => n + p.points, 0));
    expect(posted.calls).toBe(6);
    expect(holderOf(posted.id, holder), 'another replica took the run over').not.toBeNull();
  }, 180_000);

  it('a holder paused (SIGSTOP) past its lease, then resumed (SIGCONT) while another replica holds the run: it makes no further call', async () => {
    const { dueAt } = subs.pause;
    const pages = pagesOf(ordersIn(SMALL, dueAt - DAY, dueAt));
    expect(pages).toBe(6);
    const before = pagingCalls();
    sandbox.setFaults([{ kind: 'latency', ms: 1500, operations: ['paging-orders'], pages: [1], count: 1 }]);

    await until(
      'the 2nd page to arrive',
      async () => pagingCalls() >= before + 2,
      dueAt - Date.now() + 90_000,
    );
    const release = await takeEverySlot();
    const run = await until(
      '2 pages recorded',
      async () => {
        const r = await runOf('pause');
        return r && (await store.digestPages.list(r.id)).length === 2 ? r : null;
      },
      10_000,
    );
    const holder = holderOf(run.id);
    if (!holder) throw new Error(`no holder logged the claim\n${cluster.output()}`);
    // Paused while its 3rd call waits in the limiter.
    process.kill(holder.pid, 'SIGSTOP');
    // The taker's pages are slow, so it still holds the run when the paused one wakes up.
    sandbox.setFaults([
      { kind: 'latency', ms: 1000, operations: ['paging-orders'], pages: [2, 3, 4, 5, 6, 7] },
    ]);
    release();

    const taken = await until(
      'another replica to take the run over',
      async () => {
        const r = await runOf('pause');
        return r && r.epoch > run.epoch ? r : null;
      },
      45_000,
    );
    expect(taken.state).toBe('running');
    await until('the taker to fetch a page', async () => pagingCalls() >= before + 3, 10_000);
    process.kill(holder.pid, 'SIGCONT');

    const posted = await until(
      'the digest to be posted',
      async () => {
        const r = await runOf('pause');
        return r?.state === 'posted' ? r : null;
      },
      45_000,
    );
    await sleep(3000);
    sandbox.setFaults([]);
    // Exactly the pages needed: the paused holder sent nothing after it woke up.
    expect(pagingCalls() - before).toBe(pages);
    const recorded = await store.digestPages.list(posted.id);
    expect(recorded.map((p) => p.page)).toEqual(Array.from({ length: pages }, (_, i) => i));
    expect(recorded.slice(2).every((p) => p.epoch === taken.epoch)).toBe(true);
    expect(digestPosts(CHANNELS.pause)).toHaveLength(1);
    // It knew: its fence stopped it.
    expect(
      holder.logs().some((l) => l.msg === 'digest run lost its lease: stopped'),
      holder.output(),
    ).toBe(true);
    expect(posted.calls).toBe(pages);
  }, 240_000);
});
