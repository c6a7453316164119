/** One handler per plat operation (spec §1). */
import type { Operation } from '../spec-table.js';
import type { Handler } from './context.js';
import { platiteminfo, platiteminfoprice } from './item-info.js';
import { pagingOrders } from './paging-orders.js';
import { platdybw } from './platdybw.js';
import { platdzmd } from './platdzmd.js';
import { getShopId } from './shop-id.js';
import { getShopInfo } from './shop-info.js';

export type { Handler, HandlerContext, OperationRequest } from './context.js';

export const HANDLERS: Readonly<Record<Operation, Handler>> = {
  platdybw,
  platiteminfo,
  platiteminfoprice,
  'get-shop-info': getShopInfo,
  'get-shop-id': getShopId,
  platdzmd,
  'paging-orders': pagingOrders,
};
