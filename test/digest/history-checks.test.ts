/**
 * History checks (issue 33 finding 10) through the digest scheduler and the Slack publishers
 * against the local Slack stand-in, on both store engines:
 *  - a history page answering has_more without a cursor is unreadable: nothing is posted again,
 *    the admins are told (it was read as "surely absent" and posted twice);
 *  - the check reads a narrow window around the post attempt, not everything since the run was
 *    created (a run that waited hours for approval);
 *  - "Run now"'s threaded replies left unclear are verified and completed, not failed;
 *  - under Slack's limited tier (1 request a minute per workspace and method, 15 messages a page,
 *    enforced by the stand-in) the checks of one workspace share one allowance: spaced a minute
 *    apart, never a 429, each post found once; a window too busy to read within the check's
 *    bound tells the admins why and posts nothing again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { POST_SETTLE_MS } from '../../src/digest/posted-once.js';
import { MAX_POINTS_SETTING } from '../../src/digest/runner.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { ENGINES } from '../helpers/store-engines.js';
import { ADMIN, CHANNEL, type DigestRig, messageText, startDigestRig } from './digest-rig.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** 08:00 in Shanghai on 2026-11-20; the digest is due at 09:00 (01:00Z). */
const START = Date.parse('2026-11-20T00:00:00Z');
const DUE = Date.parse('2026-11-20T01:00:00Z');
const OTHER = 'C0OTHER01';

let rig: DigestRig | null = null;
afterEach(async () => {
  await rig?.close();
  rig = null;
});

const keyedIn = (r: DigestRig, channel: string, eventType = 'platdesk_digest') =>
  r.fake.messages(channel).filter((m) => m.metadata?.event_type === eventType);

