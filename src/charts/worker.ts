/**
 * The chart worker thread (src/charts/renderer.ts starts, feeds and replaces it): renders one
 * spec at a time and answers with the SVG and the PNG. Vega and resvg are loaded here only, so
 * the main thread never holds them, and resvg's native pixmaps are freed when the thread ends.
 */
import { parentPort } from 'node:worker_threads';
import type { TopLevelSpec } from 'vega-lite';
import { rasterise } from './rasterise.js';

export interface RenderRequest {
  id: number;
  spec: TopLevelSpec;
  width: number;
}

export type RenderReply =
  | { id: number; ok: true; svg: string; png: ArrayBuffer; width: number; height: number }
  | { id: number; ok: false; message: string };

if (!parentPort) throw new Error('src/charts/worker.ts runs as a worker thread (src/charts/renderer.ts)');
const port = parentPort;

port.on('message', async ({ id, spec, width }: RenderRequest) => {
  let reply: RenderReply;
  try {
    const chart = await rasterise(spec, width);
    // A copy the thread owns (resvg's Buffer may be external memory, which cannot be transferred).
    const png = new Uint8Array(chart.png).buffer;
    reply = { id, ok: true, svg: chart.svg, png, width: chart.width, height: chart.height };
    port.postMessage(reply, [png]);
  } catch (err) {
    reply = { id, ok: false, message: err instanceof Error ? err.message : String(err) };
    port.postMessage(reply);
  }
});
