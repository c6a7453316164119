/**
 * Slash command text → a validated LookupRequest, or the reason it is not one. Nothing here
 * calls anything: bad input is answered with the usage line and costs nothing (DESIGN rule 3).
 */
import { MAX_ORDER_WINDOW_MS, MAX_PAGE_SIZE } from '../../plat/inputs.js';
import type { LookupRequest, OrderFilters, WaybillRef } from '../types.js';
import { parseItemRef, unwrapSlackLink } from './item-link.js';
import { CARRIER_CODES, carriersByShape, guessCarrier } from './waybill.js';

export type ParsedCommand =
  | { kind: 'help' }
  | { kind: 'request'; request: LookupRequest }
  /** /orders without arguments: open the filter form. */
  | { kind: 'form' }
  | { kind: 'invalid'; problems: string[] };

/** Upper bound for one /waybill command; beyond it the user splits the list (it is sent in batches of 20). */
export const MAX_WAYBILLS_PER_COMMAND = 200;

/** A shop id, owner id or shop alias: what the API takes, and safe to show back. */
const ID_PATTERN = /^[\w.:@-]{1,64}$/;

function tokens(text: string): string[] {
  return text.trim().split(/\s+/).filter(Boolean);
}

const isHelp = (text: string) => /^(help|\?|-h|--help)$/i.test(text.trim());
const invalid = (...problems: string[]): ParsedCommand => ({ kind: 'invalid', problems });

/** `key:value` options, case-insensitive keys; the rest are positional. */
function splitOptions(parts: string[], keys: readonly string[]) {
  const options = new Map<string, string>();
  const positional: string[] = [];
  const unknown: string[] = [];
  for (const part of parts) {
    const m = part.match(/^([a-z]+):(.*)$/i);
    const key = m?.[1]?.toLowerCase();
    if (m && key && keys.includes(key)) options.set(key, m[2] ?? '');
    else if (m && key && !/^https?$/.test(key) && !part.startsWith('<')) unknown.push(part);
    else positional.push(part);
  }
  return { options, positional, unknown };
}

// ---- /item <link or id> [prices] ------------------------------------------------------------

export function parseItemCommand(text: string): ParsedCommand {
  if (isHelp(text) || text.trim() === '')
    return text.trim() === '' ? invalid('an item link or id is required') : { kind: 'help' };
  const parts = tokens(text);
  const withPrices = parts.some((p) => /^prices?$/i.test(p));
  const rest = parts.filter((p) => !/^prices?$/i.test(p));
  if (rest.length !== 1) return invalid('give exactly one item link or id');
  const ref = parseItemRef(rest[0] ?? '');
  if (!ref.ok)
    return invalid(
      ref.reason === 'short_link'
        ? 'short links cannot be resolved without a call: paste the full item link'
        : 'that is not an item link or id (expected e.g. https://item.taobao.com/item.htm?id=6543210987 or 6543210987)',
    );
  return { kind: 'request', request: { kind: 'item', itemId: ref.itemId, withPrices } };
}

// ---- /shop <item link> [type] | /shop ww <account id> ----------------------------------------

export function parseShopCommand(text: string): ParsedCommand {
  if (isHelp(text)) return { kind: 'help' };
  const parts = tokens(text);
  if (parts.length === 0) return invalid('an item link, or ww and a seller account id, is required');
  if (parts[0]?.toLowerCase() === 'ww') {
    const wwid = parts.slice(1).join(' ');
    if (!wwid) return invalid('give the seller messaging account id after ww');
    // Control, zero-width and direction-override characters are never part of an account id.
    if (wwid.length > 64 || /[<>\p{Cc}\p{Cf}]/u.test(wwid))
      return invalid('that is not a messaging account id');
    return { kind: 'request', request: { kind: 'shop-id', wwid } };
  }
  if (parts.length > 2) return invalid('give one item link and, optionally, its type 0, 1 or 2');
  const ref = parseItemRef(parts[0] ?? '');
  if (!ref.ok || ref.url === null)
    return invalid(
      ref.ok || ref.reason !== 'short_link'
        ? 'give a full item link (an id alone does not say which marketplace it is on)'
        : 'short links cannot be resolved without a call: paste the full item link',
    );
  const type = parts[1];
  if (type !== undefined && !/^[012]$/.test(type)) return invalid('type must be 0, 1 or 2');
  const shopType = (type ?? ref.marketplace ?? '0') as '0' | '1' | '2';
  return { kind: 'request', request: { kind: 'shop-info', url: ref.url, shopType } };
}

// ---- /waybill <numbers...> shop:<id> | owner:<id> [carrier:<code>] ---------------------------

