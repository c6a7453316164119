/**
 * Slash command text → a validated LookupRequest, or the reason it is not one. Nothing here
 * calls anything: bad input is answered with the usage line and costs nothing (DESIGN rule 3).
 */
import { MAX_ORDER_WINDOW_MS, MAX_PAGE_SIZE } from '../../plat/inputs.js';
import { REMARK_FLAG_WORDS } from '../../plat/remark-flags.js';
import { capped, MAX_COMMAND_TEXT } from '../../text-limits.js';
import type { LookupRequest, OrderFilters, WaybillRef } from '../types.js';
import { parseItemRef, unwrapSlackLink } from './item-link.js';
import { type Problem, type ProblemCode, problem } from './problems.js';
import { CARRIER_CODES, carriersByShape, guessCarrier } from './waybill.js';

export type ParsedCommand =
  | { kind: 'help' }
  | { kind: 'request'; request: LookupRequest }
  /** /orders without arguments: open the filter form. */
  | { kind: 'form' }
  | { kind: 'invalid'; problems: Problem[] };

/** Upper bound for one /waybill command; beyond it the user splits the list (it is sent in batches of 20). */
export const MAX_WAYBILLS_PER_COMMAND = 200;

/** A shop id, owner id or shop alias: what the API takes, and safe to show back. */
const ID_PATTERN = /^[\w.:@-]{1,64}$/;

function tokens(text: string): string[] {
  return capped(text, MAX_COMMAND_TEXT).trim().split(/\s+/).filter(Boolean);
}

/** `help`, or `帮助` as Chinese staff type it. */
export const isHelp = (text: string) => /^(help|\?|？|-h|--help|帮助)$/i.test(text.trim());
const invalid = (code: ProblemCode): ParsedCommand => ({ kind: 'invalid', problems: [problem(code)] });

/** Option keys as Chinese staff type them, mapped to their English names. */
const CHINESE_KEYS: Readonly<Record<string, string>> = {
  页: 'page',
  每页: 'size',
  日期: 'date',
  从: 'from',
  到: 'to',
  备注: 'remark',
  旗: 'flag',
  旗帜: 'flag',
  店铺: 'shop',
  商家: 'owner',
  快递: 'carrier',
};

/**
 * `key:value` options, case-insensitive keys, English or Chinese (`页:2`), with the ASCII or the
 * full-width colon a Chinese input method types (`页：2`); the rest are positional.
 */
function splitOptions(parts: string[], keys: readonly string[]) {
  const options = new Map<string, string>();
  const positional: string[] = [];
  const unknown: string[] = [];
  for (const part of parts) {
    const m = part.match(/^([a-z]+|\p{Script=Han}{1,4})[:：](.*)$/iu);
    const raw = m?.[1]?.toLowerCase();
    const key = raw === undefined ? undefined : (CHINESE_KEYS[raw] ?? raw);
    if (m && key && keys.includes(key)) options.set(key, m[2] ?? '');
    else if (m && key && !/^https?$/.test(key) && !part.startsWith('<')) unknown.push(part);
    else positional.push(part);
  }
  return { options, positional, unknown };
}

// ---- /item <link or id> [prices] ------------------------------------------------------------

export function parseItemCommand(text: string): ParsedCommand {
  if (isHelp(text) || text.trim() === '')
    return text.trim() === '' ? invalid('item_required') : { kind: 'help' };
  const parts = tokens(text);
  const isPrices = (p: string) => /^(prices?|价格)$/i.test(p);
  const withPrices = parts.some(isPrices);
  const rest = parts.filter((p) => !isPrices(p));
  if (rest.length !== 1) return invalid('item_count');
  const ref = parseItemRef(rest[0] ?? '');
  if (!ref.ok) return invalid(ref.reason === 'short_link' ? 'item_short_link' : 'item_not_an_item');
  return { kind: 'request', request: { kind: 'item', itemId: ref.itemId, withPrices } };
}

// ---- /shop <item link> [type] | /shop ww <account id> ----------------------------------------

export function parseShopCommand(text: string): ParsedCommand {
  if (isHelp(text)) return { kind: 'help' };
  const parts = tokens(text);
  if (parts.length === 0) return invalid('shop_required');
  if (parts[0]?.toLowerCase() === 'ww') {
    const wwid = parts.slice(1).join(' ');
    if (!wwid) return invalid('shop_ww_id_required');
    // Control, zero-width and direction-override characters are never part of an account id.
    if (wwid.length > 64 || /[<>\p{Cc}\p{Cf}]/u.test(wwid)) return invalid('shop_ww_bad_id');
    return { kind: 'request', request: { kind: 'shop-id', wwid } };
  }
  if (parts.length > 2) return invalid('shop_too_many');
  const ref = parseItemRef(parts[0] ?? '');
  if (!ref.ok || ref.url === null)
    return invalid(ref.ok || ref.reason !== 'short_link' ? 'shop_full_link' : 'item_short_link');
  const type = parts[1];
  if (type !== undefined && !/^[012]$/.test(type)) return invalid('shop_type');
  const shopType = (type ?? ref.marketplace ?? '0') as '0' | '1' | '2';
  return { kind: 'request', request: { kind: 'shop-info', url: ref.url, shopType } };
}

