/**
 * Three platdesk processes on one PostgreSQL database and one Redis (issue 13, "Tests with real
 * parts"): each is `npm start`'s entry point in its own child process
 * (test/helpers/replica-cluster.ts), driven over signed HTTP (test/helpers/replica-slack.ts); every
 * plat call goes to the one sandbox in this process, which counts and timestamps arrivals; every
 * Slack call goes to one fake Slack Web API server. The database is made fresh on the run's test
 * server (vitest globalSetup) and dropped afterwards; the ledger is one count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import type { DigestSubscription, Store } from '../../src/store/store.js';
import { arrivalsBetween, largestInAnyWindow } from '../helpers/arrivals.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { createLimiterKeys, type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replica-cluster.js';
import { type ReplicaSlack, replicaSlack } from '../helpers/replica-slack.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { postAction, postEvent } from '../helpers/slack-http.js';
import { blockAction, eventCallback, linkShared } from '../helpers/slack-payloads.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const SECRET = 'replicas-secret';
const ADMIN = 'U0REPADMIN';
const DIGEST_CHANNEL = 'C0DIGEST1';
const ALREADY_USED = 'This confirmation was already used';
// Every interrupted-lookup message (lookup.interrupted*: sent or not, charged or not) says this.
const INTERRUPTED = 'was interrupted (a platdesk restart or a lost database connection)';
const PLAT_TOKEN = 'replicas-test';
const REPLICAS = 3;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A lookup of its own: /shop ww <id> is one get-shop-id call, answered "no shop was found". */
const shopOf = (wwid: string) => `No shop was found for seller account *${wwid}*`;
const userOf = (i: number) => `U${2000 + (i % 12)}`;

