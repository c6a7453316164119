/**
 * Scheduled spend obeys the workspace caps (issue 19 point 6, choice a), through the REAL app on
 * both engines, with a fake clock driving the schedulers: every page a digest or ship-by alert
 * check fetches is checked and reserved against the workspace's daily (and monthly) cap before it
 * is sent, like a lookup's call. A page that would pass the cap is not sent: the digest or check
 * fails with the cap as its reason (the channel's notice, the admins' alerts), is retried on its
 * schedule, and goes through once an admin raises the cap. "Run anyway" approves a digest's own
 * cap, never the workspace's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const ADMIN = SLACK.adminId;
const CHANNEL = SLACK.channelId;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let h: PlatdeskHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function command(name: string, text: string): Promise<string> {
  if (!h) throw new Error('no harness');
  const sent = await h.command(name, text, { userId: ADMIN });
  expect(sent.status).toBe(200);
  return textOf(await h.nextResponse(sent.responseUrlId));
}

const inChannel = (harness: PlatdeskHarness): SlackCall[] =>
  harness.fake.callsTo('chat.postMessage').filter((c) => c.body.channel === CHANNEL);
const toAdmin = (harness: PlatdeskHarness): string[] =>
  harness.fake
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === ADMIN)
    .map((c) => textOf(c.body));
const pages = (harness: PlatdeskHarness): number =>
  harness.sandbox.stats().callsByOperation['paging-orders'] ?? 0;

/** Points in the ledger (every source), and its rows. */
async function ledger(harness: PlatdeskHarness) {
  const rows = await harness.platdesk.store.ledger.list({ from: new Date(0), to: new Date(8.64e15) });
  return { rows, points: rows.reduce((sum, r) => sum + r.points, 0) };
}

/** Moves the fake clock; it waits for the schedulers between timers (platdesk-harness.ts). */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  await clock.advanceAsync(ms);
  await h?.platdesk.schedulersIdle();
}

/** The next whole hour at least an hour away, and its Shanghai wall time. */
function dueSlot(now: number): { at: number; local: string } {
  const at = Math.ceil(now / HOUR) * HOUR + HOUR;
  const hours = (new Date(at).getUTCHours() + 8) % 24;
  return { at, local: `${String(hours).padStart(2, '0')}:00` };
}

