/**
 * Every order of a time range, for digests: the range cut into windows of at most 24 h
 * (notes.md: the platform's order list allows no more), each window read page by page at
 * pageSize 100 (spec §8's maximum, so the fewest charged calls), at 'bulk' priority in the shared
 * limiter so interactive lookups go first (DESIGN rule 4).
 *
 * Pages are fetched one after the other: at most one digest call waits in the limiter at a time,
 * so a digest never fills the bounded queue that interactive lookups also need.
 */
import type { CallOptions, PlatClient } from '../plat/client.js';
import { PlatAbortedError } from '../plat/errors.js';
import { MAX_ORDER_WINDOW_MS, MAX_PAGE_SIZE } from '../plat/inputs.js';
import type { ChargeListener, Order } from '../plat/types.js';

export interface TimeWindow {
  /** Inclusive. */
  start: Date;
  /** Exclusive (the sandbox's and, we assume, the platform's reading of end_time). */
  end: Date;
}

/**
 * [from, to) as consecutive windows of at most `maxMs`, oldest first; none when to ≤ from.
 * Consecutive windows share only their boundary instant, so no order is read twice.
 */
export function splitWindows(from: Date, to: Date, maxMs: number = MAX_ORDER_WINDOW_MS): TimeWindow[] {
  if (!(maxMs > 0)) throw new RangeError(`window length must be positive, got ${maxMs}`);
  const windows: TimeWindow[] = [];
  for (let start = from.getTime(); start < to.getTime(); start += maxMs) {
    windows.push({ start: new Date(start), end: new Date(Math.min(start + maxMs, to.getTime())) });
  }
  return windows;
}

/** What is known of the fetch so far, for a progress message and for the cost cap. */
export interface FetchPlan {
  /** Pages fetched so far. */
  pagesDone: number;
  /**
   * Pages the whole fetch will take: exact for the windows whose first page is in, one for each
   * window not yet started (a lower bound).
   */
  pagesPlanned: number;
  /** True once every window's first page is in, so pagesPlanned is exact. */
  exact: boolean;
  /** Points the last page was charged (withholding_money), when reported. */
  lastPagePoints: number | null;
}

export interface FetchOrdersOptions {
  ownerId: string;
  from: Date;
  to: Date;
  /** Default 100 (spec §8 maximum). */
  pageSize?: number;
  /** Default 'bulk': digests never delay a person's lookup. */
  priority?: CallOptions['priority'];
  correlationId?: string;
  /** Every call that reached the service, charged or not (the ledger). */
  onCharge?: ChargeListener;
  /** After every page: "page k of n". */
  onProgress?: (plan: FetchPlan) => void | Promise<void>;
  /** After each window's first page, before the rest are fetched: throw to stop (the cost cap). */
  checkPlan?: (plan: FetchPlan) => void;
  signal?: AbortSignal;
}

export interface FetchedOrders {
  /** De-duplicated by order number, in the order the pages listed them. */
  orders: Order[];
  /** Pages answered (every call, retries and failures included, is counted through onCharge). */
  calls: number;
  /** Sum of withholding_money reported, in points. */
  chargedPoints: number;
  windows: number;
}

export async function fetchOrders(client: PlatClient, options: FetchOrdersOptions): Promise<FetchedOrders> {
  const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
  const windows = splitWindows(options.from, options.to);
  const byNumber = new Map<string, Order>();
  const knownPages: number[] = [];
  let calls = 0;
  let chargedPoints = 0;
  let lastPagePoints: number | null = null;

  const plan = (): FetchPlan => {
    const planned = knownPages.reduce((a, b) => a + b, 0) + (windows.length - knownPages.length);
    return {
      pagesDone: calls,
      pagesPlanned: planned,
      exact: knownPages.length === windows.length,
      lastPagePoints,
    };
  };
  const call: CallOptions = {
    priority: options.priority ?? 'bulk',
    ...(options.correlationId ? { correlationId: options.correlationId } : {}),
    ...(options.onCharge ? { onCharge: options.onCharge } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };

  for (const window of windows) {
    for (let page = 0; ; page++) {
      if (options.signal?.aborted)
        throw new PlatAbortedError('digest fetch stopped', { operation: 'paging-orders' });
      const result = await client.orders(
        {
          ownerId: options.ownerId,
          // The time filters are open to the enhanced edition only (spec §4.7, §9.3).
          edition: 1,
          page,
          pageSize,
          startTime: window.start,
          endTime: window.end,
        },
        call,
      );
      calls += 1;
      chargedPoints += result.chargePoints ?? 0;
      // One attempt's charge: the estimate of each page still to fetch (retries aside).
      lastPagePoints = result.pricePoints;
      for (const order of result.data.orders)
        if (!byNumber.has(order.orderSn)) byNumber.set(order.orderSn, order);
      if (page === 0) {
        // totalElements / pageSize, as the client computed it (at least 1).
        knownPages.push(result.data.totalPages);
        options.checkPlan?.(plan());
      }
      await options.onProgress?.(plan());
      // An empty page ends the window early, should totalElements overstate it.
      if (page + 1 >= result.data.totalPages || result.data.orders.length === 0) break;
    }
  }
  return { orders: [...byNumber.values()], calls, chargedPoints, windows: windows.length };
}
