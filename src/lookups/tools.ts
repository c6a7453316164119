/**
 * The tool catalog (DESIGN "Next parts", CONVENTIONS 20): every operation platdesk offers to a
 * caller that is not a slash command, written once. Each tool has a name, a zod input and
 * output (the same shapes the MCP SDK's `registerTool` and the AI SDK's `tool({ inputSchema })`
 * take), where it is offered, which plat operations it may call (its price lines), and how its
 * input becomes a validated LookupRequest, through the slash commands' own parsers.
 *
 * Derived from it, never written again:
 * - the manifest's `functions:` (the tools offered as Workflow Builder steps): blocks/tools.ts
 *   words them from the en catalog; test/manifest.test.ts fails when manifest.yml differs;
 * - the Workflow step listeners (slack/functions/, one per step tool) and their inputs
 *   (lookups/steps.ts `stepRequest` is `toolAsk`);
 * - the agent's model tools (agent/model.ts: JSON schema and description of each agent tool) and
 *   the deterministic planner's calls (agent/planner.ts names the catalog's tools);
 * - the MCP tools (issue 37: mcp/server.ts registers `toolsFor('mcp')`, the issue's seven:
 *   lookup_waybill, lookup_item, item_prices, lookup_shop, orders_page, orders_due, spend).
 *
 * Titles and descriptions are words, so they live in the en and zh-CN catalogs
 * (`tool.<name>.…`, src/blocks/i18n/*\/tools.ts), keyed by the names here.
 */

import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Operation } from '../plat/operations.js';
import { capped, MAX_COMMAND_TEXT } from '../text-limits.js';
import {
  type ParsedCommand,
  parseItemCommand,
  parseOrdersCommand,
  parseShopCommand,
  parseWaybillCommand,
} from './parse/command-text.js';
import { parseItemRef } from './parse/item-link.js';
import { type Problem, problem } from './parse/problems.js';
import type { LookupRequest } from './types.js';

/** Where a tool is offered: a Workflow Builder step, the agent's planners, the MCP server. */
export type ToolSurface = 'step' | 'agent' | 'mcp';

/** zod metadata a tool's field may carry: its Slack type when it is not the JSON type (manifest). */
export interface FieldMeta {
  slackType?: 'slack#/types/user_id' | 'slack#/types/timestamp';
}

/** orders_due looks this far ahead at most (a week), and one page of the newest orders. */
export const MAX_HOURS_AHEAD = 168;
export const ORDERS_DUE_PAGE_SIZE = 100;

/** The ledger periods a spend report covers (lookups/reports.ts). */
export const SPEND_PERIODS = ['today', 'month', 'last30'] as const;

const slackTimestamp = () =>
  z
    .number()
    .int()
    .meta({ slackType: 'slack#/types/timestamp' } satisfies FieldMeta);

