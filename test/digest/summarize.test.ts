/**
 * The digest's content by value (counts, sums, urgent order, flags, top goods, comparison, cost)
 * and the rendered message within Slack's limits, lists cut with "…and N more".
 */

import { describe, expect, it } from 'vitest';
import { renderDigest, renderDigestList, renderDigestNotice } from '../../src/blocks/digest.js';
import { compare, parseSummary, summarize } from '../../src/digest/summarize.js';
import type { DigestPost } from '../../src/digest/types.js';
import { PlatShopUnauthorizedError } from '../../src/plat/errors.js';
import type { Order } from '../../src/plat/types.js';
import type { DigestRun, DigestSubscription } from '../../src/store/store.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { makeDigestRun } from '../helpers/domain-factories.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { en } from '../helpers/words.js';

const HOUR = 3_600_000;
const AT = new Date('2026-11-20T01:00:00Z'); // 09:00 in Shanghai
const WINDOW = { from: new Date(AT.getTime() - 24 * HOUR), to: AT };

function order(sn: string, o: Partial<Order> = {}): Order {
  return {
    orderSn: sn,
    goodsName: 'T恤',
    goodsImage: null,
    goodsSpec: null,
    goodsCount: 1,
    payAmount: 10,
    status: 2,
    isPreSale: false,
    lastShipTime: new Date(AT.getTime() + 48 * HOUR),
    confirmTime: new Date(AT.getTime() - HOUR),
    remark: null,
    remarkTag: null,
    remarkTagName: null,
    ...o,
  };
}

const ORDERS: Order[] = [
  order('A1', { status: 1, payAmount: 59.9, lastShipTime: new Date(AT.getTime() + 5 * HOUR), goodsCount: 2 }),
  order('A2', { status: 1, payAmount: 0.1, lastShipTime: new Date(AT.getTime() + 2 * HOUR) }),
  order('A3', { status: 1, payAmount: 0.2, lastShipTime: new Date(AT.getTime() - HOUR) }), // overdue
  order('A4', { status: 1, lastShipTime: new Date(AT.getTime() + 30 * HOUR) }), // not within 24 h
  order('S1', { status: 2, lastShipTime: new Date(AT.getTime() + HOUR), goodsName: '茶', payAmount: 128 }), // shipped
  order('S2', {
    status: 3,
    isPreSale: true,
    goodsName: '茶',
    payAmount: 128,
    remarkTag: 1,
    remark: '请尽快发货',
  }),
  order('X1', { status: 4, remarkTag: 1, remarkTagName: '加急', remark: ' <b>not</b>   bold & fast ' }),
  order('X2', { status: null, isPreSale: true, remarkTag: 3, lastShipTime: null }),
];

describe('summarize', () => {
  const s = summarize(ORDERS, { window: WINDOW, at: AT });

  it('counts and sums in total and by status, in fen (no float drift)', () => {
    expect(s.orders).toBe(8);
    // 59.9 + 0.1 + 0.2 + 10 + 128 + 128 + 10 + 10 = 346.2
    expect(s.amountFen).toBe(34_620);
    expect(s.byStatus).toEqual([
      { status: 1, orders: 4, amountFen: 5990 + 10 + 20 + 1000 },
      { status: 2, orders: 1, amountFen: 12_800 },
      { status: 3, orders: 1, amountFen: 12_800 },
      { status: 4, orders: 1, amountFen: 1000 },
      { status: null, orders: 1, amountFen: 1000 },
    ]);
    expect(s.preSale).toBe(2);
  });

  it('lists orders to ship within 24 h, most urgent first, overdue ones first; shipped ones are left out', () => {
    expect(s.urgent.list.map((u) => [u.orderSn, u.overdue])).toEqual([
      ['A3', true],
      ['A2', false],
      ['A1', false],
    ]);
    expect(s.urgent.total).toBe(3);
    expect(s.urgent.overdue).toBe(1);
  });

  it('groups flagged orders by colour, with their remarks', () => {
    expect(s.flagged.total).toBe(3);
    expect(s.flagged.groups).toEqual([
      {
        tag: 1,
        orders: 2,
        list: [
          { orderSn: 'S2', tagName: null, remark: '请尽快发货' },
          { orderSn: 'X1', tagName: '加急', remark: '<b>not</b> bold & fast' },
        ],
      },
      { tag: 3, orders: 1, list: [{ orderSn: 'X2', tagName: null, remark: null }] },
    ]);
  });

  it('ranks goods by count and by amount', () => {
    expect(s.topGoodsByCount.map((g) => [g.name, g.count, g.orders, g.amountFen])).toEqual([
      ['T恤', 7, 6, 5990 + 10 + 20 + 1000 + 1000 + 1000],
      ['茶', 2, 2, 25_600],
    ]);
    expect(s.topGoodsByAmount.map((g) => g.name)).toEqual(['茶', 'T恤']);
    expect(s.goodsKinds).toBe(2);
  });

  it('round-trips through the stored JSON and compares with the day before', () => {
    const stored = parseSummary(JSON.stringify(s));
    expect(stored).toEqual(s);
    expect(parseSummary('{"version":2}')).toBeNull();
    expect(parseSummary('not json')).toBeNull();
    const before = summarize(ORDERS.slice(0, 3), { window: WINDOW, at: AT });
    expect(compare(s, before)).toEqual({ orders: 5, amountFen: 34_620 - 6020 });
  });
});

const SUB: DigestSubscription = {
  id: 7,
  tenantId: '',
  ownerId: '2200001001',
  shopLabel: 'bee',
  channelId: 'C1234',
  localTime: '09:00',
  timeZone: 'Asia/Shanghai',
  createdBy: 'UADMIN',
  createdAt: new Date(0),
  times: ['09:00'],
  days: null,
  layout: 'single',
  flags: null,
  statuses: null,
};

