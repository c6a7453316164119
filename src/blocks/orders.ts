/**
 * One page of paging-orders. Orders carry no receiver data (plat/types.ts drops it at the
 * boundary, DESIGN rule 6) and nothing here adds any.
 */
import type { Button, KnownBlock, TableBlock } from '@slack/types';
import type { LookupOutcome, OrderFilters, Quote } from '../lookups/types.js';
import type { Order } from '../plat/types.js';
import { ACTIONS } from './action-ids.js';
import { type ChargeNote, quoteShort, renderChargeNote } from './charge-note.js';
import { buyerText } from './hidden.js';
import { SHANGHAI, type Words } from './i18n/words.js';
import { actions, button, context, header, message, type RenderedMessage, section } from './kit.js';
import { packSections, SLACK_LIMITS } from './limits.js';
import { tableBlocks } from './table.js';
import { escapeClip, truncate } from './text.js';
import { pastLastText } from './words-of.js';

export type OrdersOutcome = Extract<LookupOutcome, { kind: 'orders' }>;

export interface OrdersRenderOptions {
  charge: ChargeNote;
  /** The answer's time, for the shipping deadline flags. */
  now: Date;
  /** What the previous or next page costs, shown on the pager buttons; null when not known. */
  nextQuote: Quote | null;
  /** The pager buttons' values (short ids of pending lookups prepared before rendering); null: no button. */
  pager: { previous: string | null; next: string | null };
}

/** order_status (spec/notes.md): 1 awaiting shipment (待发货), 2 shipped (已发货待签收), 3 received (已签收). */
export function orderStatusLabel(w: Words, status: number | null): string {
  if (status === 1 || status === 2 || status === 3) return w.t(`orders.status.${status}`);
  if (status === null) return w.t('orders.status.none');
  return w.t('orders.status.other', { status });
}

const FLAG_EMOJI: Record<number, string> = { 1: '🔴', 2: '🟡', 3: '🟢', 4: '🔵', 5: '🟣' };

/**
 * remark_tag (spec/notes.md): "🔴 red flag" / "🔴 红旗", with the flag's name when it has one.
 * `clip` cuts the shop's flag name: escaped for mrkdwn (the default), or raw for a table cell.
 */
export function flagLabel(
  w: Words,
  tag: number | null,
  name: string | null,
  clip: (raw: string, max: number) => string = escapeClip,
): string | null {
  const emoji = tag === null ? undefined : FLAG_EMOJI[tag];
  const label =
    emoji !== undefined && tag !== null
      ? w.t('orders.flag', { emoji, colour: w.t(`domain.flag.${tag as 1 | 2 | 3 | 4 | 5}`) })
      : tag === null
        ? null
        : w.t('orders.flagRaw', { tag: String(tag) });
  const tagName = name?.trim() ? clip(buyerText(w, name.trim()), 40) : null;
  if (label === null) return tagName === null ? null : w.t('orders.flagRaw', { tag: tagName });
  return tagName === null ? label : w.t('orders.flagNamed', { label, name: tagName });
}

const DAY_MS = 24 * 60 * 60 * 1000;

export type ShippingFlag = 'overdue' | 'ship_within_24h';

/** Overdue for an order still awaiting shipment past its deadline; "ship within 24 h" before it. */
export function shippingFlag(order: Pick<Order, 'status' | 'lastShipTime'>, now: Date): ShippingFlag | null {
  if (order.lastShipTime === null) return null;
  const deadline = order.lastShipTime.getTime();
  const at = now.getTime();
  if (order.status === 1 && deadline <= at) return 'overdue';
  // A shipped or received order has nothing left to ship.
  if (order.status !== 2 && order.status !== 3 && deadline > at && deadline <= at + DAY_MS) {
    return 'ship_within_24h';
  }
  return null;
}

export function shippingFlagText(w: Words, flag: ShippingFlag): string {
  return flag === 'overdue' ? w.t('orders.overdue') : w.t('orders.shipWithin');
}

