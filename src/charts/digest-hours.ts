/**
 * The digest's chart (issue 26): orders by hour of the window, stacked by status, the day
 * before's orders by hour as a line, and the ship-by picture (overdue deadlines marked in their
 * hour, counts in the subtitle). Built only from the digest's stored summaries, which hold no
 * receiver data, so no plat call and nothing personal can reach the picture; no order number,
 * shop or remark is drawn either.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { Words } from '../blocks/i18n/words.js';
import { orderStatusLabel } from '../blocks/orders.js';
import type { DigestSummary } from '../digest/summarize.js';
import type { DigestPost } from '../digest/types.js';
import { CHART_FONT_FAMILY } from './font.js';
import { type RenderedChart, renderChart } from './render.js';

const HOUR_MS = 3_600_000;
/** At most three days of hours (a Monday digest after a weekend): wider bars get unreadable. */
const MAX_HOURS = 72;

export interface HourBar {
  slot: number;
  label: string;
  status: number | null;
  orders: number;
}

export interface HourlyChartData {
  /** The x axis: one label per hour of the window, oldest first. */
  labels: string[];
  bars: HourBar[];
  /** The day before's orders per slot, or null without a comparable summary. */
  previous: number[] | null;
  previousTotal: number | null;
  /** Overdue ship-by deadlines per slot (stored list only). */
  overdueBySlot: number[];
  overdue: number;
  due: number;
  /** Orders counted in the bars (those with a confirm time in the window). */
  total: number;
}

function hourLabels(from: number, hours: number, timeZone: string, withDay: boolean): string[] {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    ...(withDay ? { day: '2-digit' } : {}),
  });
  const labels: string[] = [];
  for (let i = 0; i < hours; i++) {
    const parts = format.formatToParts(new Date(from + i * HOUR_MS));
    const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
    const time = `${get('hour')}:${get('minute')}`;
    labels.push(withDay ? `${get('day')} ${time}` : time);
  }
  return labels;
}

/** The chart's numbers, from the summaries alone: pure, tested against the digest's figures. */
export function hourlyChartData(
  summary: DigestSummary,
  previous: DigestSummary | null,
  timeZone: string,
): HourlyChartData {
  const { from, to } = summary.window;
  const hours = Math.min(MAX_HOURS, Math.max(1, Math.ceil((to - from) / HOUR_MS)));
  const labels = hourLabels(from, hours, timeZone, hours > 24);
  const bars = (summary.byHour ?? [])
    .filter((h) => h.hour >= 0 && h.hour < hours)
    .map((h) => ({ slot: h.hour, label: labels[h.hour] as string, status: h.status, orders: h.orders }));
  let prev: number[] | null = null;
  if (previous?.byHour) {
    prev = new Array<number>(hours).fill(0);
    for (const h of previous.byHour)
      if (h.hour >= 0 && h.hour < hours) prev[h.hour] = (prev[h.hour] ?? 0) + h.orders;
  }
  const overdueBySlot = new Array<number>(hours).fill(0);
  for (const u of summary.urgent.list) {
    const slot = Math.floor((u.lastShipTime - from) / HOUR_MS);
    if (u.overdue && slot >= 0 && slot < hours) overdueBySlot[slot] = (overdueBySlot[slot] ?? 0) + 1;
  }
  return {
    labels,
    bars,
    previous: prev,
    previousTotal: previous ? previous.orders : null,
    overdueBySlot,
    overdue: summary.urgent.overdue,
    due: summary.urgent.total - summary.urgent.overdue,
    total: bars.reduce((n, b) => n + b.orders, 0),
  };
}

const STATUS_COLOURS: Record<string, string> = { '1': '#e8710a', '2': '#1a73e8', '3': '#188038' };
const OTHER_COLOUR = '#9aa0a6';

