/**
 * GET get-shop-id: shop id from a messaging account id (spec §4.5, §2.7).
 * Charged in every case except a system error (§4.5, §7) — an unknown shop and a missing wwid
 * included. shopid is text, as in the sample (notes.md); an unknown shop keeps code 0, says so in
 * msg, and data holds only withholding_money.
 */
import { fail, ok } from '../envelope.js';
import { shopByWwid } from '../fixtures.js';
import type { Handler } from './context.js';

export const SHOP_NOT_FOUND = '店铺不存在 shop does not exist';

export const getShopId: Handler = (request, { account }) => {
  const wwid = request.query.get('wwid')?.trim();
  return account.charge('get-shop-id', null, (points) => {
    if (!wwid) return fail(100, 'Request parameter error: wwid is required', { withholding_money: points });
    const shop = shopByWwid.get(wwid);
    if (shop === undefined) return ok({ withholding_money: points }, SHOP_NOT_FOUND);
    return ok({ shopid: shop.shopId, withholding_money: points });
  });
};
