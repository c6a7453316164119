/**
 * Ship-by alerts through the REAL Bolt app of startPlatdesk: signed commands and button clicks,
 * the fake Slack Web API, the in-process sandbox (the snack shop's orders due within hours), a
 * database shared across a restart (a SQLite file, or a PostgreSQL database: every case runs on
 * both), and a fake clock that drives the alert scheduler, waiting for it between timers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pagesPerCheck } from '../../src/alerts/cost.js';
import { DUE_SOON, SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';
import {
  buttonsOf,
  type PlatdeskHarness,
  type SlackMessage,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import {
  createPostgresDatabase,
  dropPostgresDatabase,
  ENGINES,
  type EngineName,
} from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

const ADMIN = SLACK.adminId;
const AGENT = SLACK.userId;
const OTHER = 'U5678';
const CHANNEL = SLACK.channelId;
const OWNER = SANDBOX_FIXTURES.owners.dueSoon;
const HOUR = 3_600_000;
/** Receiver data as the sandbox masks it (names 张**, phones 138****1234, addresses …号**室). */
const RECEIVER = /[张王李赵刘陈杨黄周吴]\*\*|\d{3}\*{4}\d{4}|号\*\*室|receiver_/;

let h: PlatdeskHarness | null = null;
/** The test's database, kept across a restart: its settings, and how to remove it. */
let db: { env: Record<string, string>; remove(): Promise<void> } | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
  await db?.remove();
  db = null;
});

/** A fresh database of `engine` that outlives a harness (a restart opens it again). */
async function database(engine: EngineName): Promise<Record<string, string>> {
  if (engine === 'postgres') {
    const url = await createPostgresDatabase();
    db = { env: { DATABASE_URL: url }, remove: () => dropPostgresDatabase(url) };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-alerts-'));
    db = {
      env: { DATABASE_PATH: join(dir, 'platdesk.sqlite') },
      remove: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  return db.env;
}

async function start(
  clock: FakeClock,
  database: Record<string, string>,
  env: Record<string, string> = {},
): Promise<PlatdeskHarness> {
  return startPlatdeskHarness({ clock, env: { ...database, ...env } });
}

async function say(text: string, userId: string = ADMIN): Promise<string> {
  if (!h) throw new Error('no harness');
  const sent = await h.command('/orders', text, { userId });
  expect(sent.status).toBe(200);
  return textOf(await h.nextResponse(sent.responseUrlId));
}

const alertPosts = (harness: PlatdeskHarness): SlackCall[] =>
  harness.fake
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === CHANNEL && /to ship within/.test(String(c.body.text)));
const updates = (harness: PlatdeskHarness): SlackCall[] => harness.fake.callsTo('chat.update');

/** Moves the fake clock and lets the checks it starts finish (real HTTP to the sandbox and Slack). */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  const from = clock.now();
  await clock.advanceAsync(ms);
  const harness = h;
  if (!harness) return;
  // An hour holds one slot of alert #1 (checks on the hour): wait until that check is recorded.
  if (ms >= HOUR)
    await expect
      .poll(async () => ((await harness.platdesk.store.alerts.lastPosted(1))?.slotAt.getTime() ?? 0) > from, {
        timeout: 10_000,
      })
      .toBe(true);
  await harness.settle(100);
  await new Promise((r) => setTimeout(r, 100));
}

/** The order numbers of the snack shop due within `hours` and still awaiting shipment, most urgent first. */
function dueWithin(harness: PlatdeskHarness, hours: number): string[] {
  const anchor = harness.now().getTime();
  return DUE_SOON.map((d, n) => ({ ...d, n }))
    .filter((d) => d.status === 1 && d.hours <= hours)
    .map((d) => orderSnOf(harness, d.n, anchor));
}
function orderSnOf(harness: PlatdeskHarness, n: number, _anchor: number): string {
  const text = textOf(alertPosts(harness)[0]?.body ?? {});
  const found = new RegExp(`\\d{6}-4004${String(n).padStart(11, '0')}`).exec(text);
  return found?.[0] ?? `missing #${n}`;
}

