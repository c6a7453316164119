/**
 * Ship-by alert checks hold their lease the digest's way (src/digest/run-fence.ts; issue 19 point
 * 2): a timer renews it under the claim's epoch, not the pages, so a page waiting in the limiter
 * past the lease keeps it; a holder whose lease runs out stops before its next call (its queued
 * call is withdrawn) and another scheduler takes the check over. Real parts on both engines: the
 * plat client and its limiter against the in-process sandbox over loopback, the alert scheduler on
 * the real clock, the Slack publisher on a WebClient against the local Slack stand-in. Calls are
 * counted at the sandbox, messages at the stand-in, charges in the ledger (each row's charge id
 * names the claim's epoch that made it).
 */
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { type AlertScheduler, createAlertScheduler } from '../../src/alerts/scheduler.js';
import { realClock } from '../../src/clock.js';
import { RUN_LEASE_DEFAULTS } from '../../src/digest/run-fence.js';
import { createLogger } from '../../src/logger.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { createAdminAlerts } from '../../src/slack/admin-alerts.js';
import { createSlackAlertPublisher } from '../../src/slack/alerts/publisher.js';
import { createChargeRecorder } from '../../src/store/ledger.js';
import type { AlertCheck, AlertSubscription, Store } from '../../src/store/store.js';
import { makeNewAlertSubscription } from '../helpers/domain-factories.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { alertsSentInMemory, ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

const CHANNEL = SLACK.channelId;
const SLOTS = 4;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Logged {
  msg: string;
  obj: object;
}

interface Rig {
  plat: PlatHarness;
  fake: FakeSlack;
  store: Store;
  sub: AlertSubscription;
  /** An alert scheduler ("a replica") on the store, its log lines kept. */
  replica(
    id: string,
    options?: {
      store?: Store;
      leaseMs?: number;
      renewEveryMs?: number;
      callSpanMs?: number;
      skewBudgetMs?: number;
    },
  ): { scheduler: AlertScheduler; logs: Logged[] };
  /** Takes every limiter slot with interactive calls that last until the returned function is called. */
  takeEverySlot(): Promise<() => void>;
  pagingCalls(): number;
  /** Ship-by alert messages in the channel, as the stand-in keeps them. */
  alertMessages(): number;
  /** The check's ledger rows, by the epoch of the claim that made each call. */
  ledgerByEpoch(check: AlertCheck): Promise<Map<number, number>>;
  checkOf(): Promise<AlertCheck | null>;
}

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