/** Every tool's input and output, by name. Built on first use (lazySchema). */
const SCHEMAS = {
  lookup_waybill: {
    input: lazySchema(() =>
      z.object({
        waybills: z.string().min(1),
        owner_id: z.string().optional(),
        carrier: z.string().optional(),
      }),
    ),
    output: lazySchema(() =>
      z.object({
        carrier: z.string().optional(),
        state: z.string().optional(),
        last_event: z.string().optional(),
        last_event_time: slackTimestamp().optional(),
        summary: z.string(),
      }),
    ),
  },
  lookup_item: {
    input: lazySchema(() => z.object({ item: z.string().min(1), with_prices: z.boolean().optional() })),
    output: lazySchema(() =>
      z.object({
        title: z.string().optional(),
        shop: z.string().optional(),
        price_range: z.string().optional(),
        link: z.string().optional(),
        summary: z.string(),
      }),
    ),
  },
  item_prices: {
    input: lazySchema(() => z.object({ item: z.string().min(1) })),
    output: lazySchema(() =>
      z.object({
        price: z.number().optional(),
        original_price: z.number().optional(),
        reference_price: z.number().optional(),
        summary: z.string(),
      }),
    ),
  },
  orders_due: {
    input: lazySchema(() =>
      z.object({
        shop: z.string().min(1),
        hours_ahead: z.number().int().min(1).max(MAX_HOURS_AHEAD).default(24),
      }),
    ),
    output: lazySchema(() =>
      z.object({
        count_due: z.number().int(),
        count_overdue: z.number().int(),
        summary: z.string(),
        list: z.string(),
      }),
    ),
  },
  lookup_shop: {
    input: lazySchema(() => z.object({ shop: z.string().min(1) })),
    output: lazySchema(() =>
      z.object({
        shop_id: z.string().optional(),
        name: z.string().optional(),
        type: z.string().optional(),
        summary: z.string(),
      }),
    ),
  },
  orders_page: {
    input: lazySchema(() =>
      z.object({
        shop: z.string().min(1),
        page: z.number().int().min(1).optional(),
        size: z.number().int().min(1).max(100).optional(),
        from: z.string().optional(),
        to: z.string().optional(),
        flag: z.number().int().min(1).max(5).optional(),
        remark: z.string().optional(),
      }),
    ),
    output: lazySchema(() =>
      z.object({
        page: z.number().int(),
        pages: z.number().int(),
        count: z.number().int(),
        total: z.number().int(),
        // What the person's own /orders answer shows: no receiver fields; remarks masked.
        orders: z.array(
          z.object({
            order_sn: z.string(),
            status: z.string(),
            goods: z.string(),
            quantity: z.number().int(),
            amount_yuan: z.number(),
            ship_by: z.string().optional(),
            confirmed: z.string().optional(),
            pre_sale: z.boolean(),
            flag: z.string().optional(),
            remark: z.string().optional(),
          }),
        ),
        summary: z.string(),
      }),
    ),
  },
  waybill_print: {
    input: lazySchema(() => z.object({ waybills: z.string().min(1), shop_id: z.string().min(1) })),
    output: lazySchema(() =>
      z.object({ printed: z.number().int(), failed: z.number().int(), summary: z.string() }),
    ),
  },
  spend: {
    input: lazySchema(() =>
      z.object({ period: z.enum(SPEND_PERIODS).default('month'), everyone: z.boolean().optional() }),
    ),
    output: lazySchema(() =>
      z.object({
        points: z.number(),
        calls: z.number().int(),
        quota_calls: z.number().int(),
        summary: z.string(),
      }),
    ),
  },
} as const;

export type ToolName = keyof typeof SCHEMAS;
export type ToolInput<N extends ToolName> = z.input<(typeof SCHEMAS)[N]['input']>;
export type ToolOutput<N extends ToolName> = z.infer<(typeof SCHEMAS)[N]['output']>;

/** What a tool's input asks for: a lookup (charged, confirmed), a free read, or why not. */
export type ToolAsk =
  | {
      ok: true;
      kind: 'lookup';
      tool: ToolName;
      request: LookupRequest;
      /** orders_due: how far ahead its answer looks. */
      hoursAhead: number | null;
      /**
       * lookup_item: the item's page in the documented link form of the marketplace the input's
       * link names (spec/notes.md "Item links"); null for a bare id.
       */
      itemLink: string | null;
    }
  | {
      ok: true;
      kind: 'spend';
      tool: 'spend';
      period: (typeof SPEND_PERIODS)[number];
      everyone: boolean;
    }
  | { ok: false; tool: ToolName; problems: Problem[] };

export interface ToolContext {
  /** The edition /orders is called with (filters are enhanced-only, spec §9). */
  ordersEdition: number;
}

export interface ToolDef {
  name: ToolName;
  surfaces: readonly ToolSurface[];
  /** The plat operations one call of it may use: its price lines. Empty: free (ledger, settings). */
  operations: readonly Operation[];
}

