/**
 * Where the chart worker and the chart font are, whether platdesk runs from its sources (tsx,
 * vitest: src/charts/*.ts) or from the esbuild bundle (scripts/build.mjs writes
 * dist/chart-worker.js and dist/fonts/; this module's code sits in dist/ or in dist/chunks/).
 */
import { fileURLToPath } from 'node:url';

const FONT = 'NotoSansSC-charts.otf';
const here = import.meta.url;
const fromSources = here.endsWith('.ts');
const dist = fromSources ? null : new URL(here.includes('/chunks/') ? '../' : './', here);

/** The bundled font's path (assets/fonts in the sources, dist/fonts in the build). */
export const CHART_FONT_FILE = fileURLToPath(
  dist ? new URL(`fonts/${FONT}`, dist) : new URL(`../../assets/fonts/${FONT}`, here),
);

/** The worker's module and the Node options it needs (tsx's loader when running the sources). */
export const CHART_WORKER = dist
  ? { url: new URL('chart-worker.js', dist), execArgv: [] as string[] }
  : { url: new URL('./worker.ts', here), execArgv: ['--import', 'tsx'] };
