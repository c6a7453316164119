/**
 * Every order of a time range, for digests: the range cut into windows of at most 24 h
 * (notes.md: the platform's order list allows no more), each window read page by page at
 * pageSize 100 (spec §8's maximum, so the fewest charged calls), at 'bulk' priority in the shared
 * limiter so interactive lookups go first (DESIGN rule 4).
 *
 * Pages are fetched one after the other: at most one digest call waits in the limiter at a time,
 * so a digest never fills the bounded queue that interactive lookups also need.
 *
 * Resumable (issue 19): given the pages an earlier attempt of the run recorded (`done`), it goes
 * on after the last of them and never asks for one of them again; each new page is handed to
 * `onPage` (which records it) before the next call.
 */
import type { CallFence, CallOptions, PlatClient } from '../plat/client.js';
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
  /** Pages fetched so far, by this attempt and earlier ones. */
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

/** A page an earlier attempt bought (store digest_pages). */
export interface DonePage {
  window: number;
  page: number;
  totalPages: number;
  orderCount: number;
}

/** A page just bought. */
export interface FetchedPage extends DonePage {
  orders: Order[];
  /** withholding_money of the call that answered it (its retries of codes 101/202 aside). */
  points: number | null;
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
  /** The channel the orders are fetched for: its caps apply to each page (CallOptions.channelId). */
  channelId?: string;
  /** Every call that reached the service, charged or not (the ledger). */
  onCharge?: ChargeListener;
  /** Pages bought before (by window and page, as recorded): not fetched again. */
  done?: readonly DonePage[];
  /** Each page as it comes, before the next call: record it, or throw to stop. */
  onPage?: (page: FetchedPage) => Promise<void>;
  /** After every page: "page k of n". */
  onProgress?: (plan: FetchPlan) => void | Promise<void>;
  /** After each window's first page, before the rest are fetched: throw to stop (the cost cap). */
  checkPlan?: (plan: FetchPlan) => void;
  signal?: AbortSignal;
  /** The lease the caller must hold for each call to start (plat/client.ts CallFence). */
  fence?: CallFence;
  /** Each attempt's charge id written ahead of it (digest/sent-calls.ts). */
  writeAhead?: Pick<CallOptions, 'beforeSend' | 'notSent' | 'sent'>;
}

export interface FetchedOrders {
  /** Of the pages bought by this call, de-duplicated by order number, in the order listed. */
  orders: Order[];
  /** Pages answered (every call, retries and failures included, is counted through onCharge). */
  calls: number;
  /** Sum of withholding_money reported, in points. */
  chargedPoints: number;
  windows: number;
}

/** Where a window stands after the pages recorded for it. */
interface WindowState {
  /** The next page to fetch. */
  next: number;
  /** Its page count, once its first page is in. */
  total: number | null;
  finished: boolean;
  /** Pages recorded. */
  done: number;
}

function windowStates(windows: number, done: readonly DonePage[]): WindowState[] {
  return Array.from({ length: windows }, (_, w) => {
    const pages = done.filter((p) => p.window === w).sort((a, b) => a.page - b.page);
    const last = pages.at(-1);
    if (!last) return { next: 0, total: null, finished: false, done: 0 };
    // Pages are recorded one after the other from 0, so the last one says where to go on.
    const total = pages[0]?.totalPages ?? last.totalPages;
    return {
      next: last.page + 1,
      total,
      finished: last.page + 1 >= last.totalPages || last.orderCount === 0,
      done: pages.length,
    };
  });
}

/** The plan of a fetch from the windows' states. */
export function planOf(states: readonly WindowState[], lastPagePoints: number | null): FetchPlan {
  let planned = 0;
  let doneCount = 0;
  for (const s of states) {
    doneCount += s.done;
    planned += s.total === null ? 1 : s.finished ? s.done : Math.max(s.total, s.done + 1);
  }
  return {
    pagesDone: doneCount,
    pagesPlanned: planned,
    exact: states.every((s) => s.total !== null),
    lastPagePoints,
  };
}

/** The plan given the pages recorded so far, before any call (for the cost cap). */
export function planFromDone(from: Date, to: Date, done: readonly DonePage[]): FetchPlan {
  return planOf(windowStates(splitWindows(from, to).length, done), null);
}

export async function fetchOrders(client: PlatClient, options: FetchOrdersOptions): Promise<FetchedOrders> {
  const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
  const windows = splitWindows(options.from, options.to);
  const states = windowStates(windows.length, options.done ?? []);
  const byNumber = new Map<string, Order>();
  let calls = 0;
  let chargedPoints = 0;
  let lastPagePoints: number | null = null;

  const call: CallOptions = {
    priority: options.priority ?? 'bulk',
    ...(options.correlationId ? { correlationId: options.correlationId } : {}),
    ...(options.channelId ? { channelId: options.channelId } : {}),
    ...(options.onCharge ? { onCharge: options.onCharge } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.fence ? { fence: options.fence } : {}),
    ...options.writeAhead,
  };

  for (const [w, window] of windows.entries()) {
    const state = states[w];
    if (!state || state.finished) continue;
    for (let page = state.next; ; page++) {
      if (options.signal?.aborted)
        throw new PlatAbortedError('digest fetch stopped', { operation: 'paging-orders' });
      options.fence?.check();
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
      const orders = result.data.orders;
      for (const order of orders) if (!byNumber.has(order.orderSn)) byNumber.set(order.orderSn, order);
      // totalElements / pageSize, as the client computed it (at least 1).
      const totalPages = state.total ?? result.data.totalPages;
      await options.onPage?.({
        window: w,
        page,
        totalPages,
        orderCount: orders.length,
        orders,
        points: result.pricePoints,
      });
      state.done += 1;
      state.next = page + 1;
      // An empty page ends the window early, should totalElements overstate it.
      state.finished = page + 1 >= totalPages || orders.length === 0;
      if (state.total === null) {
        state.total = totalPages;
        options.checkPlan?.(planOf(states, lastPagePoints));
      }
      await options.onProgress?.(planOf(states, lastPagePoints));
      if (state.finished) break;
    }
  }
  return { orders: [...byNumber.values()], calls, chargedPoints, windows: windows.length };
}
