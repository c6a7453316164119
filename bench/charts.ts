/**
 * `npm run bench:charts`: render time per chart (goal < 150 ms) and memory, for the digest's
 * orders-by-hour chart in en and zh-CN (Vega-Lite → SVG → PNG with the bundled font). The first
 * render (module and font loading) is reported apart; the figures are for warm renders.
 */

import { wordsFor } from '../src/blocks/i18n/words.js';
import { renderDigestChart } from '../src/charts/digest-hours.js';
import { summarize } from '../src/digest/summarize.js';
import type { DigestPost } from '../src/digest/types.js';
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

const RUNS = Number(process.env.RUNS ?? 30);
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
for (const locale of ['en', 'zh-CN'] as const) {
  const w = wordsFor(locale);
  const t0 = performance.now();
  await renderDigestChart(w, post);
  const first = performance.now() - t0;
  const times: number[] = [];
  let peakRss = process.memoryUsage().rss;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const chart = await renderDigestChart(w, post);
    times.push(performance.now() - t);
    if (!chart || chart.png.length === 0) throw new Error('no chart');
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  times.sort((a, b) => a - b);
  const p = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(1);
  console.log(
    `digest orders-by-hour chart (${locale}): first ${first.toFixed(0)} ms; warm ${RUNS} renders median ${p(0.5)} ms, p95 ${p(0.95)} ms (goal < 150 ms); rss peak ${mb(peakRss)}, heap ${mb(process.memoryUsage().heapUsed)}`,
  );
}
