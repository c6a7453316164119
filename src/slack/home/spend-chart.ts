/**
 * The admins' spend chart on the App Home (issue 26): rendered from the usage report the Home
 * already read (src/charts/spend-days.ts: no plat call), uploaded privately with files.uploadV2
 * and shown with a slack_file image block. Rendering and uploading happen only when the chart's
 * input changed: the last upload per language is kept under a hash of its input (figures and
 * words), so most Home publishes reuse the file. The Home never waits on a render (a cold chart
 * worker costs seconds): `ready` is the chart when this input's upload is done, else `pending`
 * settles when it is, and the publisher (./publish.ts) publishes the Home again with it. Per
 * process: another replica renders once for itself. Best effort: a failure is logged, `pending`
 * gives null and the Home stays without a chart.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { UploadedChart } from '../../blocks/chart.js';
import type { Words } from '../../blocks/i18n/words.js';
import type { AdminHome } from '../../lookups/home-data.js';
import { uploadChartPng } from '../digest/chart.js';

export interface SpendChartState {
  /** The chart of this input, already uploaded: shown at once. */
  ready: UploadedChart | null;
  /** Otherwise the chart of this input being rendered and uploaded (null when that failed). */
  pending: Promise<UploadedChart | null> | null;
}

export type SpendCharts = (w: Words, admin: AdminHome) => Promise<SpendChartState>;

interface Entry {
  key: string;
  chart: Promise<UploadedChart | null>;
  done?: UploadedChart;
}

export function createSpendCharts(deps: { client: WebClient; logger: Pick<Logger, 'warn'> }): SpendCharts {
  /** By language: the latest chart's input hash and its upload (one at a time, shared by waiters). */
  const latest = new Map<string, Entry>();
  return async (w, admin) => {
    // Loaded with the first chart, never at start (the chart worker behind it: src/charts/).
    const { renderSpendChart, spendChartData, spendChartKey } = await import('../../charts/spend-days.js');
    const data = spendChartData(admin.report, admin.dailyCap);
    const key = spendChartKey(w, data);
    const known = latest.get(w.locale);
    if (known?.key === key) {
      return known.done ? { ready: known.done, pending: null } : { ready: null, pending: known.chart };
    }
    const entry: Entry = {
      key,
      chart: (async () => {
        const rendered = await renderSpendChart(w, data);
        const fileId = await uploadChartPng(
          deps.client,
          rendered.png,
          `spend-${data.days.at(-1) ?? 'days'}.png`,
          rendered.title,
        );
        return { fileId, alt: rendered.alt, title: rendered.title };
      })().then(
        (chart) => {
          entry.done = chart;
          return chart;
        },
        (err: unknown) => {
          deps.logger.warn({ err }, 'spend chart not uploaded: the Home stays without it');
          // A failed upload is not kept: the next publish tries again.
          if (latest.get(w.locale) === entry) latest.delete(w.locale);
          return null;
        },
      ),
    };
    latest.set(w.locale, entry);
    return { ready: null, pending: entry.chart };
  };
}
