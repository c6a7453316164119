import type { ActionsBlock, Button, HeaderBlock, KnownBlock, TableBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import {
  flagLabel,
  type OrdersOutcome,
  orderStatusLabel,
  pagerPages,
  renderOrdersPage,
  shippingFlag,
} from '../../src/blocks/orders.js';
import type { Quote } from '../../src/lookups/types.js';
import { blockKitProblems } from '../helpers/block-kit/check.js';
import {
  HOUR,
  makeOrder,
  makeOrdersOutcome,
  makeQuote,
  makeQuoteLine,
  NOW,
  OWNER_ID,
} from '../helpers/domain-factories.js';
import { en, zh } from '../helpers/words.js';
import { allText, HOSTILE } from './render-fixtures.js';

const options = {
  charge: { chargedPoints: 2, quotaCalls: 0 },
  now: NOW,
  nextQuote: makeQuote([
    makeQuoteLine({ operation: 'paging-orders', configuredPoints: 2, lastSeenPoints: null }),
  ]),
};

/** Renders with the pager the Slack layer would prepare: one pending id per page offered. */
function render(
  outcome: OrdersOutcome,
  o: Omit<typeof options, 'nextQuote'> & { nextQuote: Quote | null } = options,
  w = en,
) {
  const pages = pagerPages(outcome);
  const id = (page: number | null) => (page === null ? null : `pg_1:${page}`);
  return renderOrdersPage(w, outcome, {
    ...o,
    pager: { previous: id(pages.previous), next: id(pages.next) },
  });
}

function pagers(blocks: KnownBlock[]): Button[] {
  return (blocks.find((b): b is ActionsBlock => b.type === 'actions')?.elements ?? []) as Button[];
}

describe('renderOrdersPage', () => {
  it('shows the owner, the page, and one compact entry per order', () => {
    const order = makeOrder(1, {
      orderSn: '261121-555',
      goodsName: 'Linen shirt',
      goodsSpec: 'White, XL',
      goodsCount: 2,
      payAmount: 118,
      status: 1,
      isPreSale: true,
      confirmTime: new Date('2026-11-20T06:03:00Z'),
      lastShipTime: new Date(NOW.getTime() + 5 * HOUR),
      remark: 'gift wrap please',
      remarkTag: 1,
      remarkTagName: 'VIP',
    });
    const outcome = makeOrdersOutcome([order], { page: 1, pageSize: 100, totalElements: 350 });
    const message = render(outcome);
    const { text, blocks } = message;
    expect(blockKitProblems(message)).toEqual([]);
    expect((blocks[0] as HeaderBlock).text.text).toBe(`Orders of ${OWNER_ID}`);
    expect(allText(blocks)).toContain('page 2 of 4, 350 orders');
    // Issue 26: the order is a row of the page's table, figures right-aligned.
    const tables = blocks.filter((b) => b.type === 'table') as unknown as TableBlock[];
    expect(tables).toHaveLength(1);
    const rows = tables[0]?.rows.map((r) => r.map((c) => (c as { text: string }).text));
    expect(rows).toEqual([
      ['Order', 'Status', 'Goods', 'Qty', 'Amount', 'Ship by (Beijing time)', 'Flag', 'Remark'],
      [
        '261121-555',
        'Awaiting shipment · Pre-sale',
        'Linen shirt — White, XL',
        '2',
        '¥118.00',
        '⚠️ ship within 24 h 2026-11-21 17:00',
        '🔴 red flag: VIP',
        'gift wrap please',
      ],
    ]);
    expect(tables[0]?.column_settings?.map((c) => c?.align)).toEqual([
      'left',
      'left',
      'left',
      'right',
      'right',
      'left',
      'left',
      'left',
    ]);
    // Today's entry is the fallback text (notifications, clients without tables), cut at 300.
    expect(text).toBe(
      [
        `Orders of ${OWNER_ID}: page 2 of 4, 350 orders`,
        [
          '*Order* `261121-555` · Awaiting shipment · 🔴 red flag: VIP · Pre-sale',
          'Linen shirt — White, XL × 2 · ¥118.00',
          'Confirmed 2026-11-20 14:03 (Beijing time) · ship by 2026-11-21 17:00 (Beijing time) · *⚠️ ship within 24 h*',
          'Remark: gift wrap please',
        ].join('\n'),
      ].join('\n\n'),
    );
  });

  it('has Previous and Next buttons stating the charge of that page', () => {
    const outcome = makeOrdersOutcome([makeOrder(0)], { page: 1, totalElements: 350 });
    const [prev, next] = pagers(render(outcome).blocks);
    expect(prev).toMatchObject({
      action_id: ACTIONS.ordersPrev,
      value: 'pg_1:0',
      text: { text: '◀ Previous (2 points)' },
    });
    expect(next).toMatchObject({
      action_id: ACTIONS.ordersNext,
      value: 'pg_1:2',
      text: { text: 'Next ▶ (2 points)' },
    });
  });

  it('a page past the last (issue 35): says so with the count, never "page 2 of 1"; the pager offers the last page, never one past it', () => {
    const past = makeOrdersOutcome([], { page: 4, pageSize: 50, totalElements: 20, totalPages: 1 });
    expect(pagerPages(past)).toEqual({ previous: 0, next: null });
    const said = allText(render(past).blocks);
    expect(said).toContain('Page 5 is past the last page: 20 orders fit on 1 page of 50.');
    expect(said).not.toContain('of 1,');
    expect(allText(render(past, options, zh).blocks)).toContain(
      '第 5 页超出了最后一页：共 20 单，每页 50 单，只有 1 页。',
    );
    // Within the pages, as before.
    expect(pagerPages(makeOrdersOutcome([], { page: 1, pageSize: 50, totalElements: 120 }))).toEqual({
      previous: 0,
      next: 2,
    });
  });

  it('has no Previous on the first page, no Next on the last, no charge when the quote is unknown', () => {
    const first = render(makeOrdersOutcome([makeOrder(0)], { page: 0, totalElements: 150 }), {
      ...options,
      nextQuote: null,
    });
    expect(pagers(first.blocks).map((b) => b.text.text)).toEqual(['Next ▶']);
    const last = render(makeOrdersOutcome([makeOrder(0)], { page: 1, totalElements: 150 }));
    expect(pagers(last.blocks).map((b) => b.action_id)).toEqual([ACTIONS.ordersPrev]);
    const only = render(makeOrdersOutcome([], { totalElements: 0, totalPages: 0 }));
    expect(pagers(only.blocks)).toEqual([]);
    expect(allText(only.blocks)).toContain('page 1 of 1, 0 orders');
    expect(allText(only.blocks)).toContain('No orders found.');
  });

  it('shows the filters', () => {
    const outcome = {
      ...makeOrdersOutcome([makeOrder(0)]),
      filters: {
        startTime: new Date('2026-11-19T16:00:00Z'),
        endTime: new Date('2026-11-20T16:00:00Z'),
        remark: 'gift <b>',
        remarkTag: 4,
      },
    };
    expect(allText(render(outcome).blocks)).toContain(
      'Filters: from 2026-11-20 00:00 (Beijing time), to 2026-11-21 00:00 (Beijing time), remark “gift &lt;b&gt;”, 🔵 blue flag',
    );
  });

  it('fits 100 orders with long names and remarks, escaped, each one shown or counted', () => {
    const orders = Array.from({ length: 100 }, (_, i) =>
      makeOrder(i, {
        goodsName: `${HOSTILE} ${'long goods name '.repeat(40)}`,
        goodsSpec: 'spec '.repeat(100),
        remark: `${HOSTILE} ${'remark '.repeat(200)}`,
        remarkTag: (i % 5) + 1,
        remarkTagName: 'tag'.repeat(50),
      }),
    );
    const message = render(makeOrdersOutcome(orders, { page: 0, totalElements: 1000 }));
    const { blocks } = message;
    expect(blockKitProblems(message)).toEqual([]);
    const all = allText(blocks);
    expect(all).not.toMatch(/<[!@]/);
    // As many as fit one table (rows and characters), the rest as today's entries or counted.
    const [table, ...others] = blocks.filter((b) => b.type === 'table') as unknown as TableBlock[];
    expect(others).toHaveLength(0);
    const inTable = (table?.rows.length ?? 1) - 1;
    expect(inTable).toBeGreaterThan(0);
    expect(inTable).toBeLessThan(100);
    const shown = all.split('\n').filter((l) => l.startsWith('*Order* ')).length;
    const more = /…and (\d+) more on this page/.exec(all);
    expect(inTable + shown + Number(more?.[1] ?? 0)).toBe(100);
    expect(table?.rows.slice(1).map((r) => (r[0] as { text: string }).text)).toEqual(
      orders.slice(0, inTable).map((o) => o.orderSn),
    );
  });

  it('never shows receiver data, even if an order object carried some', () => {
    const leaky = {
      ...makeOrder(0),
      receiverName: 'Zhang San',
      receiver_phone: '13800000000',
      address: 'Example Road',
    };
    const all = allText(render(makeOrdersOutcome([leaky])));
    for (const secret of ['Zhang San', '13800000000', 'Example Road']) expect(all).not.toContain(secret);
  });
});

describe('order labels', () => {
  it('labels statuses and keeps unknown codes raw', () => {
    expect(orderStatusLabel(en, 1)).toBe('Awaiting shipment');
    expect(orderStatusLabel(en, 2)).toBe('Shipped');
    expect(orderStatusLabel(en, 3)).toBe('Received');
    expect(orderStatusLabel(en, 7)).toBe('other status (7)');
    expect(orderStatusLabel(en, null)).toBe('Status not given');
  });

  it('labels flags with their colour and name', () => {
    expect(flagLabel(en, 1, null)).toBe('🔴 red flag');
    expect(flagLabel(en, 2, 'check')).toBe('🟡 yellow flag: check');
    expect(flagLabel(en, 3, null)).toBe('🟢 green flag');
    expect(flagLabel(en, 4, null)).toBe('🔵 blue flag');
    expect(flagLabel(en, 5, '<b>')).toBe('🟣 purple flag: &lt;b&gt;');
    expect(flagLabel(en, 9, null)).toBe('flag 9');
    expect(flagLabel(en, null, null)).toBeNull();
  });

  it('flags the shipping deadline', () => {
    const at = (hours: number) => new Date(NOW.getTime() + hours * HOUR);
    expect(shippingFlag({ status: 1, lastShipTime: at(5) }, NOW)).toBe('ship_within_24h');
    expect(shippingFlag({ status: 1, lastShipTime: at(24) }, NOW)).toBe('ship_within_24h');
    expect(shippingFlag({ status: 1, lastShipTime: at(25) }, NOW)).toBeNull();
    expect(shippingFlag({ status: 1, lastShipTime: at(-1) }, NOW)).toBe('overdue');
    expect(shippingFlag({ status: 1, lastShipTime: at(0) }, NOW)).toBe('overdue');
    expect(shippingFlag({ status: 2, lastShipTime: at(-1) }, NOW)).toBeNull();
    expect(shippingFlag({ status: 2, lastShipTime: at(5) }, NOW)).toBeNull();
    expect(shippingFlag({ status: 1, lastShipTime: null }, NOW)).toBeNull();
  });
});