/**
 * The catalog, in the order the manifest and the model list the tools. MCP offers exactly the
 * issue's seven (issue 37); waybill print data is the agent's only (an AI client has no printer,
 * and the print data is the shop's encrypted waybill).
 */
export const TOOLS = {
  lookup_waybill: { name: 'lookup_waybill', surfaces: ['step', 'agent', 'mcp'], operations: ['platdzmd'] },
  lookup_item: {
    name: 'lookup_item',
    surfaces: ['step', 'agent', 'mcp'],
    operations: ['platiteminfo', 'platiteminfoprice'],
  },
  item_prices: { name: 'item_prices', surfaces: ['agent', 'mcp'], operations: ['platiteminfoprice'] },
  orders_due: { name: 'orders_due', surfaces: ['step', 'agent', 'mcp'], operations: ['paging-orders'] },
  lookup_shop: {
    name: 'lookup_shop',
    surfaces: ['step', 'agent', 'mcp'],
    operations: ['get-shop-info', 'get-shop-id'],
  },
  orders_page: { name: 'orders_page', surfaces: ['agent', 'mcp'], operations: ['paging-orders'] },
  spend: { name: 'spend', surfaces: ['agent', 'mcp'], operations: [] },
  waybill_print: { name: 'waybill_print', surfaces: ['agent'], operations: ['platdybw'] },
} as const satisfies Readonly<Record<ToolName, ToolDef>>;

/** The tools a surface offers, as a type (the Workflow steps' ids are StepId, lookups/steps.ts). */
export type ToolOn<S extends ToolSurface> = {
  [N in ToolName]: S extends (typeof TOOLS)[N]['surfaces'][number] ? N : never;
}[ToolName];

export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];
export const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOLS, name);

/** The tools offered on one surface, in catalog order. */
export function toolsFor(surface: ToolSurface): ToolDef[] {
  return TOOL_NAMES.map((n): ToolDef => TOOLS[n]).filter((t) => t.surfaces.includes(surface));
}

/** A tool's zod input and output. */
export const toolInput = (name: ToolName) => SCHEMAS[name].input as z.ZodObject;
export const toolOutput = (name: ToolName) => SCHEMAS[name].output as z.ZodObject;

/** A tool's input as JSON Schema (what the model and MCP clients read; the manifest's types). */
export function toolInputJsonSchema(name: ToolName): Record<string, unknown> {
  return z.toJSONSchema(toolInput(name), { io: 'input' }) as Record<string, unknown>;
}
export function toolOutputJsonSchema(name: ToolName): Record<string, unknown> {
  return z.toJSONSchema(toolOutput(name), { io: 'output' }) as Record<string, unknown>;
}

// ---- input → request ---------------------------------------------------------------------------

export type ToolInputs = Readonly<Record<string, unknown>>;

/** An input as text, read up to a command's length (issue 34 M3). */
const text = (value: unknown): string =>
  typeof value === 'string'
    ? capped(value, MAX_COMMAND_TEXT).trim()
    : typeof value === 'number'
      ? String(value)
      : '';

/**
 * A tool's input as the slash commands' parsers read it (the same validation: bad input never
 * reaches a call). Tolerant of what Slack sends a step (numbers for text, absent optional fields);
 * the agent's planners validate against `toolInput(name)` first.
 */
