/**
 * Table blocks (issue 26) within Slack's documented limits in both languages: the digest's
 * by-status table (aligned figures, en and zh-CN headers, the lines kept in the fallback text),
 * and a table over 100 rows split into pages with the header row again.
 */
import { describe, expect, it } from 'vitest';
import { renderDigest, renderDigestThread } from '../../src/blocks/digest.js';
import { renderPlatdeskResult } from '../../src/blocks/platdesk.js';
import { TABLE_LIMITS, tableBlocks } from '../../src/blocks/table.js';
import { dayOfOrders, digestPost } from '../charts/digest-fixture.js';
import { blockKitProblems } from '../helpers/block-kit/check.js';
import { en, zh } from '../helpers/words.js';

const cells = (row: unknown) => (row as { text: string }[]).map((c) => c.text);

describe('digest by-status table', () => {
  for (const [w, head, total] of [
    [en, ['Status', 'Orders', 'Amount', 'Share'], 'Total'],
    [zh, ['状态', '订单数', '金额', '占比'], '合计'],
  ] as const) {
    it(`${w.locale}: one table, headers, a row per status and a total; figures are the digest's`, () => {
      const post = digestPost(dayOfOrders(120), null);
      for (const m of [renderDigest(w, post), renderDigestThread(w, post).parent]) {
        expect(blockKitProblems(m)).toEqual([]);
        const tables = m.blocks.filter((b) => b.type === 'table');
        expect(tables).toHaveLength(1);
        const table = tables[0] as { rows: unknown[]; column_settings: { align: string }[] };
        expect(cells(table.rows[0])).toEqual(head);
        expect(table.column_settings.map((c) => c.align)).toEqual(['left', 'right', 'right', 'right']);
        const body = table.rows.slice(1).map(cells);
        expect(body).toHaveLength(post.summary.byStatus.length + 1);
        post.summary.byStatus.forEach((r, i) => {
          expect(body[i]?.[1]).toBe(w.count(r.orders));
          expect(body[i]?.[2]).toBe(w.yuan(r.amountFen / 100));
        });
        expect(body.at(-1)?.slice(0, 3)).toEqual([total, w.count(120), w.yuan(post.summary.amountFen / 100)]);
        expect(body.at(-1)?.[3]).toBe('100%');
        // Today's lines stay in the fallback text, for notifications and clients without tables.
        expect(m.text).toContain(w.locale === 'en' ? 'Awaiting shipment: ' : '待发货：');
      }
    });
  }

  it('no orders: no table (the "no orders" line instead)', () => {
    const m = renderDigest(en, digestPost([], null));
    expect(m.blocks.some((b) => b.type === 'table')).toBe(false);
    expect(blockKitProblems(m)).toEqual([]);
  });
});

describe('tableBlocks', () => {
  it('splits 250 rows into tables of at most 100 rows, the header row repeated, nothing lost', () => {
    const rows = Array.from({ length: 250 }, (_, i) => [`SN-${i}`, String(i)]);
    const tables = tableBlocks([{ header: '订单号' }, { header: '数量', align: 'right' }], rows);
    expect(tables).toHaveLength(3);
    for (const t of tables) {
      expect(t.rows.length).toBeLessThanOrEqual(TABLE_LIMITS.rows);
      expect(cells(t.rows[0])).toEqual(['订单号', '数量']);
      expect(blockKitProblems({ text: 'x', blocks: [t] })).toEqual([]);
    }
    expect(tables.flatMap((t) => t.rows.slice(1).map((r) => cells(r)[0]))).toEqual(rows.map((r) => r[0]));
  });

  it('cuts to 20 columns, fills empty cells, clips long cells; the checker refuses what Slack refuses', () => {
    const columns = Array.from({ length: 25 }, (_, i) => ({ header: `c${i}` }));
    const [t] = tableBlocks(columns, [['', 'x'.repeat(500)]]);
    expect(t?.rows[0]).toHaveLength(20);
    expect(cells(t?.rows[1])[0]).toBe('—');
    expect(cells(t?.rows[1])[1]).toHaveLength(TABLE_LIMITS.cellText);
    expect(blockKitProblems({ text: 'x', blocks: [t] })).toEqual([]);
  });
});

describe('spend report table', () => {
  const report = {
    period: 'today' as const,
    from: new Date('2026-11-20T00:00:00Z'),
    to: new Date('2026-11-21T00:00:00Z'),
    timeZone: 'Asia/Shanghai',
    userId: null,
    totals: { points: 1234, calls: 30, quotaCalls: 4 },
    byOperation: [
      { key: 'orders.list', points: 1000, calls: 20, quotaCalls: 0 },
      { key: 'item.get', points: 234, calls: 10, quotaCalls: 4 },
    ],
    byUser: [{ key: 'U1', points: 1234, calls: 30, quotaCalls: 4 }],
    byDay: [],
    days: ['2026-11-20'],
  };
  for (const [w, head, total] of [
    [en, ['Operation', 'Points', 'Amount', 'Calls', 'Quota calls'], 'Total'],
    [zh, ['操作', '点数', '金额', '调用次数', '配额调用'], '合计'],
  ] as const) {
    it(`${w.locale}: by operation as one table with a total row; the lines stay in the fallback text`, () => {
      const m = renderPlatdeskResult(w, { kind: 'usage', report });
      expect(blockKitProblems(m)).toEqual([]);
      const tables = m.blocks.filter((b) => b.type === 'table') as { rows: unknown[] }[];
      expect(tables).toHaveLength(1);
      const rows = tables[0]?.rows.map(cells) ?? [];
      expect(rows[0]).toEqual(head);
      expect(rows).toHaveLength(4);
      expect(rows[3]).toEqual([total, w.count(1234), w.yuan(12.34), w.count(30), w.count(4)]);
      expect(rows[1]?.slice(1)).toEqual([w.count(1000), w.yuan(10), w.count(20), w.count(0)]);
      expect(m.text.split('\n').length).toBe(3);
    });
  }
});
