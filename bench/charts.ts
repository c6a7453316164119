/**
 * `npm run bench:charts`: render time per chart (goal < 150 ms) and memory, for the digest's
 * orders-by-hour chart and the App Home's 30-day spend chart, in en and zh-CN (Vega-Lite → SVG →
 * PNG with the bundled font), as the app renders them: in the recycled chart renderer process
 * (src/charts/renderer.ts). The first render (the renderer's start) is reported apart; the figures
 * are for warm renders (a renderer replaced meanwhile included), with this process's own CPU time
 * per render (what a chart costs the app: sending the spec, taking the PNG). Then the memory over
 * MEMORY_RUNS (default 600) renders: this process's RSS every 100 renders, and the renderer's RSS
 * as it reports it, against its bound (maxRssBytes).
 *
 * `-- --built` runs the build's renderer (dist/chart-worker.js, as `npm start` does; from the
 * sources each new renderer also loads the TypeScript sources). `-- --in-thread` renders in this
 * thread instead (the path before the renderer: resvg's pixmaps pile up, issue 26), for a
 * side-by-side comparison.
 * RUNS (default 30) sets the warm renders.
 */

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TopLevelSpec } from 'vega-lite';
import type { Words } from '../src/blocks/i18n/words.js';
import { wordsFor } from '../src/blocks/i18n/words.js';
import { hourlyChartData, hourlyChartSpec } from '../src/charts/digest-hours.js';
import { CHART_FILES, chartFiles } from '../src/charts/files.js';
import { CHART_RENDERER_DEFAULTS, createChartRenderer } from '../src/charts/renderer.js';
import { spendChartData, spendChartSpec } from '../src/charts/spend-days.js';
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
const MEMORY_RUNS = Number(process.env.MEMORY_RUNS ?? 600);
const inThread = process.argv.includes('--in-thread');
/** The build's worker (dist/chart-worker.js, built first when stale), as `npm start` runs it. */
const built = process.argv.includes('--built');
if (built) {
  const build = (await import(pathToFileURL(resolve(import.meta.dirname, '../scripts/build.mjs')).href)) as {
    isStale: () => boolean;
    buildApp: () => Promise<unknown>;
  };
  if (build.isStale()) await build.buildApp();
}
const files = built
  ? chartFiles(pathToFileURL(resolve(import.meta.dirname, '../dist/app.js')).href)
  : CHART_FILES;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const zh = wordsFor('zh-CN');

/** The old path: Vega and resvg in this thread. */
const thread = inThread ? await import('../src/charts/rasterise.js') : null;
const renderer = createChartRenderer({ files });
const render = (spec: TopLevelSpec) => (thread ? thread.rasterise(spec, 1000) : renderer.render(spec, 1000));

const charts = [
  {
    name: 'digest orders-by-hour chart',
    spec: (w: Words) =>
      hourlyChartSpec(
        w,
        hourlyChartData(post.summary, post.previous?.summary ?? null, tz),
        tz,
        post.previous?.localDate ?? null,
      ),
  },
  { name: 'Home spend chart (30 days × 7 operations)', spec: (w: Words) => spendChartSpec(w, spend) },
];
const tz = post.subscription.timeZone;
console.log(
  `charts rendered ${inThread ? 'in this thread (the old path)' : `in the recycled chart renderer process (${built ? 'dist/chart-worker.js' : 'the sources'})`}`,
);
for (const { name, spec: specFor } of charts)
  for (const locale of ['en', 'zh-CN'] as const) {
    const spec = specFor(wordsFor(locale));
    const t0 = performance.now();
    await render(spec);
    const first = performance.now() - t0;
    const times: number[] = [];
    const cpu = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const chart = await render(spec);
      times.push(performance.now() - t);
      if (chart.png.length === 0) throw new Error('no chart');
    }
    const used = process.cpuUsage(cpu);
    // This process's CPU time: all of a render in this thread; only the IPC with a renderer.
    const cpuMs = (used.user + used.system) / 1000 / RUNS;
    times.sort((a, b) => a - b);
    const p = (q: number) =>
      (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(1);
    console.log(
      `${name} (${locale}): first ${first.toFixed(0)} ms; warm ${RUNS} renders median ${p(0.5)} ms, p95 ${p(0.95)} ms (goal < 150 ms); this process's CPU ${cpuMs.toFixed(1)} ms per render`,
    );
  }

// Memory: the Home spend chart in zh-CN, MEMORY_RUNS times, from a fresh renderer.
await renderer.close();
const memory = createChartRenderer({ files });
const spec = spendChartSpec(zh, spend);
const before = process.memoryUsage.rss();
let peak = before;
let rendererPeak = 0;
const curve: string[] = [];
for (let i = 1; i <= MEMORY_RUNS; i++) {
  await (thread ? thread.rasterise(spec, 1000) : memory.render(spec, 1000));
  peak = Math.max(peak, process.memoryUsage.rss());
  rendererPeak = Math.max(rendererPeak, memory.stats().rss ?? 0);
  if (i % 100 === 0 || i === MEMORY_RUNS) curve.push(`${i}: ${mb(process.memoryUsage.rss())}`);
}
const after = process.memoryUsage.rss();
console.log(`this process's rss before ${mb(before)}; after renders ${curve.join(', ')}; peak ${mb(peak)}`);
console.log(
  thread
    ? `rss after ${MEMORY_RUNS} renders in this thread ${mb(after)} (+${mb(after - before)}), peak ${mb(peak)}`
    : `after ${MEMORY_RUNS} renders: this process +${mb(after - before)} (peak +${mb(peak - before)}); the renderer's peak rss ${mb(rendererPeak)}: ${rendererPeak <= CHART_RENDERER_DEFAULTS.maxRssBytes ? 'within' : 'OVER'} its bound ${mb(CHART_RENDERER_DEFAULTS.maxRssBytes)}; ${memory.stats().workers} renderers for ${memory.stats().renders} renders`,
);
await memory.close();
