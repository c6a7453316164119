/**
 * How keyed posts meet the lease fence and read the history (issue 33 findings 5 and 10), against
 * the local Slack stand-in with a real WebClient:
 *  - a keyed post checks its fence right before it is sent (a holder past its lease sends
 *    nothing) and carries the fence's signal (a post in flight when the lease is lost is
 *    abandoned at once, its outcome unknown);
 *  - a page answering has_more without a cursor is unreadable, never "surely absent";
 *  - the history is read between the key's `since` and `until` (a narrow window);
 *  - under Slack's limited tier (15 messages a request, 1 request a minute per workspace and
 *    method, which the stand-in enforces when told to) a check asks the workspace's shared
 *    allowance before each request, is put off (HistoryDeferredError) when it has none, goes on
 *    from where it stopped, and gives up as too busy past its bound; never a 429 at the stand-in.
 * The shared allowance itself on both store engines (replicas on one database) and on Redis.
 */
import { LogLevel, WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HistoryDeferredError,
  HistoryUnreadableError,
  type PostKey,
  PostOutcomeUnknownError,
} from '../../src/digest/posted-once.js';
import { type SlackReadBudget, storeReadBudget } from '../../src/slack/read-budget.js';
import { redisReadBudgets } from '../../src/slack/redis-read-budget.js';
import { createKeyedPosts, limitedReads, metadataOf } from '../../src/slack/scheduled-posts.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const T0 = Date.parse('2026-11-20T01:00:00Z');
const MINUTE = 60_000;
const CHANNEL = SLACK.channelId;
const message = { text: 'digest', blocks: [] };
const key = (k: string, since = T0, until?: number): PostKey => ({
  eventType: 'platdesk_digest',
  key: k,
  since: new Date(since),
  ...(until !== undefined ? { until: new Date(until) } : {}),
});

let fake: FakeSlack;
let at = T0;
const appClient = () =>
  new WebClient('xoxb-test', {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });

beforeEach(async () => {
  at = T0;
  fake = await startSlackApiServer({ now: () => at });
});
afterEach(async () => {
  await fake.close();
});

/** A fence as run-fence.ts's: `check()` throws once it is lost, its signal aborts then. */
function testFence() {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    check() {
      if (controller.signal.aborted) throw controller.signal.reason;
    },
    lose() {
      const error = new Error('lease lost');
      error.name = 'RunLeaseLostError';
      controller.abort(error);
    },
  };
}

/** An allowance of one request per `periodMs` on a clock the test moves (as the store's turns keep it). */
function minuteBudget(periodMs = MINUTE): SlackReadBudget & { taken: number[] } {
  const last = new Map<string, number>();
  const taken: number[] = [];
  return {
    taken,
    async take(method) {
      const before = last.get(method);
      if (before !== undefined && at - before < periodMs) return before + periodMs - at;
      last.set(method, at);
      taken.push(at);
      return 0;
    },
  };
}

