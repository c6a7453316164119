/**
 * Renders charts in a child process that is replaced often, so a chart can neither take the app
 * down nor make it grow (issue 26). resvg-js is native code: a fault in it (or in V8 under it)
 * aborts the whole process it runs in, which in a worker thread is the app itself (seen once in
 * CI: a V8 abort in the chart thread ended a test process). And it keeps each render's pixmap in
 * native memory that V8 does not see (src/charts/rasterise.ts), so one long-lived renderer grows
 * by ~2.8 MB per chart. A process of its own bounds both: a crash or a kill fails the chart that
 * was rendering and nothing else (it is tried once more in a new renderer, so a one-off crash is
 * not seen; a chart that ends two renderers fails), and ending the process frees all its memory.
 *
 * The process is started on the first render (nothing chart-related is loaded at app start),
 * renders one chart at a time from a small queue, and is replaced after `rendersPerWorker`
 * renders, when its RSS (it reports it with each chart) passes `maxRssBytes`, after a render that
 * took longer than `timeoutMs` (that chart fails, nothing else), when it exits or is killed, or
 * after `idleMs` without work. It ends by itself if the app goes (its IPC channel closes).
 * `close()` (the app's drain) ends it and refuses what is queued.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TopLevelSpec } from 'vega-lite';
import { CHART_FILES, type ChartFiles } from './files.js';
import type { RenderedChart } from './rasterise.js';
import type { RenderReply, RenderRequest } from './worker.js';

export type { RenderedChart } from './rasterise.js';

export interface ChartRendererOptions {
  /** Renders one renderer process does before it is replaced. */
  rendersPerWorker?: number;
  /** The renderer process's RSS past which it is replaced once its chart is answered. */
  maxRssBytes?: number;
  /** Longest a render may take, a new process's start included. */
  timeoutMs?: number;
  /** Time without a render after which the process is ended. */
  idleMs?: number;
  /** Renders waiting behind the one running; more are refused at once. */
  maxQueued?: number;
  /** The renderer to run (default: the one beside this module; bench/charts.ts --built: the build's). */
  files?: Pick<ChartFiles, 'worker' | 'execArgv'>;
}

export const CHART_RENDERER_DEFAULTS: Required<Omit<ChartRendererOptions, 'files'>> = {
  rendersPerWorker: 25,
  maxRssBytes: 320 * 1024 * 1024,
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
  /** Renderer processes started so far. */
  workers: number;
  /** Charts rendered so far. */
  renders: number;
  /** Whether a renderer process is running now. */
  running: boolean;
  /** The running renderer process's pid (none when not running). */
  pid?: number;
  /** Its RSS as it last reported it, in bytes (none before its first chart). */
  rss?: number;
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
  /** Renderers that ended (crashed, killed) while rendering this chart. */
  lost: number;
}

export function createChartRenderer(options: ChartRendererOptions = {}): ChartRenderer {
  const o = { ...CHART_RENDERER_DEFAULTS, files: CHART_FILES, ...options };
  const queue: Job[] = [];
  let busy: Job | null = null;
  let worker: ChildProcess | null = null;
  let workerRenders = 0;
  let workerRss: number | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let nextId = 1;
  const stats = { workers: 0, renders: 0 };
  /** Processes ended and not yet gone: close() waits for them. */
  const ending = new Set<Promise<void>>();

  function start(): ChildProcess {
    const child = fork(fileURLToPath(o.files.worker), [], {
      execArgv: o.files.execArgv,
      // Buffers and ArrayBuffers cross as bytes, not as JSON arrays of numbers.
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // Never what keeps the app alive: a render waiting holds its own (ref'd) timeout timer.
    child.unref();
    child.channel?.unref();
    child.on('message', (reply: RenderReply) => replied(child, reply));
    child.on('error', (err) =>
      gone(child, new ChartWorkerError(`chart renderer failed: ${err.message}`, { cause: err })),
    );
    child.on('exit', (code, signal) =>
      gone(child, new ChartWorkerError(`chart renderer exited (${signal ?? `code ${code}`})`)),
    );
    worker = child;
    workerRenders = 0;
    workerRss = undefined;
    stats.workers++;
    return child;
  }

  /** Ends the renderer process; its exit is no longer an error for anyone. */
  function retire(): void {
    const child = worker;
    worker = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    ending.add(exited);
    void exited.then(() => ending.delete(exited));
    // It holds nothing worth saving: its chart is either answered or abandoned. Held (ref'd)
    // until it is gone, so close() can wait for it even when nothing else keeps the app running.
    child.ref();
    child.kill('SIGKILL');
  }

  function settle(): Job | null {
    const job = busy;
    busy = null;
    if (job) clearTimeout(job.timer);
    return job;
  }

  function replied(child: ChildProcess, reply: RenderReply): void {
    if (child !== worker || busy?.id !== reply.id) return;
    const job = settle() as Job;
    stats.renders++;
    workerRenders++;
    workerRss = reply.rss;
    if (workerRenders >= o.rendersPerWorker || reply.rss > o.maxRssBytes) retire();
    if (reply.ok)
      job.resolve({ svg: reply.svg, png: Buffer.from(reply.png), width: reply.width, height: reply.height });
    else job.reject(new ChartRenderError(`chart not rendered: ${reply.message}`));
    pump();
  }

  function gone(child: ChildProcess, err: Error): void {
    if (child !== worker) return;
    worker = null;
    const job = settle();
    if (job && ++job.lost < 2) queue.unshift(job);
    else job?.reject(err);
    pump();
  }

  function pump(): void {
    clearTimeout(idleTimer);
    if (busy || closed) return;
    const job = queue.shift();
    if (!job) {
      if (worker) {
        idleTimer = setTimeout(retire, o.idleMs);
        idleTimer.unref();
      }
      return;
    }
    busy = job;
    job.timer = setTimeout(() => {
      if (busy !== job) return;
      settle();
      retire();
      job.reject(
        new ChartTimeoutError(`chart not rendered within ${o.timeoutMs} ms: its renderer is replaced`),
      );
      pump();
    }, o.timeoutMs);
    const request: RenderRequest = { id: job.id, spec: job.spec, width: job.width };
    try {
      (worker ?? start()).send(request);
    } catch (err) {
      // No renderer could be started (or the spec cannot be sent): this chart fails, not the next.
      settle();
      retire();
      job.reject(new ChartWorkerError(`chart renderer not reached: ${String(err)}`, { cause: err }));
      pump();
    }
  }

  return {
    render(spec, width) {
      if (closed) return Promise.reject(new ChartRendererClosedError('chart renderer closed'));
      if (queue.length >= o.maxQueued)
        return Promise.reject(new ChartQueueFullError(`${queue.length} charts already waiting`));
      return new Promise<RenderedChart>((resolve, reject) => {
        queue.push({ id: nextId++, spec, width, resolve, reject, lost: 0 });
        pump();
      });
    },
    stats: () => ({
      ...stats,
      running: worker !== null,
      ...(worker?.pid !== undefined ? { pid: worker.pid } : {}),
      ...(worker && workerRss !== undefined ? { rss: workerRss } : {}),
    }),
    async close() {
      closed = true;
      clearTimeout(idleTimer);
      const refused = new ChartRendererClosedError('chart renderer closed');
      settle()?.reject(refused);
      for (const job of queue.splice(0)) job.reject(refused);
      retire();
      await Promise.all(ending);
    },
  };
}