describe('three replicas on one PostgreSQL database and one Redis', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let fake: FakeSlack;
  let cluster: ReplicaCluster;
  let slack: ReplicaSlack;
  let databaseUrl: string;
  /** The test's own view of the shared database (ledger counts, making a digest due). */
  let store: Store;
  /** When the suite's digest is due (epoch ms). */
  let digestDueAt: number;
  let digest: DigestSubscription;

  /** Ledger rows in the shared store. */
  async function ledgerRows(): Promise<number> {
    return (await store.ledger.totals({ from: new Date(0), to: new Date(Date.now() + 3_600_000) })).calls;
  }

  /** The first post to a click's response_url that is not "Looking up…". */
  const answerTo = (responseUrlId: string) =>
    slack.response(responseUrlId, (m) => !textOf(m).includes('Looking up'), 30_000);

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
    // Migrated here once, so the three replicas start on a current schema instead of racing to it.
    store = await openStore({ url: databaseUrl });
    // A digest due at the first whole minute at least 15 s from now (UTC): the replicas are running
    // by then (each plans its wake-up at that instant), so all three race for the one run. Should
    // they take longer to start, each finds it due at start-up and they race there instead.
    digestDueAt = Math.ceil((Date.now() + 15_000) / 60_000) * 60_000;
    const due = new Date(digestDueAt);
    const hhmm = `${String(due.getUTCHours()).padStart(2, '0')}:${String(due.getUTCMinutes()).padStart(2, '0')}`;
    digest = await store.digests.add({
      ownerId: SANDBOX_FIXTURES.owners.busy,
      shopLabel: SANDBOX_FIXTURES.owners.busy,
      channelId: DIGEST_CHANNEL,
      localTime: hhmm,
      timeZone: 'UTC',
      createdBy: ADMIN,
    });
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
        DATABASE_URL: databaseUrl,
        PLATDESK_ADMINS: ADMIN,
      },
    });
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
    await fake?.close();
    await sandbox?.close();
    await redis?.close();
    await store?.close();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  }, 30_000);

  it('a digest due while all three run is posted once: one message in its channel, the pages of one run called and charged once', async () => {
    const localDate = new Date(digestDueAt).toISOString().slice(0, 10);
    const posted = async () => (await store.digests.scheduledRun(digest.id, localDate))?.state === 'posted';
    const end = Date.now() + Math.max(0, digestDueAt - Date.now()) + 20_000;
    while (!(await posted()) && Date.now() < end) await sleep(200);
    expect(await posted(), cluster.output()).toBe(true);
    // First in the suite: the other tests count every call at the sandbox, and a digest due while
    // Redis is down would fail and retry minutes later. The other two woke at the same instant and
    // lost the claim; a moment more shows they post nothing either.
    await sleep(1500);
    // Top-level posts: the digest's chart is a reply in its thread (issue 26).
    const posts = fake
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === DIGEST_CHANNEL && c.body.thread_ts === undefined);
    expect(posts).toHaveLength(1);
    expect(textOf(posts[0]?.body)).toContain(`Orders digest of ${SANDBOX_FIXTURES.owners.busy}`);
    expect(textOf(posts[0]?.body)).toContain('This digest cost 4 points (¥0.04) in 2 calls');
    // The busy shop's 24 h window is two pages (test/digest/commands.test.ts); each is a ledger row.
    expect(sandbox.stats().callsByOperation['paging-orders']).toBe(2);
    const entries = await store.ledger.list({ from: new Date(0), to: new Date(Date.now() + 3_600_000) });
    expect(entries.filter((e) => e.source === 'digest')).toHaveLength(2);
    const claims = cluster.replicas.flatMap((r) => r.logs().filter((l) => l.msg === 'digest run claimed'));
    expect(claims).toHaveLength(1);
  }, 90_000);

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
    // Every call is one ledger row in the shared store.
    expect((await ledgerRows()) - ledgerBefore).toBe(60);
    expect(sandbox.stats().maxInWindow).toBeLessThanOrEqual(10);
  }, 60_000);

  it('one Confirm clicked on all three replicas at once: one plat call, one answer, nothing for the two clicks that came while it ran; a later click hears "already used"; ledger +1', async () => {
    const wwid = 'replica-one-confirm';
    const { confirmation } = await slack.ask(cluster.at(0), '/shop', `ww ${wwid}`, { userId: userOf(0) });
    const before = sandbox.stats().calls;
    const ledgerBefore = await ledgerRows();
    // The call takes 1 s: the other two clicks are handled while it runs.
    sandbox.setFaults([{ kind: 'latency', ms: 1000, operations: ['get-shop-id'] }]);
    try {
      const clicks = await Promise.all(
        cluster.replicas.map((replica) =>
          slack.click(replica, 'platdesk.confirm', confirmation.confirm.value, { userId: userOf(0) }),
        ),
      );
      for (const click of clicks) expect(click.status).toBe(200);
      const ids = clicks.map((c) => c.responseUrlId);
      const answer = await fake.waitFor(
        'response_url',
        (c) => ids.includes(c.id ?? '') && textOf(c.body).includes(shopOf(wwid)),
        30_000,
      );
      await sleep(300);
      const said = fake.callsTo('response_url').filter((c) => ids.includes(c.id ?? ''));
      // The winner's "Looking up…" and its answer; not a word for the other two.
      expect(
        said.map((c) => c.id),
        cluster.output(),
      ).toEqual([answer.id, answer.id]);
    } finally {
      sandbox.setFaults([]);
    }
    const later = await slack.click(cluster.at(2), 'platdesk.confirm', confirmation.confirm.value, {
      userId: userOf(0),
    });
    expect(textOf(await answerTo(later.responseUrlId))).toContain(ALREADY_USED);
    expect(sandbox.stats().calls - before).toBe(1);
    expect((await ledgerRows()) - ledgerBefore).toBe(1);
  }, 30_000);

  it('a Confirm Slack delivers again, to the other replicas, during the run and after it: one call, one answer, no "already used"', async () => {
    const wwid = 'replica-redelivered';
    const { confirmation } = await slack.ask(cluster.at(0), '/shop', `ww ${wwid}`, { userId: userOf(0) });
    const before = sandbox.stats().calls;
    // One click, as Slack sends it each time: same user, action, value, action_ts and response_url.
    const click = blockAction({
      actionId: 'platdesk.confirm',
      ...(confirmation.confirm.value !== undefined ? { value: confirmation.confirm.value } : {}),
      userId: userOf(0),
      responseUrl: fake.responseUrl('replica-redelivered'),
      actionTs: '1700000099.000100',
    });
    sandbox.setFaults([{ kind: 'latency', ms: 800, operations: ['get-shop-id'] }]);
    try {
      const sent = await Promise.all(
        [0, 1, 2].map((i) => postAction(cluster.at(i).eventsUrl, SECRET, click)),
      );
      for (const res of sent) expect(res.status).toBe(200);
      await slack.response('replica-redelivered', (m) => textOf(m).includes(shopOf(wwid)), 30_000);
    } finally {
      sandbox.setFaults([]);
    }
    // Once more, after the answer, on another replica.
    expect((await postAction(cluster.at(1).eventsUrl, SECRET, click)).status).toBe(200);
    await sleep(500);
    const said = fake.callsTo('response_url').filter((c) => c.id === 'replica-redelivered');
    expect(said, cluster.output()).toHaveLength(2);
    expect(said.map((c) => textOf(c.body)).join('\n')).not.toContain(ALREADY_USED);
    expect(sandbox.stats().calls - before).toBe(1);
  }, 30_000);

  it('10 identical lookups confirmed at once on different replicas: one call at the sandbox, all 10 answered, one ledger row', async () => {
    const wwid = 'replica-identical';
    const asked = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const replica = cluster.at(i % REPLICAS);
        const { confirmation } = await slack.ask(replica, '/shop', `ww ${wwid}`, { userId: userOf(i) });
        return { replica, confirmation, userId: userOf(i) };
      }),
    );
    const before = sandbox.stats().calls;
    const ledgerBefore = await ledgerRows();
    // The one call takes 1.5 s, so every confirmation arrives while it is in flight.
    sandbox.setFaults([{ kind: 'latency', ms: 1500, operations: ['get-shop-id'] }]);
    try {
      const answers = await Promise.all(
        asked.map(({ replica, confirmation, userId }) => slack.confirm(replica, confirmation, { userId })),
      );
      for (const { answer } of answers) expect(textOf(answer), cluster.output()).toContain(shopOf(wwid));
    } finally {
      sandbox.setFaults([]);
    }
    expect(sandbox.stats().calls - before).toBe(1);
    expect((await ledgerRows()) - ledgerBefore).toBe(1);
  }, 30_000);

  it("Slack's retry of a link_shared event delivered to the other replicas is recognised: one unfurl, one call", async () => {
    const channel = 'CREPAUTO1';
    const set = await slack.command(cluster.at(0), '/platdesk', `autolookup <#${channel}|auto> on`, {
      userId: ADMIN,
    });
    expect(textOf(await slack.response(set.responseUrlId)), cluster.output()).toContain(
      'are looked up automatically',
    );
    const url = `https://item.taobao.com/item.htm?id=${SANDBOX_FIXTURES.items.missing}`;
    const envelope = eventCallback(linkShared({ links: [{ url, domain: 'item.taobao.com' }], channel }), {
      eventId: 'EvREPLICARETRY1',
    });
    const before = sandbox.stats().calls;
    const unfurlsBefore = fake.callsTo('chat.unfurl').length;
    expect((await postEvent(cluster.at(0).eventsUrl, SECRET, envelope)).status).toBe(200);
    await fake.waitFor('chat.unfurl', () => fake.callsTo('chat.unfurl').length > unfurlsBefore, 10_000);
    expect(sandbox.stats().calls - before).toBe(1);

    for (const [index, retryNum] of [
      [1, 1],
      [2, 2],
    ] as const)
      expect((await postEvent(cluster.at(index).eventsUrl, SECRET, envelope, { retryNum })).status).toBe(200);
    await sleep(1500);
    expect(fake.callsTo('chat.unfurl')).toHaveLength(unfurlsBefore + 1);
    expect(sandbox.stats().calls - before).toBe(1);
  }, 30_000);

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

    // Its ten confirmed lookups (claimed, running when it died) are told to their users by a
    // survivor's claim watch (the holder's pid is gone on this host), once each.
    const interrupted = () =>
      fake.callsTo('chat.postMessage').filter((c) => textOf(c.body).includes(INTERRUPTED));
    await fake.waitFor('chat.postMessage', () => interrupted().length >= 10, 15_000);
    await sleep(500);
    expect(
      interrupted()
        .map((c) => c.body.channel)
        .sort(),
    ).toEqual(Array.from({ length: 10 }, (_, i) => userOf(i)).sort());

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
