/**
 * One page of paging-orders. Orders carry no receiver data (plat/types.ts drops it at the
 * boundary, DESIGN rule 6) and nothing here adds any.
 */
import type { Button, KnownBlock } from '@slack/types';
import type { LookupOutcome, OrderFilters, Quote } from '../lookups/types.js';
import type { Order } from '../plat/types.js';
import { ACTIONS } from './action-ids.js';
import { type ChargeNote, quoteShort, renderChargeNote } from './charge-note.js';
import { actions, button, context, header, message, type RenderedMessage, section } from './kit.js';
import { packSections, SLACK_LIMITS } from './limits.js';
import { escapeClip, formatOrderTime, formatYuan, plural } from './text.js';

export type OrdersOutcome = Extract<LookupOutcome, { kind: 'orders' }>;

export interface OrdersRenderOptions {
  charge: ChargeNote;
  /** The answer's time, for the shipping deadline flags. */
  now: Date;
  /** What the previous or next page costs, shown on the pager buttons; null when not known. */
  nextQuote: Quote | null;
  /** The pager button value for a 0-based page: a short id, never the filters themselves. */
  pagerValue: (page: number) => string;
}

/** order_status (spec/notes.md): 1 awaiting shipment, 2 shipped, 3 received; others shown raw. */
export function orderStatusLabel(status: number | null): string {
  switch (status) {
    case 1:
      return 'Awaiting shipment';
    case 2:
      return 'Shipped';
    case 3:
      return 'Received';
    case null:
      return 'Status not given';
    default:
      return `status ${status}`;
  }
}

const FLAGS: Record<number, { emoji: string; colour: string }> = {
  1: { emoji: '🔴', colour: 'red' },
  2: { emoji: '🟡', colour: 'yellow' },
  3: { emoji: '🟢', colour: 'green' },
  4: { emoji: '🔵', colour: 'blue' },
  5: { emoji: '🟣', colour: 'purple' },
};

/** remark_tag (spec/notes.md): "🔴 red flag", with the flag's name when it has one. */
export function flagLabel(tag: number | null, name: string | null): string | null {
  const flag = tag === null ? undefined : FLAGS[tag];
  const label = flag ? `${flag.emoji} ${flag.colour} flag` : tag === null ? null : `flag ${tag}`;
  const tagName = name?.trim() ? escapeClip(name.trim(), 40) : null;
  if (label === null) return tagName === null ? null : `flag ${tagName}`;
  return tagName === null ? label : `${label}: ${tagName}`;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** "⚠️ overdue" for an order still awaiting shipment past its deadline; "⚠️ ship within 24 h" before it. */
export function shippingFlag(order: Pick<Order, 'status' | 'lastShipTime'>, now: Date): string | null {
  if (order.lastShipTime === null) return null;
  const deadline = order.lastShipTime.getTime();
  const at = now.getTime();
  if (order.status === 1 && deadline <= at) return '⚠️ overdue';
  // A shipped or received order has nothing left to ship.
  if (order.status !== 2 && order.status !== 3 && deadline > at && deadline <= at + DAY_MS) {
    return '⚠️ ship within 24 h';
  }
  return null;
}

function orderEntry(order: Order, now: Date): string {
  const top = [`*Order* \`${escapeClip(order.orderSn, 64)}\``, orderStatusLabel(order.status)];
  const flag = flagLabel(order.remarkTag, order.remarkTagName);
  if (flag) top.push(flag);
  if (order.isPreSale) top.push('Pre-sale');

  const goods = escapeClip(order.goodsName, 200) || 'goods not named';
  const spec = order.goodsSpec?.trim() ? ` — ${escapeClip(order.goodsSpec.trim(), 150)}` : '';
  const lines = [top.join(' · '), `${goods}${spec} × ${order.goodsCount} · ${formatYuan(order.payAmount)}`];

  const times: string[] = [];
  if (order.confirmTime) times.push(`Confirmed ${formatOrderTime(order.confirmTime)}`);
  if (order.lastShipTime) times.push(`ship by ${formatOrderTime(order.lastShipTime)}`);
  const warning = shippingFlag(order, now);
  if (warning) times.push(`*${warning}*`);
  if (times.length > 0) lines.push(times.join(' · '));
  if (order.remark?.trim())
    lines.push(`Remark: ${escapeClip(order.remark.trim().replace(/\s+/g, ' '), 300)}`);
  return lines.join('\n');
}

function filtersText(filters: OrderFilters): string {
  const parts: string[] = [];
  if (filters.startTime) parts.push(`from ${formatOrderTime(filters.startTime)}`);
  if (filters.endTime) parts.push(`to ${formatOrderTime(filters.endTime)}`);
  if (filters.remark) parts.push(`remark “${escapeClip(filters.remark, 100)}”`);
  if (filters.remarkTag !== undefined || filters.remarkTagName) {
    parts.push(flagLabel(filters.remarkTag ?? null, filters.remarkTagName ?? null) ?? '');
  }
  return parts.length > 0 ? `Filters: ${parts.filter(Boolean).join(', ')}` : '';
}

export function renderOrdersPage(outcome: OrdersOutcome, options: OrdersRenderOptions): RenderedMessage {
  const { page } = outcome;
  const totalPages = Math.max(1, page.totalPages);
  const position = `page ${page.page + 1} of ${totalPages}, ${plural(page.totalElements, 'order')}`;
  const owner = escapeClip(outcome.ownerId, 64);

  const head: KnownBlock[] = [
    header(`Orders of ${outcome.ownerId}`),
    context(position, filtersText(outcome.filters)),
  ];

  const tail: KnownBlock[] = [];
  const cost = options.nextQuote ? ` (${quoteShort(options.nextQuote)})` : '';
  const pagers: Button[] = [];
  if (page.page > 0) {
    const value = options.pagerValue(page.page - 1);
    pagers.push(button({ label: `◀ Previous${cost}`, actionId: ACTIONS.ordersPrev, value }));
  }
  if (page.page + 1 < page.totalPages) {
    const value = options.pagerValue(page.page + 1);
    pagers.push(button({ label: `Next ▶${cost}`, actionId: ACTIONS.ordersNext, value }));
  }
  if (pagers.length > 0) tail.push(actions(pagers));
  tail.push(renderChargeNote(options.charge));

  const body =
    page.orders.length > 0
      ? packSections(
          page.orders.map((o) => orderEntry(o, options.now)),
          {
            maxBlocks: SLACK_LIMITS.messageBlocks - head.length - tail.length,
            separator: '\n\n',
            more: (n) => `…and ${n} more on this page`,
          },
        )
      : [section(page.totalElements > 0 ? 'No orders on this page.' : 'No orders found.')];

  return message(`Orders of ${owner}: ${position}`, [...head, ...body, ...tail], tail.length);
}
