/**
 * Keyed posts and stranded runs across real processes (issue 33 findings 5 and 12): two platdesk
 * replicas (test/helpers/replica-cluster.ts, the real Bolt app each) on one PostgreSQL database
 * and one Redis, every plat call to one sandbox, every Slack call to one Slack stand-in.
 *
 *  - A holder paused (SIGSTOP) between moving its digest to 'posting' and sending the post, past
 *    its lease: the other replica reads the channel's history after the settle delay, finds
 *    nothing and posts; the paused holder, resumed (SIGCONT), must not post a second digest (its
 *    fence stops it right before the post). The pause point: a personal digest renders in its
 *    reader's language, asked of Slack (users.info) after 'posting'; the stand-in answers it late
 *    and the test stops the holder the moment the question arrives.
 *  - A "Run now" asked of one replica by a signed slash command, killed (kill -9) while its 2nd page
 *    is in flight: the other replica's stranded-runs sweep takes the run over, buys what is left,
 *    and its progress message becomes the digest, once; every call the service saw is in the ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisLimiter } from '../../src/plat/redis-limiter.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import type { DigestRun, DigestSubscription, Store } from '../../src/store/store.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replica-cluster.js';
import { replicaSlack } from '../helpers/replica-slack.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const SECRET = 'stranded-secret';
const ADMIN = 'U0STRADMIN';
const READER = 'U0DMREADER';
const RUN_NOW_CHANNEL = 'C0RUNNOW01';
const PLAT_TOKEN = 'stranded-test';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

async function createLimiterKeys(url: string): Promise<void> {
  const limiter = createRedisLimiter({ url, deadlineMs: 200 });
  try {
    await limiter.ready();
  } finally {
    await limiter.stop();
  }
}

describe('keyed posts and stranded runs on two replicas (PostgreSQL + Redis)', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let fake: FakeSlack;
  let cluster: ReplicaCluster;
  let databaseUrl: string;
  let store: Store;
  let personal: { sub: DigestSubscription; dueAt: number };
  let runNow: DigestSubscription;

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

  const pagingCalls = () => sandbox.stats().callsByOperation['paging-orders'] ?? 0;
  const keyedDigests = (channel: string) =>
    fake
      .callsTo('chat.postMessage')
      .filter(
        (c) =>
          c.body.channel === channel &&
          (c.body.metadata as { event_type?: string } | undefined)?.event_type === 'platdesk_digest',
      );

  beforeAll(async () => {
    redis = await startRedisServer();
    await createLimiterKeys(redis.url);
    databaseUrl = await createPostgresDatabase();
    store = await openStore({ url: databaseUrl });
    // The personal digest was made an hour ago for this minute, which has begun: every replica
    // finds it due at start-up (a missed slot of today is caught up), so nothing waits for a
    // minute to come. Not in the last two minutes of a UTC day: its slot would be yesterday's.
    const toMidnight = DAY - (Date.now() % DAY);
    if (toMidnight < 2 * MINUTE) await sleep(toMidnight + 1_000);
    const dueAt = Math.floor(Date.now() / MINUTE) * MINUTE;
    sandbox = createSandbox({
      token: PLAT_TOKEN,
      // The busy shop: about 250 orders a day, three pages of 100 in a "Run now" window.
      orderCounts: { [SANDBOX_FIXTURES.owners.busy]: 750 },
    });
    const platUrl = await sandbox.listen(0);
    const anHourAgo = await openStore({ url: databaseUrl, clock: { now: () => Date.now() - 60 * MINUTE } });
    personal = {
      sub: await anHourAgo.digests.add({
        ownerId: SANDBOX_FIXTURES.owners.small,
        shopLabel: 'small',
        channelId: READER,
        localTime: hhmm(dueAt),
        timeZone: 'UTC',
        createdBy: ADMIN,
      }),
      dueAt,
    };
    await anHourAgo.close();
    runNow = await store.digests.add({
      ownerId: SANDBOX_FIXTURES.owners.busy,
      shopLabel: 'busy',
      channelId: RUN_NOW_CHANNEL,
      localTime: hhmm(dueAt + 12 * 60 * MINUTE),
      timeZone: 'UTC',
      createdBy: ADMIN,
    });
    // Idle connections outlive the pause below, as at Slack: the paused holder's post would go out.
    fake = await startSlackApiServer({ keepAliveMs: 10 * MINUTE });
    // The reader's language is asked of Slack right before the post is rendered: answered late
    // (from the start: the run begins as the replicas start).
    fake.setDelay('users.info', 2_000);
    cluster = await startReplicaCluster(2, {
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
    await fake?.close();
    await sandbox?.close();
    await redis?.close();
    await store?.close();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  }, 30_000);

  it('a holder paused (SIGSTOP) after "posting", before its post, past its lease: the other replica posts after the settle delay; the holder, resumed, posts nothing', async () => {
    const { sub, dueAt } = personal;
    await fake.waitFor('users.info', (c) => c.body.user === READER, 60_000);
    const run = await until(
      'the run in posting',
      async () => {
        const r = await store.digests.scheduledRun(sub.id, new Date(dueAt).toISOString().slice(0, 10));
        return r?.state === 'posting' ? r : null;
      },
      5_000,
    );
    const holder = cluster.replicas.find((r) =>
      r.logs().some((l) => l.msg === 'digest run claimed' && l.runId === run.id),
    );
    if (!holder) throw new Error(`no holder logged the claim\n${cluster.output()}`);
    process.kill(holder.pid, 'SIGSTOP');
    const pausedAt = Date.now();
    try {
      const posted = await until(
        'the other replica to post the digest',
        async () => {
          const r = await store.digests.run(run.id);
          return r?.state === 'posted' ? r : null;
        },
        150_000,
      );
      // Not before the holder's lease had run out and the settle delay after it had passed.
      expect(Date.now() - pausedAt).toBeGreaterThan(45_000);
      expect(posted.epoch).toBeGreaterThan(run.epoch);
      expect(keyedDigests(READER)).toHaveLength(1);
    } finally {
      process.kill(holder.pid, 'SIGCONT');
    }
    // Time for the resumed holder to get its answer and reach its post.
    await sleep(8_000);
    fake.setDelay('users.info', 0);
    // One digest in the reader's DM: the resumed holder sent none; its fence stopped it.
    expect(keyedDigests(READER)).toHaveLength(1);
    expect(fake.messages(READER).filter((m) => m.metadata?.event_type === 'platdesk_digest')).toHaveLength(1);
    expect(
      holder.logs().some((l) => l.msg === 'digest run lost its lease: stopped'),
      holder.output(),
    ).toBe(true);
  }, 240_000);

  it('"Run now" whose replica is killed (kill -9) with its 2nd page in flight: the other replica takes it over and finishes it, its progress message becomes the digest, every call in the ledger', async () => {
    const slack = replicaSlack(fake, SECRET, 'stranded');
    const asker = cluster.at(0);
    const before = pagingCalls();
    // The 2nd page is answered 3 s late: the asker is killed while it waits for it.
    sandbox.setFaults([{ kind: 'latency', ms: 3_000, operations: ['paging-orders'], pages: [1], count: 1 }]);
    const sent = await slack.command(asker, '/orders', `digest run ${runNow.id}`, {
      userId: ADMIN,
      channelId: RUN_NOW_CHANNEL,
    });
    expect(sent.status).toBe(200);
    await until('the 2nd page to be asked for', async () => pagingCalls() >= before + 2, 30_000);
    const run = (await store.digests.lastRun(runNow.id)) as DigestRun;
    expect(run).toMatchObject({ kind: 'manual', state: 'running' });
    expect(run.messageTs).not.toBeNull();
    await cluster.kill(asker.index);
    sandbox.setFaults([]);

    const posted = await until(
      'the other replica to finish the run',
      async () => {
        const r = await store.digests.run(run.id);
        return r?.state === 'posted' ? r : null;
      },
      120_000,
    );
    await sleep(1_000);
    const pages = await store.digestPages.list(run.id);
    const calls = pagingCalls() - before;
    // Each page bought once, but the one answered to the killed replica (bought again): counted.
    expect(calls - pages.length).toBeLessThanOrEqual(1);
    expect(posted).toMatchObject({ attempts: 2, messageTs: run.messageTs, calls });
    const ledger = (await store.ledger.list({ from: new Date(0), to: new Date(Date.now() + DAY) })).filter(
      (e) => e.correlationId === `digest-${run.id}`,
    );
    expect(ledger).toHaveLength(calls);
    // The progress message is the digest; no second message in the channel.
    const inChannel = fake.messages(RUN_NOW_CHANNEL);
    expect(inChannel).toHaveLength(1);
    expect(inChannel[0]?.ts).toBe(run.messageTs);
    expect(inChannel[0]?.metadata?.event_type).toBe('platdesk_digest');
    expect(
      cluster
        .at(1)
        .logs()
        .some((l) => l.msg === 'digest run claimed' && l.runId === run.id),
    ).toBe(true);
  }, 240_000);
});