describe.each(ENGINES)('scheduled spend and the workspace caps (%s store)', (engine) => {
  it('a digest whose second page would pass the workspace daily cap stops before it: one page bought, the cap is the reason, the retry buys nothing until the cap is raised', async () => {
    // Two hours back, so the digest's 24 h window ends before the sandbox's orders do: the busy
    // shop's full day, two pages (the sandbox charges 2 points a page).
    const clock = createFakeClock(Date.now() - 2 * HOUR);
    h = await startPlatdeskHarness({ clock, engine, env: { PLAT_PRICES: 'paging-orders=2' } });
    expect(await command('/platdesk', 'budget workspace daily 3')).toContain('3');
    const due = dueSlot(clock.now());
    expect(
      await command('/orders', `digest add ${SANDBOX_FIXTURES.owners.busy} here ${due.local}`),
    ).toContain('Digest #1 added');
    await advance(clock, due.at - clock.now());

    expect(pages(h)).toBe(1);
    const spent = await ledger(h);
    expect(spent.points).toBe(2);
    expect(spent.points).toBeLessThanOrEqual(3);
    const run = await h.platdesk.store.digests.lastRun(1);
    expect(run).toMatchObject({ state: 'failed', attempts: 1 });
    expect(run?.lastError).toContain('budget_exceeded');
    const notices = inChannel(h);
    expect(notices).toHaveLength(1);
    expect(textOf(notices[0]?.body)).toContain('A spending cap would be exceeded');
    // The admins: the digest failed, and the workspace cap refused a call.
    expect(toAdmin(h).some((t) => t.includes('A spending cap would be exceeded'))).toBe(true);
    expect(toAdmin(h).some((t) => t.includes('workspace daily cap refused'))).toBe(true);

    // The retry 5 minutes later is refused before any call: nothing more is bought.
    await advance(clock, 5 * MINUTE);
    expect(pages(h)).toBe(1);
    expect((await h.platdesk.store.digests.lastRun(1))?.attempts).toBe(2);
    expect((await ledger(h)).points).toBe(2);

    // An admin lifts the cap: the next retry (15 minutes on) posts the digest.
    await command('/platdesk', 'budget workspace daily off');
    await advance(clock, 15 * MINUTE);
    expect((await h.platdesk.store.digests.lastRun(1))?.state).toBe('posted');
    const after = await ledger(h);
    expect(after.rows).toHaveLength(pages(h));
    expect(after.rows.every((r) => r.userId === null)).toBe(true);
  });

  it('a digest posted to a channel with a daily cap stops at it: one page bought, the channel cap is the reason', async () => {
    const clock = createFakeClock(Date.now() - 2 * HOUR);
    h = await startPlatdeskHarness({ clock, engine, env: { PLAT_PRICES: 'paging-orders=2' } });
    // No workspace cap: only the channel's own (issue 33 finding 15).
    expect(await command('/platdesk', `budget <#${CHANNEL}|support> daily 3`)).toContain('daily 3 points');
    const due = dueSlot(clock.now());
    await command('/orders', `digest add ${SANDBOX_FIXTURES.owners.busy} here ${due.local}`);
    await advance(clock, due.at - clock.now());

    expect(pages(h)).toBe(1);
    const spent = await ledger(h);
    expect(spent.points).toBe(2);
    expect(spent.rows.every((r) => r.channelId === CHANNEL)).toBe(true);
    const run = await h.platdesk.store.digests.lastRun(1);
    expect(run).toMatchObject({ state: 'failed' });
    expect(run?.lastError).toContain('budget_exceeded');
    expect(textOf(inChannel(h)[0]?.body)).toContain('A spending cap would be exceeded');
    expect(toAdmin(h).some((t) => t.includes(`The daily cap of <#${CHANNEL}> refused a call`))).toBe(true);

    // Cleared: the next retry buys the rest and posts the digest.
    await command('/platdesk', `budget <#${CHANNEL}|support> daily off`);
    await advance(clock, 15 * MINUTE);
    expect((await h.platdesk.store.digests.lastRun(1))?.state).toBe('posted');
  });

  it('"Run anyway" approves the digest’s own cap, not the workspace’s', async () => {
    const clock = createFakeClock(Date.now());
    h = await startPlatdeskHarness({ clock, engine, env: { PLAT_PRICES: 'paging-orders=2' } });
    await command('/platdesk', 'digest-cap 1');
    await command('/platdesk', 'budget workspace daily 1');
    const due = dueSlot(clock.now());
    await command('/orders', `digest add ${SANDBOX_FIXTURES.owners.busy} here ${due.local}`);
    await advance(clock, due.at - clock.now());
    const waiting = await h.platdesk.store.digests.lastRun(1);
    expect(waiting?.state).toBe('awaiting_approval');
    expect(pages(h)).toBe(0);

    // The admin's "Run anyway" runs the digest past its own cap; the workspace cap still refuses
    // the page before it is sent.
    const ask = h.fake.callsTo('chat.postMessage').find((c) => c.body.channel === ADMIN);
    expect(JSON.stringify(ask?.body.blocks ?? [])).toContain('platdesk.digest.run_anyway');
    const click = await h.click('platdesk.digest.run_anyway', String(waiting?.id), { userId: ADMIN });
    expect(click.status).toBe(200);
    await h.platdesk.schedulersIdle();
    await expect.poll(async () => (await h?.platdesk.store.digests.lastRun(1))?.state).toBe('failed');
    expect(pages(h)).toBe(0);
    expect((await ledger(h)).points).toBe(0);
  });

  it('a ship-by alert check over the workspace daily cap makes no call; its notice gives the cap as the reason', async () => {
    const clock = createFakeClock(Date.now());
    h = await startPlatdeskHarness({ clock, engine, env: { PLAT_PRICES: 'paging-orders=2' } });
    await command('/platdesk', 'budget workspace daily 1');
    expect(
      await command(
        '/orders',
        `alert add ${SANDBOX_FIXTURES.owners.dueSoon} here within:6 hours:00:00-23:59`,
      ),
    ).toContain('Ship-by alert #1 added');
    // Checked at once (its slot is due); the clock waits for the check.
    await advance(clock, 1000);
    const harness = h;
    await expect
      .poll(() => inChannel(harness).some((c) => /could not check the orders/.test(textOf(c.body))))
      .toBe(true);
    const notice = inChannel(h).find((c) => /could not check the orders/.test(textOf(c.body)));
    expect(textOf(notice?.body)).toContain('A spending cap would be exceeded');
    expect(pages(h)).toBe(0);
    expect((await ledger(h)).rows).toHaveLength(0);
    expect(inChannel(h).filter((c) => /to ship within/.test(String(c.body.text)))).toHaveLength(0);
  });
});
