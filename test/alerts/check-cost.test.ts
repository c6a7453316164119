/**
 * What one alert check costs, counted at the sandbox: the real check (alerts/check.ts) with the
 * real client and limiter over loopback reads ceil(n/100) pages (at least one) for each 24 h
 * window of the 48 h lookback holding n orders, each page in the ledger as 'alert'.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { executeAlertCheck } from '../../src/alerts/check.js';
import { ALERT_LOOKBACK_MS, pagesPerCheck } from '../../src/alerts/cost.js';
import type { AlertPublisher } from '../../src/alerts/types.js';
import { splitWindows } from '../../src/digest/fetch-orders.js';
import { buildOrderBook, SANDBOX_FIXTURES as F } from '../../src/sandbox/fixtures.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';

const ANCHOR = Date.parse('2026-11-20T06:00:00Z');
const quiet: AlertPublisher = {
  postAlert: async () => '1.1',
  updateAlert: async () => {},
  remind: async () => {},
  postFailure: async () => '1.2',
  askApproval: async () => {},
  alertOrphaned: async () => {},
};

let plat: PlatHarness | null = null;
let store: Store | null = null;
afterEach(async () => {
  await plat?.close();
  store?.close();
  plat = null;
  store = null;
});

describe('calls per alert check', () => {
  it.each([0, 30, 100, 101, 300, 1000])(
    'a shop with %i orders a day: Σ ceil(n/100) per 24 h window',
    async (perDay) => {
      const counts = { [F.owners.busy]: perDay * 3 };
      plat = await startPlatHarness({
        limiter: { maxCalls: 100 },
        sandbox: { now: () => ANCHOR, orderCounts: counts },
      });
      store = openSqliteStore(':memory:', { now: () => new Date(ANCHOR) });
      const sub = store.alerts.add({
        ownerId: F.owners.busy,
        shopLabel: 'busy',
        channelId: 'C1234',
        withinHours: 6,
        everyMinutes: 60,
        hoursFrom: '09:00',
        hoursTo: '21:00',
        timeZone: 'Asia/Shanghai',
        capPoints: 1_000_000,
        createdBy: 'UADMIN',
      });
      const lease = { owner: 'test', now: new Date(ANCHOR), ms: 600_000 };
      const claim = store.alerts.claimCheck(
        { subscriptionId: sub.id, slotAt: new Date(ANCHOR), localDate: '2026-11-20' },
        lease,
      );
      if (!claim.claimed) throw new Error('not claimed');

      const before = plat.sandbox.stats();
      await executeAlertCheck(
        {
          client: plat.client,
          store,
          publisher: quiet,
          priceOf: () => 2,
          now: () => ANCHOR,
          instanceId: 'test',
          leaseMs: 600_000,
        },
        sub,
        claim.check,
        { force: false },
      );
      const after = plat.sandbox.stats();
      const orders = buildOrderBook(ANCHOR, counts).get(F.owners.busy) ?? [];
      const perWindow = splitWindows(new Date(ANCHOR - ALERT_LOOKBACK_MS), new Date(ANCHOR)).map(
        (w) =>
          orders.filter((o) => o.confirm_time >= w.start.getTime() && o.confirm_time < w.end.getTime())
            .length,
      );
      const calls = after.callsByOperation['paging-orders'] - before.callsByOperation['paging-orders'];
      expect(perWindow).toHaveLength(2);
      expect(calls).toBe(perWindow.reduce((n, w) => n + Math.max(1, Math.ceil(w / 100)), 0));
      expect(calls).toBe(pagesPerCheck(perWindow));
      const ledger = store.ledger.list({ from: new Date(0), to: new Date(8.64e15) });
      expect(ledger.filter((e) => e.source === 'alert')).toHaveLength(calls);
      expect(ledger.reduce((p, e) => p + e.points, 0)).toBe(after.charges.points - before.charges.points);
      expect(store.alerts.check(claim.check.id)).toMatchObject({ calls, chargedPoints: calls * 2 });
    },
  );
});
