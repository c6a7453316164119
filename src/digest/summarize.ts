/**
 * The digest's numbers, from a day's orders: pure, so it is tested by value. The summary is
 * stored with the run record (for the next day's comparison and to post again without fetching
 * again), so it holds no receiver data: Order has none (plat/types.ts drops it at the boundary)
 * and nothing here reads anything but order numbers, goods, amounts, flags and remarks.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Order } from '../plat/types.js';

/** How many entries a stored list keeps; the renderer cuts further to fit Slack. */
export const SUMMARY_LIST_MAX = 100;
const TOP_GOODS = 5;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

const statusRow = lazySchema(() =>
  z.object({ status: z.number().nullable(), orders: z.number(), amountFen: z.number() }),
);
const urgentOrder = lazySchema(() =>
  z.object({
    orderSn: z.string(),
    lastShipTime: z.number(),
    status: z.number().nullable(),
    overdue: z.boolean(),
  }),
);
const flaggedOrder = lazySchema(() =>
  z.object({
    orderSn: z.string(),
    tagName: z.string().nullable(),
    remark: z.string().nullable(),
  }),
);
const flagGroup = lazySchema(() =>
  z.object({ tag: z.number(), orders: z.number(), list: z.array(flaggedOrder) }),
);
const goodsRow = lazySchema(() =>
  z.object({ name: z.string(), count: z.number(), orders: z.number(), amountFen: z.number() }),
);
/** Orders of one status confirmed in hour `hour` of the window (0 = its first hour). */
const hourRow = lazySchema(() =>
  z.object({ hour: z.number(), status: z.number().nullable(), orders: z.number() }),
);

export const digestSummarySchema = lazySchema(() =>
  z.object({
    version: z.literal(1),
    /** [from, to) in ms. */
    window: z.object({ from: z.number(), to: z.number() }),
    /** The digest's time (ms): "within 24 h" counts from here. */
    at: z.number(),
    orders: z.number(),
    /** Money in fen (0.01 yuan) integers: sums of yuan floats drift, sums of integers do not. */
    amountFen: z.number(),
    byStatus: z.array(statusRow),
    preSale: z.number(),
    /**
     * Orders still to ship whose latest ship time is within 24 h of the digest's time (and those
     * awaiting shipment past it: overdue), most urgent first; `total` counts them all.
     */
    urgent: z.object({ total: z.number(), overdue: z.number(), list: z.array(urgentOrder) }),
    /** remark_tag groups in tag order (1 red … 5 purple; others after). */
    flagged: z.object({ total: z.number(), groups: z.array(flagGroup) }),
    topGoodsByCount: z.array(goodsRow),
    topGoodsByAmount: z.array(goodsRow),
    goodsKinds: z.number(),
    /**
     * Orders per hour of the window and status, for the digest chart (issue 26); optional so
     * summaries stored before it still parse. Orders without a confirm time are not counted here.
     */
    byHour: z.array(hourRow).optional(),
  }),
);
export type DigestSummary = z.infer<typeof digestSummarySchema>;
export type UrgentOrder = z.infer<typeof urgentOrder>;
export type FlagGroup = z.infer<typeof flagGroup>;
export type GoodsRow = z.infer<typeof goodsRow>;
export type HourRow = z.infer<typeof hourRow>;

export interface SummarizeOptions {
  window: { from: Date; to: Date };
  /** The digest's time: "within the next 24 h" counts from here. */
  at: Date;
}

const fen = (yuan: number): number => (Number.isFinite(yuan) ? Math.round(yuan * 100) : 0);

/** Awaiting shipment, or a status we do not know: shipped (2) and received (3) have nothing to ship. */
const stillToShip = (o: Order) => o.status !== 2 && o.status !== 3;

