/**
 * Where the chart worker and the chart font are, whether platdesk runs from its sources (tsx,
 * vitest: src/charts/*.ts) or from the esbuild bundle (scripts/build.mjs writes
 * dist/chart-worker.js and dist/fonts/; this module's code sits in dist/ or in dist/chunks/).
 */
import { fileURLToPath } from 'node:url';

const FONT = 'NotoSansSC-charts.otf';

export interface ChartFiles {
  /** The bundled font's path (assets/fonts in the sources, dist/fonts in the build). */
  font: string;
  /** The worker's module. */
  worker: URL;
  /** The Node options the worker needs (the sources' import hook when running the sources). */
  execArgv: string[];
}

/** The chart files seen from `moduleUrl`, the URL this module's code runs from. */
export function chartFiles(moduleUrl: string): ChartFiles {
  if (moduleUrl.endsWith('.ts'))
    return {
      font: fileURLToPath(new URL(`../../assets/fonts/${FONT}`, moduleUrl)),
      worker: new URL('./worker.ts', moduleUrl),
      // Node strips the types; ./source-hooks.ts maps the sources' './x.js' imports to './x.ts'.
      execArgv: ['--import', fileURLToPath(new URL('./source-hooks.ts', moduleUrl))],
    };
  const dist = new URL(/\/chunks\/[^/]*$/.test(moduleUrl) ? '../' : './', moduleUrl);
  return {
    font: fileURLToPath(new URL(`fonts/${FONT}`, dist)),
    worker: new URL('chart-worker.js', dist),
    execArgv: [],
  };
}

export const CHART_FILES = chartFiles(import.meta.url);
