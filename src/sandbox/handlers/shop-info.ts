/**
 * GET get-shop-info: shop information from an item link (spec §4.4, §2.6). Which parameters are
 * required is not documented; ours: url is, type is inferred from the link's host when absent.
 * shop_Id is an int with a capital I, showShopLinkIcon is text (§2.6).
 */
import { fail, ok, paramError } from '../envelope.js';
import { ITEMS, type ShopFixture } from '../fixtures.js';
import { parseEdition } from '../params.js';
import type { Handler } from './context.js';

export const LINK_NOT_FOUND = '链接无效或商品不存在 (the link does not lead to a known item)';

export const getShopInfo: Handler = (request, { account }) => {
  const { query } = request;
  const url = query.get('url')?.trim();
  if (!url) return paramError('url is required');
  const edition = parseEdition('get-shop-info', query.get('vvtype') ?? undefined);
  if (!edition.ok) return paramError(edition.reason);
  const typeText = query.get('type')?.trim();
  // notes.md: 0 first marketplace, 1 its branded-store site, 2 second marketplace.
  if (typeText && !['0', '1', '2'].includes(typeText)) return paramError('type must be 0, 1 or 2');
  const link = parseItemLink(url);
  if (link === null) return paramError('url is not an item link with an item id');
  if (!typeText && marketplaceOf(link.host) === null) {
    return paramError('the marketplace of the link is unknown; send type');
  }
  const item = ITEMS.get(link.itemId);
  if (item === undefined) return fail(100, LINK_NOT_FOUND);

  return account.charge('get-shop-info', edition.edition, (points) =>
    ok({ ...shopInfo(item.shop), withholding_money: points }),
  );
};

function shopInfo(shop: ShopFixture): Record<string, unknown> {
  return {
    shop_Id: Number(shop.shopId),
    shopName: shop.name,
    shopUrl: shop.shopUrl,
    taoShopUrl: shop.taoShopUrl,
    shopIcon: `//img.example.invalid/shop/${shop.shopId}.png`,
    showShopLinkIcon: 'false',
    shopCard: shop.shopCard,
    shopType: shop.shopType,
    simpleShopDOStatus: '1',
    shopVersion: shop.shopVersion,
    shopTextColor: '#ff5000',
  };
}

/** notes.md link shapes: ?id= (first marketplace, branded store), ?itemId= (mobile), ?goods_id= (second). */
function parseItemLink(text: string): { host: string; itemId: string } | null {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text.replace(/^\/\//, '')}`);
  } catch {
    return null;
  }
  const itemId = ['id', 'itemId', 'goods_id']
    .map((key) => url.searchParams.get(key))
    .find((v) => v && /^\d+$/.test(v));
  return itemId ? { host: url.hostname.toLowerCase(), itemId } : null;
}

function marketplaceOf(host: string): 0 | 1 | 2 | null {
  const is = (domain: string) => host === domain || host.endsWith(`.${domain}`);
  if (is('tmall.com') || is('tmall.hk')) return 1;
  if (is('taobao.com')) return 0;
  if (is('yangkeduo.com') || is('pinduoduo.com')) return 2;
  return null;
}