/** The Vega-Lite spec, every word from the reader's catalog. */
export function hourlyChartSpec(
  w: Words,
  data: HourlyChartData,
  timeZone: string,
  previousDate: string | null,
): TopLevelSpec {
  const statuses = [
    ...new Map(data.bars.map((b) => [b.status, orderStatusLabel(w, b.status)])).entries(),
  ].sort(([a], [b]) => (a ?? Number.MAX_SAFE_INTEGER) - (b ?? Number.MAX_SAFE_INTEGER));
  const legendTitle = w.t('table.status');
  const x = {
    field: 'label',
    type: 'ordinal' as const,
    sort: data.labels,
    scale: { domain: data.labels },
    title: w.t('chart.axisHour', { zone: w.zone(timeZone) }),
    axis: { labelAngle: -60, labelOverlap: true },
  };
  const layers: object[] = [
    {
      data: { values: data.bars.map((b) => ({ ...b, statusLabel: orderStatusLabel(w, b.status) })) },
      mark: { type: 'bar' },
      encoding: {
        x,
        y: {
          aggregate: 'sum',
          field: 'orders',
          type: 'quantitative',
          title: w.t('chart.axisOrders'),
          axis: { tickMinStep: 1, format: 'd' },
        },
        color: {
          field: 'statusLabel',
          type: 'nominal',
          title: legendTitle,
          scale: {
            domain: statuses.map(([, label]) => label),
            range: statuses.map(([code]) => STATUS_COLOURS[String(code)] ?? OTHER_COLOUR),
          },
        },
        order: { field: 'status', type: 'quantitative' },
      },
    },
  ];
  if (data.previous) {
    const label = w.t('chart.previousDay', { date: w.day(previousDate ?? '') });
    layers.push({
      data: {
        values: data.previous.map((orders, slot) => ({ label: data.labels[slot], orders, series: label })),
      },
      mark: { type: 'line', point: true, strokeDash: [4, 3], color: '#202124' },
      encoding: {
        x,
        y: { field: 'orders', type: 'quantitative' },
        strokeDash: { field: 'series', type: 'nominal', title: null },
      },
    });
  }
  const overdue = data.overdueBySlot.flatMap((n, slot) => (n > 0 ? [{ label: data.labels[slot], n }] : []));
  if (overdue.length > 0)
    layers.push({
      data: { values: overdue.map((o) => ({ ...o, mark: w.t('chart.overdueMark') })) },
      mark: { type: 'point', shape: 'triangle-down', filled: true, size: 90, yOffset: -8 },
      encoding: {
        x,
        y: { datum: 0 },
        fill: { field: 'mark', type: 'nominal', title: null, scale: { range: ['#d93025'] } },
      },
    });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 640,
    height: 300,
    background: '#ffffff',
    title: {
      text: w.t('chart.hourlyTitle'),
      subtitle: w.t('chart.shipBy', { overdue: w.count(data.overdue), due: w.count(data.due) }),
      anchor: 'start',
    },
    // Without a canvas Vega under-estimates CJK label widths: generous legend padding.
    config: { font: CHART_FONT_FAMILY, legend: { orient: 'top', columnPadding: 48 }, view: { stroke: null } },
    layer: layers,
    resolve: { scale: { y: 'shared' } },
  } as TopLevelSpec;
}

/** Alt text in the reader's language: the figures a sighted reader takes from the picture. */
export function hourlyChartAlt(w: Words, data: HourlyChartData): string {
  if (data.total === 0) return w.t('chart.altEmpty');
  const perSlot = new Array<number>(data.labels.length).fill(0);
  for (const b of data.bars) perSlot[b.slot] = (perSlot[b.slot] ?? 0) + b.orders;
  const peak = perSlot.reduce((best, n, i) => (n > (perSlot[best] ?? 0) ? i : best), 0);
  return w.t('chart.alt', {
    count: data.total,
    n: w.count(data.total),
    peak: data.labels[peak],
    peakOrders: w.count(perSlot[peak] ?? 0),
    previous: data.previousTotal === null ? '' : w.t('chart.altPrevious', { n: w.count(data.previousTotal) }),
    shipBy: w.t('chart.shipBy', { overdue: w.count(data.overdue), due: w.count(data.due) }),
  });
}

export interface DigestChart extends RenderedChart {
  data: HourlyChartData;
  alt: string;
  title: string;
}

/** The digest's chart in the reader's language, or null when the summary has no hourly figures. */
export async function renderDigestChart(w: Words, post: DigestPost): Promise<DigestChart | null> {
  if (!post.summary.byHour) return null;
  const tz = post.subscription.timeZone;
  const data = hourlyChartData(post.summary, post.previous?.summary ?? null, tz);
  const chart = await renderChart(hourlyChartSpec(w, data, tz, post.previous?.localDate ?? null));
  return {
    ...chart,
    data,
    alt: hourlyChartAlt(w, data),
    title: w.t('chart.fileTitle', { date: w.day(post.run.localDate) }),
  };
}
