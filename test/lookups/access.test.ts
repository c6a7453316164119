/**
 * Who may run charged lookups (everyone by default, or listed users / user groups / channels;
 * admins always), and which shops may be queried from which channels, with aliases resolved.
 */
import { describe, expect, it } from 'vitest';
import { type AccessDeps, checkAccess, findShop } from '../../src/lookups/access.js';
import {
  type AccessPolicy,
  accessPolicySchema,
  type ShopRegistry,
  shopRegistrySchema,
} from '../../src/lookups/settings.js';
import type { LookupRequest } from '../../src/lookups/types.js';

const ADMIN = 'UADMIN';
const item: LookupRequest = { kind: 'item', itemId: '680001234501', withPrices: false };
const orders = (ownerId: string): LookupRequest => ({
  kind: 'orders',
  ownerId,
  page: 0,
  pageSize: 20,
  filters: {},
});
const print = (shopId: string): LookupRequest => ({
  kind: 'waybill-print',
  shopId,
  waybills: [{ waybillCode: 'SF1234567890123', carrier: 'SF' }],
});
const info = (ownerId: string): LookupRequest => ({
  kind: 'waybill-info',
  ownerId,
  waybills: [{ waybillCode: 'SF1234567890123', carrier: 'SF' }],
});

function deps(
  policy: Partial<AccessPolicy> = {},
  registry: Partial<ShopRegistry> = {},
  groups: Record<string, string[]> = {},
) {
  const groupAsks: string[] = [];
  const d: AccessDeps = {
    access: async () => accessPolicySchema.parse(policy),
    shops: async () => shopRegistrySchema.parse(registry),
    isAdmin: async (userId) => userId === ADMIN,
    isInGroup: async (group, userId) => {
      groupAsks.push(group);
      return groups[group]?.includes(userId) ?? false;
    },
  };
  return { deps: d, groupAsks };
}

const actor = (userId: string, channelId: string | null = 'C1') => ({ userId, channelId });

describe('who may run charged lookups', () => {
  it('everyone by default', async () => {
    const { deps: d, groupAsks } = deps();
    expect(await checkAccess(d, item, actor('U1'))).toEqual({ ok: true, request: item });
    expect(groupAsks).toEqual([]);
  });

  it('listed users only', async () => {
    const { deps: d } = deps({ mode: 'listed', users: ['U1'] });
    expect((await checkAccess(d, item, actor('U1'))).ok).toBe(true);
    expect(await checkAccess(d, item, actor('U2'))).toEqual({
      ok: false,
      refusal: { reason: 'not_allowed' },
    });
  });

  it('members of a listed user group (asked only when groups are listed)', async () => {
    const { deps: d, groupAsks } = deps({ mode: 'listed', groups: ['S1', 'S2'] }, {}, { S2: ['U2'] });
    expect((await checkAccess(d, item, actor('U2'))).ok).toBe(true);
    expect(groupAsks).toEqual(['S1', 'S2']);
    expect((await checkAccess(d, item, actor('U3'))).ok).toBe(false);
    const listedUsers = deps({ mode: 'listed', users: ['U1'] });
    await checkAccess(listedUsers.deps, item, actor('U3'));
    expect(listedUsers.groupAsks).toEqual([]);
  });

  it('anyone in a listed channel, and only there', async () => {
    const { deps: d } = deps({ mode: 'listed', channels: ['C9'] });
    expect((await checkAccess(d, item, actor('U7', 'C9'))).ok).toBe(true);
    expect((await checkAccess(d, item, actor('U7', 'C1'))).ok).toBe(false);
    expect((await checkAccess(d, item, actor('U7', null))).ok).toBe(false);
  });

  it('admins always, even when nobody is listed', async () => {
    const { deps: d } = deps({ mode: 'listed' });
    expect((await checkAccess(d, item, actor(ADMIN, null))).ok).toBe(true);
    expect((await checkAccess(d, item, actor('U1'))).ok).toBe(false);
  });
});