describe.each(ENGINES)('ship-by alerts (%s store)', (engine) => {
  it('posts the orders due within 6 h once, with Claim and Handled, at bulk cost in the ledger; never again across a restart', async () => {
    const path = await database(engine);
    const clock = createFakeClock(Date.now());
    h = await start(clock, path);

    expect(await say(`alert add ${OWNER} <#C1234|support> within:6 hours:00:00-23:59`, AGENT)).toContain(
      'Only platdesk admins',
    );
    const added = await say(`alert add ${OWNER} <#C1234|support> within:6 hours:00:00-23:59`);
    expect(added).toContain('Ship-by alert #1 added');
    expect(added).toContain('due within 6 h, checked every 60 min 00:00–23:59 Beijing time');
    const before = h.calls();
    await advance(clock, 1000);
    await h.fake.waitFor('chat.postMessage', (c) => c.body.channel === CHANNEL);

    const posts = alertPosts(h);
    expect(posts).toHaveLength(1);
    const post = posts[0]?.body as SlackMessage;
    const text = textOf(post);
    // Seven awaiting orders are due within 6 h (fixtures DUE_SOON); shipped ones and the 10 h one are not listed.
    expect(text).toContain('7 orders of 2200001004 to ship within 6 h');
    expect(dueWithin(h, 6).every((sn) => text.includes(sn))).toBe(true);
    expect(text).not.toContain(`4004${String(3).padStart(11, '0')}`);
    expect(text).not.toContain(`4004${String(9).padStart(11, '0')}`);
    expect(buttonsOf(post).filter((b) => b.label === 'Claim')).toHaveLength(7);
    expect(buttonsOf(post).filter((b) => b.label === 'Mark handled')).toHaveLength(7);
    expect(textOf(post)).not.toMatch(RECEIVER);
    const metrics = await (await fetch(`${h.platdesk.metricsUrl}/metrics`)).text();
    expect(metrics).toContain('platdesk_alert_checks_total{outcome="posted"} 1');

    // Two 24 h windows of the 48 h lookback, one page each (all ten orders fit one page): 2 calls,
    // each in the ledger as 'alert' at the sandbox's price.
    const calls = h.calls() - before;
    expect(calls).toBe(pagesPerCheck([DUE_SOON.length, 0]));
    const ledger = await h.platdesk.store.ledger.list({
      from: new Date(0),
      to: new Date(clock.now() + HOUR),
    });
    expect(ledger.filter((e) => e.source === 'alert')).toHaveLength(calls);
    expect(ledger.filter((e) => e.source === 'alert').every((e) => e.operation === 'paging-orders')).toBe(
      true,
    );
    // The alert says what its check charged (issue 35), as the ledger has it.
    const charged = ledger.filter((e) => e.source === 'alert').reduce((sum, e) => sum + e.points, 0);
    expect(text).toContain(`This check cost ${en.points(charged)} in ${calls} calls`);

    // The next check an hour later finds nothing new: no second post.
    await advance(clock, HOUR);
    expect(alertPosts(h)).toHaveLength(1);
    expect(h.calls() - before).toBe(2 * calls);

    // Restart on the same database: the next check posts nothing already alerted.
    await h.close();
    h = await start(clock, path);
    await advance(clock, HOUR);
    await h.settle(100);
    expect(await h.platdesk.store.alerts.orders(1, ['alerted', 'shipped', 'handled'])).toHaveLength(7);
    expect(alertPosts(h)).toHaveLength(0);
    h.assertAllWithinLimits();
    for (const m of h.messages()) expect(textOf(m)).not.toMatch(RECEIVER);
  });

  it('a restart in the middle of a check neither skips nor repeats: the restarted instance takes the check over and posts once', async () => {
    const path = await database(engine);
    const clock = createFakeClock(Date.now());
    h = await start(clock, path);
    // Slow pages: the stop comes while the check is fetching.
    h.sandbox.setFaults([{ kind: 'latency', ms: 3000, operations: ['paging-orders'] }]);
    // The alert's current slot is due at once: its check starts without the clock moving (an
    // advance would wait for the check to finish, and this restart must come in the middle).
    await say(`alert add ${OWNER} here within:6 hours:00:00-23:59`);
    const first = h;
    await expect
      .poll(() => first.sandbox.stats().callsByOperation['paging-orders'], { timeout: 3000 })
      .toBeGreaterThanOrEqual(1);
    await h.close();
    expect(alertPosts(first)).toHaveLength(0);

    h = await start(clock, path);
    await advance(clock, 1000);
    await h.fake.waitFor('chat.postMessage', (c) => c.body.channel === CHANNEL);
    await h.settle(100);
    expect(alertPosts(h)).toHaveLength(1);
    expect(String(alertPosts(h)[0]?.body.text)).toContain('7 orders');
    const checks = await h.platdesk.store.alerts.lastPosted(1);
    expect(checks).toMatchObject({ state: 'posted', attempts: 2 });
    await advance(clock, HOUR);
    expect(alertPosts(h)).toHaveLength(1);
  });

  it('Slack refusing the post after the orders were recorded: the retry posts exactly those, once', async () => {
    const path = await database(engine);
    const clock = createFakeClock(Date.now());
    h = await start(clock, path);
    h.fake.failNext('chat.postMessage', { error: 'channel_not_found' }, 1);
    await say(`alert add ${OWNER} here within:6 hours:00:00-23:59`);
    await advance(clock, 1000);
    await h.fake.waitFor('chat.postMessage', (c) => /could not check the orders/.test(textOf(c.body)));
    expect(await h.platdesk.store.alerts.orders(1, ['pending'])).toHaveLength(7);
    await advance(clock, 2 * 60_000);
    await h.fake.waitFor('chat.postMessage', (c) => /to ship within/.test(String(c.body.text)));
    // The fake records the refused call too: two attempts, the same seven orders, one accepted.
    const sns = (c: SlackCall | undefined) =>
      textOf(c?.body ?? {})
        .match(/\d{6}-4004\d{11}/g)
        ?.sort();
    const attempts = alertPosts(h);
    expect(attempts).toHaveLength(2);
    expect(sns(attempts[1])).toEqual(sns(attempts[0]));
    expect(new Set(sns(attempts[1])).size).toBe(7);
    expect(await h.platdesk.store.alerts.orders(1, ['alerted'])).toHaveLength(7);
    await advance(clock, HOUR);
    expect(alertPosts(h)).toHaveLength(2);
  });

  it('Claim updates the message for everyone; a second Claim is refused naming the holder; Handled; Shipped ✓; one reminder', async () => {
    const path = await database(engine);
    const clock = createFakeClock(Date.now());
    h = await start(clock, path);
    await say(`alert add ${OWNER} here within:6 hours:00:00-23:59`);
    await advance(clock, 1000);
    const first = await h.fake.waitFor('chat.postMessage', (c) => c.body.channel === CHANNEL);
    const ts = String((await h.platdesk.store.alerts.orders(1, ['alerted']))[0]?.messageTs);
    const post = first.body as SlackMessage;
    const [sn0, sn1, sn2, sn3] = [0, 1, 2, 4].map((n) => orderSnOf(h as PlatdeskHarness, n, 0));
    const claim = (sn: string) =>
      buttonsOf(post).find((b) => b.label === 'Claim' && b.value?.endsWith(`:${sn}`));
    const handled = (sn: string) =>
      buttonsOf(post).find((b) => b.label === 'Mark handled' && b.value?.endsWith(`:${sn}`));

    // Claim by the agent: the channel message says who, for everyone.
    const c1 = claim(String(sn1));
    await h.click(c1?.actionId ?? '', c1?.value, { userId: AGENT });
    const u1 = await h.fake.waitFor('chat.update', (c) => c.body.ts === ts);
    expect(textOf(u1.body)).toMatch(new RegExp(`Claimed by <@${AGENT}> at \\d{2}:\\d{2}`));
    expect(buttonsOf(u1.body as SlackMessage).filter((b) => b.label === 'Claim')).toHaveLength(6);
    // The update still says what the check that found these orders charged.
    expect(textOf(u1.body)).toMatch(/This check cost \d+ points/);

    // Someone else's Claim is refused politely, naming the holder; the message is not changed.
    const refused = await h.click(c1?.actionId ?? '', c1?.value, { userId: OTHER });
    const said = textOf(await h.nextResponse(refused.responseUrlId));
    expect(said).toContain(`already claimed by <@${AGENT}>`);
    expect(updates(h)).toHaveLength(1);

    // Handled by someone on the unclaimed order sn0.
    const hd = handled(String(sn0));
    await h.click(hd?.actionId ?? '', hd?.value, { userId: OTHER });
    const u2 = await h.fake.waitFor(
      'chat.update',
      (c) => c.body.ts === ts && /Handled by/.test(textOf(c.body)),
    );
    expect(textOf(u2.body)).toContain(`Handled by <@${OTHER}>`);

    // The order due at +3 h ships; the next check (on the hour) marks it "Shipped ✓".
    expect(h.sandbox.setOrderStatus(String(sn3), 2)).toBe(true);
    await advance(clock, HOUR);
    const shipped = await h.fake.waitFor('chat.update', (c) => /Shipped ✓/.test(textOf(c.body)));
    expect(shipped.body.ts).toBe(ts);
    // Checks run on the hour: within two hours each of sn1 (due at +1.5 h, claimed) and sn2 (due
    // at +2 h, unclaimed) has been seen unshipped less than an hour before its deadline: one
    // reminder each, by DM to sn1's claimer and in the channel for sn2.
    await advance(clock, HOUR);
    for (const to of [AGENT, CHANNEL])
      await h.fake.waitFor(
        'chat.postMessage',
        (c) => c.body.channel === to && /Reminder/.test(textOf(c.body)),
      );
    const reminders = () =>
      h?.fake.callsTo('chat.postMessage').filter((c) => /Reminder/.test(textOf(c.body))) ?? [];
    expect(
      reminders()
        .map((c) => c.body.channel)
        .sort(),
    ).toEqual([AGENT, CHANNEL].sort());
    expect(textOf(reminders().find((c) => c.body.channel === AGENT)?.body)).toContain(String(sn1));
    expect(textOf(reminders().find((c) => c.body.channel === CHANNEL)?.body)).toContain(String(sn2));
    // A later check sends no second reminder for them (others may come due by then, once each),
    // and none for sn0 (handled) or sn3 (shipped).
    await advance(clock, HOUR);
    const remindedOrders = reminders().map((c) => /\d{6}-4004\d{11}/.exec(textOf(c.body))?.[0]);
    expect(remindedOrders.filter((sn) => sn === sn1)).toHaveLength(1);
    expect(remindedOrders.filter((sn) => sn === sn2)).toHaveLength(1);
    expect(new Set(remindedOrders).size).toBe(remindedOrders.length);
    expect(remindedOrders).not.toContain(sn0);
    expect(remindedOrders).not.toContain(sn3);
    h.assertAllWithinLimits();
    for (const m of h.messages()) expect(textOf(m)).not.toMatch(RECEIVER);
  });

  it('a check over the daily cap asks the admins first (no call); Run anyway runs it once', async () => {
    const path = await database(engine);
    const clock = createFakeClock(Date.now());
    h = await start(clock, path, { PLAT_PRICES: 'paging-orders=2' });
    const before = h.calls();
    expect(await say(`alert add ${OWNER} here within:6 hours:00:00-23:59 cap:3`)).toContain(
      'daily cap 3 points',
    );
    await advance(clock, 1000);
    const ask = await h.fake.waitFor('chat.postMessage', (c) => c.body.channel === ADMIN);
    expect(textOf(ask.body)).toContain('would pass its daily cap');
    expect(h.calls()).toBe(before);
    expect(alertPosts(h)).toHaveLength(0);

    const run = buttonsOf(ask.body as SlackMessage).find((b) => b.actionId === 'platdesk.alert.run_anyway');
    const denied = await h.click(run?.actionId ?? '', run?.value, { userId: AGENT });
    expect(textOf(await h.nextResponse(denied.responseUrlId))).toContain('Only platdesk admins');
    const ok = await h.click(run?.actionId ?? '', run?.value, { userId: ADMIN });
    await h.nextResponse(ok.responseUrlId);
    expect(textOf(await h.nextResponse(ok.responseUrlId))).toContain('7 orders alerted');
    expect(alertPosts(h)).toHaveLength(1);
    expect(h.calls() - before).toBe(2);
    const again = await h.click(run?.actionId ?? '', run?.value, { userId: ADMIN });
    await h.nextResponse(again.responseUrlId);
    expect(textOf(await h.nextResponse(again.responseUrlId))).toContain('already approved or run');
    expect(h.calls() - before).toBe(2);
  });

  it('a failing check posts one notice with the reason, retries with backoff, and says when it works again', async () => {
    const path = await database(engine);
    // Ten minutes past an hour: the retries (2 and 5 min later) fall before the next hourly check.
    const clock = createFakeClock(Date.now() - (Date.now() % HOUR) + 10 * 60_000);
    h = await start(clock, path);
    // Two checks' first calls fail (code 303: the shop has not subscribed).
    h.sandbox.setFaults([
      { kind: 'code', code: 303, msg: 'shop not subscribed', operations: ['paging-orders'], count: 2 },
    ]);
    await say(`alert add ${OWNER} here within:6 hours:00:00-23:59`);
    await advance(clock, 1000);
    const notice = await h.fake.waitFor('chat.postMessage', (c) =>
      /could not check the orders/.test(textOf(c.body)),
    );
    expect(textOf(notice.body)).toContain('Trying again at');
    expect(alertPosts(h)).toHaveLength(0);
    // The retry 2 min later fails too: the same notice is updated, not a second one.
    await advance(clock, 2 * 60_000);
    await h.fake.waitFor('chat.update', (c) => /could not check the orders/.test(textOf(c.body)));
    // The next retry (5 min later) works: the alert is posted and the notice says so.
    await advance(clock, 5 * 60_000);
    await h.fake.waitFor('chat.update', (c) => /works again/.test(textOf(c.body)));
    expect(alertPosts(h)).toHaveLength(1);
    expect(
      h.fake.callsTo('chat.postMessage').filter((c) => /could not check the orders/.test(textOf(c.body))),
    ).toHaveLength(1);
  });

  it('lang:zh-CN: the channel reads its alerts in Chinese', async () => {
    const path = await database(engine);
    const clock = createFakeClock(Date.now());
    h = await start(clock, path);
    expect(await say(`alert add ${OWNER} here within:6 hours:00:00-23:59 lang:zh-CN`)).toContain(
      'Ship-by alert #1 added',
    );
    await advance(clock, 1000);
    const post = await h.fake.waitFor('chat.postMessage', (c) => c.body.channel === CHANNEL);
    expect(String(post.body.text)).toContain('2200001004 有 7 单需在 6 小时内发货');
    expect(buttonsOf(post.body as SlackMessage).map((b) => b.label)).toContain('认领');
    expect(await say(`alert add ${OWNER} <#C0ABCDEF> lang:fr`)).toContain('not a language platdesk speaks');
  });

  it('list shows spend today; remove; bad input costs nothing', async () => {
    // 22:00 in Asia/Shanghai (14:00 UTC): outside the default working hours 09:00–21:00, so the
    // alert just added makes no check (and spends nothing) whatever time of day the suite runs.
    const clock = createFakeClock(Date.now() - (Date.now() % (24 * HOUR)) + 14 * HOUR);
    h = await start(clock, await database(engine));
    const before = h.calls();
    const bad = await say(`alert add ${OWNER} here within:0 every:5 hours:21:00-09:00 cap:-1`);
    expect(bad).toContain('whole number of hours from 1 to 72');
    expect(bad).toContain('minutes from 15 to 720');
    expect(bad).toContain('working hours such as 09:00-21:00');
    expect(bad).toContain('"cap:-1"');
    // The default daily cap is the digest cap (`/platdesk digest-cap`).
    const cap = await h.command('/platdesk', 'digest-cap 50', { userId: ADMIN });
    await h.nextResponse(cap.responseUrlId);
    expect(await say(`alert add ${OWNER} here`)).toContain('daily cap 50 points');
    expect(await say(`alert add ${OWNER} here`)).toContain('already has an alert in that channel: #1');
    const list = await say('alert list', AGENT);
    expect(list).toContain(
      '*#1* · 2200001004 → <#C1234> · due within 6 h · every 60 min 09:00–21:00 Beijing time',
    );
    expect(list).toContain('Spent today: 0 points (¥0.00) of 50 points');
    expect(await say('alert remove 1', AGENT)).toContain('Only platdesk admins');
    expect(await say('alert remove 1')).toContain('Ship-by alert #1 removed');
    expect(await say('alert list')).toContain('No ship-by alerts yet');
    expect(h.calls()).toBe(before);
  });
});
