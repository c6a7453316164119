/**
 * Renders charts in a worker thread that is replaced often, so chart memory stays bounded
 * (issue 26). resvg-js keeps each render's pixmap in native memory that V8 does not see
 * (src/charts/rasterise.ts), so in one long-lived thread RSS grows by ~2.8 MB per chart; ending
 * the thread frees all of it. The worker is started on the first render (nothing chart-related is
 * loaded at app start), renders one chart at a time from a small queue, and is replaced after
 * `rendersPerWorker` renders, when the process's RSS has grown past `maxRssGrowthBytes` since it
 * started, after a render that took longer than `timeoutMs` (that chart fails, nothing else), or
 * after `idleMs` without work. `close()` (the app's drain) ends it and refuses what is queued.
 */
import { Worker } from 'node:worker_threads';
import type { TopLevelSpec } from 'vega-lite';
import { CHART_FILES, type ChartFiles } from './files.js';
import type { RenderedChart } from './rasterise.js';
import type { RenderReply, RenderRequest } from './worker.js';

export type { RenderedChart } from './rasterise.js';

export interface ChartRendererOptions {
  /** Renders one worker does before it is replaced. */
  rendersPerWorker?: number;
  /** Growth of the process's RSS since the worker started past which it is replaced. */
  maxRssGrowthBytes?: number;
  /** Longest a render may take, a new worker's start included. */
  timeoutMs?: number;
  /** Time without a render after which the worker is ended. */
  idleMs?: number;
  /** Renders waiting behind the one running; more are refused at once. */
  maxQueued?: number;
  /** The worker to run (default: the one beside this module; bench/charts.ts --built: the build's). */
  files?: Pick<ChartFiles, 'worker' | 'execArgv'>;
}

export const CHART_RENDERER_DEFAULTS: Required<Omit<ChartRendererOptions, 'files'>> = {
  rendersPerWorker: 25,
  maxRssGrowthBytes: 160 * 1024 * 1024,
  timeoutMs: 20_000,
  idleMs: 60_000,
  maxQueued: 16,
};

export class ChartRenderError extends Error {
  override name = 'ChartRenderError';
  readonly code: string = 'chart_failed';
}
export class ChartTimeoutError extends ChartRenderError {
  override name = 'ChartTimeoutError';
  override readonly code = 'chart_timeout';
}
export class ChartQueueFullError extends ChartRenderError {
  override name = 'ChartQueueFullError';
  override readonly code = 'chart_queue_full';
}
export class ChartRendererClosedError extends ChartRenderError {
  override name = 'ChartRendererClosedError';
  override readonly code = 'chart_renderer_closed';
}
export class ChartWorkerError extends ChartRenderError {
  override name = 'ChartWorkerError';
  override readonly code = 'chart_worker_failed';
}

export interface ChartRendererStats {
  /** Workers started so far. */
  workers: number;
  /** Charts rendered so far. */
  renders: number;
  /** Whether a worker is running now. */
  running: boolean;
}

export interface ChartRenderer {
  render(spec: TopLevelSpec, width: number): Promise<RenderedChart>;
  stats(): ChartRendererStats;
  close(): Promise<void>;
}

interface Job {
  id: number;
  spec: TopLevelSpec;
  width: number;
  resolve: (chart: RenderedChart) => void;
  reject: (err: Error) => void;
  timer?: NodeJS.Timeout;
}

export function createChartRenderer(options: ChartRendererOptions = {}): ChartRenderer {
  const o = { ...CHART_RENDERER_DEFAULTS, files: CHART_FILES, ...options };
  const queue: Job[] = [];
  let busy: Job | null = null;
  let worker: Worker | null = null;
  let workerRenders = 0;
  let rssAtStart = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let nextId = 1;
  const stats = { workers: 0, renders: 0 };

  function start(): Worker {
    rssAtStart = process.memoryUsage.rss();
    const w = new Worker(o.files.worker, { execArgv: o.files.execArgv, name: 'platdesk-charts' });
    // Never what keeps the process alive: a render waiting holds its own (ref'd) timeout timer.
    w.unref();
    w.on('message', (reply: RenderReply) => replied(w, reply));
    w.on('error', (err) =>
      gone(w, new ChartWorkerError(`chart worker failed: ${err.message}`, { cause: err })),
    );
    w.on('exit', (code) => gone(w, new ChartWorkerError(`chart worker exited (code ${code})`)));
    worker = w;
    workerRenders = 0;
    stats.workers++;
    return w;
  }

  /** Ends the worker; its exit is no longer an error for anyone. */
  function retire(): Promise<unknown> {
    const w = worker;
    worker = null;
    return w ? w.terminate() : Promise.resolve();
  }

  function settle(): Job | null {
    const job = busy;
    busy = null;
    if (job) clearTimeout(job.timer);
    return job;
  }

  function replied(w: Worker, reply: RenderReply): void {
    if (w !== worker || busy?.id !== reply.id) return;
    const job = settle() as Job;
    stats.renders++;
    workerRenders++;
    if (workerRenders >= o.rendersPerWorker || process.memoryUsage.rss() - rssAtStart > o.maxRssGrowthBytes)
      void retire();
    if (reply.ok)
      job.resolve({ svg: reply.svg, png: Buffer.from(reply.png), width: reply.width, height: reply.height });
    else job.reject(new ChartRenderError(`chart not rendered: ${reply.message}`));
    pump();
  }

  function gone(w: Worker, err: Error): void {
    if (w !== worker) return;
    worker = null;
    settle()?.reject(err);
    pump();
  }

  function pump(): void {
    clearTimeout(idleTimer);
    if (busy || closed) return;
    const job = queue.shift();
    if (!job) {
      if (worker) {
        idleTimer = setTimeout(() => void retire(), o.idleMs);
        idleTimer.unref();
      }
      return;
    }
    busy = job;
    job.timer = setTimeout(() => {
      if (busy !== job) return;
      settle();
      void retire();
      job.reject(
        new ChartTimeoutError(`chart not rendered within ${o.timeoutMs} ms: its worker is replaced`),
      );
      pump();
    }, o.timeoutMs);
    const request: RenderRequest = { id: job.id, spec: job.spec, width: job.width };
    try {
      (worker ?? start()).postMessage(request);
    } catch (err) {
      // No worker could be started (or the spec cannot be sent): this chart fails, not the next.
      settle();
      void retire();
      job.reject(new ChartWorkerError(`chart worker not reached: ${String(err)}`, { cause: err }));
      pump();
    }
  }

  return {
    render(spec, width) {
      if (closed) return Promise.reject(new ChartRendererClosedError('chart renderer closed'));
      if (queue.length >= o.maxQueued)
        return Promise.reject(new ChartQueueFullError(`${queue.length} charts already waiting`));
      return new Promise<RenderedChart>((resolve, reject) => {
        queue.push({ id: nextId++, spec, width, resolve, reject });
        pump();
      });
    },
    stats: () => ({ ...stats, running: worker !== null }),
    async close() {
      closed = true;
      clearTimeout(idleTimer);
      const refused = new ChartRendererClosedError('chart renderer closed');
      settle()?.reject(refused);
      for (const job of queue.splice(0)) job.reject(refused);
      await retire();
    },
  };
}
