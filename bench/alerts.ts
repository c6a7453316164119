/**
 * `npm run bench:alerts`: what one ship-by alert check costs, measured at the sandbox.
 *
 * For shops of several sizes (orders a day; the sandbox spreads 3 days of them over the 72 h
 * before its anchor), one check of the default alert (within 6 h, every 60 min, 09:00–21:00)
 * runs through the real check (alerts/check.ts: the digest's fetch, 24 h windows, pages of 100,
 * bulk priority in the real limiter) against the in-process sandbox over loopback. Printed per
 * size: orders in each 24 h window of the 48 h lookback, of them awaiting shipment (status 1),
 * calls counted at the sandbox and ceil(N/100) per window, points charged at the sandbox's
 * prices, and the default alert's daily cost (checks a day × points a check).
 * Last line: the same figures as JSON.
 */
import { pagesPerCheck } from '../src/alerts/cost.js';
import { ALERT_DEFAULTS } from '../src/alerts/grammar.js';
import { checksPerDay } from '../src/alerts/schedule.js';
import { createPlatClient } from '../src/plat/client.js';
import { createPlatHttp } from '../src/plat/http.js';
import { createLocalLimiter } from '../src/plat/local-limiter.js';
import { createSandbox, SANDBOX_FIXTURES as F } from '../src/sandbox/index.js';
import { claimAndCheck, ordersPerWindow } from '../test/helpers/alert-check.js';
import { openTestStore } from '../test/helpers/store-engines.js';

const SIZES = [30, 99, 100, 101, 300, 1000];
const OWNER = F.owners.busy;

const rows = [];
for (const perDay of SIZES) {
  const anchor = Date.now();
  const counts = { [OWNER]: perDay * 3 };
  const sandbox = createSandbox({ now: () => anchor, orderCounts: counts });
  const baseUrl = await sandbox.listen(0);
  const limiter = createLocalLimiter({});
  const client = createPlatClient({ http: createPlatHttp({ baseUrl, token: 'sandbox' }), limiter });
  const store = await openTestStore(':memory:', { now: () => new Date(anchor) });
  const sub = await store.alerts.add({
    ownerId: OWNER,
    shopLabel: 'bench',
    channelId: 'C1234',
    ...ALERT_DEFAULTS,
    timeZone: 'Asia/Shanghai',
    capPoints: Number.POSITIVE_INFINITY,
    createdBy: 'UBENCH',
  });
  const before = sandbox.stats();
  const { result } = await claimAndCheck(
    { client, store, priceOf: async () => null, now: () => anchor, instanceId: 'bench' },
    sub,
    { localDate: 'x', force: true },
  );
  const after = sandbox.stats();
  // What the sandbox holds in each window of the lookback (its own order book, same anchor).
  const windows = ordersPerWindow(anchor, counts, OWNER);
  const calls = after.calls - before.calls;
  const points = after.charges.points - before.charges.points;
  const checks = checksPerDay(ALERT_DEFAULTS);
  rows.push({
    ordersPerDay: perDay,
    ordersPerWindow: windows.map((w) => w.length),
    awaitingPerWindow: windows.map((w) => w.filter((o) => o.order_status === 1).length),
    calls,
    expectedCalls: pagesPerCheck(windows.map((w) => w.length)),
    pointsPerCheck: points,
    checksPerDay: checks,
    pointsPerDay: points * checks,
    alerted: result.kind === 'posted' ? result.alerted : 0,
  });
  limiter.stop();
  await store.close();
  await sandbox.close();
}

for (const r of rows)
  console.log(
    `${String(r.ordersPerDay).padStart(5)} orders/day: windows ${r.ordersPerWindow.join(' + ')} orders ` +
      `(${r.awaitingPerWindow.join(' + ')} awaiting) → ${r.calls} calls (Σ ceil(n/100) = ${r.expectedCalls}), ` +
      `${r.pointsPerCheck} points a check; default alert ${r.checksPerDay} checks/day = ${r.pointsPerDay} points ` +
      `(¥${(r.pointsPerDay / 100).toFixed(2)}) a day`,
  );
console.log(JSON.stringify(rows));