export function summarize(orders: readonly Order[], options: SummarizeOptions): DigestSummary {
  const at = options.at.getTime();
  const statuses = new Map<number | null, { orders: number; amountFen: number }>();
  const goods = new Map<string, GoodsRow>();
  const urgent: UrgentOrder[] = [];
  const flags = new Map<number, FlagGroup>();
  const hours = new Map<string, HourRow>();
  const from = options.window.from.getTime();
  let amountFen = 0;
  let preSale = 0;

  for (const o of orders) {
    const amount = fen(o.payAmount);
    amountFen += amount;
    const s = statuses.get(o.status) ?? { orders: 0, amountFen: 0 };
    s.orders += 1;
    s.amountFen += amount;
    statuses.set(o.status, s);
    if (o.isPreSale) preSale += 1;

    const confirmed = o.confirmTime?.getTime();
    if (confirmed !== undefined && Number.isFinite(confirmed) && confirmed >= from) {
      const hour = Math.floor((confirmed - from) / HOUR_MS);
      const key = `${hour}:${o.status}`;
      const h = hours.get(key) ?? { hour, status: o.status, orders: 0 };
      h.orders += 1;
      hours.set(key, h);
    }

    const name = o.goodsName.trim() || '(goods not named)';
    const g = goods.get(name) ?? { name, count: 0, orders: 0, amountFen: 0 };
    g.count += Number.isFinite(o.goodsCount) ? o.goodsCount : 0;
    g.orders += 1;
    g.amountFen += amount;
    goods.set(name, g);

    const deadline = o.lastShipTime?.getTime();
    if (deadline !== undefined && !Number.isNaN(deadline) && stillToShip(o) && deadline <= at + DAY_MS) {
      const overdue = deadline <= at;
      // Past its deadline only an order known to await shipment is overdue; an unknown status is not claimed.
      if (!overdue || o.status === 1)
        urgent.push({ orderSn: o.orderSn, lastShipTime: deadline, status: o.status, overdue });
    }

    if (o.remarkTag !== null) {
      const f = flags.get(o.remarkTag) ?? { tag: o.remarkTag, orders: 0, list: [] };
      f.orders += 1;
      f.list.push({
        orderSn: o.orderSn,
        tagName: o.remarkTagName?.trim() || null,
        remark: o.remark?.trim().replace(/\s+/g, ' ') || null,
      });
      flags.set(o.remarkTag, f);
    }
  }

  urgent.sort((a, b) => a.lastShipTime - b.lastShipTime || a.orderSn.localeCompare(b.orderSn));
  const groups = [...flags.values()].sort((a, b) => a.tag - b.tag);
  for (const g of groups) {
    g.list.sort((a, b) => a.orderSn.localeCompare(b.orderSn));
    g.list = g.list.slice(0, SUMMARY_LIST_MAX);
  }
  const goodsRows = [...goods.values()];
  const byCount = [...goodsRows]
    .sort((a, b) => b.count - a.count || b.amountFen - a.amountFen || a.name.localeCompare(b.name))
    .slice(0, TOP_GOODS);
  const byAmount = [...goodsRows]
    .sort((a, b) => b.amountFen - a.amountFen || b.count - a.count || a.name.localeCompare(b.name))
    .slice(0, TOP_GOODS);

  return {
    version: 1,
    window: { from: options.window.from.getTime(), to: options.window.to.getTime() },
    at,
    orders: orders.length,
    amountFen,
    byStatus: [...statuses.entries()]
      .map(([status, v]) => ({ status, ...v }))
      // Known statuses in order, then unknown codes, then "not given".
      .sort((a, b) => (a.status ?? Number.MAX_SAFE_INTEGER) - (b.status ?? Number.MAX_SAFE_INTEGER)),
    preSale,
    urgent: {
      total: urgent.length,
      overdue: urgent.filter((u) => u.overdue).length,
      list: urgent.slice(0, SUMMARY_LIST_MAX),
    },
    flagged: { total: groups.reduce((n, g) => n + g.orders, 0), groups },
    topGoodsByCount: byCount,
    topGoodsByAmount: byAmount,
    goodsKinds: goodsRows.length,
    byHour: [...hours.values()].sort(
      (a, b) =>
        a.hour - b.hour || (a.status ?? Number.MAX_SAFE_INTEGER) - (b.status ?? Number.MAX_SAFE_INTEGER),
    ),
  };
}

/** A stored summary, or null when it is missing or not one this build understands. */
export function parseSummary(json: string | null): DigestSummary | null {
  if (json === null) return null;
  try {
    const parsed = digestSummarySchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface Comparison {
  orders: number;
  amountFen: number;
}

/** Today minus the day before. */
export function compare(today: DigestSummary, before: DigestSummary): Comparison {
  return { orders: today.orders - before.orders, amountFen: today.amountFen - before.amountFen };
}
