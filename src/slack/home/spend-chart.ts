/**
 * The admins' spend chart on the App Home (issue 26): rendered from the usage report the Home
 * already read (src/charts/spend-days.ts: no plat call), uploaded privately with files.uploadV2
 * and shown with a slack_file image block. Rendering and uploading happen only when the chart's
 * input changed: the last upload per language is kept under a hash of its input (figures and
 * words), so most Home publishes reuse the file and stay fast. Per process: another replica
 * renders once for itself. Best effort: a failure is logged and the Home shows no chart.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { UploadedChart } from '../../blocks/chart.js';
import type { Words } from '../../blocks/i18n/words.js';
import type { AdminHome } from '../../lookups/home-data.js';
import { uploadChartPng } from '../digest/chart.js';

export type SpendCharts = (w: Words, admin: AdminHome) => Promise<UploadedChart | null>;

export function createSpendCharts(deps: { client: WebClient; logger: Pick<Logger, 'warn'> }): SpendCharts {
  /** By language: the latest chart's input hash and its upload (one at a time, shared by waiters). */
  const latest = new Map<string, { key: string; chart: Promise<UploadedChart> }>();
  return async (w, admin) => {
    // Loaded with the first chart, never at start: Vega, Vega-Lite and resvg (a native addon).
    const { renderSpendChart, spendChartData, spendChartKey } = await import('../../charts/spend-days.js');
    const data = spendChartData(admin.report, admin.dailyCap);
    const key = spendChartKey(w, data);
    let entry = latest.get(w.locale);
    if (entry?.key !== key) {
      const chart = (async () => {
        const rendered = await renderSpendChart(w, data);
        const fileId = await uploadChartPng(
          deps.client,
          rendered.png,
          `spend-${data.days.at(-1) ?? 'days'}.png`,
          rendered.title,
        );
        return { fileId, alt: rendered.alt, title: rendered.title };
      })();
      entry = { key, chart };
      latest.set(w.locale, entry);
      // A failed upload is not kept: the next publish tries again.
      chart.catch(() => {
        if (latest.get(w.locale) === entry) latest.delete(w.locale);
      });
    }
    try {
      return await entry.chart;
    } catch (err) {
      deps.logger.warn({ err }, 'spend chart not uploaded: the Home is shown without it');
      return null;
    }
  };
}