function runOf(o: Partial<DigestRun> = {}): DigestRun {
  return makeDigestRun({
    windowStart: WINDOW.from,
    windowEnd: WINDOW.to,
    state: 'posting',
    leaseOwner: 'me',
    createdAt: AT,
    updatedAt: AT,
    ...o,
  });
}

describe('renderDigest', () => {
  it('states totals, the comparison, the urgent list in order, flags, goods and the cost; escapes API text', () => {
    const summary = summarize(ORDERS, { window: WINDOW, at: AT });
    const previous = summarize(ORDERS.slice(0, 3), { window: WINDOW, at: AT });
    const post: DigestPost = {
      subscription: SUB,
      run: runOf(),
      summary,
      previous: { localDate: '2026-11-19', summary: previous },
      cost: { points: 4, calls: 2 },
    };
    const m = renderDigest(en, post);
    assertWithinSlackLimits(m.blocks);
    const text = textOf(m);
    expect(text).toContain('Daily orders · bee · 2026-11-20');
    expect(text).toContain('2026-11-19 09:00 – 2026-11-20 09:00 (Beijing time)');
    expect(text).toMatch(/\*Orders\*\n8 {2}\(▲ 5 vs 2026-11-19\)/);
    expect(text).toContain('¥346.20');
    expect(text).toContain('▲ ¥286.00 vs 2026-11-19');
    expect(text).toContain('*Pre-sale*\n2');
    expect(text).toContain('*To ship within 24 h*\n3 (1 overdue)');
    const a3 = text.indexOf('`A3`');
    const a2 = text.indexOf('`A2`');
    const a1 = text.indexOf('`A1`');
    expect(a3).toBeGreaterThan(-1);
    expect(a3).toBeLessThan(a2);
    expect(a2).toBeLessThan(a1);
    expect(text).toContain('`A2` — ship by 2026-11-20 11:00 (in 2 h)');
    expect(text).toContain('overdue* since 2026-11-20 08:00');
    expect(text).not.toContain('`A4`');
    expect(text).toContain('🔴 red flag (2)');
    expect(text).toContain('`X1` · 加急 — &lt;b&gt;not&lt;/b&gt; bold &amp; fast');
    expect(text).toContain('🟢 green flag (1)');
    expect(text).toContain('Awaiting shipment: 4 orders');
    expect(text).toContain('1. T恤 × 7');
    expect(text).toContain('This digest cost 4 points (¥0.04) in 2 calls');
    expect(text).not.toContain('<b>');
  });

  it('stays within Slack limits with hundreds of urgent and flagged orders, saying how many more', () => {
    const many = Array.from({ length: 600 }, (_, i) =>
      order(`N${String(i).padStart(4, '0')}`, {
        status: 1,
        lastShipTime: new Date(AT.getTime() + (i % 20) * HOUR),
        remarkTag: 1 + (i % 5),
        remarkTagName: 'x'.repeat(60),
        remark: '很长的备注'.repeat(100),
        goodsName: `商品 ${i % 40} ${'名'.repeat(200)}`,
      }),
    );
    const summary = summarize(many, { window: WINDOW, at: AT });
    expect(summary.urgent.total).toBe(600);
    expect(summary.urgent.list).toHaveLength(100);
    const m = renderDigest(en, {
      subscription: SUB,
      run: runOf(),
      summary,
      previous: null,
      cost: { points: 12, calls: 6 },
    });
    assertWithinSlackLimits(m.blocks);
    const text = textOf(m);
    const more = /…and (\d+) more to ship within 24 h/.exec(text);
    expect(more).not.toBeNull();
    const shown = (text.match(/— ship by |overdue\* since/g) ?? []).length;
    expect(shown + Number(more?.[1])).toBe(600);
    expect(text).toMatch(/…and \d+ more 🔴 red flag orders/);
    expect(text).toContain('This digest cost 12 points');
  });

  it('an empty day says so', () => {
    const summary = summarize([], { window: WINDOW, at: AT });
    const m = renderDigest(en, {
      subscription: SUB,
      run: runOf(),
      summary,
      previous: null,
      cost: { points: 2, calls: 1 },
    });
    assertWithinSlackLimits(m.blocks);
    expect(textOf(m)).toContain('No orders were confirmed in this period.');
  });
});

describe('notices and the list', () => {
  it('a failure notice names the reason and the next attempt in the zone; a final one says no more today', () => {
    const error = new PlatShopUnauthorizedError(302, 'not authorized', null, { operation: 'paging-orders' });
    const retrying = renderDigestNotice(en, {
      kind: 'failed',
      subscription: SUB,
      run: runOf(),
      error,
      nextAttemptAt: new Date(AT.getTime() + 5 * 60_000),
    });
    expect(textOf(retrying)).toContain(
      'could not be prepared: The shop has not authorized platdesk. Trying again at 09:05',
    );
    const final = renderDigestNotice(en, {
      kind: 'failed',
      subscription: SUB,
      run: runOf(),
      error,
      nextAttemptAt: null,
    });
    expect(textOf(final)).toContain('No more attempts today');
  });

  it('the list fits with many subscriptions', () => {
    const rows = Array.from({ length: 80 }, (_, i) => ({
      subscription: { ...SUB, id: i + 1 },
      nextRunAt: AT.getTime(),
      lastRun: i % 2 ? runOf({ state: 'posted' }) : null,
    }));
    const m = renderDigestList(en, rows);
    assertWithinSlackLimits(m.blocks);
    expect(textOf(m)).toContain('…and 32 more');
  });
});
