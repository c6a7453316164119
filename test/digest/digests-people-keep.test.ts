/**
 * Digests people keep enabled (issue 15), through the REAL Bolt app of startPlatdesk with the
 * in-process sandbox: threaded digests (one parent in the channel, details as replies with
 * thread_ts and never reply_broadcast), weekday schedules across a DST change and several times
 * a day (a fake clock drives the scheduler, on SQLite and PostgreSQL), filters that change the numbers exactly, and a
 * personal digest by DM.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseSummary } from '../../src/digest/summarize.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const ADMIN = SLACK.adminId;
const CHANNEL = SLACK.channelId;
const BUSY = SANDBOX_FIXTURES.owners.busy;
const RECEIVER = /[张王李赵刘陈杨黄周吴]\*\*|\d{3}\*{4}\d{4}|号\*\*室|浙江省|杭州市|西湖区|receiver_/;

let h: PlatdeskHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function say(text: string, userId: string = ADMIN): Promise<string> {
  if (!h) throw new Error('no harness');
  const sent = await h.command('/orders', text, { userId });
  expect(sent.status).toBe(200);
  return textOf(await h.nextResponse(sent.responseUrlId));
}

/** Runs digest `id` now and waits for the admin's answer. */
async function runNow(id: number): Promise<string> {
  if (!h) throw new Error('no harness');
  const sent = await h.command('/orders', `digest run ${id}`, { userId: ADMIN });
  await h.nextResponse(sent.responseUrlId);
  return textOf(await h.nextResponse(sent.responseUrlId, 10_000));
}

/** A time of day twelve hours away in Shanghai, so no scheduled run fires mid-test. */
function farTime(now: Date): string {
  const later = new Date(now.getTime() + 20 * 3_600_000);
  return `${String(later.getUTCHours()).padStart(2, '0')}:00`;
}

const posts = (harness: PlatdeskHarness, channel: string): SlackCall[] =>
  harness.fake.callsTo('chat.postMessage').filter((c) => c.body.channel === channel);

/** Moves the fake clock; it waits for the schedulers between timers (platdesk-harness.ts). */
async function advanceTo(clock: FakeClock, at: number): Promise<void> {
  await clock.advanceToAsync(at);
  await h?.platdesk.schedulersIdle();
}

