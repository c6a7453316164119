/**
 * GET platiteminfo and platiteminfoprice: item details and prices (spec §4.2, §4.3).
 * Each query takes one call of the item quota, also when the item does not exist (§8). The
 * answers carry no withholding_money, exactly as the spec's samples (§2.4, §4.2, §4.3): the
 * caller learns of the charge from the quota rule alone. The not-found answer is not documented,
 * so ours is code 100 with ITEM_NOT_FOUND. platiteminfo answers with the item fields at the top
 * level of the body, beside code/msg/msec/time, as its sample does (§2.1 note).
 */

import { fail, ITEM_NOT_FOUND, ok, paramError, type Reply } from '../envelope.js';
import { ITEMS, type ItemFixture } from '../fixtures.js';
import type { Operation } from '../spec-table.js';
import type { Handler, HandlerContext, OperationRequest } from './context.js';

export { ITEM_NOT_FOUND };

export const platiteminfo: Handler = (request, context) =>
  lookUpItem('platiteminfo', request, context, (item) =>
    item === undefined ? fail(100, ITEM_NOT_FOUND) : { code: 0, msg: 'success', topLevel: { ...item.wire } },
  );

export const platiteminfoprice: Handler = (request, context) =>
  lookUpItem('platiteminfoprice', request, context, (item) =>
    item === undefined ? fail(100, ITEM_NOT_FOUND) : ok({ ...item.prices }),
  );

function lookUpItem(
  operation: Operation,
  request: OperationRequest,
  { account }: HandlerContext,
  answer: (item: ItemFixture | undefined) => Reply,
): Reply {
  const itemId = request.query.get('itemId')?.trim();
  // A malformed id is a parameter error and costs nothing; a well-formed unknown id is a query.
  if (!itemId) return paramError('itemId is required');
  if (!/^\d{1,20}$/.test(itemId)) return paramError('itemId must be digits');
  return account.charge(operation, null, () => answer(ITEMS.get(itemId)));
}
