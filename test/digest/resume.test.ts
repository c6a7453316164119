/**
 * Every page bought once per run (issue 19 point 1), on both engines, with everything real and
 * the real clock: the plat client against the sandbox over loopback (its fault hook fails a given
 * page), the store (SQLite and PostgreSQL), the Slack publisher on a WebClient against the local
 * Slack Web API server, and the scheduler with short leases and retry delays. A retry and "Run
 * anyway" go on after the last page recorded; the sandbox counts what was bought.
 */
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { realClock } from '../../src/clock.js';
import { splitWindows } from '../../src/digest/fetch-orders.js';
import { MAX_POINTS_SETTING } from '../../src/digest/runner.js';
import { createDigestScheduler, type DigestScheduler } from '../../src/digest/scheduler.js';
import { createLogger } from '../../src/logger.js';
import { buildOrderBook, SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { createAdminAlerts } from '../../src/slack/admin-alerts.js';
import { createSlackDigestPublisher } from '../../src/slack/digest/publisher.js';
import { type ChargeRecorder, createChargeRecorder } from '../../src/store/ledger.js';
import type { DigestRun, Store } from '../../src/store/store.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { alertsSentInMemory, ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const BUSY = SANDBOX_FIXTURES.owners.busy;
const CHANNEL = SLACK.channelId;
const ADMIN = SLACK.adminId;
const PRICE = 2;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

interface Rig {
  store: Store;
  plat: PlatHarness;
  fake: FakeSlack;
  scheduler: DigestScheduler;
  /** Another replica's scheduler on `store` (or a wrapper of it), with its own charge recorder. */
  replica(id: string, store: Store, charges: ChargeRecorder): DigestScheduler;
  anchor: number;
  /** The slot due now: the start of the current UTC minute. */
  slot: number;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

/** Orders of the busy shop in [from, to) for these sandbox counts. */
function ordersIn(anchor: number, counts: Record<string, number> | undefined, from: number, to: number) {
  return (buildOrderBook(anchor, counts).get(BUSY) ?? []).filter(
    (o) => o.confirm_time >= from && o.confirm_time < to,
  ).length;
}
const pagesOf = (orders: number) => Math.max(1, Math.ceil(orders / 100));

async function startRig(
  engine: (typeof ENGINES)[number],
  options: { orderCounts?: Record<string, number>; days?: number[]; capPoints?: number },
): Promise<Rig> {
  const anchor = Date.now();
  const plat = await startPlatHarness({
    limiter: { maxCalls: 100 },
    sandbox: { now: () => anchor, ...(options.orderCounts ? { orderCounts: options.orderCounts } : {}) },
  });
  open.push(plat);
  const db: TestDatabase = await testDatabase(engine);
  open.push({ close: () => db.dispose() });
  // The subscription is made 10 minutes "ago", so the slot of this minute is due at once.
  let offset = -10 * MINUTE;
  const store = await db.open({ clock: { now: () => Date.now() + offset } });
  const fake = await startSlackApiServer();
  open.push(fake);
  const slot = Math.floor(Date.now() / MINUTE) * MINUTE;
  await store.digests.add({
    ownerId: BUSY,
    shopLabel: 'busy',
    channelId: CHANNEL,
    localTime: hhmm(slot),
    timeZone: 'UTC',
    createdBy: ADMIN,
    ...(options.days ? { days: options.days } : {}),
  });
  offset = 0;
  if (options.capPoints !== undefined) await store.settings.set(MAX_POINTS_SETTING, options.capPoints, ADMIN);

  const logger = createLogger('silent');
  const slack = new WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  const language = { user: async () => en, channel: async () => en };
  const admins = async () => [ADMIN];
  const alerts = createAdminAlerts({ client: slack, admins, language, logger, sent: alertsSentInMemory() });
  const publisher = createSlackDigestPublisher({ client: slack, alerts, admins, language, logger });
  const replica = (id: string, on: Store, charges: ChargeRecorder) => {
    const made = createDigestScheduler({
      client: plat.client,
      store: on,
      publisher,
      priceOf: async () => PRICE,
      charges,
      clock: realClock,
      instanceId: id,
      logger,
      leaseMs: 6_000,
      renewEveryMs: 500,
      callSpanMs: 3_500,
      retryDelaysMs: [200, 200, 200],
      maxSleepMs: 1_000,
    });
    open.push({ close: () => made.stop() });
    return made;
  };
  const scheduler = createDigestScheduler({
    client: plat.client,
    store,
    publisher,
    priceOf: async () => PRICE,
    charges: createChargeRecorder({ ledger: store.ledger, logger }),
    clock: realClock,
    instanceId: `resume-${engine}`,
    logger,
    // Short enough for a test; the plat deadline of the harness is 3 s (TEST_TIMEOUTS).
    leaseMs: 6_000,
    renewEveryMs: 500,
    callSpanMs: 3_500,
    retryDelaysMs: [200, 200, 200],
    maxSleepMs: 1_000,
  });
  open.push({ close: () => scheduler.stop() });
  return { store, plat, fake, scheduler, replica, anchor, slot };
}

async function runUntil(rig: Rig, done: (run: DigestRun | null) => boolean, ms = 30_000): Promise<DigestRun> {
  const localDate = new Date(rig.slot).toISOString().slice(0, 10);
  const sub = (await rig.store.digests.list())[0];
  if (!sub) throw new Error('no subscription');
  const end = Date.now() + ms;
  for (;;) {
    const run = await rig.store.digests.scheduledRun(sub.id, localDate);
    if (done(run) && run) return run;
    if (Date.now() > end) throw new Error(`the run did not get there: ${JSON.stringify(run)}`);
    await sleep(100);
  }
}

async function until(probe: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(50);
  }
}

const digestPosts = (fake: FakeSlack) =>
  fake
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === CHANNEL && String(c.body.text ?? '').includes('Orders digest of'));

