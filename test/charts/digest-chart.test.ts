/**
 * The digest's chart (issue 26): its numbers are the digest's, its zh-CN labels are in the SVG
 * before rasterising, the PNG decodes to a picture of the right size with ink on it, and nothing
 * of the orders but counts reaches it.
 */
import { describe, expect, it } from 'vitest';
import { hourlyChartData, renderDigestChart } from '../../src/charts/digest-hours.js';
import { decodePng } from '../helpers/png.js';
import { en, zh } from '../helpers/words.js';
import { dayOfOrders, digestPost, HOUR, WINDOW } from './digest-fixture.js';

describe('digest chart data', () => {
  it('counts every order of the digest once, by hour and status, and the day before as a line', () => {
    const post = digestPost(
      dayOfOrders(120),
      dayOfOrders(80, 3, new Date(WINDOW.from.getTime() - 24 * HOUR)),
    );
    const data = hourlyChartData(post.summary, post.previous?.summary ?? null, 'Asia/Shanghai');
    expect(data.labels).toHaveLength(24);
    expect(data.labels[0]).toBe('09:00');
    // Every order has a confirm time in the window: the bars add up to the digest's order count …
    expect(data.total).toBe(post.summary.orders);
    // … and per status to the digest's by-status figures.
    for (const row of post.summary.byStatus) {
      const inBars = data.bars.filter((b) => b.status === row.status).reduce((n, b) => n + b.orders, 0);
      expect(inBars, `status ${row.status}`).toBe(row.orders);
    }
    expect(data.previous?.reduce((a, b) => a + b, 0)).toBe(post.previous?.summary.orders);
    expect(data.previousTotal).toBe(80);
    expect(data.overdue).toBe(post.summary.urgent.overdue);
    expect(data.due).toBe(post.summary.urgent.total - post.summary.urgent.overdue);
    expect(data.overdueBySlot.reduce((a, b) => a + b, 0)).toBe(
      post.summary.urgent.list.filter((u) => u.overdue && u.lastShipTime >= post.summary.window.from).length,
    );
    expect(data.overdue).toBeGreaterThan(0);
  });

  it('draws no line without a day before, and no chart for a summary stored before byHour', async () => {
    const post = digestPost(dayOfOrders(5), null);
    expect(hourlyChartData(post.summary, null, 'UTC').previous).toBeNull();
    const { byHour: _, ...old } = post.summary;
    expect(await renderDigestChart(en, { ...post, summary: old })).toBeNull();
  });
});

describe('digest chart rendering', () => {
  it('zh-CN: the labels are Chinese in the SVG, the PNG decodes with ink, the alt text is Chinese', async () => {
    const post = digestPost(
      dayOfOrders(120),
      dayOfOrders(80, 3, new Date(WINDOW.from.getTime() - 24 * HOUR)),
    );
    const chart = await renderDigestChart(zh, post);
    if (!chart) throw new Error('no chart');
    for (const label of ['每小时订单', '订单数', '待发货', '已签收', '前一天（2026年11月19日）', '已超时'])
      expect(chart.svg).toContain(label);
    expect(chart.svg).not.toContain('Orders by hour');
    expect(chart.alt).toMatch(/^每小时订单柱状图，共 120 单/);
    expect(chart.alt).toContain('前一天共 80 单');

    const png = decodePng(chart.png);
    expect(png.width).toBe(1000);
    expect(png.width).toBe(chart.width);
    expect(png.height).toBe(chart.height);
    expect(png.height).toBeGreaterThan(300);
    // Ink: a real share of the pixels is not background white, and the status colours are there.
    let ink = 0;
    let orange = 0;
    for (let i = 0; i < png.pixels.length; i += png.channels) {
      const [r, g, b] = [png.pixels[i] ?? 0, png.pixels[i + 1] ?? 0, png.pixels[i + 2] ?? 0];
      if (r < 240 || g < 240 || b < 240) ink++;
      if (r === 0xe8 && g === 0x71 && b === 0x0a) orange++;
    }
    const total = png.width * png.height;
    expect(ink / total).toBeGreaterThan(0.03);
    expect(orange).toBeGreaterThan(100);
  });

  it('en: English labels and alt text; no order number, shop, remark or flag name in the picture', async () => {
    const post = digestPost(dayOfOrders(30), null);
    const chart = await renderDigestChart(en, post);
    if (!chart) throw new Error('no chart');
    expect(chart.svg).toContain('Orders by hour');
    expect(chart.svg).toContain('Awaiting shipment');
    expect(chart.alt).toMatch(
      /^Bar chart of orders by hour, 30 orders in all, busiest hour \d\d:00 with \d+;/,
    );
    for (const secret of ['SN-0', 'SECRET-SHOP', 'SECRET-REMARK', '2200001001']) {
      expect(chart.svg).not.toContain(secret);
      expect(chart.alt).not.toContain(secret);
    }
  });

  it('an empty window still renders, with an empty-window alt text', async () => {
    const chart = await renderDigestChart(en, digestPost([], null));
    if (!chart) throw new Error('no chart');
    expect(chart.alt).toBe('Bar chart of orders by hour: no orders in this window.');
    expect(decodePng(chart.png).width).toBe(1000);
  });
});
