/**
 * What a request will cost, before it is sent (DESIGN rule 2): the configured price for the
 * operation and edition (PLAT_PRICES, '*' for any edition) first, else the last charge seen;
 * waybills go in batches of 20; the item operations cost calls of the quota, not points.
 */
import { describe, expect, it } from 'vitest';
import type { PriceTable } from '../../src/config.js';
import { configuredPrice, type PriceSources, plannedCalls, quote } from '../../src/lookups/quote.js';
import type { LookupRequest, WaybillRef } from '../../src/lookups/types.js';
import { OPERATIONS, type Operation } from '../../src/plat/operations.js';

const waybills = (n: number): WaybillRef[] =>
  Array.from({ length: n }, (_, i) => ({ waybillCode: `YT${String(i).padStart(13, '0')}`, carrier: 'YTO' }));

function sources(
  prices: PriceTable,
  lastSeen: Partial<Record<Operation, Record<string, number>>> = {},
  editions: Partial<Record<Operation, number>> = {},
): PriceSources {
  return {
    prices,
    lastCharge: (operation, edition) => lastSeen[operation]?.[String(edition)] ?? null,
    editionFor: (operation) => editions[operation] ?? OPERATIONS[operation].defaultEdition,
  };
}

const print = (n: number): LookupRequest => ({
  kind: 'waybill-print',
  shopId: '57301234',
  waybills: waybills(n),
});

describe('configuredPrice', () => {
  const prices: PriceTable = { platdybw: { '1': 5, '*': 9 }, 'get-shop-id': { '*': 2 } };

  it('the price of the edition wins over "*"; "*" covers the other editions', async () => {
    expect(configuredPrice(prices, 'platdybw', 1)).toBe(5);
    expect(configuredPrice(prices, 'platdybw', 3)).toBe(9);
  });

  it('"*" covers operations without editions; nothing configured is null', async () => {
    expect(configuredPrice(prices, 'get-shop-id', null)).toBe(2);
    expect(configuredPrice(prices, 'platdzmd', 1)).toBeNull();
    expect(configuredPrice({ platdybw: { '3': 8 } }, 'platdybw', 1)).toBeNull();
  });
});

describe('plannedCalls: batches of at most 20 waybills (spec §8)', () => {
  it.each([
    [1, 1],
    [20, 1],
    [21, 2],
    [40, 2],
    [45, 3],
    [200, 10],
  ])('%i waybills → %i calls', (n, calls) => {
    expect(plannedCalls(print(n))).toEqual([{ operation: 'platdybw', calls }]);
    expect(plannedCalls({ kind: 'waybill-info', ownerId: 'o', waybills: waybills(n) })).toEqual([
      { operation: 'platdzmd', calls },
    ]);
  });
});

describe('quote', () => {
  it('configured price per edition × calls', async () => {
    const q = quote(print(45), sources({ platdybw: { '1': 5, '*': 9 } }));
    expect(q).toEqual({
      lines: [
        {
          operation: 'platdybw',
          edition: 1,
          calls: 3,
          unit: 'points',
          configuredPoints: 5,
          lastSeenPoints: null,
        },
      ],
      totalPoints: 15,
      quotaCalls: 0,
    });
  });

  it("'*' applies to the edition the client sends", async () => {
    const q = quote(print(20), sources({ platdybw: { '1': 5, '*': 9 } }, {}, { platdybw: 3 }));
    expect(q.lines[0]).toMatchObject({ edition: 3, configuredPoints: 9 });
    expect(q.totalPoints).toBe(9);
  });

  it('the last charge seen when nothing is configured, and configured first when both are known', () => {
    const shopInfo: LookupRequest = {
      kind: 'shop-info',
      url: 'https://item.taobao.com/item.htm?id=1',
      shopType: '0',
    };
    const seen = { 'get-shop-info': { '1': 10 } };
    expect(quote(shopInfo, sources({}, seen))).toMatchObject({
      lines: [{ configuredPoints: null, lastSeenPoints: 10 }],
      totalPoints: 10,
    });
    expect(quote(shopInfo, sources({ 'get-shop-info': { '*': 12 } }, seen))).toMatchObject({
      lines: [{ configuredPoints: 12, lastSeenPoints: 10 }],
      totalPoints: 12,
    });
  });

  it('a price seen for another edition does not count', async () => {
    const q = quote(
      { kind: 'orders', ownerId: 'o', page: 0, pageSize: 20, filters: {} },
      sources({}, { 'paging-orders': { '2': 1 } }),
    );
    expect(q.lines[0]).toMatchObject({ operation: 'paging-orders', edition: 1, lastSeenPoints: null });
    expect(q.totalPoints).toBeNull();
  });

  it('unknown price → totalPoints null', async () => {
    expect(quote({ kind: 'shop-id', wwid: 'x' }, sources({})).totalPoints).toBeNull();
    expect(quote(print(3), sources({})).totalPoints).toBeNull();
  });

  it('item operations are quota lines: "1 call of the quota", no points', () => {
    expect(quote({ kind: 'item', itemId: '1', withPrices: false }, sources({}))).toEqual({
      lines: [
        {
          operation: 'platiteminfo',
          edition: null,
          calls: 1,
          unit: 'quota',
          configuredPoints: null,
          lastSeenPoints: null,
        },
      ],
      totalPoints: 0,
      quotaCalls: 1,
    });
    const withPrices = quote({ kind: 'item', itemId: '1', withPrices: true }, sources({}));
    expect(withPrices.lines.map((l) => [l.operation, l.unit])).toEqual([
      ['platiteminfo', 'quota'],
      ['platiteminfoprice', 'quota'],
    ]);
    expect(withPrices).toMatchObject({ totalPoints: 0, quotaCalls: 2 });
    expect(quote({ kind: 'item-prices', itemId: '1' }, sources({}))).toMatchObject({
      totalPoints: 0,
      quotaCalls: 1,
    });
  });
});
