/**
 * Keyed posts (src/slack/scheduled-posts.ts) against the local Slack stand-in with a real
 * WebClient: what counts as a sure refusal (Slack answered `ok: false` with a definite error, a
 * rate limit, no connection at all) and what leaves the outcome unknown; the post goes out once
 * even though the app's own client retries; the history is searched page by page from the key's
 * `since`, a DM's in its IM conversation, and an unreadable history is HistoryUnreadableError.
 */
import { LogLevel, WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HistoryUnreadableError,
  type PostKey,
  PostOutcomeUnknownError,
} from '../../src/digest/posted-once.js';
import { createKeyedPosts, metadataOf } from '../../src/slack/scheduled-posts.js';
import { freePort } from '../helpers/free-port.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';

const T0 = Date.parse('2026-11-20T01:00:00Z');
const CHANNEL = SLACK.channelId;
const message = { text: 'digest', blocks: [] };
const key = (k: string, since = T0): PostKey => ({
  eventType: 'platdesk_digest',
  key: k,
  since: new Date(since),
});

let fake: FakeSlack;
let at = T0;
/** The app's client as main.ts builds it: it retries 5xx and timeouts by itself. */
const appClient = () =>
  new WebClient('xoxb-test', {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 3, factor: 1, minTimeout: 0 },
    logLevel: LogLevel.ERROR,
  });

beforeEach(async () => {
  at = T0;
  fake = await startSlackApiServer({ now: () => at });
});
afterEach(async () => {
  await fake.close();
});

describe('keyed posts', () => {
  it('carry the key in metadata and go out once, though the app client retries 5xx', async () => {
    const keyed = createKeyedPosts({ client: appClient(), timeoutMs: 2_000 });
    fake.fault('chat.postMessage', 'store-then-500');
    await expect(keyed.post(CHANNEL, message, key('k1'))).rejects.toBeInstanceOf(PostOutcomeUnknownError);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(fake.callsTo('chat.postMessage')[0]?.body.metadata).toEqual(metadataOf(key('k1')));
    expect(fake.messages(CHANNEL)).toHaveLength(1);
  });

  it.each([
    ['ok: false not_in_channel', false, () => fake.failNext('chat.postMessage', { error: 'not_in_channel' })],
    [
      'a rate limit (429)',
      false,
      () => fake.failNext('chat.postMessage', { error: 'ratelimited', retryAfter: 30 }),
    ],
    ['ok: false internal_error', true, () => fake.failNext('chat.postMessage', { error: 'internal_error' })],
    ['a 502', true, () => fake.failNext('chat.postMessage', { error: 'bad_gateway', status: 502 })],
    ['a cut connection', true, () => fake.fault('chat.postMessage', 'accept-then-cut')],
    ['no answer (timeout)', true, () => fake.fault('chat.postMessage', 'timeout')],
  ] as const)('%s: outcome unknown: %s', async (_name, unknown, arm) => {
    arm();
    const outcome = await createKeyedPosts({ client: appClient(), timeoutMs: 2_000 })
      .post(CHANNEL, message, key('k'))
      .catch((error: unknown) => error);
    expect(outcome instanceof PostOutcomeUnknownError).toBe(unknown);
    expect(outcome).toBeInstanceOf(Error);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it('no connection at all (ECONNREFUSED) is a sure refusal', async () => {
    const closed = new WebClient('xoxb-test', { slackApiUrl: `http://127.0.0.1:${await freePort()}/api/` });
    const outcome = await createKeyedPosts({ client: closed })
      .post(CHANNEL, message, key('k'))
      .catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(Error);
    expect(outcome).not.toBeInstanceOf(PostOutcomeUnknownError);
  });
});

describe('finding a key in the history', () => {
  it('pages through the history from `since`; older messages and other keys are not matches', async () => {
    const client = appClient();
    const keyed = createKeyedPosts({ client });
    // A message older than `since`: never a match, however far the pages go.
    await client.chat.postMessage({ channel: CHANNEL, text: 'old', metadata: metadataOf(key('gone')) });
    at = T0 + 10 * 60_000;
    const posted = await keyed.post(CHANNEL, message, key('k', at));
    // 450 later messages: the key is on the third page of 200.
    for (let i = 0; i < 450; i++) {
      await client.chat.postMessage({
        channel: CHANNEL,
        text: `chatter ${i}`,
        metadata: metadataOf(key(`other-${i}`)),
      });
    }
    expect(await keyed.find(CHANNEL, key('k', at))).toEqual({ ts: posted, replyCount: 0 });
    const reads = fake.callsTo('conversations.history');
    expect(reads).toHaveLength(3);
    expect(reads[0]?.body).toMatchObject({ include_all_metadata: 'true', limit: '200' });
    expect(reads[0]?.body.oldest).toBe((at / 1000).toFixed(6));
    expect(await keyed.find(CHANNEL, key('absent', at))).toBeNull();
    expect(await keyed.find(CHANNEL, key('gone', at))).toBeNull();
    expect(await keyed.find(CHANNEL, key('gone', T0))).not.toBeNull();
  });

  it("a DM by user id is searched in the app's IM conversation", async () => {
    const keyed = createKeyedPosts({ client: appClient() });
    const posted = await keyed.post(SLACK.userId, message, key('dm'));
    expect(await keyed.find(SLACK.userId, key('dm'))).toEqual({ ts: posted, replyCount: 0 });
    expect(fake.callsTo('conversations.history')[0]?.body.channel).toMatch(/^D/);
  });

  it('a history Slack refuses (missing_scope) is HistoryUnreadableError', async () => {
    fake.failNext('conversations.history', { error: 'missing_scope' });
    await expect(createKeyedPosts({ client: appClient() }).find(CHANNEL, key('k'))).rejects.toBeInstanceOf(
      HistoryUnreadableError,
    );
  });
});
