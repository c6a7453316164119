/**
 * POST paging-orders: paged list of sold orders (spec §4.7, §2.8). The examples send form fields,
 * so multipart and urlencoded forms are read, and JSON too. Pages start at 0; pageSize is at most
 * 100; the filters are open to the enhanced edition (vvtype 1) only (§9 rule 3).
 */
import { ok, paramError, type Reply } from '../envelope.js';
import { authorizedOwnerIds, type OrderWire } from '../fixtures.js';
import { parseEdition, parseTimeFilter } from '../params.js';
import { readFields } from '../request-body.js';
import { shopUnauthorized } from './common.js';
import type { Handler } from './context.js';

/** spec §4.7 leaves the default open; a small page keeps the answers light. */
export const DEFAULT_PAGE_SIZE = 10;
/** spec §2.8, §8. */
const MAX_PAGE_SIZE = 100;
/** notes.md: the platform's order list allows at most 24 h between start and end time. */
export const MAX_TIME_WINDOW_MS = 24 * 3_600_000;
const ENHANCED_ONLY = ['start_time', 'end_time', 'remark', 'remarkTag', 'remarkTagName'] as const;
const TIME_FORMATS = 'a 10-digit (s) or 13-digit (ms) unix timestamp, or "YYYY-MM-DD HH:mm:ss" (UTC+8)';

export const pagingOrders: Handler = async (request, { account, orders }) => {
  const fields = await readFields(request.body, request.contentType);
  if (fields === null) return paramError('the body must be a form or a JSON object');
  // An empty form field means "not sent": form builders often send every field.
  const field = (name: string): string | undefined => fields.get(name)?.trim() || undefined;

  const ownerId = field('owner_id');
  if (ownerId === undefined) return paramError('owner_id is required');
  const edition = parseEdition('paging-orders', field('vvtype'));
  if (!edition.ok) return paramError(edition.reason);
  const sentFilters = ENHANCED_ONLY.filter((name) => field(name) !== undefined);
  if (edition.edition !== 1 && sentFilters.length > 0) {
    return paramError(`${sentFilters.join(', ')} are open to the enhanced edition (vvtype 1) only`);
  }
  const page = nonNegativeInt(field('page') ?? '0');
  if (page === null) return paramError('page must be an integer from 0');
  const pageSize = nonNegativeInt(field('pageSize') ?? String(DEFAULT_PAGE_SIZE));
  if (pageSize === null || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    return paramError(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  const filter = buildFilter(field);
  if (typeof filter !== 'function') return filter;
  if (!authorizedOwnerIds.has(ownerId)) return shopUnauthorized(ownerId);

  return account.charge('paging-orders', edition.edition, (points) => {
    const matching = (orders.get(ownerId) ?? []).filter(filter);
    return ok({
      content: matching.slice(page * pageSize, (page + 1) * pageSize),
      page,
      pageSize,
      totalElements: matching.length,
      withholding_money: points,
    });
  });
};

/**
 * The enhanced filters as one predicate, or a code-100 answer. The time window is
 * [start_time, end_time) on confirm_time, so consecutive 24 h windows never share an order.
 */
function buildFilter(field: (name: string) => string | undefined): ((order: OrderWire) => boolean) | Reply {
  const startText = field('start_time');
  const endText = field('end_time');
  const remark = field('remark');
  const tagText = field('remarkTag');
  const tagName = field('remarkTagName');
  let start = Number.NEGATIVE_INFINITY;
  let end = Number.POSITIVE_INFINITY;
  if (startText !== undefined || endText !== undefined) {
    if (startText === undefined || endText === undefined)
      return paramError('send start_time and end_time together');
    const from = parseTimeFilter(startText);
    const to = parseTimeFilter(endText);
    if (from === null) return paramError(`start_time must be ${TIME_FORMATS}`);
    if (to === null) return paramError(`end_time must be ${TIME_FORMATS}`);
    if (to < from) return paramError('end_time is before start_time');
    if (to - from > MAX_TIME_WINDOW_MS) return paramError('the time window is at most 24 hours');
    start = from;
    end = to;
  }
  // notes.md: remark_tag 1 red, 2 yellow, 3 green, 4 blue, 5 purple.
  const tag = tagText === undefined ? null : Number(tagText);
  if (tag !== null && !(Number.isInteger(tag) && tag >= 1 && tag <= 5)) {
    return paramError('remarkTag must be 1 to 5');
  }
  return (order) =>
    order.confirm_time >= start &&
    order.confirm_time < end &&
    (remark === undefined || order.remark.includes(remark)) &&
    (tag === null || order.remark_tag === tag) &&
    (tagName === undefined || order.remark_tag_name === tagName);
}

function nonNegativeInt(text: string): number | null {
  return /^\d{1,9}$/.test(text) ? Number(text) : null;
}
