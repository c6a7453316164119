/**
 * A budget reservation's life through the real lookup path (issue 20 pt 1), on both engines:
 * the REAL plat client against the REAL sandbox over loopback, a store of each engine. A
 * reservation is held until its charge is durably in the ledger (not while the charge is only
 * kept in memory), grows before a retry (a retry the cap cannot cover is not sent), outlives
 * the longest call and expires after it; every charge has its id fixed before the call.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PriceTable } from '../../src/config.js';
import { LONGEST_CALL_MS, RESERVATION_TTL_MS } from '../../src/lookups/budgets.js';
import {
  type Actor,
  createLookupService,
  type LookupService,
  summarize,
} from '../../src/lookups/lookup-service.js';
import { budgetsSchema } from '../../src/lookups/settings.js';
import type { LookupRequest } from '../../src/lookups/types.js';
import { DEFAULT_RETRY } from '../../src/plat/client.js';
import { DEFAULT_TIMEOUTS } from '../../src/plat/http.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { createChargeRecorder } from '../../src/store/ledger.js';
import { DEFAULT_BUDGET_ZONE, periodKeys, periodsOf } from '../../src/store/periods.js';
import type { CapLimit, Ledger, Store } from '../../src/store/store.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const PRICES: PriceTable = { 'get-shop-info': { '1': 10 } };
const shopInfo: LookupRequest = {
  kind: 'shop-info',
  url: SANDBOX_FIXTURES.links.firstMarketplace,
  shopType: '0',
};
const who: Actor = { userId: 'U1', channelId: 'C1', teamId: 'T1', responseUrl: null };
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const allTime = () => ({ from: new Date(0), to: new Date(Date.now() + 2 * 86_400_000) });

let h: PlatHarness;
beforeAll(async () => {
  h = await startPlatHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
});
const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

it('a reservation outlives the longest call: every attempt with its deadline, backoff and queue', () => {
  expect(LONGEST_CALL_MS).toBeGreaterThan((DEFAULT_RETRY.maxRetries + 1) * DEFAULT_TIMEOUTS.deadlineMs);
  expect(RESERVATION_TTL_MS).toBeGreaterThanOrEqual(2 * LONGEST_CALL_MS);
});

describe.each(ENGINES)('reservations of lookups on %s', (engine) => {
  /** The workspace's daily counter today (spent + reserved). */
  const workspaceToday = (cap: number): CapLimit => ({
    scope: 'workspace',
    subject: '*',
    period: 'daily',
    key: periodKeys(Date.now(), DEFAULT_BUDGET_ZONE).daily,
    cap,
  });

  async function rig(dailyCap: number, options: { ledger?: (real: Ledger) => Ledger } = {}) {
    let offset = 0;
    const now = () => new Date(Date.now() + offset);
    const db = await testDatabase(engine);
    databases.push(db);
    const store: Store = await db.open({ clock: { now: () => now().getTime() } });
    const charges = createChargeRecorder({
      ledger: options.ledger ? options.ledger(store.ledger) : store.ledger,
      logger: quiet,
      retryMs: 60_000,
    });
    const lookups: LookupService = createLookupService({
      client: h.client,
      store,
      prices: PRICES,
      now,
      charges,
    });
    await lookups.settings.setBudgets(budgetsSchema.parse({ workspace: { daily: dailyCap } }), 'UADMIN');
    const confirmAndRun = async () => {
      const prepared = await lookups.prepare(shopInfo, who, summarize(shopInfo));
      if (prepared.kind !== 'confirm') throw new Error(`expected a confirmation, got ${prepared.kind}`);
      const claimed = await lookups.claim(prepared.pending.id, who.userId);
      if (!claimed.ok) throw new Error(claimed.reason);
      return { pending: claimed.pending, run: lookups.run(claimed.pending) };
    };
    const used = async () => (await store.budgets.uses([workspaceToday(dailyCap)]))[0]?.spent;
    const reconcile = () => {
      const p = periodsOf(Date.now(), DEFAULT_BUDGET_ZONE);
      return store.budgets.reconcile([p.daily, p.monthly]);
    };
    return {
      store,
      charges,
      confirmAndRun,
      used,
      reconcile,
      advance: (ms: number) => {
        offset += ms;
      },
    };
  }

  it('is held while the charge is only kept in memory, and paid once the ledger takes it', async () => {
    let down = true;
    const r = await rig(100, {
      ledger: (real) => ({
        ...real,
        record: (entry, options) =>
          down ? Promise.reject(new Error('ledger unreachable')) : real.record(entry, options),
      }),
    });
    const { pending, run } = await r.confirmAndRun();
    expect((await run).chargedPoints).toBe(10);
    expect(h.sandbox.stats().calls).toBe(1);
    // The charge is kept in memory: not in the ledger, but its 10 points still count (reserved).
    expect(r.charges.backlog()).toBe(1);
    expect(await r.store.ledger.list(allTime())).toHaveLength(0);
    expect(await r.used()).toBe(10);
    // Still held after the time a call could take (it is given back only once written).
    r.advance(LONGEST_CALL_MS);
    expect(await r.used()).toBe(10);

    down = false;
    expect(await r.charges.flush()).toBe(0);
    const rows = await r.store.ledger.list(allTime());
    expect(rows.map((e) => e.chargeId)).toEqual([`${pending.id}:0:0`]);
    expect(await r.store.ledger.byPending(pending.id)).toEqual(rows);
    // Paid from the reservation, the rest released: counted once, and nothing left held.
    expect(await r.used()).toBe(10);
    expect(await r.reconcile()).toEqual([]);
    r.advance(RESERVATION_TTL_MS + 1);
    expect(await r.used()).toBe(10);
  });

  it('a reservation whose process died mid-call expires after the deadline, not before', async () => {
    const r = await rig(100);
    const caps = [workspaceToday(100)];
    const held = await r.store.budgets.reserve({ userId: 'U1', points: 10, caps, ttlMs: RESERVATION_TTL_MS });
    expect(held.ok).toBe(true);
    r.advance(LONGEST_CALL_MS);
    expect(await r.used()).toBe(10);
    r.advance(RESERVATION_TTL_MS - LONGEST_CALL_MS);
    expect(await r.used()).toBe(0);
    expect(await r.reconcile()).toEqual([]);
  });

  it('a charged retry is reserved before it is sent; one the cap cannot cover is not sent', async () => {
    // System error, retry later (spec §7: retried), charged 10 like the call itself.
    const busy = {
      kind: 'code' as const,
      code: 202,
      msg: 'System error, retry later',
      data: { withholding_money: 10 },
    };

    const roomy = await rig(30);
    h.sandbox.setFaults([{ ...busy, count: 1 }]);
    const first = await roomy.confirmAndRun();
    expect((await first.run).chargedPoints).toBe(20);
    expect(h.sandbox.stats().calls).toBe(2);
    expect((await roomy.store.ledger.byPending(first.pending.id)).map((e) => [e.chargeId, e.points])).toEqual(
      [
        [`${first.pending.id}:0:0`, 10],
        [`${first.pending.id}:0:1`, 10],
      ],
    );
    expect(await roomy.used()).toBe(20);
    expect(await roomy.reconcile()).toEqual([]);

    h.sandbox.reset();
    const tight = await rig(15);
    h.sandbox.setFaults([{ ...busy, count: 1 }]);
    const second = await tight.confirmAndRun();
    await expect(second.run).rejects.toMatchObject({ code: 'retry_later' });
    // 10 charged + 10 for a retry > 15: the retry was not sent.
    expect(h.sandbox.stats().calls).toBe(1);
    expect((await tight.store.ledger.byPending(second.pending.id)).map((e) => e.points)).toEqual([10]);
    expect(await tight.used()).toBe(10);
    expect(await tight.reconcile()).toEqual([]);
  });
});