// ---- /waybill <numbers...> shop:<id> | owner:<id> [carrier:<code>] ---------------------------

export function parseWaybillCommand(text: string): ParsedCommand {
  if (isHelp(text)) return { kind: 'help' };
  const { options, positional, unknown } = splitOptions(tokens(text), ['shop', 'owner', 'carrier']);
  const problems: Problem[] = unknown.map((u) => problem('waybill_unknown_option', { option: u }));
  const shop = options.get('shop');
  const owner = options.get('owner');
  if (!shop && !owner) problems.push(problem('waybill_whose'));
  if (shop && owner) problems.push(problem('waybill_both'));
  // The id is sent to the API and shown back in the answer: one id, as for /orders.
  for (const [key, id] of [
    ['shop', shop],
    ['owner', owner],
  ] as const)
    if (id && !ID_PATTERN.test(id)) problems.push(problem('waybill_bad_id', { key }));
  const carrier = options.get('carrier')?.toUpperCase();
  if (carrier !== undefined && !/^[A-Z0-9_]{2,20}$/.test(carrier))
    problems.push(problem('waybill_carrier_code'));
  const codes = [...new Set(positional.map((p) => unwrapSlackLink(p).toUpperCase()))];
  if (codes.length === 0) problems.push(problem('waybill_none'));
  if (codes.length > MAX_WAYBILLS_PER_COMMAND)
    problems.push(problem('waybill_too_many', { max: MAX_WAYBILLS_PER_COMMAND, given: codes.length }));
  const bad = codes.filter((c) => !/^[A-Z0-9-]{6,40}$/.test(c));
  if (bad.length > 0)
    problems.push(
      problem('waybill_bad_numbers', {
        numbers: `${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ', …' : ''}`,
      }),
    );
  const waybills: WaybillRef[] = codes.map((code) => ({
    waybillCode: code,
    carrier: carrier ?? guessCarrier(code),
  }));
  // platdzmd needs a carrier for every waybill (spec §4.6: wp_code required); ask where the shape does not tell.
  if (owner) {
    const unknownCarrier = waybills.filter((w) => w.carrier === null).map((w) => w.waybillCode);
    if (unknownCarrier.length > 0) {
      problems.push({
        code: 'waybill_unknown_carrier',
        values: { more: Math.max(0, unknownCarrier.length - 3), codes: CARRIER_CODES.join(', ') },
        carriers: unknownCarrier.slice(0, 3).map((c) => ({ number: c, candidates: carriersByShape(c) })),
      });
    }
  }
  if (problems.length > 0) return { kind: 'invalid', problems };
  return {
    kind: 'request',
    request: shop
      ? { kind: 'waybill-print', shopId: shop, waybills }
      : { kind: 'waybill-info', ownerId: owner ?? '', waybills },
  };
}

// ---- /orders <owner id> [page:N] [size:N] [from:… to:…] [remark:…] [flag:1-5] --------------

/**
 * "2026-11-20", "2026-11-20T08:00" or "2026-11-20 08:00" in China Standard Time (UTC+8, the
 * marketplaces' time zone; no daylight saving).
 */
export function parseShanghaiTime(text: string): Date | null {
  const m = text.match(/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?$/);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00'] = m;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:00+08:00`);
  if (Number.isNaN(date.getTime())) return null;
  // Date rolls impossible values over (2026-02-30 → 03-02, 24:00 → the next day): refuse them
  // instead of silently querying another day (DESIGN rule 3).
  const wall = new Date(date.getTime() + 8 * 3_600_000).toISOString().slice(0, 16);
  return wall === `${y}-${mo}-${d}T${h}:${mi}` ? date : null;
}

/** Orders per page when the user does not say. */
export const DEFAULT_ORDERS_PAGE_SIZE = 20;

export interface OrdersCommandOptions {
  /** The configured paging-orders edition: filters are enhanced-only (spec §9). */
  edition: number;
}

/** The orders request's fields, from the command text or from the form. */
export interface OrdersFields {
  ownerId: string;
  /** 1-based, as users count. */
  page: number;
  pageSize: number;
  startTime?: Date | undefined;
  endTime?: Date | undefined;
  remark?: string | undefined;
  remarkTag?: number | undefined;
  remarkTagName?: string | undefined;
}

