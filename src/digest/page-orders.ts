/**
 * A page's orders as a digest run keeps them (store digest_pages.orders_json): the fields the
 * summary and the subscription's filters read (summarize.ts, runner.ts), nothing else. Order
 * carries no receiver data (plat/types.ts drops it at the boundary), and images, specs and
 * confirm times are left out too: the summary never shows them.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Order } from '../plat/types.js';

const storedOrder = lazySchema(() =>
  z.object({
    sn: z.string(),
    goods: z.string(),
    count: z.number(),
    pay: z.number(),
    status: z.number().nullable(),
    preSale: z.boolean(),
    ship: z.number().nullable(),
    remark: z.string().nullable(),
    tag: z.number().nullable(),
    tagName: z.string().nullable(),
  }),
);
const storedPage = lazySchema(() => z.array(storedOrder));

export function encodePageOrders(orders: readonly Order[]): string {
  return JSON.stringify(
    orders.map(
      (o): z.infer<typeof storedOrder> => ({
        sn: o.orderSn,
        goods: o.goodsName,
        count: o.goodsCount,
        pay: o.payAmount,
        status: o.status,
        preSale: o.isPreSale,
        ship: o.lastShipTime ? o.lastShipTime.getTime() : null,
        remark: o.remark,
        tag: o.remarkTag,
        tagName: o.remarkTagName,
      }),
    ),
  );
}

/** The orders of a stored page; throws when the JSON is not one this build wrote. */
export function decodePageOrders(json: string): Order[] {
  return storedPage.parse(JSON.parse(json)).map((o) => ({
    orderSn: o.sn,
    goodsName: o.goods,
    goodsImage: null,
    goodsSpec: null,
    goodsCount: o.count,
    payAmount: o.pay,
    status: o.status,
    isPreSale: o.preSale,
    lastShipTime: o.ship === null ? null : new Date(o.ship),
    confirmTime: null,
    remark: o.remark,
    remarkTag: o.tag,
    remarkTagName: o.tagName,
  }));
}
