/**
 * The chart renderer process (src/charts/renderer.ts forks, feeds and replaces it): renders one
 * spec at a time and answers with the SVG, the PNG and its own RSS. Vega and resvg are loaded here
 * only, so the app never holds them, a fault in resvg's native code ends this process and not the
 * app, and resvg's native pixmaps are freed when the process ends. It ends with the app: when the
 * IPC channel closes (the app exited, or was killed), so does this process.
 */
import type { TopLevelSpec } from 'vega-lite';
import { rasterise } from './rasterise.js';

export interface RenderRequest {
  id: number;
  spec: TopLevelSpec;
  width: number;
}

/** Every reply carries the process's RSS after the render, in bytes. */
export type RenderReply = { rss: number } & (
  | { id: number; ok: true; svg: string; png: Uint8Array; width: number; height: number }
  | { id: number; ok: false; message: string }
);

const send = process.send?.bind(process);
if (!send) throw new Error('src/charts/worker.ts runs as a child process with IPC (src/charts/renderer.ts)');
process.title = 'platdesk-charts';
process.on('disconnect', () => process.exit(0));

process.on('message', async ({ id, spec, width }: RenderRequest) => {
  let reply: RenderReply;
  try {
    const chart = await rasterise(spec, width);
    reply = {
      id,
      ok: true,
      svg: chart.svg,
      png: chart.png,
      width: chart.width,
      height: chart.height,
      rss: process.memoryUsage.rss(),
    };
  } catch (err) {
    reply = {
      id,
      ok: false,
      message: err instanceof Error ? err.message : String(err),
      rss: process.memoryUsage.rss(),
    };
  }
  send(reply);
});