export function parseWaybillCommand(text: string): ParsedCommand {
  if (isHelp(text)) return { kind: 'help' };
  const { options, positional, unknown } = splitOptions(tokens(text), ['shop', 'owner', 'carrier']);
  const problems: string[] = unknown.map((u) => `unknown option ${u} (use shop:, owner: or carrier:)`);
  const shop = options.get('shop');
  const owner = options.get('owner');
  if (!shop && !owner)
    problems.push(
      'say whose waybills: shop:<shop id> for print data, owner:<owner id> for waybill information',
    );
  if (shop && owner) problems.push('give either shop: or owner:, not both');
  // The id is sent to the API and shown back in the answer: one id, as for /orders.
  for (const [key, id] of [
    ['shop', shop],
    ['owner', owner],
  ] as const)
    if (id && !ID_PATTERN.test(id)) problems.push(`${key}: takes one id (letters, digits, . : @ _ -)`);
  const carrier = options.get('carrier')?.toUpperCase();
  if (carrier !== undefined && !/^[A-Z0-9_]{2,20}$/.test(carrier))
    problems.push('carrier must be a code such as ZTO');
  const codes = [...new Set(positional.map((p) => unwrapSlackLink(p).toUpperCase()))];
  if (codes.length === 0) problems.push('give at least one waybill number');
  if (codes.length > MAX_WAYBILLS_PER_COMMAND)
    problems.push(`at most ${MAX_WAYBILLS_PER_COMMAND} waybill numbers at once (${codes.length} given)`);
  const bad = codes.filter((c) => !/^[A-Z0-9-]{6,40}$/.test(c));
  if (bad.length > 0)
    problems.push(`not waybill numbers: ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ', …' : ''}`);
  const waybills: WaybillRef[] = codes.map((code) => ({
    waybillCode: code,
    carrier: carrier ?? guessCarrier(code),
  }));
  // platdzmd needs a carrier for every waybill (spec §4.6: wp_code required); ask where the shape does not tell.
  if (owner) {
    const unknownCarrier = waybills.filter((w) => w.carrier === null).map((w) => w.waybillCode);
    if (unknownCarrier.length > 0) {
      const hint = unknownCarrier
        .slice(0, 3)
        .map((c) => {
          const candidates = carriersByShape(c);
          return candidates.length > 1 ? `${c} (could be ${candidates.join(' or ')})` : c;
        })
        .join(', ');
      problems.push(
        `cannot tell the carrier of ${hint}${unknownCarrier.length > 3 ? ` and ${unknownCarrier.length - 3} more` : ''}: add carrier:<code>, one of ${CARRIER_CODES.join(', ')}`,
      );
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

const FLAG_NAMES: Record<string, number> = { red: 1, yellow: 2, green: 3, blue: 4, purple: 5 };

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

/** Validates the fields (shared by the command and the form); problems are user-facing. */
export function ordersRequestFrom(fields: OrdersFields, edition: number): ParsedCommand {
  const problems: string[] = [];
  if (!ID_PATTERN.test(fields.ownerId)) problems.push('give one owner id (letters, digits, . : @ _ -)');
  if (!Number.isInteger(fields.page) || fields.page < 1) problems.push('page must be 1 or more');
  if (!Number.isInteger(fields.pageSize) || fields.pageSize < 1 || fields.pageSize > MAX_PAGE_SIZE)
    problems.push(`size must be 1 to ${MAX_PAGE_SIZE}`);
  const filters: OrderFilters = {};
  let { startTime, endTime } = fields;
  if (startTime && !endTime) endTime = new Date(startTime.getTime() + MAX_ORDER_WINDOW_MS - 1000);
  if (endTime && !startTime) startTime = new Date(endTime.getTime() - MAX_ORDER_WINDOW_MS + 1000);
  if (startTime && endTime) {
    const span = endTime.getTime() - startTime.getTime();
    if (span < 0) problems.push('the end of the time window is before its start');
    // notes.md: the platform allows at most a 24-hour window.
    else if (span > MAX_ORDER_WINDOW_MS) problems.push('the time window can be at most 24 hours');
    filters.startTime = startTime;
    filters.endTime = endTime;
  }
  if (fields.remark !== undefined) {
    const remark = fields.remark.trim();
    if (!remark || remark.length > 200) problems.push('remark must be 1 to 200 characters');
    else filters.remark = remark;
  }
  if (fields.remarkTag !== undefined) {
    if (!Number.isInteger(fields.remarkTag) || fields.remarkTag < 1 || fields.remarkTag > 5)
      problems.push('flag must be 1 to 5 (or red, yellow, green, blue, purple)');
    else filters.remarkTag = fields.remarkTag;
  }
  if (fields.remarkTagName !== undefined) {
    const name = fields.remarkTagName.trim();
    if (!name || name.length > 50) problems.push('flagname must be 1 to 50 characters');
    else filters.remarkTagName = name;
  }
  if (edition !== 1 && Object.keys(filters).length > 0)
    problems.push(
      'time, remark and flag filters need the enhanced edition of the orders interface; platdesk is set to the basic edition (PLAT_EDITIONS)',
    );
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

export function parseOrdersCommand(text: string, { edition }: OrdersCommandOptions): ParsedCommand {
  if (isHelp(text)) return { kind: 'help' };
  if (text.trim() === '') return { kind: 'form' };
  // remark: may hold spaces when quoted: remark:"not shipped"
  const quoted = [...text.matchAll(/remark:"([^"]*)"/gi)].map((m) => m[1] ?? '');
  const { options, positional, unknown } = splitOptions(tokens(text.replace(/remark:"[^"]*"/gi, ' ')), [
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
  const problems: string[] = unknown.map((u) => `unknown option ${u}`);
  if (positional.length !== 1) problems.push('give exactly one owner id (or shop alias)');
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
    if (!start || day.length !== 10) problems.push('date must be YYYY-MM-DD');
    else {
      fields.startTime = start;
      fields.endTime = new Date(start.getTime() + MAX_ORDER_WINDOW_MS - 1000);
    }
  }
  for (const key of ['from', 'to'] as const) {
    const value = options.get(key);
    if (value === undefined) continue;
    const date = parseShanghaiTime(value);
    if (!date) problems.push(`${key} must be YYYY-MM-DD or YYYY-MM-DDTHH:MM (China time)`);
    else if (key === 'from') fields.startTime = date;
    else fields.endTime = date;
  }
  const flag = options.get('flag');
  if (flag !== undefined) fields.remarkTag = FLAG_NAMES[flag.toLowerCase()] ?? Number(flag);
  const built = ordersRequestFrom(fields, edition);
  if (problems.length === 0) return built;
  return { kind: 'invalid', problems: [...problems, ...(built.kind === 'invalid' ? built.problems : [])] };
}
