/**
 * What a thread remembers for follow-ups (issue 36: "the second one", "再查一下它的店铺"): the
 * findings of its last answers, in the order they were shown, and the tool calls of its last plan.
 * Ids only (item ids and links, waybill numbers and carriers, shop ids and names, order numbers):
 * never receiver data, never remarks (plat/types.ts drops the receiver at the boundary; remarks
 * are not copied here), so nothing personal is kept or handed to a model.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { LookupOutcome, LookupRequest } from '../lookups/types.js';
import { EMPTY_CONTEXT, type Ref, type ThreadContext, type ToolCall } from './planner.js';

/** At most this many findings are kept (a thread speaks of the few it was shown). */
export const MAX_REFS = 20;

const refSchema = lazySchema(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('item'), itemId: z.string(), link: z.string().nullable() }),
    z.object({
      kind: z.literal('waybill'),
      code: z.string(),
      carrier: z.string().nullable(),
      ownerId: z.string().nullable(),
    }),
    z.object({
      kind: z.literal('shop'),
      shopId: z.string().nullable(),
      name: z.string().nullable(),
      link: z.string().nullable(),
    }),
    z.object({ kind: z.literal('order'), orderSn: z.string(), ownerId: z.string() }),
  ]),
);
/** Tools renamed to issue 37's names: a thread stored before the rename keeps its "again". */
const RENAMED: Readonly<Record<string, string>> = { list_orders: 'orders_page', spend_report: 'spend' };

const contextSchema = lazySchema(() =>
  z.object({
    refs: z.array(refSchema).default([]),
    lastCalls: z
      .array(
        z.object({
          tool: z.string().transform((t) => RENAMED[t] ?? t),
          input: z.record(z.string(), z.unknown()),
        }),
      )
      .default([]),
  }),
);

/** A stored context, or the empty one when there is none or it does not read. */
export function readContext(json: string | null): ThreadContext {
  if (json === null) return EMPTY_CONTEXT;
  try {
    const parsed = contextSchema.safeParse(JSON.parse(json));
    return parsed.success ? (parsed.data as ThreadContext) : EMPTY_CONTEXT;
  } catch {
    return EMPTY_CONTEXT;
  }
}

export const writeContext = (context: ThreadContext): string =>
  JSON.stringify({ refs: context.refs.slice(0, MAX_REFS), lastCalls: context.lastCalls });

/** The findings of one answer, in the order the answer shows them. */
export function refsOf(outcome: LookupOutcome, request: LookupRequest, itemLink: string | null): Ref[] {
  switch (outcome.kind) {
    case 'item':
    case 'item-prices': {
      const itemId = outcome.kind === 'item' ? outcome.item.itemId : outcome.prices.itemId;
      const refs: Ref[] = [{ kind: 'item', itemId, link: itemLink }];
      if (outcome.kind === 'item' && outcome.item.shopId)
        refs.push({ kind: 'shop', shopId: outcome.item.shopId, name: outcome.item.shopName, link: itemLink });
      return refs;
    }
    case 'shop-info':
      return [{ kind: 'shop', shopId: outcome.shop.shopId, name: outcome.shop.name, link: outcome.url }];
    case 'shop-id':
      return outcome.result.found
        ? [{ kind: 'shop', shopId: outcome.result.shopId, name: outcome.result.wwid, link: null }]
        : [];
    case 'waybill-info':
    case 'waybill-print': {
      const asked =
        request.kind === 'waybill-info' || request.kind === 'waybill-print' ? request.waybills : [];
      const ownerId = request.kind === 'waybill-info' ? request.ownerId : null;
      return asked.map((w) => ({ kind: 'waybill', code: w.waybillCode, carrier: w.carrier, ownerId }));
    }
    case 'orders':
      return outcome.page.orders.map((o) => ({
        kind: 'order',
        orderSn: o.orderSn,
        ownerId: outcome.ownerId,
      }));
  }
}

/** The context after a plan: its calls, and the findings of its answers (the newest answer's last). */
export function nextContext(calls: readonly ToolCall[], refs: readonly Ref[]): ThreadContext {
  return {
    refs: refs.slice(0, MAX_REFS),
    lastCalls: calls.map((c) => ({ tool: c.tool, input: { ...c.input } })),
  };
}