describe('threaded digests', () => {
  it('one parent in the channel (totals, by status, urgent count, cost); the details as replies with thread_ts, never reply_broadcast', async () => {
    h = await startPlatdeskHarness();
    expect(await say(`digest add ${BUSY} <#C1234|support> ${farTime(h.now())}`)).toContain('Digest #1 added');
    expect(await runNow(1)).toContain('Digest posted in <#C1234>');

    const inChannel = posts(h, CHANNEL);
    const parents = inChannel.filter((c) => c.body.thread_ts === undefined);
    const isChart = (c: SlackCall) => JSON.stringify(c.body.blocks ?? '').includes('"slack_file"');
    const replies = inChannel.filter((c) => c.body.thread_ts !== undefined && !isChart(c));
    // Issue 26: after the details, one chart reply (a slack_file image) in the same thread.
    const charts = inChannel.filter(isChart);
    expect(charts).toHaveLength(1);
    expect(inChannel.at(-1)).toBe(charts[0]);
    // "Run now": the progress message is the parent; the digest replaces it (chat.update).
    expect(parents).toHaveLength(1);
    const parentTs = String((await h.platdesk.store.digests.lastRun(1))?.messageTs);
    const parent = h.fake.callsTo('chat.update').at(-1)?.body ?? {};
    expect(parent.ts).toBe(parentTs);
    const summary = textOf(parent);
    expect(summary).toContain('*Orders*');
    expect(summary).toContain('*By status*');
    expect(summary).toContain('*To ship within 24 h*');
    expect(summary).toContain('This digest cost');
    expect(summary).toContain('Details (orders to ship soon, flagged orders, top goods) are in the thread');
    expect(summary).not.toContain('Top goods by count');

    // The busy shop has orders to ship soon, flagged orders and goods: three replies in the thread.
    // One reply a list the summary has: orders to ship within 24 h (none are, of orders confirmed in
    // the last 24 h with a 48 h ship-by time), flagged orders with remarks, top goods.
    const s = parseSummary((await h.platdesk.store.digests.lastRun(1))?.summaryJson ?? null);
    const expected = [
      s && s.urgent.total > 0 ? 'most urgent first' : null,
      s && s.flagged.total > 0 ? `Flagged orders: ${s.flagged.total}` : null,
      s && s.topGoodsByCount.length > 0 ? 'Top goods by count' : null,
    ].filter((x): x is string => x !== null);
    expect(expected.length).toBeGreaterThanOrEqual(2);
    expect(replies.map((c) => c.body.thread_ts)).toEqual(expected.map(() => parentTs));
    expect(charts[0]?.body.thread_ts).toBe(parentTs);
    for (const [i, text] of expected.entries()) expect(textOf(replies[i]?.body)).toContain(text);
    for (const call of h.fake.calls) {
      expect(call.body.reply_broadcast, call.method).toBeUndefined();
      expect(JSON.stringify(call.body)).not.toMatch(RECEIVER);
    }
    h.assertAllWithinLimits();
  });

  it('a reply Slack refuses is left out; the summary is not posted twice', async () => {
    h = await startPlatdeskHarness();
    await say(`digest add ${BUSY} <#C1234|support> ${farTime(h.now())}`);
    // Slack refuses the first reply in the thread; every other post gets a ts.
    const harness = h;
    let seq = 0;
    let refused = false;
    harness.fake.setResponse('chat.postMessage', (call) => {
      if (call.body.thread_ts !== undefined && !refused) {
        refused = true;
        return { ok: false, error: 'msg_too_long' };
      }
      return { channel: call.body.channel, ts: `1800000000.${String(++seq).padStart(6, '0')}` };
    });
    const sent = await harness.command('/orders', 'digest run 1', { userId: ADMIN });
    await harness.nextResponse(sent.responseUrlId);
    expect(textOf(await harness.nextResponse(sent.responseUrlId, 10_000))).toContain(
      'Digest posted in <#C1234>',
    );
    const inChannel = posts(harness, CHANNEL);
    expect(inChannel.filter((c) => c.body.thread_ts === undefined)).toHaveLength(1);
    expect((await harness.platdesk.store.digests.lastRun(1))?.state).toBe('posted');
    expect(refused).toBe(true);
    expect(inChannel.filter((c) => c.body.thread_ts !== undefined).length).toBeGreaterThanOrEqual(2);
    expect(harness.logs().some((l) => l.includes('digest thread reply not posted'))).toBe(true);
  });

  it('`single` keeps one message (its chart in its thread); `me` sends it by DM to the person', async () => {
    h = await startPlatdeskHarness();
    expect(await say(`digest add ${BUSY} me ${farTime(h.now())} single`)).toContain(`in <#${ADMIN}>`);
    expect(await h.platdesk.store.digests.get(1)).toMatchObject({ channelId: ADMIN, layout: 'single' });
    await runNow(1);
    const dm = posts(h, ADMIN);
    // One message, and the chart in its thread (issue 26).
    expect(dm).toHaveLength(2);
    expect(dm[0]?.body.thread_ts).toBeUndefined();
    expect(JSON.stringify(dm[1]?.body.blocks)).toContain('"slack_file"');
    expect(dm[1]?.body.thread_ts).toBe((await h.platdesk.store.digests.lastRun(1))?.messageTs);
    expect(textOf(h.fake.callsTo('chat.update').at(-1)?.body)).toContain('Top goods by count');
    expect(posts(h, CHANNEL)).toHaveLength(0);
  });
});

describe('filters', () => {
  it('flag:red,yellow and status:1 change the numbers exactly, and the header says so', async () => {
    h = await startPlatdeskHarness();
    const at = farTime(h.now());
    await say(`digest add ${BUSY} here ${at} single`);
    await say(`digest add ${BUSY} here ${at} single flag:red,yellow`);
    await say(`digest add ${BUSY} here ${at} single status:1`);
    // The three runs read the same 24 h at the same instant (the harness clock stands still).
    for (const id of [1, 2, 3]) await runNow(id);
    const summaryOf = async (id: number) => {
      const s = parseSummary((await h?.platdesk.store.digests.lastRun(id))?.summaryJson ?? null);
      if (!s) throw new Error(`digest ${id} has no summary`);
      return s;
    };
    const all = await summaryOf(1);
    const flagged = await summaryOf(2);
    const awaiting = await summaryOf(3);

    const redYellow = all.flagged.groups.filter((g) => g.tag === 1 || g.tag === 2);
    expect(flagged.orders).toBe(redYellow.reduce((n, g) => n + g.orders, 0));
    expect(flagged.flagged.groups.map((g) => [g.tag, g.orders])).toEqual(
      redYellow.map((g) => [g.tag, g.orders]),
    );
    const status1 = all.byStatus.find((r) => r.status === 1);
    expect(awaiting.orders).toBe(status1?.orders);
    expect(awaiting.amountFen).toBe(status1?.amountFen);
    expect(awaiting.byStatus.map((r) => r.status)).toEqual([1]);
    expect(flagged.orders).toBeLessThan(all.orders);
    expect(awaiting.orders).toBeLessThan(all.orders);

    const texts = h.fake.callsTo('chat.update').map((c) => textOf(c.body));
    expect(texts.some((t) => t.includes('Filter: 🔴 red flag and 🟡 yellow flag'))).toBe(true);
    expect(texts.some((t) => t.includes('Filter: Awaiting shipment'))).toBe(true);
    expect(await say('digest list')).toContain('· Filter: 🔴 red flag and 🟡 yellow flag');
  });

  it('bad options are refused and cost nothing', async () => {
    h = await startPlatdeskHarness();
    const said = await say(`digest add ${BUSY} here 09:00 days:someday flag:pink status:9`);
    expect(said).toContain('is not a set of days');
    expect(said).toContain('is not a flag colour');
    expect(said).toContain('is not a status');
    expect(await h.platdesk.store.digests.list()).toHaveLength(0);
    expect(h.calls()).toBe(0);
  });
});