async function startRig(engine: (typeof ENGINES)[number]): Promise<Rig> {
  const plat = await startPlatHarness({ limiter: { maxCalls: SLOTS } });
  closers.push(() => plat.close());
  const fake = await startSlackApiServer();
  closers.push(() => fake.close());
  const db: TestDatabase = await testDatabase(engine);
  closers.push(() => db.dispose());
  const store = await db.open();
  const slack = new WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  const silent = createLogger('silent');
  const admins = async () => [SLACK.adminId];
  const language = { user: async () => en, channel: async () => en };
  const publisher = createSlackAlertPublisher({
    client: slack,
    alerts: createAdminAlerts({
      client: slack,
      admins,
      language,
      logger: silent,
      sent: alertsSentInMemory(),
    }),
    admins,
    language,
    logger: silent,
  });
  // Checked once a day, at 00:00 in its zone: today's slot is due the moment the alert exists,
  // and the next is a day away, so no second check starts while a test runs (with hourly checks
  // one did when a run crossed the top of an hour, and the sandbox counted its pages too).
  const sub = await store.alerts.add(
    makeNewAlertSubscription({
      ownerId: SANDBOX_FIXTURES.owners.dueSoon,
      channelId: CHANNEL,
      hoursFrom: '00:00',
      hoursTo: '23:59',
      everyMinutes: 24 * 60,
      capPoints: 1_000_000,
    }),
  );
  const schedulers: AlertScheduler[] = [];
  closers.push(async () => {
    await Promise.all(schedulers.map((s) => s.stop()));
  });

  return {
    plat,
    fake,
    store,
    sub,
    replica(id, options = {}) {
      const logs: Logged[] = [];
      const record = (obj: object, msg: string) => void logs.push({ obj, msg });
      const target = options.store ?? store;
      const scheduler = createAlertScheduler({
        client: plat.client,
        store: target,
        publisher,
        priceOf: async () => null,
        charges: createChargeRecorder({ ledger: target.ledger, logger: silent }),
        clock: realClock,
        instanceId: id,
        logger: { info: record, warn: record, error: record } as never,
        ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
        ...(options.skewBudgetMs !== undefined ? { skewBudgetMs: options.skewBudgetMs } : {}),
        ...(options.renewEveryMs !== undefined ? { renewEveryMs: options.renewEveryMs } : {}),
        ...(options.callSpanMs !== undefined ? { callSpanMs: options.callSpanMs } : {}),
      });
      schedulers.push(scheduler);
      return { scheduler, logs };
    },
    async takeEverySlot() {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      await new Promise<void>((allTaken) => {
        let taken = 0;
        for (let i = 0; i < SLOTS; i++)
          void plat.limiter.schedule(
            async () => {
              taken += 1;
              if (taken === SLOTS) allTaken();
              await gate;
            },
            { priority: 'interactive' },
          );
      });
      return release;
    },
    pagingCalls: () => plat.sandbox.stats().callsByOperation['paging-orders'] ?? 0,
    alertMessages: () =>
      fake.messages(CHANNEL).filter((m) => m.metadata?.event_type === 'platdesk_ship_by_alert').length,
    async ledgerByEpoch(check) {
      const rows = (await store.ledger.list({ from: new Date(0), to: new Date(8.64e15) })).filter(
        (e) => e.correlationId === `alert-${check.id}`,
      );
      const byEpoch = new Map<number, number>();
      for (const row of rows) {
        // alert:<check>:<epoch>:<call>:<attempt> (check.ts)
        const epoch = Number(row.chargeId.split(':')[2]);
        byEpoch.set(epoch, (byEpoch.get(epoch) ?? 0) + 1);
      }
      return byEpoch;
    },
    checkOf: async () => (await store.alerts.openChecks())[0] ?? (await store.alerts.lastPosted(sub.id)),
  };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  ms: number,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe.each(ENGINES)('alert checks under the run fence (%s store)', (engine) => {
  it('a page waiting in the limiter longer than the lease: the timer keeps the lease, no other replica can claim the check, every page bought once', async () => {
    const rig = await startRig(engine);
    const release = await rig.takeEverySlot();
    // A lease of 1.5 s renewed every 250 ms: the first page waits 4 s (over two leases). The skew
    // budget shrinks with it (store and process share one clock here).
    const leaseMs = 1_500;
    const a = rig.replica('alerts-a', { leaseMs, renewEveryMs: 250, callSpanMs: 750, skewBudgetMs: 100 });
    a.scheduler.start();
    const claimed = await until('the check to be claimed', rig.checkOf, 10_000);
    expect(claimed).toMatchObject({ state: 'running', leaseOwner: 'alerts-a' });
    await sleep(4_000);
    expect(rig.pagingCalls(), 'the page is still waiting in the limiter').toBe(0);
    // Past its first lease twice over, the check is held: renewed by the timer, claimable by nobody.
    const held = await rig.store.alerts.check(claimed.id);
    expect(held).toMatchObject({ state: 'running', leaseOwner: 'alerts-a', epoch: claimed.epoch });
    expect(held?.leaseExpiresAt?.getTime()).toBeGreaterThan(Date.now());
    const other = await rig.store.alerts.claimCheck(
      { subscriptionId: rig.sub.id, slotAt: claimed.slotAt, localDate: claimed.localDate },
      { owner: 'alerts-b', ms: leaseMs },
    );
    expect(other.claimed).toBe(false);
    release();

    const posted = await until(
      'the alert to be posted',
      async () => {
        const c = await rig.store.alerts.check(claimed.id);
        return c?.state === 'posted' ? c : null;
      },
      20_000,
    );
    expect(posted.epoch).toBe(claimed.epoch);
    expect(posted.attempts).toBe(1);
    expect(rig.alertMessages()).toBe(1);
    // The 48 h lookback is two 24 h windows of one page each for this shop.
    expect(rig.pagingCalls()).toBe(2);
    expect(posted.calls).toBe(2);
    expect(await rig.ledgerByEpoch(posted)).toEqual(new Map([[claimed.epoch, 2]]));
    expect(a.logs.some((l) => l.msg === 'alert check lost its lease: stopped')).toBe(false);
  }, 60_000);

  it('a holder cut off from the store (as a paused process is) with a call queued: it sends no further call, another replica takes the check over within 30 s, the alert appears once', async () => {
    const rig = await startRig(engine);
    // The production lease (22 s, renewed every 2 s, no call started in its last 16 s, nor in the
    // skew budget before that after a claim).
    expect(RUN_LEASE_DEFAULTS).toEqual({
      leaseMs: 22_000,
      renewEveryMs: 2_000,
      callSpanMs: 16_000,
      skewBudgetMs: 500,
    });
    // Replica A is cut off from the store when told to, as a paused process is: none of its
    // alert-store calls answers from then on (at the end they fail, so it can be stopped). Its
    // timers still run, so its fence goes down at its local deadline.
    let frozen = false;
    const graves: ((error: Error) => void)[] = [];
    const never = () => new Promise<never>((_, reject) => graves.push(reject));
    const alertsA = new Proxy(rig.store.alerts, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (frozen ? never() : value.apply(target, args));
      },
    });
    const storeA: Store = { ...rig.store, alerts: alertsA };
    // A's first page is answered 1.5 s late; meanwhile every limiter slot is taken, so its 2nd
    // call waits in the limiter.
    rig.plat.sandbox.setFaults([{ kind: 'latency', ms: 1500, operations: ['paging-orders'], count: 1 }]);
    const a = rig.replica('alerts-a', { store: storeA });
    closers.push(async () => {
      for (const bury of graves) bury(new Error('the test is over'));
    });
    a.scheduler.start();
    await until('A to send its first call', async () => rig.pagingCalls() >= 1, 10_000);
    const release = await rig.takeEverySlot();
    const claimed = await until('the check to be claimed', rig.checkOf, 10_000);
    expect(claimed.leaseOwner).toBe('alerts-a');
    await until(
      'A to charge its first page',
      async () => (await rig.ledgerByEpoch(claimed)).size > 0,
      10_000,
    );
    frozen = true;
    const frozenAt = Date.now();

    const b = rig.replica('alerts-b');
    b.scheduler.start();
    // A's fence goes down at its local deadline; its queued call is withdrawn, never sent.
    await until(
      'A to stop',
      async () => a.logs.some((l) => l.msg === 'alert check lost its lease: stopped'),
      20_000,
    );
    expect(rig.pagingCalls()).toBe(1);
    const taken = await until(
      'B to take the check over',
      async () => {
        const c = await rig.store.alerts.check(claimed.id);
        return c && c.epoch > claimed.epoch ? c : null;
      },
      30_000,
    );
    expect(taken.leaseOwner).toBe('alerts-b');
    expect(Date.now() - frozenAt, 'taken over within 30 s').toBeLessThan(30_000);
    release();

    const posted = await until(
      'the alert to be posted',
      async () => {
        const c = await rig.store.alerts.check(claimed.id);
        return c?.state === 'posted' ? c : null;
      },
      20_000,
    );
    await sleep(500);
    expect(rig.alertMessages()).toBe(1);
    // A bought its first page (alert checks keep no pages, so B buys both of its own): three
    // calls reached the plat API, each in the ledger once, under the epoch that made it.
    expect(rig.pagingCalls()).toBe(3);
    expect(await rig.ledgerByEpoch(posted)).toEqual(
      new Map([
        [claimed.epoch, 1],
        [taken.epoch, 2],
      ]),
    );
    expect(posted.calls).toBe(3);
    expect(
      a.logs.some((l) => l.msg === 'run lease lost: no further call'),
      'A stopped at its deadline',
    ).toBe(true);
  }, 90_000);
});