export function toolAsk(name: ToolName, inputs: ToolInputs, ctx: ToolContext): ToolAsk {
  const asked = (
    parsed: ParsedCommand,
    missing: Problem,
    hoursAhead: number | null = null,
    itemLink: string | null = null,
  ): ToolAsk => {
    if (parsed.kind === 'request')
      return { ok: true, kind: 'lookup', tool: name, request: parsed.request, hoursAhead, itemLink };
    if (parsed.kind === 'invalid') return { ok: false, tool: name, problems: parsed.problems };
    return { ok: false, tool: name, problems: [missing] };
  };
  const fail = (p: Problem): ToolAsk => ({ ok: false, tool: name, problems: [p] });
  switch (name) {
    case 'lookup_waybill': {
      // One id option, as /waybill takes it: waybill information needs the owner (商家 ID).
      const owner = text(inputs.owner_id);
      const carrier = text(inputs.carrier);
      const line = `${text(inputs.waybills)}${owner ? ` owner:${owner}` : ''}${carrier ? ` carrier:${carrier}` : ''}`;
      return asked(parseWaybillCommand(line), problem('waybill_none'));
    }
    case 'waybill_print': {
      const shop = text(inputs.shop_id);
      return asked(
        parseWaybillCommand(`${text(inputs.waybills)}${shop ? ` shop:${shop}` : ''}`),
        problem('waybill_none'),
      );
    }
    case 'lookup_item': {
      const line = `${text(inputs.item)}${inputs.with_prices === true ? ' prices' : ''}`;
      const ref = parseItemRef(text(inputs.item));
      return asked(parseItemCommand(line), problem('item_required'), null, ref.ok ? ref.url : null);
    }
    case 'item_prices': {
      // The /item parser (the same problems for a bad link or id), asking for the prices only:
      // the request the answer's Prices button makes (slack/actions/item-buttons.ts).
      const parsed = parseItemCommand(text(inputs.item));
      if (parsed.kind !== 'request' || parsed.request.kind !== 'item')
        return asked(parsed, problem('item_required'));
      const ref = parseItemRef(text(inputs.item));
      return asked(
        { kind: 'request', request: { kind: 'item-prices', itemId: parsed.request.itemId } },
        problem('item_required'),
        null,
        ref.ok ? ref.url : null,
      );
    }
    case 'lookup_shop': {
      const shop = text(inputs.shop);
      // A link is the shop of an item; anything else is a seller account (旺旺号).
      const line = shop === '' || /^(<?https?:\/\/|\d+$)/i.test(shop) ? shop : `ww ${shop}`;
      return asked(parseShopCommand(line), problem('shop_required'));
    }
    case 'orders_due': {
      const hours = Number(inputs.hours_ahead ?? 24);
      if (!Number.isInteger(hours) || hours < 1 || hours > MAX_HOURS_AHEAD)
        return fail(problem('step_hours', { max: MAX_HOURS_AHEAD }));
      const shop = text(inputs.shop);
      if (shop === '') return fail(problem('orders_owner'));
      // One id, never options: the input is a shop, not a command line.
      if (/\s/.test(shop)) return fail(problem('orders_one_owner'));
      return asked(
        parseOrdersCommand(`${shop} size:${ORDERS_DUE_PAGE_SIZE}`, { edition: ctx.ordersEdition }),
        problem('orders_owner'),
        hours,
      );
    }
    case 'orders_page': {
      const shop = text(inputs.shop);
      if (shop === '') return fail(problem('orders_owner'));
      if (/\s/.test(shop)) return fail(problem('orders_one_owner'));
      const options: string[] = [];
      for (const key of ['page', 'size', 'from', 'to', 'flag'] as const) {
        const value = text(inputs[key]);
        // A time "2026-11-20 08:00" is one option: /orders reads it as 2026-11-20T08:00.
        if (value !== '') options.push(`${key}:${value.replace(' ', 'T')}`);
      }
      const remark = text(inputs.remark);
      if (remark !== '') options.push(`remark:"${remark.replace(/["“”]/g, '')}"`);
      return asked(
        parseOrdersCommand([shop, ...options].join(' '), { edition: ctx.ordersEdition }),
        problem('orders_owner'),
      );
    }
    case 'spend': {
      const period = text(inputs.period) || 'month';
      if (!(SPEND_PERIODS as readonly string[]).includes(period))
        return fail(problem('unknown_option', { option: period }));
      return {
        ok: true,
        kind: 'spend',
        tool: 'spend',
        period: period as (typeof SPEND_PERIODS)[number],
        everyone: inputs.everyone === true,
      };
    }
  }
}