describe('shops: aliases, ids and channels', () => {
  const registry: Partial<ShopRegistry> = {
    shops: [
      { alias: 'Tea', ownerId: '2200001002', shopId: '57305678', channels: ['C1'] },
      { alias: 'clothing', ownerId: '2200001001', shopId: null, channels: [] },
    ],
  };

  it('an alias (any case) resolves to the owner id for orders and waybill information', async () => {
    const { deps: d } = deps({}, registry);
    expect(await checkAccess(d, orders('tea'), actor('U1', 'C1'))).toEqual({
      ok: true,
      request: orders('2200001002'),
    });
    expect(await checkAccess(d, info('TEA'), actor('U1', 'C1'))).toEqual({
      ok: true,
      request: info('2200001002'),
    });
  });

  it('an alias resolves to the shop id for print data', async () => {
    const { deps: d } = deps({}, registry);
    expect(await checkAccess(d, print('tea'), actor('U1', 'C1'))).toEqual({
      ok: true,
      request: print('57305678'),
    });
  });

  it('a shop registered to channels can be queried only from them, by alias or by id', async () => {
    const { deps: d } = deps({}, registry);
    for (const request of [orders('tea'), orders('2200001002'), print('57305678')]) {
      expect(await checkAccess(d, request, actor('U1', 'C2'))).toEqual({
        ok: false,
        refusal: { reason: 'shop_channel', shop: 'Tea' },
      });
      expect((await checkAccess(d, request, actor('U1', null))).ok).toBe(false);
    }
    // The channel rule is about the shop's data, so it holds for admins too.
    expect((await checkAccess(d, orders('tea'), actor(ADMIN, 'C2'))).ok).toBe(false);
  });

  it('a shop without channels may be queried anywhere', async () => {
    const { deps: d } = deps({}, registry);
    expect(await checkAccess(d, orders('clothing'), actor('U1', 'C7'))).toEqual({
      ok: true,
      request: orders('2200001001'),
    });
  });

  it('a registered shop without the id the operation needs is refused', async () => {
    const { deps: d } = deps({}, registry);
    expect(await checkAccess(d, print('clothing'), actor('U1', 'C1'))).toEqual({
      ok: false,
      refusal: { reason: 'shop_no_shop_id', shop: 'clothing' },
    });
  });

  it('unregistered shops pass unless registered-only is on; admins may still query them', async () => {
    expect((await checkAccess(deps({}, registry).deps, orders('2200009999'), actor('U1'))).ok).toBe(true);
    const { deps: d } = deps({}, { ...registry, registeredOnly: true });
    expect(await checkAccess(d, orders('2200009999'), actor('U1'))).toEqual({
      ok: false,
      refusal: { reason: 'shop_unregistered', shop: '2200009999' },
    });
    expect((await checkAccess(d, orders('2200009999'), actor(ADMIN))).ok).toBe(true);
    expect((await checkAccess(d, orders('tea'), actor('U1', 'C1'))).ok).toBe(true);
  });

  it('lookups that name no shop are not checked against the registry', async () => {
    const { deps: d } = deps({}, { ...registry, registeredOnly: true });
    expect((await checkAccess(d, item, actor('U1', 'C2'))).ok).toBe(true);
  });

  it('who may run is checked before the shop', async () => {
    const { deps: d } = deps({ mode: 'listed', users: ['U2'] }, registry);
    expect(await checkAccess(d, orders('tea'), actor('U1', 'C2'))).toMatchObject({
      refusal: { reason: 'not_allowed' },
    });
  });

  it('findShop: alias first, then owner or shop id', async () => {
    const r = shopRegistrySchema.parse(registry);
    expect(findShop(r, 'TEA')?.alias).toBe('Tea');
    expect(findShop(r, '57305678')?.alias).toBe('Tea');
    expect(findShop(r, '2200001001')?.alias).toBe('clothing');
    expect(findShop(r, 'nope')).toBeNull();
  });
});