/** "2026-11-20 14:03 (Beijing time)" / "2026年11月20日 14:03（北京时间）": an order's time with its zone. */
export function orderTime(w: Words, date: Date): string {
  const text = w.dateTime(date, SHANGHAI);
  return text === '—' ? text : w.t('orders.time', { time: text, zone: w.zone(SHANGHAI) });
}

/** A goods spec as the marketplace joins it ("白色,XL"), listed as the reader's language lists. */
const specText = (w: Words, spec: string) => w.join(spec.split(/\s*[,，]\s*/).filter(Boolean));

function orderEntry(w: Words, order: Order, now: Date): string {
  const { t } = w;
  const top = [t('orders.order', { sn: escapeClip(order.orderSn, 64) }), orderStatusLabel(w, order.status)];
  const flag = flagLabel(w, order.remarkTag, order.remarkTagName);
  if (flag) top.push(flag);
  if (order.isPreSale) top.push(t('orders.preSale'));

  const goods = escapeClip(order.goodsName, 200) || t('orders.goodsUnnamed');
  const spec = order.goodsSpec?.trim() ? ` — ${escapeClip(specText(w, order.goodsSpec.trim()), 150)}` : '';
  const lines = [
    top.join(t('common.sep')),
    t('orders.goods', { goods, spec, qty: w.count(order.goodsCount), amount: w.yuan(order.payAmount) }),
  ];

  const times: string[] = [];
  if (order.confirmTime) times.push(t('orders.confirmed', { time: orderTime(w, order.confirmTime) }));
  if (order.lastShipTime) times.push(t('orders.shipBy', { time: orderTime(w, order.lastShipTime) }));
  const warning = shippingFlag(order, now);
  if (warning) times.push(t('orders.warning', { text: shippingFlagText(w, warning) }));
  if (times.length > 0) lines.push(times.join(t('common.sep')));
  if (order.remark?.trim())
    lines.push(
      t('orders.remark', { text: escapeClip(buyerText(w, order.remark.trim().replace(/\s+/g, ' ')), 300) }),
    );
  return lines.join('\n');
}

/**
 * The page's orders as a table (issue 26): one row an order, the figures right-aligned, en and
 * zh-CN headers. Raw text cells (nothing read as mrkdwn, so nothing escaped); shop text clipped.
 */
function ordersTables(w: Words, orders: readonly Order[], now: Date): TableBlock[] {
  const { t } = w;
  const rows = orders.map((o) => {
    const warning = shippingFlag(o, now);
    // The zone is in the column's header, once.
    const shipBy = o.lastShipTime ? w.dateTime(o.lastShipTime, SHANGHAI) : '';
    const spec = o.goodsSpec?.trim() ? ` — ${truncate(specText(w, o.goodsSpec.trim()), 60)}` : '';
    return [
      truncate(o.orderSn, 64),
      [orderStatusLabel(w, o.status), ...(o.isPreSale ? [t('orders.preSale')] : [])].join(t('common.sep')),
      `${truncate(o.goodsName.trim(), 80) || t('orders.goodsUnnamed')}${spec}`,
      w.count(o.goodsCount),
      w.yuan(o.payAmount),
      warning ? `${shippingFlagText(w, warning)} ${shipBy}` : shipBy,
      flagLabel(w, o.remarkTag, o.remarkTagName, truncate) ?? '',
      truncate(buyerText(w, o.remark?.trim().replace(/\s+/g, ' ') ?? ''), 100),
    ];
  });
  return tableBlocks(
    [
      { header: t('table.order') },
      { header: t('table.status'), wrap: true },
      { header: t('table.goods'), wrap: true },
      { header: t('table.qty'), align: 'right' },
      { header: t('table.amount'), align: 'right' },
      { header: t('table.shipBy', { zone: w.zone(SHANGHAI) }), wrap: true },
      { header: t('table.flag') },
      { header: t('table.remark'), wrap: true },
    ],
    rows,
  );
}

