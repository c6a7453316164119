/**
 * The charts' one renderer (src/charts/renderer.ts: a recycled child process), shared by the
 * digest's chart and the App Home's spend chart, started on the first chart and ended by the
 * app's drain (`closeCharts`).
 */
import type { TopLevelSpec } from 'vega-lite';
import { type ChartRenderer, createChartRenderer, type RenderedChart } from './renderer.js';

export type { RenderedChart } from './renderer.js';

let shared: ChartRenderer | null = null;

export function renderChart(spec: TopLevelSpec, width = 1000): Promise<RenderedChart> {
  shared ??= createChartRenderer();
  return shared.render(spec, width);
}

/** Ends the chart renderer process (renders waiting are refused); a later chart starts a new renderer. */
export async function closeCharts(): Promise<void> {
  const renderer = shared;
  shared = null;
  await renderer?.close();
}