describe.each(ENGINES)('a digest run resumes after its last recorded page, on %s', (engine) => {
  it('the 5th of 6 pages fails with HTTP 500 twice, then succeeds: 6 pages bought once each, plus the 2 failed calls; posted once', async () => {
    // A 24 h window of 6 pages (501–600 orders in it), whatever minute the test runs.
    const slotNow = Math.floor(Date.now() / MINUTE) * MINUTE;
    const anchorGuess = Date.now();
    let counts: Record<string, number> | undefined;
    for (let perDay = 520; perDay <= 700 && !counts; perDay += 10) {
      const c = { [BUSY]: perDay * 3 };
      if (pagesOf(ordersIn(anchorGuess, c, slotNow - DAY, slotNow)) === 6) counts = c;
    }
    if (!counts) throw new Error('no order count gives 6 pages');
    const rig = await startRig(engine, { orderCounts: counts });
    const pagesNeeded = pagesOf(ordersIn(rig.anchor, counts, rig.slot - DAY, rig.slot));
    expect(pagesNeeded).toBe(6);
    rig.plat.sandbox.setFaults([{ kind: 'http500', operations: ['paging-orders'], pages: [4], count: 2 }]);

    rig.scheduler.start();
    const run = await runUntil(rig, (r) => r?.state === 'posted');
    await rig.scheduler.idle();

    const stats = rig.plat.sandbox.stats();
    expect(stats.callsByOperation['paging-orders']).toBe(6 + 2);
    expect(stats.charges.byOperation['paging-orders'].count).toBe(6);
    const pages = await rig.store.digestPages.list(run.id);
    expect(pages.map((p) => [p.window, p.page])).toEqual(Array.from({ length: 6 }, (_, i) => [0, i]));
    // Pages 1–4 by the first attempt; the 5th and 6th by the third (the second failed on the 5th).
    expect(pages.map((p) => p.attempt)).toEqual([1, 1, 1, 1, 3, 3]);
    expect(new Set(pages.map((p) => p.chargeKey)).size).toBe(6);
    expect(run.attempts).toBe(3);
    // Ledger rows = calls at the sandbox; the run's charge = the sum of its pages.
    const ledger = await rig.store.ledger.list({ from: new Date(0), to: new Date(Date.now() + DAY) });
    expect(ledger.filter((e) => e.source === 'digest')).toHaveLength(stats.callsByOperation['paging-orders']);
    expect(run.chargedPoints).toBe(pages.reduce((n, p) => n + p.points, 0));
    expect(run.chargedPoints).toBe(6 * PRICE);
    expect(run.calls).toBe(8);
    expect(digestPosts(rig.fake)).toHaveLength(1);
    // Every order of the window is in the digest, once.
    expect(JSON.parse(run.summaryJson ?? '{}').orders).toBe(
      ordersIn(rig.anchor, counts, rig.slot - DAY, rig.slot),
    );
  }, 60_000);

  it("a holder killed after the plat API answered its 3rd page, before that page or its charge was recorded: the next holder buys the page again, and the ledger holds both calls (the lost one as code -1, cost unknown); ledger rows = sandbox calls = the run's calls", async () => {
    const counts = { [BUSY]: 1_200 };
    const rig = await startRig(engine, { orderCounts: counts });
    const pagesNeeded = pagesOf(ordersIn(rig.anchor, counts, rig.slot - DAY, rig.slot));
    expect(pagesNeeded).toBeGreaterThanOrEqual(3);
    // Replica A dies the moment its 3rd charge comes in: that charge never reaches the ledger,
    // the page is never recorded, its lease is never renewed again (its promises never settle
    // until the test ends; then they say the run is lost, so A stops without another call).
    let dead = false;
    let charges = 0;
    const graves: ((lost: false) => void)[] = [];
    const never = () => new Promise<false>((resolve) => graves.push(resolve));
    const real = createChargeRecorder({ ledger: rig.store.ledger, logger: createLogger('silent') });
    const dying: ChargeRecorder = {
      ...real,
      record: async (entry, options) => {
        charges += 1;
        if (charges === 3) dead = true;
        if (!dead) await real.record(entry, options);
      },
    };
    const storeA: Store = {
      ...rig.store,
      digests: {
        ...rig.store.digests,
        renew: (id, lease) => (dead ? never() : rig.store.digests.renew(id, lease)),
      },
      digestPages: {
        ...rig.store.digestPages,
        record: (id, holder, page) => (dead ? never() : rig.store.digestPages.record(id, holder, page)),
      },
    };
    const a = rig.replica(`killed-${engine}`, storeA, dying);
    // Closed before A's scheduler (afterEach closes in reverse), so A's stop() finds its run ended.
    open.push({
      close: async () => {
        for (const bury of graves) bury(false);
      },
    });
    a.start();
    const claimed = await runUntil(rig, (r) => r?.state === 'running');
    await until(() => dead, 20_000);
    rig.scheduler.start();

    const run = await runUntil(rig, (r) => r?.state === 'posted');
    await rig.scheduler.idle();
    const calls = rig.plat.sandbox.stats().callsByOperation['paging-orders'];
    // The 3rd page twice: once by A (paid, answer lost with A), once by the takeover.
    expect(calls).toBe(pagesNeeded + 1);
    const ledger = (
      await rig.store.ledger.list({ from: new Date(0), to: new Date(Date.now() + DAY) })
    ).filter((e) => e.correlationId === `digest-${run.id}`);
    expect(ledger).toHaveLength(calls);
    const lost = ledger.filter((e) => e.code !== 0);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({
      chargeId: `digest:${run.id}:${claimed.epoch}:2:0`,
      code: -1,
      points: 0,
      source: 'digest',
    });
    expect(run.calls).toBe(calls);
    expect(run.chargedPoints).toBe(pagesNeeded * PRICE);
    const pages = await rig.store.digestPages.list(run.id);
    expect(pages.map((p) => p.page)).toEqual(Array.from({ length: pagesNeeded }, (_, i) => i));
    expect(pages.slice(2).every((p) => p.epoch > claimed.epoch)).toBe(true);
    expect(digestPosts(rig.fake)).toHaveLength(1);
    // Nothing is left of the run's calls written ahead: each is in the ledger.
    expect(await rig.store.sentCalls.unanswered(`digest:${run.id}`, Number.MAX_SAFE_INTEGER)).toEqual([]);
  }, 90_000);

  it("a holder killed after writing its 3rd call ahead, before sending it: the next holder settles it as 'may not have been sent' (code -2), which no count adds; the ledger's counted calls = sandbox calls = the run's calls", async () => {
    const counts = { [BUSY]: 1_200 };
    const rig = await startRig(engine, { orderCounts: counts });
    const pagesNeeded = pagesOf(ordersIn(rig.anchor, counts, rig.slot - DAY, rig.slot));
    expect(pagesNeeded).toBeGreaterThanOrEqual(3);
    // Replica A dies the moment its 3rd call is written ahead: the write commits, the call is
    // never sent, and nothing of A answers again (its promises never settle until the test ends).
    let dead = false;
    let written = 0;
    const graves: ((lost: false) => void)[] = [];
    const never = <T>(value: T) =>
      new Promise<T>((resolve) => graves.push(() => resolve(value as T & false)));
    const storeA: Store = {
      ...rig.store,
      sentCalls: {
        ...rig.store.sentCalls,
        record: async (call) => {
          if (dead) return never(undefined);
          await rig.store.sentCalls.record(call);
          written += 1;
          if (written === 3) {
            dead = true;
            return never(undefined);
          }
        },
        markSent: (id) => (dead ? never(undefined) : rig.store.sentCalls.markSent(id)),
      },
      digests: {
        ...rig.store.digests,
        renew: (id, lease) => (dead ? never(false) : rig.store.digests.renew(id, lease)),
      },
    };
    const a = rig.replica(
      `killed-before-send-${engine}`,
      storeA,
      createChargeRecorder({ ledger: rig.store.ledger, logger: createLogger('silent') }),
    );
    open.push({
      close: async () => {
        for (const bury of graves) bury(false);
      },
    });
    a.start();
    const claimed = await runUntil(rig, (r) => r?.state === 'running');
    await until(() => dead, 20_000);
    expect(rig.plat.sandbox.stats().callsByOperation['paging-orders']).toBe(2);
    rig.scheduler.start();

    const run = await runUntil(rig, (r) => r?.state === 'posted');
    await rig.scheduler.idle();
    const calls = rig.plat.sandbox.stats().callsByOperation['paging-orders'];
    // Every page once: A's 3rd call never left.
    expect(calls).toBe(pagesNeeded);
    const rows = (await rig.store.ledger.list({ from: new Date(0), to: new Date(Date.now() + DAY) })).filter(
      (e) => e.correlationId === `digest-${run.id}`,
    );
    // The export keeps the row of the call that may not have been sent; the counts do not add it.
    expect(rows).toHaveLength(calls + 1);
    const unsure = rows.filter((e) => e.code !== 0);
    expect(unsure).toHaveLength(1);
    expect(unsure[0]).toMatchObject({
      chargeId: `digest:${run.id}:${claimed.epoch}:2:0`,
      code: -2,
      points: 0,
      quotaCalls: 0,
      source: 'digest',
    });
    const totals = await rig.store.ledger.totals({ from: new Date(0), to: new Date(Date.now() + DAY) });
    expect(totals.calls).toBe(calls);
    expect(run.calls).toBe(calls);
    expect(run.chargedPoints).toBe(pagesNeeded * PRICE);
    expect(digestPosts(rig.fake)).toHaveLength(1);
    expect(await rig.store.sentCalls.unanswered(`digest:${run.id}`, Number.MAX_SAFE_INTEGER)).toEqual([]);
  }, 90_000);

  it('"Run anyway" after a cap stop on page 3: pages 1–2 are not fetched again; the admin is told what was charged and what remains', async () => {
    const today = new Date(Math.floor(Date.now() / MINUTE) * MINUTE).getUTCDay();
    // Posted today and two days ago only: today's window is 48 h, two 24 h windows.
    const rig = await startRig(engine, { days: [today, (today + 5) % 7], capPoints: 7 });
    const windows = splitWindows(new Date(rig.slot - 2 * DAY), new Date(rig.slot));
    const perWindow = windows.map((w) =>
      pagesOf(ordersIn(rig.anchor, undefined, w.start.getTime(), w.end.getTime())),
    );
    // The busy shop's 350 orders over 72 h: two pages a window. The estimate after page 1 is
    // 3 pages (6 points, under the cap of 7); page 3 is window 2's first: 4 pages, 8 points.
    expect(perWindow).toEqual([2, 2]);

    rig.scheduler.start();
    const parked = await runUntil(rig, (r) => r?.state === 'awaiting_approval');
    expect(rig.plat.sandbox.stats().callsByOperation['paging-orders']).toBe(3);
    expect(parked).toMatchObject({ chargedPoints: 6, calls: 3, estimatePoints: 8 });
    const asked = await rig.fake.waitFor('chat.postMessage', (c) => c.body.channel === ADMIN, 5_000);
    // The message itself (its notification text is cut short).
    const text = JSON.stringify(asked.body.blocks ?? []);
    expect(text).toContain('Already charged: 6 points');
    expect(text).toContain('for the 3 pages fetched');
    expect(text).toContain('Remaining: about 2 points');
    expect(text).toContain('for 1 more page');

    const result = await rig.scheduler.approve(parked.id, ADMIN);
    expect(result.kind).toBe('posted');
    const stats = rig.plat.sandbox.stats();
    // One more page, the 4th: nothing bought before is bought again.
    expect(stats.callsByOperation['paging-orders']).toBe(4);
    expect(stats.charges.byOperation['paging-orders'].count).toBe(4);
    const pages = await rig.store.digestPages.list(parked.id);
    expect(pages.map((p) => [p.window, p.page, p.attempt])).toEqual([
      [0, 0, 1],
      [0, 1, 1],
      [1, 0, 1],
      [1, 1, 2],
    ]);
    const run = await rig.store.digests.run(parked.id);
    expect(run).toMatchObject({ state: 'posted', chargedPoints: 8, calls: 4 });
    expect(digestPosts(rig.fake)).toHaveLength(1);
  }, 60_000);
});
