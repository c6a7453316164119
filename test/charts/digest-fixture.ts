/** A day of orders, its summary and the digest post the chart and table tests render. */
import { summarize } from '../../src/digest/summarize.js';
import type { DigestPost } from '../../src/digest/types.js';
import type { Order } from '../../src/plat/types.js';
import type { DigestSubscription } from '../../src/store/store.js';
import { makeDigestRun } from '../helpers/domain-factories.js';

export const HOUR = 3_600_000;
export const AT = new Date('2026-11-20T01:00:00Z'); // 09:00 in Shanghai
export const WINDOW = { from: new Date(AT.getTime() - 24 * HOUR), to: AT };

export function order(sn: string, o: Partial<Order> = {}): Order {
  return {
    orderSn: sn,
    goodsName: 'T恤',
    goodsImage: null,
    goodsSpec: null,
    goodsCount: 1,
    payAmount: 10,
    status: 2,
    isPreSale: false,
    lastShipTime: new Date(AT.getTime() + 48 * HOUR),
    confirmTime: new Date(AT.getTime() - HOUR),
    remark: 'SECRET-REMARK',
    remarkTag: 1,
    remarkTagName: null,
    ...o,
  };
}

/** `n` orders spread over the window: statuses 1–3 and one unknown code, a few overdue. */
export function dayOfOrders(n: number, shift = 0, from: Date = WINDOW.from): Order[] {
  return Array.from({ length: n }, (_, i) =>
    order(`SN-${String(i).padStart(5, '0')}`, {
      status: i % 11 === 0 ? 9 : 1 + (i % 3),
      payAmount: 10 + (i % 7),
      confirmTime: new Date(from.getTime() + (((i * 7 + shift) % 24) + 0.5) * HOUR),
      lastShipTime: new Date(AT.getTime() + (i % 5 === 0 ? -((i % 20) + 1) * HOUR : 30 * HOUR)),
    }),
  );
}

export const SUB: DigestSubscription = {
  id: 7,
  tenantId: '',
  ownerId: '2200001001',
  shopLabel: 'SECRET-SHOP',
  channelId: 'C1234',
  localTime: '09:00',
  timeZone: 'Asia/Shanghai',
  createdBy: 'UADMIN',
  createdAt: new Date(0),
  times: ['09:00'],
  days: null,
  layout: 'thread',
  flags: null,
  statuses: null,
};

export function digestPost(orders: readonly Order[], previous: readonly Order[] | null): DigestPost {
  const summary = summarize(orders, { window: WINDOW, at: AT });
  const before = previous
    ? summarize(previous, {
        window: { from: new Date(WINDOW.from.getTime() - 24 * HOUR), to: WINDOW.from },
        at: WINDOW.from,
      })
    : null;
  return {
    subscription: SUB,
    run: makeDigestRun({
      windowStart: WINDOW.from,
      windowEnd: WINDOW.to,
      state: 'posting',
      leaseOwner: 'me',
      createdAt: AT,
      updatedAt: AT,
      localDate: '2026-11-20',
    }),
    summary,
    previous: before ? { localDate: '2026-11-19', summary: before } : null,
    cost: { points: 4, calls: 2 },
  };
}
