/**
 * The digest's chart reaches Slack (issue 26): after the digest is posted, the PNG goes up through
 * files.getUploadURLExternal → upload URL → files.completeUploadExternal on the local
 * Slack-compatible server, and a reply in the digest's thread shows it with a slack_file image
 * block naming the uploaded file, alt text in the channel's language.
 */
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Words } from '../../src/blocks/i18n/words.js';
import { digestChartKey } from '../../src/digest/posted-once.js';
import { createLogger } from '../../src/logger.js';
import { createAdminAlerts } from '../../src/slack/admin-alerts.js';
import { createSlackDigestPublisher } from '../../src/slack/digest/publisher.js';
import { metadataOf } from '../../src/slack/scheduled-posts.js';
import { blockKitProblems } from '../helpers/block-kit/check.js';
import { decodePng } from '../helpers/png.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { alertsSentInMemory } from '../helpers/store-engines.js';
import { en, zh } from '../helpers/words.js';
import { dayOfOrders, digestPost, HOUR, SUB, WINDOW } from './digest-fixture.js';

let fake: FakeSlack;
beforeEach(async () => {
  fake = await startSlackApiServer();
});
afterEach(async () => {
  await fake.close();
});

function publisherFor(words: Words) {
  const client = new WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  const logger = createLogger('silent');
  const admins = async () => ['UADMIN'];
  const language = { user: async () => words, channel: async () => words };
  const alerts = createAdminAlerts({ client, admins, language, logger, sent: alertsSentInMemory() });
  return createSlackDigestPublisher({ client, alerts, admins, language, logger });
}

const before = () => dayOfOrders(80, 3, new Date(WINDOW.from.getTime() - 24 * HOUR));

describe('digest chart upload', () => {
  for (const [layout, words, altStart] of [
    ['thread', zh, '每小时订单柱状图，共 120 单'],
    ['single', en, 'Bar chart of orders by hour, 120 orders in all'],
  ] as const) {
    it(`${layout} digest (${words.locale}): uploaded PNG, then a slack_file image reply in the digest's thread`, async () => {
      const post = { ...digestPost(dayOfOrders(120), before()), subscription: { ...SUB, layout } };
      const publisher = publisherFor(words);
      const ts = await publisher.postDigest(post, null);
      await publisher.postChart(post, ts);

      const url = await fake.waitFor('files.getUploadURLExternal');
      const upload = await fake.waitFor('file_upload');
      const complete = await fake.waitFor('files.completeUploadExternal');
      const fileId = upload.id;
      expect(fileId).toMatch(/^F/);
      expect(String(url.body.filename)).toBe(`digest-7-2026-11-20.png`);
      // The bytes uploaded are the chart: a PNG of 1000 px wide.
      const png = decodePng(upload.bytes ?? Buffer.alloc(0));
      expect(png.width).toBe(1000);
      expect(Number(url.body.length)).toBe(upload.bytes?.length);
      // Completed to no channel: the file is shown only through the message below.
      expect(JSON.stringify(complete.body.files)).toContain(fileId);
      expect(complete.body.channel_id).toBeUndefined();

      const posts = fake.callsTo('chat.postMessage');
      const chartPost = posts.find((c) => JSON.stringify(c.body.blocks ?? '').includes('slack_file'));
      if (!chartPost) throw new Error('no chart message');
      // In the digest's thread, after the digest and its replies.
      expect(chartPost.body.thread_ts).toBe(ts);
      expect(posts.at(-1)).toBe(chartPost);
      expect(chartPost.body.reply_broadcast).toBeUndefined();
      const blocks = chartPost.body.blocks as Record<string, unknown>[];
      expect(blockKitProblems(chartPost.body)).toEqual([]);
      expect(blocks).toEqual([expect.objectContaining({ type: 'image', slack_file: { id: fileId } })]);
      expect(String(blocks[0]?.alt_text)).toMatch(new RegExp(`^${altStart}`));
      expect(String(chartPost.body.text)).toMatch(new RegExp(`^${altStart}`));
      // The digest itself (parent) carries its by-status table, within Slack's limits.
      const parent = posts.find((c) => c.body.thread_ts === undefined);
      const parentBlocks = parent?.body.blocks as Record<string, unknown>[];
      expect(blockKitProblems(parent?.body)).toEqual([]);
      expect(parentBlocks.filter((b) => b.type === 'table')).toHaveLength(1);
    });
  }

  it('the chart step repeated (e.g. after an unclear answer) finds its keyed reply in the thread: no second upload or reply', async () => {
    const post = {
      ...digestPost(dayOfOrders(40), null),
      subscription: { ...SUB, layout: 'thread' as const },
    };
    const publisher = publisherFor(zh);
    const ts = await publisher.postDigest(post, null);
    fake.fault('chat.postMessage', 'store-then-500');
    await publisher.postChart(post, ts);
    await publisher.postChart(post, ts);
    expect(fake.callsTo('files.getUploadURLExternal')).toHaveLength(1);
    const charts = fake
      .callsTo('chat.postMessage')
      .filter((c) => c.body.thread_ts === ts && JSON.stringify(c.body.blocks).includes('slack_file'));
    expect(charts).toHaveLength(1);
    expect(charts[0]?.body.metadata).toEqual(metadataOf(digestChartKey(post.run)));
    const reads = fake.callsTo('conversations.replies');
    expect(reads).toHaveLength(2);
    expect(reads.every((c) => c.body.ts === ts && c.body.include_all_metadata === 'true')).toBe(true);
  });

  it('a refused upload is logged and the digest stays posted (no chart message, no throw)', async () => {
    fake.failNext('files.getUploadURLExternal', { error: 'not_allowed_token_type' });
    const post = digestPost(dayOfOrders(10), null);
    const publisher = publisherFor(en);
    const ts = await publisher.postDigest(post, null);
    await publisher.postChart(post, ts);
    expect(ts).toBeTruthy();
    expect(fake.callsTo('files.completeUploadExternal')).toHaveLength(0);
    expect(JSON.stringify(fake.callsTo('chat.postMessage').map((c) => c.body.blocks))).not.toContain(
      'slack_file',
    );
  });
});
