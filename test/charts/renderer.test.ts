/**
 * The chart renderer (issue 26: chart memory bounded): charts render in a worker thread that is
 * replaced every `rendersPerWorker` renders, so resvg's native pixmaps (which V8 does not see and
 * a long-lived thread piles up) are freed; the render after a replacement is the same picture; a
 * render past its time fails that chart and replaces the worker; the queue is bounded; close()
 * refuses what waits and ends the worker; an idle worker ends on its own.
 */
import { describe, expect, it } from 'vitest';
import {
  ChartQueueFullError,
  ChartRendererClosedError,
  ChartTimeoutError,
  createChartRenderer,
} from '../../src/charts/renderer.js';
import { spendChartData, spendChartSpec } from '../../src/charts/spend-days.js';
import type { UsageReport } from '../../src/lookups/reports.js';
import { decodePng } from '../helpers/png.js';
import { zh } from '../helpers/words.js';

const days = Array.from({ length: 30 }, (_, i) =>
  new Date(Date.UTC(2026, 9, 28 + i)).toISOString().slice(0, 10),
);
const byDay = days.map((key, d) => {
  const byOperation = ['paging-orders', 'platdybw', 'platiteminfo'].map((op, o) => ({
    key: op,
    points: 3 + ((d * 7 + o * 13) % 30),
    calls: 1,
    quotaCalls: 0,
  }));
  return { key, points: byOperation.reduce((n, g) => n + g.points, 0), calls: 3, quotaCalls: 0, byOperation };
});
const report: UsageReport = {
  period: 'last30',
  from: new Date(`${days[0]}T00:00:00+08:00`),
  to: new Date(`${days[29]}T24:00:00+08:00`),
  timeZone: 'Asia/Shanghai',
  userId: null,
  totals: { points: byDay.reduce((n, d) => n + d.points, 0), calls: 90, quotaCalls: 0 },
  byOperation: [],
  byUser: [],
  byDay,
  days,
};
const spec = spendChartSpec(zh, spendChartData(report, 80));
const MB = 1024 * 1024;

function inkShare(png: Buffer): number {
  const image = decodePng(png);
  let ink = 0;
  for (let i = 0; i < image.pixels.length; i += image.channels) {
    const [r = 255, g = 255, b = 255] = image.pixels.subarray(i, i + 3);
    if (r < 240 || g < 240 || b < 240) ink++;
  }
  return ink / (image.width * image.height);
}

describe('chart renderer (a recycled worker thread)', () => {
  it('replaces its worker after rendersPerWorker renders; the render after is the same picture', async () => {
    const renderer = createChartRenderer({ rendersPerWorker: 2 });
    try {
      expect(renderer.stats()).toEqual({ workers: 0, renders: 0, running: false });
      const first = await renderer.render(spec, 800);
      expect(renderer.stats()).toEqual({ workers: 1, renders: 1, running: true });
      await renderer.render(spec, 800);
      // The second render was its last: the worker is ended at once.
      expect(renderer.stats()).toEqual({ workers: 1, renders: 2, running: false });
      const third = await renderer.render(spec, 800);
      expect(renderer.stats()).toEqual({ workers: 2, renders: 3, running: true });
      expect(third.svg).toBe(first.svg);
      expect(third.svg).toContain('近 30 天每日扣费点数');
      expect(third.png.equals(first.png)).toBe(true);
      expect(decodePng(third.png).width).toBe(800);
      expect(third.width).toBe(800);
      expect(inkShare(third.png)).toBeGreaterThan(0.02);
    } finally {
      await renderer.close();
    }
  });

  it('keeps RSS bounded over renders whose pixmaps one thread would pile up (leak guard)', async () => {
    // 3000 px wide: each render's pixmap is ~25 MB of native memory. The old path (rasterise in
    // the app's thread, 15 awaited renders) grew RSS by 364 MB here and fails this bound; replaced
    // every 3 renders, a worker's pixmaps are all freed with it.
    const renderer = createChartRenderer({
      rendersPerWorker: 3,
      maxRssGrowthBytes: Number.POSITIVE_INFINITY,
    });
    try {
      await renderer.render(spec, 3000);
      const before = process.memoryUsage.rss();
      let peak = before;
      for (let i = 0; i < 15; i++) {
        const chart = await renderer.render(spec, 3000);
        expect(chart.width).toBe(3000);
        peak = Math.max(peak, process.memoryUsage.rss());
      }
      expect(renderer.stats().workers).toBe(6);
      expect((peak - before) / MB).toBeLessThan(200);
    } finally {
      await renderer.close();
    }
  }, 120_000);

  it('a render past its time fails that chart with a timeout and its worker is replaced', async () => {
    // 50 ms: a new worker cannot even load Vega in that time, so the render is still running.
    const renderer = createChartRenderer({ timeoutMs: 50 });
    try {
      await expect(renderer.render(spec, 800)).rejects.toBeInstanceOf(ChartTimeoutError);
      expect(renderer.stats()).toEqual({ workers: 1, renders: 0, running: false });
      await expect(renderer.render(spec, 800)).rejects.toThrow(/not rendered within 50 ms/);
      expect(renderer.stats()).toEqual({ workers: 2, renders: 0, running: false });
    } finally {
      await renderer.close();
    }
  });

  it('refuses a render past the queue at once; close() refuses what waits and ends the worker', async () => {
    const renderer = createChartRenderer({ maxQueued: 1 });
    const running = renderer.render(spec, 800);
    const waiting = renderer.render(spec, 800);
    await expect(renderer.render(spec, 800)).rejects.toBeInstanceOf(ChartQueueFullError);
    expect(renderer.stats().running).toBe(true);
    const refused = Promise.all([
      expect(running).rejects.toBeInstanceOf(ChartRendererClosedError),
      expect(waiting).rejects.toBeInstanceOf(ChartRendererClosedError),
    ]);
    await renderer.close();
    await refused;
    expect(renderer.stats()).toEqual({ workers: 1, renders: 0, running: false });
    await expect(renderer.render(spec, 800)).rejects.toBeInstanceOf(ChartRendererClosedError);
  });

  it('ends an idle worker after idleMs; the next render starts another', async () => {
    const renderer = createChartRenderer({ idleMs: 100 });
    try {
      await renderer.render(spec, 600);
      expect(renderer.stats().running).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(renderer.stats()).toEqual({ workers: 1, renders: 1, running: false });
      const chart = await renderer.render(spec, 600);
      expect(inkShare(chart.png)).toBeGreaterThan(0.02);
      expect(renderer.stats()).toEqual({ workers: 2, renders: 2, running: true });
    } finally {
      await renderer.close();
    }
  });
});