describe.each(ENGINES)('schedules (%s store)', (engine) => {
  it('days:mon-fri skips the weekend across the spring-forward change (America/New_York): Friday 09:00 EST, then Monday 09:00 EDT with a window from Friday', async () => {
    // Friday 2026-03-06 08:00 EST; clocks spring forward on Sunday 2026-03-08.
    const clock = createFakeClock(Date.parse('2026-03-06T13:00:00Z'));
    h = await startPlatdeskHarness({ clock, engine });
    expect(await say(`digest add ${BUSY} here 09:00 America/New_York days:mon-fri`)).toContain(
      'on Mon, Tue, Wed, Thu, and Fri at 09:00 America/New_York',
    );
    await advanceTo(clock, Date.parse('2026-03-10T12:00:00Z'));
    const harness = h;
    await expect
      .poll(async () => (await harness.platdesk.store.digests.scheduledRun(1, '2026-03-09'))?.state)
      .toBe('posted');
    const runs = (
      await Promise.all(
        ['2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09'].map((d) =>
          h?.platdesk.store.digests.scheduledRun(1, d),
        ),
      )
    ).filter((r) => r !== null && r !== undefined);
    expect(runs.map((r) => [r.localDate, r.state])).toEqual([
      ['2026-03-06', 'posted'],
      ['2026-03-09', 'posted'],
    ]);
    // Friday 09:00 EST = 14:00 UTC; Monday 09:00 EDT = 13:00 UTC: the window tiles the weekend.
    expect(runs[0]?.windowEnd.toISOString()).toBe('2026-03-06T14:00:00.000Z');
    expect(runs[1]?.windowStart.toISOString()).toBe('2026-03-06T14:00:00.000Z');
    expect(runs[1]?.windowEnd.toISOString()).toBe('2026-03-09T13:00:00.000Z');
    expect(posts(h, CHANNEL).filter((c) => c.body.thread_ts === undefined)).toHaveLength(2);
    // Tuesday's is planned for 09:00 EDT.
    expect(await say('digest list')).toContain('Next: 2026-03-10 09:00');
  });

  it('09:00,17:30: two digests a day whose windows tile the day', async () => {
    // 2026-11-20 08:00 in Shanghai.
    const clock = createFakeClock(Date.parse('2026-11-20T00:00:00Z'));
    h = await startPlatdeskHarness({ clock, engine });
    expect(await say(`digest add ${BUSY} here 17:30,09:00`)).toContain(
      'every day at 09:00, 17:30 Beijing time',
    );
    await advanceTo(clock, Date.parse('2026-11-20T10:00:00Z'));
    const harness = h;
    await expect
      .poll(async () => (await harness.platdesk.store.digests.scheduledRun(1, '2026-11-20 17:30'))?.state)
      .toBe('posted');
    const morning = await h.platdesk.store.digests.scheduledRun(1, '2026-11-20 09:00');
    const evening = await h.platdesk.store.digests.scheduledRun(1, '2026-11-20 17:30');
    expect(morning?.state).toBe('posted');
    expect(evening?.state).toBe('posted');
    expect(morning?.windowStart.toISOString()).toBe('2026-11-19T09:30:00.000Z');
    expect(morning?.windowEnd.toISOString()).toBe('2026-11-20T01:00:00.000Z');
    expect(evening?.windowStart.toISOString()).toBe('2026-11-20T01:00:00.000Z');
    expect(evening?.windowEnd.toISOString()).toBe('2026-11-20T09:30:00.000Z');
    // Each run posted once, and charged exactly the calls the sandbox counted.
    expect(posts(h, CHANNEL).filter((c) => c.body.thread_ts === undefined)).toHaveLength(2);
    const calls = h.sandbox.stats().callsByOperation['paging-orders'] ?? 0;
    expect(calls).toBeGreaterThanOrEqual(2);
    const ledger = await h.platdesk.store.ledger.list({ from: new Date(0), to: new Date(8.64e15) });
    expect(ledger.map((e) => [e.source, e.operation])).toEqual(
      Array.from({ length: calls }, () => ['digest', 'paging-orders']),
    );
  });
});
