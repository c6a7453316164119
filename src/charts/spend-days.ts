/**
 * The App Home's spend chart for admins (issue 26): points per day for the last 30 days, stacked
 * by operation, against the workspace's daily cap. Built only from the usage report the Home
 * already reads from the ledger (no plat call, nothing personal: operations and days only).
 * `spendChartKey` hashes the chart's whole input (figures and words), so the Slack side renders
 * and uploads again only when it changed.
 */
import { createHash } from 'node:crypto';
import type { TopLevelSpec } from 'vega-lite';
import type { Words } from '../blocks/i18n/words.js';
import { operationTitle } from '../blocks/words-of.js';
import type { UsageReport } from '../lookups/reports.js';
import { isOperation } from '../plat/operations.js';
import { CHART_FONT_FAMILY } from './font.js';
import { type RenderedChart, renderChart } from './render.js';

export interface SpendChartData {
  /** Every day of the period ('YYYY-MM-DD' in the budget zone), oldest first. */
  days: string[];
  /** Points per day and operation, days without spend left out. */
  bars: { day: string; operation: string; points: number }[];
  /** Points per day, aligned with `days`. */
  perDay: number[];
  /** The workspace's daily cap in points; null when none is set. */
  dailyCap: number | null;
  timeZone: string;
}

/** The chart's numbers, from the report alone: pure, tested against the ledger's figures. */
export function spendChartData(report: UsageReport, dailyCap: number | null): SpendChartData {
  const bars = report.byDay.flatMap((d) =>
    d.byOperation
      .filter((g) => g.points > 0)
      .map((g) => ({ day: d.key, operation: g.key, points: g.points })),
  );
  const perDay = report.days.map((day) => report.byDay.find((d) => d.key === day)?.points ?? 0);
  return { days: report.days, bars, perDay, dailyCap, timeZone: report.timeZone };
}

/** What the picture depends on: the figures and the reader's language. */
export function spendChartKey(w: Words, data: SpendChartData): string {
  return createHash('sha256')
    .update(JSON.stringify([w.locale, data]))
    .digest('hex');
}

const OPERATION_COLOURS = ['#1a73e8', '#e8710a', '#188038', '#9334e6', '#d01884', '#12b5cb', '#9aa0a6'];

/** "11-20": a phone-width axis needs no year. */
const shortDay = (day: string) => day.slice(5);

const operationName = (w: Words, key: string) => (isOperation(key) ? operationTitle(w, key) : key);

export function spendChartSpec(w: Words, data: SpendChartData): TopLevelSpec {
  const labels = data.days.map(shortDay);
  const operations = [...new Set(data.bars.map((b) => b.operation))].sort();
  const x = {
    field: 'label',
    type: 'ordinal' as const,
    sort: labels,
    scale: { domain: labels },
    title: w.t('chart.axisDay', { zone: w.zone(data.timeZone) }),
    axis: { labelAngle: -60 },
  };
  const layers: object[] = [
    {
      data: {
        values: data.bars.map((b) => ({ ...b, label: shortDay(b.day), name: operationName(w, b.operation) })),
      },
      mark: { type: 'bar' },
      encoding: {
        x,
        y: {
          aggregate: 'sum',
          field: 'points',
          type: 'quantitative',
          title: w.t('chart.axisPoints'),
          axis: { tickMinStep: 1, format: 'd' },
        },
        color: {
          field: 'name',
          type: 'nominal',
          title: w.t('table.operation'),
          scale: {
            domain: operations.map((o) => operationName(w, o)),
            range: operations.map((_, i) => OPERATION_COLOURS[i % OPERATION_COLOURS.length] as string),
          },
        },
      },
    },
  ];
  if (data.dailyCap !== null)
    layers.push({
      data: { values: [{ cap: data.dailyCap, name: w.t('chart.dailyCap', { n: w.count(data.dailyCap) }) }] },
      mark: { type: 'rule', color: '#d93025', strokeDash: [6, 4], strokeWidth: 2 },
      encoding: {
        y: { field: 'cap', type: 'quantitative' },
        strokeDash: { field: 'name', type: 'nominal', title: null },
      },
    });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 640,
    height: 280,
    background: '#ffffff',
    title: { text: w.t('chart.spendTitle'), anchor: 'start' },
    config: { font: CHART_FONT_FAMILY, legend: { orient: 'top', columnPadding: 48 }, view: { stroke: null } },
    layer: layers,
    resolve: { scale: { y: 'shared' } },
  } as TopLevelSpec;
}

/** Alt text in the reader's language: the figures a sighted reader takes from the picture. */
export function spendChartAlt(w: Words, data: SpendChartData): string {
  const total = data.perDay.reduce((n, p) => n + p, 0);
  if (total === 0) return w.t('chart.spendAltEmpty', { days: w.count(data.days.length) });
  const peak = data.perDay.reduce((best, n, i) => (n > (data.perDay[best] ?? 0) ? i : best), 0);
  const over = data.dailyCap === null ? 0 : data.perDay.filter((p) => p >= (data.dailyCap ?? 0)).length;
  return w.t('chart.spendAlt', {
    days: w.count(data.days.length),
    n: w.count(total),
    peak: w.day(data.days[peak] ?? ''),
    peakPoints: w.count(data.perDay[peak] ?? 0),
    cap:
      data.dailyCap === null
        ? w.t('chart.spendAltNoCap')
        : w.t('chart.spendAltCap', { cap: w.count(data.dailyCap), count: over, reached: w.count(over) }),
  });
}

export interface SpendChart extends RenderedChart {
  alt: string;
  title: string;
}

export async function renderSpendChart(w: Words, data: SpendChartData): Promise<SpendChart> {
  const chart = await renderChart(spendChartSpec(w, data));
  return { ...chart, alt: spendChartAlt(w, data), title: w.t('chart.spendTitle') };
}