function filtersText(w: Words, filters: OrderFilters): string {
  const { t } = w;
  const parts: string[] = [];
  if (filters.startTime) parts.push(t('orders.from', { time: orderTime(w, filters.startTime) }));
  if (filters.endTime) parts.push(t('orders.to', { time: orderTime(w, filters.endTime) }));
  if (filters.remark) parts.push(t('orders.remarkFilter', { text: escapeClip(filters.remark, 100) }));
  if (filters.remarkTag !== undefined || filters.remarkTagName) {
    parts.push(flagLabel(w, filters.remarkTag ?? null, filters.remarkTagName ?? null) ?? '');
  }
  const shown = parts.filter(Boolean);
  return shown.length > 0 ? t('orders.filters', { list: w.join(shown) }) : '';
}

export function renderOrdersPage(
  w: Words,
  outcome: OrdersOutcome,
  options: OrdersRenderOptions,
): RenderedMessage {
  const { t } = w;
  const { page } = outcome;
  const totalPages = lastPage(page);
  // A page past the last (typed before its count was known) says so, never "page 2 of 1".
  const past = page.page >= totalPages && page.totalElements > 0;
  const position = past
    ? pastLastText(w, {
        page: page.page + 1,
        pages: totalPages,
        total: page.totalElements,
        pageSize: page.pageSize,
      })
    : t('orders.position', {
        count: page.totalElements,
        n: w.count(page.totalElements),
        page: w.count(page.page + 1),
        pages: w.count(totalPages),
      });
  const owner = escapeClip(outcome.ownerId, 64);

  const head: KnownBlock[] = [
    header(t('orders.title', { owner: outcome.ownerId })),
    context(position, filtersText(w, outcome.filters)),
  ];

  const tail: KnownBlock[] = [];
  const cost = options.nextQuote ? quoteShort(w, options.nextQuote) : null;
  const pagers: Button[] = [];
  if (options.pager.previous !== null) {
    const label = cost === null ? t('orders.previous') : t('orders.previousCost', { cost });
    pagers.push(button({ label, actionId: ACTIONS.ordersPrev, value: options.pager.previous }));
  }
  if (options.pager.next !== null) {
    const label = cost === null ? t('orders.next') : t('orders.nextCost', { cost });
    pagers.push(button({ label, actionId: ACTIONS.ordersNext, value: options.pager.next }));
  }
  if (pagers.length > 0) tail.push(actions(pagers));
  tail.push(renderChargeNote(w, options.charge));

  const entries = page.orders.map((o) => orderEntry(w, o, options.now));
  // The orders as one table (Slack shows one a message); those past its limits stay as today's
  // entries, so nothing on the page is lost. The entries are the fallback text too, for
  // notifications and clients without tables.
  const [table] = page.orders.length > 0 ? ordersTables(w, page.orders, options.now) : [];
  const inTable = table ? table.rows.length - 1 : 0;
  const rest =
    entries.length > inTable
      ? packSections(entries.slice(inTable), {
          maxBlocks: SLACK_LIMITS.messageBlocks - head.length - tail.length - 1,
          separator: '\n\n',
          more: (n) => t('orders.moreOnPage', { count: n, n: w.count(n) }),
        })
      : [];
  const body: KnownBlock[] = table
    ? [table, ...rest]
    : [section(page.totalElements > 0 ? t('orders.noneOnPage') : t('orders.noneFound'))];
  const fallback = [t('orders.fallback', { owner, position }), ...entries].join('\n\n');
  return message(fallback, [...head, ...body, ...tail], tail.length);
}

/** How many pages there are (1 when there is no order: one empty page), by the count. */
export function lastPage(page: OrdersOutcome['page']): number {
  const byCount = page.pageSize > 0 ? Math.ceil(page.totalElements / page.pageSize) : page.totalPages;
  return Math.max(1, byCount);
}

/**
 * Which pages the pager offers (0-based): the slack layer prepares a pending lookup for each.
 * Never a page past the last: from a page past it, "Previous" is the last page.
 */
export function pagerPages(outcome: OrdersOutcome): { previous: number | null; next: number | null } {
  const { page } = outcome;
  const pages = lastPage(page);
  return {
    previous: page.page > 0 ? Math.min(page.page - 1, pages - 1) : null,
    next: page.page + 1 < pages ? page.page + 1 : null,
  };
}
