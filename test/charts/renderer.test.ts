/**
 * The chart renderer (issue 26: chart memory bounded): charts render in a child process that is
 * replaced every `rendersPerWorker` renders or past `maxRssBytes`, so resvg's native pixmaps
 * (which V8 does not see and a long-lived renderer piles up) are freed and never count in the
 * app's RSS; the render after a replacement is the same picture; a renderer killed mid-chart (a
 * native crash) fails that chart only; a render past its time fails that chart and replaces the
 * renderer; the queue is bounded; close() refuses what waits and ends the renderer; an idle
 * renderer ends on its own, and a renderer whose app is gone ends too.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  ChartQueueFullError,
  ChartRendererClosedError,
  ChartTimeoutError,
  ChartWorkerError,
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

/** Whether a process with this pid is alive (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The stats without the running process's pid and RSS, which tests check apart. */
function counts(stats: { workers: number; renders: number; running: boolean }) {
  return { workers: stats.workers, renders: stats.renders, running: stats.running };
}

describe('chart renderer (a recycled child process)', () => {
  it('replaces its renderer process after rendersPerWorker renders; the render after is the same picture', async () => {
    const renderer = createChartRenderer({ rendersPerWorker: 2 });
    try {
      expect(counts(renderer.stats())).toEqual({ workers: 0, renders: 0, running: false });
      const first = await renderer.render(spec, 800);
      expect(counts(renderer.stats())).toEqual({ workers: 1, renders: 1, running: true });
      const { pid, rss } = renderer.stats();
      expect(pid).not.toBe(process.pid);
      expect(alive(pid as number)).toBe(true);
      // It reports its own RSS with each chart: Vega and resvg loaded, tens of MB.
      expect((rss as number) / MB).toBeGreaterThan(30);
      await renderer.render(spec, 800);
      // The second render was its last: the process is ended at once.
      expect(counts(renderer.stats())).toEqual({ workers: 1, renders: 2, running: false });
      await until(() => !alive(pid as number));
      const third = await renderer.render(spec, 800);
      expect(counts(renderer.stats())).toEqual({ workers: 2, renders: 3, running: true });
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

  it('keeps memory bounded over renders whose pixmaps one renderer would pile up (leak guard)', async () => {
    // 3000 px wide: each render's pixmap is ~25 MB of native memory. The old path (rasterise in
    // the app's thread, 15 awaited renders) grew RSS by 364 MB here; in a process replaced every
    // 3 renders, its pixmaps are all freed with it and never reach the app's RSS.
    const renderer = createChartRenderer({ rendersPerWorker: 3, maxRssBytes: Number.POSITIVE_INFINITY });
    try {
      await renderer.render(spec, 3000);
      const before = process.memoryUsage.rss();
      let peak = before;
      let rendererPeak = 0;
      for (let i = 0; i < 15; i++) {
        const chart = await renderer.render(spec, 3000);
        expect(chart.width).toBe(3000);
        peak = Math.max(peak, process.memoryUsage.rss());
        rendererPeak = Math.max(rendererPeak, renderer.stats().rss ?? 0);
      }
      expect(renderer.stats().workers).toBe(6);
      expect((peak - before) / MB).toBeLessThan(60);
      // 3 renders' pixmaps and Vega: well under what 15 piled up would take.
      expect(rendererPeak / MB).toBeLessThan(300);
    } finally {
      await renderer.close();
    }
  }, 120_000);

  it('replaces a renderer whose RSS passed maxRssBytes once its chart is answered', async () => {
    const renderer = createChartRenderer({ maxRssBytes: 1 });
    try {
      await renderer.render(spec, 600);
      expect(counts(renderer.stats())).toEqual({ workers: 1, renders: 1, running: false });
      await renderer.render(spec, 600);
      expect(counts(renderer.stats())).toEqual({ workers: 2, renders: 2, running: false });
    } finally {
      await renderer.close();
    }
  });

  it('a renderer killed mid-chart (as a native crash would end it) costs the app nothing: the chart is drawn by a new one', async () => {
    const renderer = createChartRenderer();
    try {
      await renderer.render(spec, 600);
      const { pid } = renderer.stats();
      const killed = renderer.render(spec, 3000);
      const waiting = renderer.render(spec, 600);
      process.kill(pid as number, 'SIGKILL');
      const chart = await killed;
      expect(chart.width).toBe(3000);
      expect(inkShare(chart.png)).toBeGreaterThan(0.02);
      expect(inkShare((await waiting).png)).toBeGreaterThan(0.02);
      expect(counts(renderer.stats())).toEqual({ workers: 2, renders: 3, running: true });
      expect(renderer.stats().pid).not.toBe(pid);
    } finally {
      await renderer.close();
    }
  });

  it('a chart that ends two renderers in a row fails alone; the chart behind it renders', async () => {
    const renderer = createChartRenderer();
    try {
      await renderer.render(spec, 600);
      const doomed = renderer.render(spec, 3000);
      const waiting = renderer.render(spec, 600);
      const first = renderer.stats().pid as number;
      process.kill(first, 'SIGKILL');
      // The chart is sent again to a second renderer: kill that one too, mid-chart.
      await until(() => renderer.stats().pid !== undefined && renderer.stats().pid !== first);
      process.kill(renderer.stats().pid as number, 'SIGKILL');
      await expect(doomed).rejects.toBeInstanceOf(ChartWorkerError);
      await expect(doomed).rejects.toThrow(/SIGKILL/);
      expect(inkShare((await waiting).png)).toBeGreaterThan(0.02);
      expect(counts(renderer.stats())).toEqual({ workers: 3, renders: 2, running: true });
    } finally {
      await renderer.close();
    }
  });

  it('a renderer whose app is killed (kill -9) ends by itself', async () => {
    // A small app: renders one chart, prints its renderer's pid, then waits to be killed.
    const script = `
      import { createChartRenderer } from ${JSON.stringify(new URL('../../src/charts/renderer.ts', import.meta.url).href)};
      import { SMALL_ZH_CHART } from ${JSON.stringify(new URL('../helpers/chart-spec.ts', import.meta.url).href)};
      const renderer = createChartRenderer();
      await renderer.render(SMALL_ZH_CHART, 400);
      console.log(renderer.stats().pid);
      setInterval(() => {}, 1000);
    `;
    const hooks = new URL('../../src/charts/source-hooks.ts', import.meta.url).pathname;
    const app = spawn(process.execPath, ['--import', hooks, '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      app.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(Number(out.trim()));
      });
      app.on('exit', (code) => reject(new Error(`app exited early (${code})`)));
    });
    expect(alive(pid)).toBe(true);
    app.kill('SIGKILL');
    await until(() => !alive(pid));
  });

  it('a render past its time fails that chart with a timeout and its renderer is replaced', async () => {
    // 50 ms: a new renderer cannot even load Vega in that time, so the render is still running.
    const renderer = createChartRenderer({ timeoutMs: 50 });
    try {
      await expect(renderer.render(spec, 800)).rejects.toBeInstanceOf(ChartTimeoutError);
      expect(counts(renderer.stats())).toEqual({ workers: 1, renders: 0, running: false });
      await expect(renderer.render(spec, 800)).rejects.toThrow(/not rendered within 50 ms/);
      expect(counts(renderer.stats())).toEqual({ workers: 2, renders: 0, running: false });
    } finally {
      await renderer.close();
    }
  });

  it('refuses a render past the queue at once; close() refuses what waits and ends the renderer', async () => {
    const renderer = createChartRenderer({ maxQueued: 1 });
    const running = renderer.render(spec, 800);
    const waiting = renderer.render(spec, 800);
    await expect(renderer.render(spec, 800)).rejects.toBeInstanceOf(ChartQueueFullError);
    expect(renderer.stats().running).toBe(true);
    const { pid } = renderer.stats();
    const refused = Promise.all([
      expect(running).rejects.toBeInstanceOf(ChartRendererClosedError),
      expect(waiting).rejects.toBeInstanceOf(ChartRendererClosedError),
    ]);
    await renderer.close();
    await refused;
    // close() returns once the process is gone.
    expect(alive(pid as number)).toBe(false);
    expect(counts(renderer.stats())).toEqual({ workers: 1, renders: 0, running: false });
    await expect(renderer.render(spec, 800)).rejects.toBeInstanceOf(ChartRendererClosedError);
  });

  it('ends an idle renderer after idleMs; the next render starts another', async () => {
    const renderer = createChartRenderer({ idleMs: 100 });
    try {
      await renderer.render(spec, 600);
      expect(renderer.stats().running).toBe(true);
      const { pid } = renderer.stats();
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(counts(renderer.stats())).toEqual({ workers: 1, renders: 1, running: false });
      await until(() => !alive(pid as number));
      const chart = await renderer.render(spec, 600);
      expect(inkShare(chart.png)).toBeGreaterThan(0.02);
      expect(counts(renderer.stats())).toEqual({ workers: 2, renders: 2, running: true });
    } finally {
      await renderer.close();
    }
  });
});
