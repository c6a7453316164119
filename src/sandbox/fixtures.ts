/**
 * The sandbox's seeded data, and the ids tests and demos can name. Everything is deterministic:
 * catalogue data is fixed, orders come from a seeded PRNG anchored at the sandbox's creation time.
 */
import { ORDER_COUNTS, ORDER_SPAN_MS } from './fixtures/orders.js';
import { authUrlFor, SHOPS } from './fixtures/shops.js';

export type { ItemFixture, ItemPricesWire, ItemWire, SkuWire } from './fixtures/items.js';
export { ITEMS } from './fixtures/items.js';
export type { OrderBook, OrderWire } from './fixtures/orders.js';
export { buildOrderBook, DUE_SOON } from './fixtures/orders.js';
export type { ShopFixture } from './fixtures/shops.js';
export { authorizedOwnerIds, authorizedShopIds, authUrlFor, SHOPS, shopByWwid } from './fixtures/shops.js';
export type { WaybillFixture } from './fixtures/waybills.js';
export { printDataFor, WAYBILLS } from './fixtures/waybills.js';

export const SANDBOX_FIXTURES = {
  items: {
    /** 9 SKUs (颜色分类 × 尺码), empty videoUrl. */
    basic: '680001234501',
    /** One property (4 SKUs) and a video. */
    withVideo: '680001234502',
    /** 36 SKUs. */
    manySkus: '680001234503',
    /** A 300-character title. */
    longTitle: '680001234504',
    /** Branded-store item. */
    tea: '680001234505',
    /** Second-marketplace item, from the unauthorized shop. */
    secondMarketplace: '680001234506',
    /** Answers code 100 "item does not exist", still taking one call of the quota. */
    missing: '999999999999',
  },
  /** Item links for get-shop-info (notes.md link shapes). */
  links: {
    firstMarketplace: 'https://item.taobao.com/item.htm?id=680001234501',
    brandedStore: 'https://detail.tmall.com/item.htm?id=680001234505',
    mobile: 'https://h5.m.taobao.com/awp/core/detail.htm?itemId=680001234503',
    secondMarketplace: 'https://mobile.yangkeduo.com/goods.html?goods_id=680001234506',
    /** Well-formed link to an item that maps to no shop: code 100. */
    unknownItem: 'https://item.taobao.com/item.htm?id=999999999999',
  },
  shops: {
    clothing: SHOPS.clothing.shopId,
    tea: SHOPS.tea.shopId,
    unauthorized: SHOPS.unauthorized.shopId,
  },
  wwids: {
    /** → shopid SHOPS.clothing.shopId */
    known: SHOPS.clothing.wwid,
    /** Chinese wwid → SHOPS.tea.shopId (must be URL-encoded). */
    knownChinese: SHOPS.tea.wwid,
    /** code 0, msg "shop does not exist", still charged (spec §4.5). */
    unknown: 'no_such_seller_2024',
  },
  owners: {
    busy: SHOPS.clothing.ownerId,
    small: SHOPS.tea.ownerId,
    /** Orders due to ship within the next hours (fixtures/orders.ts DUE_SOON). */
    dueSoon: SHOPS.snacks.ownerId,
    unauthorized: SHOPS.unauthorized.ownerId,
  },
  orderCounts: {
    busy: ORDER_COUNTS[SHOPS.clothing.ownerId] ?? 0,
    small: ORDER_COUNTS[SHOPS.tea.ownerId] ?? 0,
  },
  /** Orders' confirm_time lies in [anchor − orderSpanMs, anchor). */
  orderSpanMs: ORDER_SPAN_MS,
  waybills: {
    ok: ['SF1234567890123', 'YT1234567890123', '773012345678901', '7312345678901', '9812345678901'],
    /** Not in the fixtures: platdybw record success false, error_code 'isv.waybill-not-exist'. */
    failing: 'YT9999999999999',
    /** A freight child waybill: its record carries parent_waybill_code = parent. */
    parentChild: 'DPK123456789013',
    parent: 'DPK123456789012',
  },
  authUrlFor,
} as const;
