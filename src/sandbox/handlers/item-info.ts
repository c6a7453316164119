/**
 * GET platiteminfo and platiteminfoprice: item details and prices (spec §4.2, §4.3).
 * Each query takes one call of the item quota, also when the item does not exist (§8); the
 * not-found answer is not documented, so ours is code 100 with ITEM_NOT_FOUND and
 * withholding_money 0. platiteminfo answers with the item fields at the top level of the body,
 * beside code/msg/msec/time, as its sample does (§2.1 note).
 */

import { fail, ok, paramError, type Reply } from '../envelope.js';
import { ITEMS, type ItemFixture } from '../fixtures.js';
import type { Operation } from '../spec-table.js';
import type { Handler, HandlerContext, OperationRequest } from './context.js';

export const ITEM_NOT_FOUND = '商品不存在 (item does not exist)';

export const platiteminfo: Handler = (request, context) =>
  lookUpItem('platiteminfo', request, context, (item, points) =>
    item === undefined
      ? { code: 100, msg: ITEM_NOT_FOUND, topLevel: { withholding_money: points } }
      : { code: 0, msg: 'success', topLevel: { ...item.wire, withholding_money: points } },
  );

export const platiteminfoprice: Handler = (request, context) =>
  lookUpItem('platiteminfoprice', request, context, (item, points) =>
    item === undefined
      ? fail(100, ITEM_NOT_FOUND, { withholding_money: points })
      : ok({ ...item.prices, withholding_money: points }),
  );

function lookUpItem(
  operation: Operation,
  request: OperationRequest,
  { account }: HandlerContext,
  answer: (item: ItemFixture | undefined, points: number) => Reply,
): Reply {
  const itemId = request.query.get('itemId')?.trim();
  // A malformed id is a parameter error and costs nothing; a well-formed unknown id is a query.
  if (!itemId) return paramError('itemId is required');
  if (!/^\d{1,20}$/.test(itemId)) return paramError('itemId must be digits');
  return account.charge(operation, null, (points) => answer(ITEMS.get(itemId), points));
}
