/**
 * The App Home's spend chart (issue 26): its numbers are the usage report's (points per day and
 * operation, every day of the 30), the daily cap is drawn as a line, zh-CN labels are in the SVG
 * before rasterising, the PNG decodes with ink on it, and the cache key changes exactly when the
 * input (figures or language) does.
 */
import { describe, expect, it } from 'vitest';
import { renderSpendChart, spendChartData, spendChartKey } from '../../src/charts/spend-days.js';
import type { UsageReport } from '../../src/lookups/reports.js';
import { decodePng } from '../helpers/png.js';
import { en, zh } from '../helpers/words.js';

const days = Array.from({ length: 30 }, (_, i) => {
  const d = new Date(Date.UTC(2026, 9, 28 + i));
  return d.toISOString().slice(0, 10);
});

function report(): UsageReport {
  const spend = [
    { day: days[3] as string, ops: { 'paging-orders': 40, platdybw: 12 } },
    { day: days[17] as string, ops: { 'paging-orders': 90 } },
    { day: days[29] as string, ops: { platiteminfo: 6, platdybw: 30 } },
  ];
  const byDay = spend.map(({ day, ops }) => {
    const byOperation = Object.entries(ops).map(([key, points]) => ({
      key,
      points,
      calls: 1,
      quotaCalls: 0,
    }));
    const points = byOperation.reduce((n, g) => n + g.points, 0);
    return { key: day, points, calls: byOperation.length, quotaCalls: 0, byOperation };
  });
  const points = byDay.reduce((n, d) => n + d.points, 0);
  return {
    period: 'last30',
    from: new Date(`${days[0]}T00:00:00+08:00`),
    to: new Date(`${days[29]}T24:00:00+08:00`),
    timeZone: 'Asia/Shanghai',
    userId: null,
    totals: { points, calls: 5, quotaCalls: 0 },
    byOperation: [],
    byUser: [],
    byDay,
    days,
  };
}

describe('spend chart data', () => {
  it('every day of the 30, each day’s points by operation as the report has them, and the cap', () => {
    const r = report();
    const data = spendChartData(r, 80);
    expect(data.days).toEqual(days);
    expect(data.perDay).toHaveLength(30);
    expect(data.perDay.reduce((n, p) => n + p, 0)).toBe(r.totals.points);
    for (const d of r.byDay) {
      expect(data.perDay[days.indexOf(d.key)]).toBe(d.points);
      for (const g of d.byOperation)
        expect(data.bars.find((b) => b.day === d.key && b.operation === g.key)?.points).toBe(g.points);
    }
    expect(data.perDay.filter((p) => p === 0)).toHaveLength(27);
    expect(data.dailyCap).toBe(80);
  });

  it('the cache key follows the input: same figures and language, same key; else another', () => {
    const a = spendChartData(report(), 80);
    expect(spendChartKey(en, a)).toBe(spendChartKey(en, spendChartData(report(), 80)));
    expect(spendChartKey(zh, a)).not.toBe(spendChartKey(en, a));
    expect(spendChartKey(en, spendChartData(report(), 100))).not.toBe(spendChartKey(en, a));
    const more = report();
    (more.byDay[0] as { points: number }).points += 1;
    expect(spendChartKey(en, spendChartData(more, 80))).not.toBe(spendChartKey(en, a));
  });
});

describe('spend chart rendering', () => {
  it('zh-CN: Chinese labels in the SVG, the cap line, a PNG with ink; alt text with the figures', async () => {
    const chart = await renderSpendChart(zh, spendChartData(report(), 80));
    for (const label of ['近 30 天每日扣费点数', '点数', '每日上限：80 点', '面单打印数据', '商品详情'])
      expect(chart.svg, label).toContain(label);
    expect(chart.svg).not.toContain('Points per day');
    expect(chart.alt).toContain('共 178 点');
    // Days as the Chinese catalog writes them (2026年11月14日).
    const [y, m, d] = String(days[17]).split('-').map(Number);
    expect(chart.alt).toContain(`最多的一天是 ${y}年${m}月${d}日，90 点`);
    expect(chart.alt).toContain('每日上限 80 点，有 1 天达到');
    const png = decodePng(chart.png);
    expect(png.width).toBe(1000);
    expect(png.height).toBeGreaterThan(250);
    let ink = 0;
    let capRed = 0;
    for (let i = 0; i < png.pixels.length; i += png.channels) {
      const [r, g, b] = [png.pixels[i] ?? 0, png.pixels[i + 1] ?? 0, png.pixels[i + 2] ?? 0];
      if (r < 240 || g < 240 || b < 240) ink++;
      if (r === 0xd9 && g === 0x30 && b === 0x25) capRed++;
    }
    expect(ink / (png.width * png.height)).toBeGreaterThan(0.02);
    expect(capRed).toBeGreaterThan(50);
  });

  it('en, no cap set: no cap line, the alt text says so', async () => {
    const chart = await renderSpendChart(en, spendChartData(report(), null));
    expect(chart.svg).toContain('Points per day, last 30 days');
    expect(chart.svg).not.toContain('Daily cap');
    expect(chart.alt).toContain('178 points in all');
    expect(chart.alt).toContain('no daily cap is set');
  });
});
