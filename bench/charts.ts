/**
 * `npm run bench:charts`: render time per chart (goal < 150 ms) and memory, for the digest's
 * orders-by-hour chart and the App Home's 30-day spend chart, in en and zh-CN (Vega-Lite → SVG →
 * PNG with the bundled font). The first render (module and font loading) is reported apart; the
 * figures are for warm renders.
 */

import { wordsFor } from '../src/blocks/i18n/words.js';
import { renderDigestChart } from '../src/charts/digest-hours.js';
import { renderSpendChart, spendChartData } from '../src/charts/spend-days.js';
import { summarize } from '../src/digest/summarize.js';
import type { DigestPost } from '../src/digest/types.js';
import type { UsageReport } from '../src/lookups/reports.js';
import type { Order } from '../src/plat/types.js';

const HOUR = 3_600_000;
const AT = Date.parse('2026-11-20T01:00:00Z');
const from = AT - 24 * HOUR;

function orders(n: number, start: number): Order[] {
  return Array.from({ length: n }, (_, i) => ({
    orderSn: `B${i}`,
    goodsName: 'goods',
    goodsImage: null,
    goodsSpec: null,
    goodsCount: 1,
    payAmount: 10,
    status: 1 + (i % 3),
    isPreSale: false,
    lastShipTime: new Date(AT + ((i % 40) - 10) * HOUR),
    confirmTime: new Date(start + ((i * 37) % (24 * 60)) * 60_000),
    remark: null,
    remarkTag: null,
    remarkTagName: null,
  }));
}

const window = { from: new Date(from), to: new Date(AT) };
const post: DigestPost = {
  subscription: {
    id: 1,
    tenantId: '',
    ownerId: 'o',
    shopLabel: 's',
    channelId: 'C1',
    localTime: '09:00',
    timeZone: 'Asia/Shanghai',
    createdBy: 'U1',
    createdAt: new Date(0),
    times: ['09:00'],
    days: null,
    layout: 'thread',
    flags: null,
    statuses: null,
  },
  run: { localDate: '2026-11-20' } as DigestPost['run'],
  summary: summarize(orders(5000, from), { window, at: new Date(AT) }),
  previous: {
    localDate: '2026-11-19',
    summary: summarize(orders(4000, from - 24 * HOUR), {
      window: { from: new Date(from - 24 * HOUR), to: new Date(from) },
      at: new Date(from),
    }),
  },
  cost: { points: 0, calls: 0 },
};

/** 30 days of spend on every operation, every day (the busiest the chart can get). */
const days = Array.from({ length: 30 }, (_, i) =>
  new Date(Date.UTC(2026, 9, 22 + i)).toISOString().slice(0, 10),
);
const ops = [
  'platdybw',
  'platiteminfo',
  'platiteminfoprice',
  'get-shop-info',
  'get-shop-id',
  'platdzmd',
  'paging-orders',
];
const byDay = days.map((key, d) => {
  const byOperation = ops.map((op, o) => ({
    key: op,
    points: 5 + ((d * 7 + o * 13) % 40),
    calls: 3,
    quotaCalls: 0,
  }));
  return {
    key,
    points: byOperation.reduce((n, g) => n + g.points, 0),
    calls: 21,
    quotaCalls: 0,
    byOperation,
  };
});
const report: UsageReport = {
  period: 'last30',
  from: new Date(`${days[0]}T00:00:00+08:00`),
  to: new Date(AT),
  timeZone: 'Asia/Shanghai',
  userId: null,
  totals: { points: byDay.reduce((n, d) => n + d.points, 0), calls: 630, quotaCalls: 0 },
  byOperation: [],
  byUser: [],
  byDay,
  days,
};
const spend = spendChartData(report, 150);

const RUNS = Number(process.env.RUNS ?? 30);
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const charts = [
  {
    name: 'digest orders-by-hour chart',
    render: (w: ReturnType<typeof wordsFor>) => renderDigestChart(w, post),
  },
  {
    name: 'Home spend chart (30 days × 7 operations)',
    render: (w: ReturnType<typeof wordsFor>) => renderSpendChart(w, spend),
  },
];
for (const { name, render } of charts)
  for (const locale of ['en', 'zh-CN'] as const) {
    const w = wordsFor(locale);
    const t0 = performance.now();
    await render(w);
    const first = performance.now() - t0;
    const times: number[] = [];
    let peakRss = process.memoryUsage().rss;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const chart = await render(w);
      times.push(performance.now() - t);
      if (!chart || chart.png.length === 0) throw new Error('no chart');
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }
    times.sort((a, b) => a - b);
    const p = (q: number) =>
      (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(1);
    console.log(
      `${name} (${locale}): first ${first.toFixed(0)} ms; warm ${RUNS} renders median ${p(0.5)} ms, p95 ${p(0.95)} ms (goal < 150 ms); rss peak ${mb(peakRss)}, heap ${mb(process.memoryUsage().heapUsed)}`,
    );
  }
