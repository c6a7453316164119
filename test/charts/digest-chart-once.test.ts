/**
 * The digest's chart is posted once, and only after the digest's post is recorded (issue 26,
 * DESIGN rule 8): through the real digest scheduler and runner on both store engines, the local
 * Slack-compatible server and the plat sandbox over loopback. The chart step starts with the run
 * already 'posted'; a chart Slack refuses or answers unclearly never makes the digest post again;
 * the chart reply carries its own key, so a repeat of the step finds it in the thread instead of
 * uploading again; and rendering makes no plat call (the sandbox counts exactly the run's calls).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { digestChartKey, POST_SETTLE_MS } from '../../src/digest/posted-once.js';
import { metadataOf } from '../../src/slack/scheduled-posts.js';
import { CHANNEL, type DigestRig, startDigestRig } from '../digest/digest-rig.js';
import { ENGINES } from '../helpers/store-engines.js';

const MINUTE = 60_000;
/** 08:00 in Shanghai on 2026-11-20; the digest is due at 09:00 (01:00Z). */
const START = Date.parse('2026-11-20T00:00:00Z');
const DUE = Date.parse('2026-11-20T01:00:00Z');

let rig: DigestRig | null = null;
afterEach(async () => {
  await rig?.close();
  rig = null;
});

/** The messages kept in the digest's thread (replies only). */
function thread(r: DigestRig, parentTs: string) {
  return r.fake.calls
    .filter((c) => c.method === 'chat.postMessage' && c.body.thread_ts === parentTs)
    .map((c) => c.body);
}

describe.each(ENGINES)('digest chart, posted once after the digest (%s)', (engine) => {
  const start = () => startDigestRig({ start: START, engine, postTimeoutMs: 1_500 });

  it('starts only once the run is recorded posted; keyed in its metadata; no plat call of its own', async () => {
    rig = await start();
    const sub = await rig.subscribe();
    // Hold the chart step at its first call (the thread read) and look at the run meanwhile.
    rig.fake.setDelay('conversations.replies', 300);
    rig.scheduler.start();
    const moving = rig.advance(DUE - START);
    const read = await rig.fake.waitFor('conversations.replies', undefined, 20_000);
    const during = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');
    expect(during).toMatchObject({ state: 'posted' });
    expect(read.body).toMatchObject({
      channel: CHANNEL,
      ts: during?.messageTs,
      include_all_metadata: 'true',
    });
    // Nothing uploaded before the digest was recorded.
    expect(rig.fake.callsTo('files.getUploadURLExternal')).toHaveLength(0);
    await moving;

    const run = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');
    const charts = rig.charts();
    expect(charts).toHaveLength(1);
    expect(charts[0]?.body.thread_ts).toBe(run?.messageTs);
    expect(charts[0]?.body.metadata).toEqual(metadataOf(digestChartKey(run as NonNullable<typeof run>)));
    expect(rig.posts()).toHaveLength(1);
    // The sandbox saw exactly the calls the run paid for: the chart fetched nothing.
    expect(rig.plat.sandbox.stats().calls).toBe(run?.calls);
  });

  it('a chart Slack answers unclearly (stored, then 500) is not sent again, and the digest stands once', async () => {
    rig = await start();
    const sub = await rig.subscribe();
    // The first chat.postMessage is the digest; the fault meets the second (the chart).
    rig.fake.setResponse('files.completeUploadExternal', (call) => {
      rig?.fake.fault('chat.postMessage', 'store-then-500');
      const files = Array.isArray(call.body.files) ? (call.body.files as { id?: unknown }[]) : [];
      return { files: files.map((f) => ({ id: f.id, title: '' })) };
    });
    rig.scheduler.start();
    await rig.advance(DUE - START);
    await rig.advance(POST_SETTLE_MS + 5 * MINUTE);
    const run = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');
    expect(run).toMatchObject({ state: 'posted', attempts: 1 });
    expect(rig.fake.messages(CHANNEL)).toHaveLength(1);
    expect(rig.posts()).toHaveLength(1);
    // Slack kept the chart (then answered 500): one chart in the thread, sent once.
    expect(rig.charts()).toHaveLength(1);
    expect(thread(rig, String(run?.messageTs))).toHaveLength(1);
    expect(rig.fake.callsTo('conversations.history')).toHaveLength(0);
  });

  it('a refused upload leaves the digest posted once; no chart message', async () => {
    rig = await start();
    const sub = await rig.subscribe();
    rig.fake.failNext('files.getUploadURLExternal', { error: 'not_allowed_token_type' });
    rig.scheduler.start();
    await rig.advance(DUE - START);
    await rig.advance(POST_SETTLE_MS + 5 * MINUTE);
    expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
      state: 'posted',
      attempts: 1,
    });
    expect(rig.posts()).toHaveLength(1);
    expect(rig.charts()).toHaveLength(0);
  });
});
