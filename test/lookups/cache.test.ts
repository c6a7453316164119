/**
 * The answer cache: a lifetime per operation (0 = never cached), a request lives as long as its
 * shortest-lived operation, the oldest entries go first when it is full.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLookupCache, requestKey } from '../../src/lookups/cache.js';
import { DEFAULT_CACHE_TTL_S } from '../../src/lookups/settings.js';
import type { LookupOutcome, LookupRequest } from '../../src/lookups/types.js';
import type { Operation } from '../../src/plat/operations.js';
import { openStore } from '../../src/store/engine.js';
import type { Store } from '../../src/store/store.js';
import { makeItem, makeItemPrices, makeOrder, makeOrdersOutcome } from '../helpers/domain-factories.js';

const SECOND = 1000;
const item = (itemId: string, withPrices = false): LookupRequest => ({ kind: 'item', itemId, withPrices });
const itemOutcome = (itemId: string): Extract<LookupOutcome, { kind: 'item' }> => ({
  kind: 'item',
  item: makeItem({ itemId }),
  prices: null,
  chargedPoints: 0,
  quotaCalls: 1,
});

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** A cache over a real (SQLite) store; `sibling()` is another process's cache on the same store. */
async function rig(ttl: Partial<Record<Operation, number>> = {}) {
  let t = 1_000_000;
  let ttlS = { ...DEFAULT_CACHE_TTL_S, ...ttl };
  const store = await openStore({ path: ':memory:', clock: { now: () => new Date(t).getTime() } });
  stores.push(store);
  const make = () =>
    createLookupCache({ store: store.cache, ttlS: async () => ttlS, now: () => new Date(t) });
  return {
    cache: make(),
    sibling: make,
    advance: (ms: number) => {
      t += ms;
    },
    setTtl: (next: Partial<Record<Operation, number>>) => {
      ttlS = { ...ttlS, ...next };
    },
    now: () => t,
  };
}

describe('lookup cache', () => {
  it('keeps item details for the platiteminfo lifetime (1 h by default), then forgets them', async () => {
    const { cache, advance, now } = await rig();
    const stored = now();
    await cache.set(item('1'), itemOutcome('1'));
    advance(3600 * SECOND - 1);
    expect(await cache.get(item('1'))).toEqual({ outcome: itemOutcome('1'), storedAt: stored });
    advance(1);
    expect(await cache.get(item('1'))).toBeNull();
  });

  it('item with prices lives as long as its shortest operation (prices: 600 s)', async () => {
    const { cache, advance } = await rig();
    const outcome: LookupOutcome = { ...itemOutcome('1'), prices: makeItemPrices(), quotaCalls: 2 };
    await cache.set(item('1', true), outcome);
    advance(599 * SECOND);
    expect((await cache.get(item('1', true)))?.outcome).toEqual(outcome);
    advance(SECOND);
    expect(await cache.get(item('1', true))).toBeNull();
  });

  it('a different question is a different entry', async () => {
    const { cache } = await rig();
    await cache.set(item('1'), itemOutcome('1'));
    expect(await cache.get(item('2'))).toBeNull();
    expect(await cache.get(item('1', true))).toBeNull();
  });

  it('orders and waybill print data are not cached by default (TTL 0)', async () => {
    const { cache } = await rig();
    const orders: LookupRequest = { kind: 'orders', ownerId: 'o', page: 0, pageSize: 20, filters: {} };
    await cache.set(orders, makeOrdersOutcome([makeOrder(1)]));
    expect(await cache.get(orders)).toBeNull();
    expect(DEFAULT_CACHE_TTL_S.platdybw).toBe(0);
    expect(DEFAULT_CACHE_TTL_S['paging-orders']).toBe(0);
    expect(DEFAULT_CACHE_TTL_S.platdzmd).toBe(0);
  });

  it('a TTL set to 0 later hides what was stored; a TTL of its own per operation', async () => {
    const { cache, setTtl, advance } = await rig({ platiteminfo: 10 });
    await cache.set(item('1'), itemOutcome('1'));
    advance(9 * SECOND);
    expect(await cache.get(item('1'))).not.toBeNull();
    setTtl({ platiteminfo: 0 });
    expect(await cache.get(item('1'))).toBeNull();
    await cache.set(item('2'), itemOutcome('2'));
    setTtl({ platiteminfo: 10 });
    expect(await cache.get(item('2'))).toBeNull();
  });

  it('is shared: an answer stored by one process is a hit for another on the same store', async () => {
    const { cache, sibling } = await rig();
    await await cache.set(item('1'), itemOutcome('1'));
    expect((await sibling().get(item('1')))?.outcome).toEqual(itemOutcome('1'));
  });

  it('clear() empties it', async () => {
    const { cache } = await rig();
    await cache.set(item('1'), itemOutcome('1'));
    await cache.clear();
    expect(await cache.get(item('1'))).toBeNull();
  });
});

describe('requestKey', () => {
  it('writes dates as ISO text, so equal filters give equal keys', () => {
    const a: LookupRequest = {
      kind: 'orders',
      ownerId: 'o',
      page: 0,
      pageSize: 20,
      filters: { startTime: new Date('2026-11-19T16:00:00Z'), endTime: new Date('2026-11-20T15:59:59Z') },
    };
    const b = structuredClone(a);
    expect(requestKey(a)).toBe(requestKey(b));
    expect(requestKey(a)).toContain('2026-11-19T16:00:00.000Z');
    expect(requestKey({ ...a, page: 1 })).not.toBe(requestKey(a));
  });
});
