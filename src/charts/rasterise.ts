/**
 * Vega-Lite spec → SVG → PNG, on the server, with no browser (issue 26). Runs only inside the
 * chart renderer process (src/charts/worker.ts): the app never loads Vega or resvg.
 *
 * Why these: Vega-Lite is a maintained, declarative grammar (a chart is a small JSON spec, easy
 * to test by value), and Vega renders it to an SVG string in Node with no canvas and no DOM. The
 * SVG is rasterised by resvg (@resvg/resvg-js: Rust, prebuilt native binaries as npm packages, no
 * Cairo or system libraries), loading ONLY the bundled font (src/charts/font.ts), so zh-CN labels
 * draw the same on every machine. Pure: data in, bytes out; no plat call, no Slack, no store.
 */
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { CHART_FONT_FAMILY, CHART_FONT_FILE } from './font.js';

export interface RenderedChart {
  svg: string;
  png: Buffer;
  width: number;
  height: number;
}

/** The spec as an SVG string (labels still text, so tests can read them). */
export async function specToSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * The SVG as PNG, `width` pixels wide (Slack shows it scaled to the phone's width).
 *
 * Memory: resvg-js 2.6 keeps each render's pixmap (width × height × 4 bytes, ~2.8 MB for a chart)
 * in native memory owned by the small JS object `render()` returns, and does not tell V8 about it
 * (thx/resvg-js#216; 2.7.0-alpha reports it with adjust_external_memory). V8 sees no pressure, so
 * it rarely collects those objects and RSS grows by the pixmap per render. Hence the renderer process:
 * its renders' native memory is all freed when it is replaced (src/charts/renderer.ts).
 */
export function svgToPng(svg: string, width: number): { png: Buffer; width: number; height: number } {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'width', value: width },
    background: '#ffffff',
    font: {
      loadSystemFonts: false,
      fontFiles: [CHART_FONT_FILE],
      defaultFontFamily: CHART_FONT_FAMILY,
      sansSerifFamily: CHART_FONT_FAMILY,
    },
  });
  const image = resvg.render();
  return { png: image.asPng(), width: image.width, height: image.height };
}

export async function rasterise(spec: TopLevelSpec, width: number): Promise<RenderedChart> {
  const svg = await specToSvg(spec);
  return { svg, ...svgToPng(svg, width) };
}