describe('fenced keyed posts (finding 5)', () => {
  it('a holder whose fence is lost sends nothing', async () => {
    const fence = testFence();
    fence.lose();
    const keyed = createKeyedPosts({ client: appClient() });
    await expect(keyed.post(CHANNEL, message, key('k'), fence)).rejects.toMatchObject({
      name: 'RunLeaseLostError',
    });
    await expect(keyed.reply(CHANNEL, '1.1', message, key('r'), fence)).rejects.toMatchObject({
      name: 'RunLeaseLostError',
    });
    expect(fake.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('the fence is checked again at the last moment, after the message is built', async () => {
    const fence = testFence();
    let checks = 0;
    const lateFence = {
      signal: fence.signal,
      check() {
        checks += 1;
        // Passes at the start of the post, fails right before the request is opened.
        if (checks > 1) fence.lose();
        fence.check();
      },
    };
    await expect(
      createKeyedPosts({ client: appClient() }).post(CHANNEL, message, key('k'), lateFence),
    ).rejects.toMatchObject({ name: 'RunLeaseLostError' });
    expect(checks).toBe(2);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('a post in flight when the fence is lost is abandoned at once: its outcome is unknown (it may have landed)', async () => {
    const fence = testFence();
    fake.setDelay('chat.postMessage', 5_000);
    const keyed = createKeyedPosts({ client: appClient(), timeoutMs: 20_000 });
    const started = performance.now();
    const outcome = keyed.post(CHANNEL, message, key('k'), fence).catch((error: unknown) => error);
    await fake.waitFor('chat.postMessage');
    fence.lose();
    const error = await outcome;
    expect(error).toBeInstanceOf(PostOutcomeUnknownError);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

describe('reading the history (finding 10)', () => {
  it('a page with has_more and no cursor is unreadable, never "surely absent"', async () => {
    fake.setResponse('conversations.history', {
      messages: [],
      has_more: true,
      response_metadata: { next_cursor: '' },
    });
    fake.setResponse('conversations.replies', {
      messages: [{ ts: '1.1' }],
      has_more: true,
      response_metadata: { next_cursor: '' },
    });
    const keyed = createKeyedPosts({ client: appClient() });
    await expect(keyed.find(CHANNEL, key('k'))).rejects.toBeInstanceOf(HistoryUnreadableError);
    await expect(keyed.threadKeys(CHANNEL, '1.1', 'platdesk_digest_reply')).rejects.toBeInstanceOf(
      HistoryUnreadableError,
    );
  });

  it('reads only the window between `since` and `until`', async () => {
    const client = appClient();
    const keyed = createKeyedPosts({ client });
    const posted = await keyed.post(CHANNEL, message, key('k'));
    // A later message carrying the same key (it cannot be the post): outside the window.
    at = T0 + 30 * MINUTE;
    await client.chat.postMessage({ channel: CHANNEL, text: 'late', metadata: metadataOf(key('late')) });
    const window = key('k', T0 - 2 * MINUTE, T0 + 5 * MINUTE);
    expect(await keyed.find(CHANNEL, window)).toEqual({ ts: posted, replyCount: 0 });
    expect(await keyed.find(CHANNEL, key('late', T0 - 2 * MINUTE, T0 + 5 * MINUTE))).toBeNull();
    const read = fake.callsTo('conversations.history')[0]?.body;
    expect(read?.oldest).toBe(((T0 - 2 * MINUTE) / 1000).toFixed(6));
    expect(read?.latest).toBe(((T0 + 5 * MINUTE) / 1000).toFixed(6));
  });

  describe("Slack's limited tier (15 messages, 1 request a minute per workspace and method)", () => {
    beforeEach(() => fake.limitReads({ perMinute: 1, pageSize: 15 }));

    it('the stand-in refuses a second read within the minute with a 429 and Retry-After', async () => {
      const client = appClient();
      for (let i = 0; i < 20; i++) await client.chat.postMessage({ channel: CHANNEL, text: `m${i}` });
      const reader = new WebClient('xoxb-test', {
        slackApiUrl: fake.apiUrl,
        rejectRateLimitedCalls: true,
        retryConfig: { retries: 0 },
        logLevel: LogLevel.ERROR,
      });
      const first = await reader.conversations.history({ channel: CHANNEL, limit: 200 });
      expect(first.messages).toHaveLength(15);
      expect(first.has_more).toBe(true);
      await expect(reader.conversations.history({ channel: CHANNEL })).rejects.toMatchObject({
        code: 'slack_webapi_rate_limited_error',
        retryAfter: 60,
      });
      // Another method has its own minute; another workspace (token) too.
      await expect(
        reader.conversations.replies({ channel: CHANNEL, ts: first.messages?.[0]?.ts ?? '' }),
      ).resolves.toMatchObject({ ok: true });
      at += MINUTE;
      await expect(reader.conversations.history({ channel: CHANNEL })).resolves.toMatchObject({ ok: true });
      expect(fake.rateLimited()).toHaveLength(1);
    });

    it('a check asks the shared allowance before each request, is put off without one, and goes on from where it stopped', async () => {
      const client = appClient();
      const keyed = createKeyedPosts({ client, reads: limitedReads(minuteBudget()) });
      const posted = await keyed.post(CHANNEL, message, key('k'));
      // 20 messages after it in its window: the post is on the 2nd page of 15 (newest first).
      for (let i = 0; i < 20; i++) await client.chat.postMessage({ channel: CHANNEL, text: `chatter ${i}` });
      const window = key('k', T0 - 2 * MINUTE, T0 + 5 * MINUTE);
      const first = await keyed.find(CHANNEL, window).catch((error: unknown) => error);
      expect(first).toBeInstanceOf(HistoryDeferredError);
      const deferred = first as HistoryDeferredError;
      expect(deferred.retryAfterMs).toBe(MINUTE);
      expect(fake.callsTo('conversations.history')).toHaveLength(1);
      expect(fake.callsTo('conversations.history')[0]?.body.limit).toBe('15');
      // Asked again too soon: put off again, nothing sent.
      at += 30_000;
      await expect(keyed.find(CHANNEL, window, deferred.progress)).rejects.toBeInstanceOf(
        HistoryDeferredError,
      );
      expect(fake.callsTo('conversations.history')).toHaveLength(1);
      at += 30_000;
      expect(await keyed.find(CHANNEL, window, deferred.progress)).toEqual({ ts: posted, replyCount: 0 });
      const reads = fake.callsTo('conversations.history');
      expect(reads).toHaveLength(2);
      // The second request went on from the first one's cursor.
      expect(reads[1]?.body.cursor).toBeTruthy();
      expect(fake.rateLimited()).toHaveLength(0);
    });

    it('a 429 from Slack all the same (another app, another process) puts the check off by its Retry-After', async () => {
      const client = appClient();
      const keyed = createKeyedPosts({ client, reads: limitedReads({ take: async () => 0 }) });
      await client.conversations.history({ channel: CHANNEL });
      const error = await keyed.find(CHANNEL, key('k')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HistoryDeferredError);
      expect((error as HistoryDeferredError).retryAfterMs).toBe(MINUTE);
    });

    it('a window holding more than a check may read (8 requests of 15) is unreadable as too busy', async () => {
      const client = appClient();
      const keyed = createKeyedPosts({ client, reads: limitedReads(minuteBudget()) });
      await keyed.post(CHANNEL, message, key('k'));
      for (let i = 0; i < 130; i++) await client.chat.postMessage({ channel: CHANNEL, text: `chatter ${i}` });
      let progress: string | null = null;
      let outcome: unknown = null;
      for (let i = 0; i < 20 && outcome === null; i++) {
        try {
          await keyed.find(CHANNEL, key('k'), progress);
          outcome = 'found';
        } catch (error) {
          if (error instanceof HistoryDeferredError) {
            progress = error.progress;
            at += error.retryAfterMs;
          } else outcome = error;
        }
      }
      expect(outcome).toBeInstanceOf(HistoryUnreadableError);
      expect((outcome as HistoryUnreadableError).reason).toBe('too_busy');
      expect(fake.callsTo('conversations.history')).toHaveLength(8);
      expect(fake.rateLimited()).toHaveLength(0);
    });
  });
});

describe.each(ENGINES)('the shared read allowance in the store (%s)', (engine) => {
  let db: TestDatabase | null = null;
  afterEach(async () => {
    await db?.dispose();
    db = null;
  });

  it('one request per period per workspace and method, whichever replica asks; the others learn when', async () => {
    db = await testDatabase(engine);
    let now = T0;
    const clock = { now: () => now };
    const [a, b] = await db.openMany(2, { clock });
    if (!a || !b) throw new Error('two stores');
    const replicaA = storeReadBudget({
      turns: a.turns,
      tenant: 'T1',
      holder: 'a',
      now: clock.now,
      periodMs: MINUTE,
    });
    const replicaB = storeReadBudget({
      turns: b.turns,
      tenant: 'T1',
      holder: 'b',
      now: clock.now,
      periodMs: MINUTE,
    });
    const otherTenant = storeReadBudget({
      turns: b.turns,
      tenant: 'T2',
      holder: 'b',
      now: clock.now,
      periodMs: MINUTE,
    });
    const asked = await Promise.all([
      replicaA.take('conversations.history'),
      replicaB.take('conversations.history'),
    ]);
    expect(asked.filter((wait) => wait === 0)).toHaveLength(1);
    expect(Math.max(...asked)).toBe(MINUTE);
    expect(await replicaB.take('conversations.replies')).toBe(0);
    expect(await otherTenant.take('conversations.history')).toBe(0);
    now += 20_000;
    expect(await replicaA.take('conversations.history')).toBe(40_000);
    now += 40_000;
    expect(await replicaB.take('conversations.history')).toBe(0);
  });
});

describe('the shared read allowance in Redis', () => {
  let redis: RedisServer | null = null;
  afterEach(async () => {
    await redis?.close();
    redis = null;
  });

  it('one request per period per workspace and method across replicas (Redis keeps the time)', async () => {
    redis = await startRedisServer();
    const replicas = [
      redisReadBudgets({ url: redis.url, periodMs: 1_000 }),
      redisReadBudgets({ url: redis.url, periodMs: 1_000 }),
    ];
    try {
      const [a, b] = replicas.map((r) => r.forTenant('T1'));
      if (!a || !b) throw new Error('two replicas');
      const asked = await Promise.all([
        a.take('conversations.history'),
        b.take('conversations.history'),
        a.take('conversations.history'),
      ]);
      expect(asked.filter((wait) => wait === 0)).toHaveLength(1);
      for (const wait of asked) expect(wait).toBeLessThanOrEqual(1_000);
      expect(await b.take('conversations.replies')).toBe(0);
      expect(await replicas[0]?.forTenant('T2').take('conversations.history')).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1_050));
      expect(await b.take('conversations.history')).toBe(0);
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  });
});
