/**
 * What one alert check costs, counted at the sandbox: the real check (alerts/check.ts) with the
 * real client and limiter over loopback reads ceil(n/100) pages (at least one) for each 24 h
 * window of the 48 h lookback holding n orders, each page in the ledger as 'alert', on both
 * store engines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pagesPerCheck } from '../../src/alerts/cost.js';
import { SANDBOX_FIXTURES as F } from '../../src/sandbox/fixtures.js';
import type { Store } from '../../src/store/store.js';
import { claimAndCheck, ordersPerWindow } from '../helpers/alert-check.js';
import { makeNewAlertSubscription } from '../helpers/domain-factories.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const ANCHOR = Date.parse('2026-11-20T06:00:00Z');

let plat: PlatHarness | null = null;
let db: TestDatabase | null = null;
afterEach(async () => {
  await plat?.close();
  await db?.dispose();
  plat = null;
  db = null;
});

describe.each(ENGINES)('calls per alert check (%s store)', (engine) => {
  it.each([0, 30, 100, 101, 300, 1000])(
    'a shop with %i orders a day: Σ ceil(n/100) per 24 h window',
    async (perDay) => {
      const counts = { [F.owners.busy]: perDay * 3 };
      plat = await startPlatHarness({
        limiter: { maxCalls: 100 },
        sandbox: { now: () => ANCHOR, orderCounts: counts },
      });
      db = await testDatabase(engine);
      const store: Store = await db.open({ clock: { now: () => ANCHOR } });
      const sub = await store.alerts.add(
        makeNewAlertSubscription({ ownerId: F.owners.busy, shopLabel: 'busy', capPoints: 1_000_000 }),
      );

      const before = plat.sandbox.stats();
      const { check } = await claimAndCheck(
        { client: plat.client, store, priceOf: async () => 2, now: () => ANCHOR, instanceId: 'test' },
        sub,
        { localDate: '2026-11-20', force: false },
      );
      const after = plat.sandbox.stats();
      const perWindow = ordersPerWindow(ANCHOR, counts, F.owners.busy).map((w) => w.length);
      const calls = after.callsByOperation['paging-orders'] - before.callsByOperation['paging-orders'];
      expect(perWindow).toHaveLength(2);
      expect(calls).toBe(perWindow.reduce((n, w) => n + Math.max(1, Math.ceil(w / 100)), 0));
      expect(calls).toBe(pagesPerCheck(perWindow));
      const ledger = await store.ledger.list({ from: new Date(0), to: new Date(8.64e15) });
      expect(ledger.filter((e) => e.source === 'alert')).toHaveLength(calls);
      expect(ledger.reduce((p, e) => p + e.points, 0)).toBe(after.charges.points - before.charges.points);
      expect(await store.alerts.check(check.id)).toMatchObject({ calls, chargedPoints: calls * 2 });
    },
  );
});