describe.each(ENGINES)('history checks (%s)', (engine) => {
  it('a page with has_more and no cursor: not "surely absent", so nothing is posted again and the admins are told', async () => {
    rig = await startDigestRig({ start: START, engine });
    const sub = await rig.subscribe();
    rig.fake.fault('chat.postMessage', 'accept-then-cut');
    rig.fake.setResponse('conversations.history', {
      messages: [],
      has_more: true,
      response_metadata: { next_cursor: '' },
    });
    rig.scheduler.start();
    await rig.advance(DUE - START);
    await rig.advance(HOUR);
    expect(keyedIn(rig, CHANNEL)).toHaveLength(1);
    expect(rig.posts()).toHaveLength(1);
    expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
      state: 'unknown',
      nextAttemptAt: null,
    });
    expect(rig.posts(ADMIN)).toHaveLength(1);
  });

  it('a run that waited hours for approval: its check reads the minutes around its post, not the hours since it was created', async () => {
    rig = await startDigestRig({ start: START, engine, price: async () => 100 });
    const sub = await rig.subscribe();
    await rig.store.settings.set(MAX_POINTS_SETTING, 50, ADMIN);
    rig.scheduler.start();
    await rig.advance(DUE - START);
    const parked = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');
    expect(parked?.state).toBe('awaiting_approval');
    // Chatter in the channel meanwhile.
    for (let i = 0; i < 30; i++) await rig.slack.chat.postMessage({ channel: CHANNEL, text: `chatter ${i}` });
    const approvedAt = DUE + 6 * HOUR;
    rig.clock.advanceTo(approvedAt);
    rig.fake.fault('chat.postMessage', 'accept-then-cut', 1, (c) => Boolean(c.body.metadata));
    const result = await rig.scheduler.approve(parked?.id ?? 0, ADMIN);
    expect(result.kind).toBe('unknown');
    await rig.advance(2 * MINUTE);
    const reads = rig.fake.callsTo('conversations.history');
    expect(reads).toHaveLength(1);
    const oldest = Number(reads[0]?.body.oldest) * 1000;
    const latest = Number(reads[0]?.body.latest) * 1000;
    // Minutes around the attempt (Slack's clock and ours agree within a margin), not since 09:00.
    expect(oldest).toBeGreaterThanOrEqual(approvedAt - 5 * MINUTE - 1000);
    expect(oldest).toBeLessThanOrEqual(approvedAt);
    expect(latest).toBeGreaterThan(approvedAt + POST_SETTLE_MS);
    expect(latest).toBeLessThanOrEqual(approvedAt + POST_SETTLE_MS + 6 * MINUTE);
    expect(await rig.store.digests.run(parked?.id ?? 0)).toMatchObject({ state: 'posted' });
    expect(keyedIn(rig, CHANNEL)).toHaveLength(1);
  });

  it('"Run now": a threaded reply left unclear is verified and completed, each reply once, not failed', async () => {
    rig = await startDigestRig({ start: START, engine });
    const sub = await rig.subscribe({ layout: 'thread', ownerId: SANDBOX_FIXTURES.owners.busy });
    rig.scheduler.start();
    rig.clock.advanceTo(START + 10 * MINUTE);
    rig.fake.fault('chat.postMessage', 'accept-then-cut', 1, (c) => c.body.thread_ts !== undefined);
    const result = await rig.scheduler.runNow(sub.id, ADMIN);
    expect(result.kind).toBe('unknown');
    const run = await rig.store.digests.lastRun(sub.id);
    expect(run).toMatchObject({ kind: 'manual', state: 'unknown' });
    const parentTs = run?.messageTs ?? '';
    expect(rig.fake.replies(CHANNEL, parentTs)).toHaveLength(1);

    await rig.advance(2 * MINUTE);
    expect(await rig.store.digests.run(run?.id ?? 0)).toMatchObject({ state: 'posted', messageTs: parentTs });
    const replies = rig.fake
      .replies(CHANNEL, parentTs)
      .filter((m) => m.metadata?.event_type === 'platdesk_digest_reply')
      .map((m) => m.metadata?.event_payload?.key);
    expect(replies.length).toBeGreaterThan(1);
    expect(replies).toEqual(
      replies.map((_, i) => `digest-run-${run?.id}-${run?.createdAt.getTime()}-reply-${i}`),
    );
    // One channel-level message: the progress message, now the digest.
    expect(rig.fake.messages(CHANNEL)).toHaveLength(1);
    expect(rig.posts(ADMIN)).toHaveLength(0);
  });

  describe("Slack's limited tier", () => {
    it("two unclear posts of one workspace: their checks share the minute's request, never a 429, each found once", async () => {
      rig = await startDigestRig({ start: START, engine, limitedReads: true });
      const a = await rig.subscribe();
      const b = await rig.subscribe({ channelId: OTHER });
      rig.fake.fault('chat.postMessage', 'accept-then-cut', 2);
      rig.scheduler.start();
      await rig.advance(DUE - START);
      expect(keyedIn(rig, CHANNEL)).toHaveLength(1);
      expect(keyedIn(rig, OTHER)).toHaveLength(1);
      await rig.advance(5 * MINUTE);
      for (const [sub, channel] of [
        [a, CHANNEL],
        [b, OTHER],
      ] as const) {
        expect(keyedIn(rig, channel)).toHaveLength(1);
        expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
          state: 'posted',
          messageTs: keyedIn(rig, channel)[0]?.ts,
        });
      }
      const reads = rig.fake.callsTo('conversations.history');
      expect(reads).toHaveLength(2);
      expect(reads.every((c) => c.body.limit === '15')).toBe(true);
      // The stand-in answers one request a minute (on the fake clock) and refused none: spaced.
      expect(rig.fake.rateLimited()).toHaveLength(0);
      expect(rig.posts(ADMIN)).toHaveLength(0);
    });

    it("a window too busy to read within the check's bound: the admins are told why, nothing is posted again", async () => {
      rig = await startDigestRig({ start: START, engine, limitedReads: true });
      const sub = await rig.subscribe();
      rig.fake.fault('chat.postMessage', 'accept-then-cut', 1, (c) => Boolean(c.body.metadata));
      rig.scheduler.start();
      await rig.advance(DUE - START);
      // 130 messages right after it, within its window: more than 8 requests of 15.
      for (let i = 0; i < 130; i++)
        await rig.slack.chat.postMessage({ channel: CHANNEL, text: `chatter ${i}` });
      await rig.advance(30 * MINUTE);
      expect(keyedIn(rig, CHANNEL)).toHaveLength(1);
      expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
        state: 'unknown',
        nextAttemptAt: null,
      });
      expect(rig.fake.callsTo('conversations.history')).toHaveLength(8);
      expect(rig.fake.rateLimited()).toHaveLength(0);
      const told = rig.posts(ADMIN);
      expect(told).toHaveLength(1);
      expect(messageText(told[0] ?? ({} as never))).toContain('not approved for the Slack Marketplace');
    });
  });
});