/** Validates the fields (shared by the command and the form). */
export function ordersRequestFrom(fields: OrdersFields, edition: number): ParsedCommand {
  const problems: Problem[] = [];
  if (!ID_PATTERN.test(fields.ownerId)) problems.push(problem('orders_owner'));
  if (!Number.isInteger(fields.page) || fields.page < 1) problems.push(problem('orders_page'));
  if (!Number.isInteger(fields.pageSize) || fields.pageSize < 1 || fields.pageSize > MAX_PAGE_SIZE)
    problems.push(problem('orders_size', { max: MAX_PAGE_SIZE }));
  const filters: OrderFilters = {};
  let { startTime, endTime } = fields;
  if (startTime && !endTime) endTime = new Date(startTime.getTime() + MAX_ORDER_WINDOW_MS - 1000);
  if (endTime && !startTime) startTime = new Date(endTime.getTime() - MAX_ORDER_WINDOW_MS + 1000);
  if (startTime && endTime) {
    const span = endTime.getTime() - startTime.getTime();
    if (span < 0) problems.push(problem('orders_window_reversed'));
    // notes.md: the platform allows at most a 24-hour window.
    else if (span > MAX_ORDER_WINDOW_MS) problems.push(problem('orders_window_long'));
    filters.startTime = startTime;
    filters.endTime = endTime;
  }
  if (fields.remark !== undefined) {
    const remark = fields.remark.trim();
    if (!remark || remark.length > 200) problems.push(problem('orders_remark'));
    else filters.remark = remark;
  }
  if (fields.remarkTag !== undefined) {
    if (!Number.isInteger(fields.remarkTag) || fields.remarkTag < 1 || fields.remarkTag > 5)
      problems.push(problem('orders_flag'));
    else filters.remarkTag = fields.remarkTag;
  }
  if (fields.remarkTagName !== undefined) {
    const name = fields.remarkTagName.trim();
    if (!name || name.length > 50) problems.push(problem('orders_flagname'));
    else filters.remarkTagName = name;
  }
  if (edition !== 1 && Object.keys(filters).length > 0)
    problems.push(problem('orders_filters_need_enhanced'));
  if (problems.length > 0) return { kind: 'invalid', problems };
  return {
    kind: 'request',
    request: {
      kind: 'orders',
      ownerId: fields.ownerId,
      page: fields.page - 1,
      pageSize: fields.pageSize,
      filters,
    },
  };
}

/**
 * `remark:"not shipped"` (or `备注：“…”`): the quoted remarks, and the text without them. One pass:
 * a quote that never closes ends the search (none after it could close either), so a text of
 * openers alone is read once, not once per opener (issue 34 M3).
 */
function quotedRemarks(text: string): { quoted: string[]; rest: string } {
  const opener = /(?:remark|备注)[:：]["“]/gi;
  const quoted: string[] = [];
  let rest = '';
  let last = 0;
  for (let m = opener.exec(text); m; m = opener.exec(text)) {
    const from = m.index + m[0].length;
    const closes = [text.indexOf('"', from), text.indexOf('”', from)].filter((i) => i >= 0);
    if (closes.length === 0) break;
    const close = Math.min(...closes);
    quoted.push(text.slice(from, close));
    rest += `${text.slice(last, m.index)} `;
    last = close + 1;
    opener.lastIndex = last;
  }
  return { quoted, rest: rest + text.slice(last) };
}

export function parseOrdersCommand(input: string, { edition }: OrdersCommandOptions): ParsedCommand {
  const text = capped(input, MAX_COMMAND_TEXT);
  if (isHelp(text)) return { kind: 'help' };
  if (text.trim() === '') return { kind: 'form' };
  // remark: may hold spaces when quoted: remark:"not shipped"
  const { quoted, rest } = quotedRemarks(text);
  const { options, positional, unknown } = splitOptions(tokens(rest), [
    'page',
    'size',
    'from',
    'to',
    'date',
    'remark',
    'flag',
    'flagname',
  ]);
  if (quoted.length > 0) options.set('remark', quoted[0] ?? '');
  const problems: Problem[] = unknown.map((u) => problem('unknown_option', { option: u }));
  if (positional.length !== 1) problems.push(problem('orders_one_owner'));
  const fields: OrdersFields = {
    ownerId: positional[0] ?? '',
    page: options.has('page') ? Number(options.get('page')) : 1,
    pageSize: options.has('size') ? Number(options.get('size')) : DEFAULT_ORDERS_PAGE_SIZE,
    remark: options.get('remark'),
    remarkTagName: options.get('flagname'),
  };
  const day = options.get('date');
  if (day !== undefined) {
    const start = parseShanghaiTime(day);
    if (!start || day.length !== 10) problems.push(problem('orders_date'));
    else {
      fields.startTime = start;
      fields.endTime = new Date(start.getTime() + MAX_ORDER_WINDOW_MS - 1000);
    }
  }
  for (const key of ['from', 'to'] as const) {
    const value = options.get(key);
    if (value === undefined) continue;
    const date = parseShanghaiTime(value);
    if (!date) problems.push(problem(key === 'from' ? 'orders_from' : 'orders_to'));
    else if (key === 'from') fields.startTime = date;
    else fields.endTime = date;
  }
  const flag = options.get('flag');
  if (flag !== undefined) fields.remarkTag = REMARK_FLAG_WORDS[flag.toLowerCase()] ?? Number(flag);
  const built = ordersRequestFrom(fields, edition);
  if (problems.length === 0) return built;
  return { kind: 'invalid', problems: [...problems, ...(built.kind === 'invalid' ? built.problems : [])] };
}
