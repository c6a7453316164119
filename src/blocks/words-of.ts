/**
 * Data from the layers below, worded: what a lookup is of, a spending cap, a refusal's reason,
 * and why input cannot be looked up. Raw text out; callers escape it where it goes into mrkdwn.
 */
import type { Refusal } from '../lookups/access.js';
import type { CapFigure } from '../lookups/budgets.js';
import type { Problem } from '../lookups/parse/problems.js';
import type { LookupRequest, QuoteLine } from '../lookups/types.js';
import { editionName, type Operation } from '../plat/operations.js';
import type { Catalog, Words } from './i18n/words.js';

/** The figures a sentence about a request names: the same in its summary and its subject. */
function requestFigures(w: Words, request: LookupRequest): Record<string, string | number> {
  switch (request.kind) {
    case 'item':
    case 'item-prices':
      return { id: request.itemId };
    case 'shop-info':
      return { url: request.url };
    case 'shop-id':
      return { wwid: request.wwid };
    case 'waybill-print':
    case 'waybill-info': {
      const count = request.waybills.length;
      const whose = request.kind === 'waybill-print' ? { shop: request.shopId } : { owner: request.ownerId };
      return { count, n: w.count(count), ...whose };
    }
    case 'orders':
      return { owner: request.ownerId, page: w.count(request.page + 1), size: w.count(request.pageSize) };
  }
}

/** The catalog's name of a request kind, in `summary.*` and `subject.*` alike. */
const KIND_KEY = {
  item: 'item',
  'item-prices': 'itemPrices',
  'shop-info': 'shopInfo',
  'shop-id': 'shopId',
  'waybill-print': 'waybillPrint',
  'waybill-info': 'waybillInfo',
  orders: 'orders',
} as const;

/** "item 6543210987", "商品 6543210987". */
export function describeRequest(w: Words, request: LookupRequest): string {
  const key = request.kind === 'item' && request.withPrices ? 'itemWithPrices' : KIND_KEY[request.kind];
  return w.t(`summary.${key}`, requestFigures(w, request));
}

/**
 * What a confirmation's operation is for, without naming the operation again (issue 35): "Item
 * prices for item 680001234501", "Shop id for account beeclothing".
 */
export function describeSubject(w: Words, request: LookupRequest): string {
  // An item's prices are for the item: the operation's name says "prices".
  const key = request.kind === 'item-prices' ? 'item' : KIND_KEY[request.kind];
  return w.t(`subject.${key}`, requestFigures(w, request));
}

/** "your daily cap: 450 of 500 points used". */
export function describeCap(w: Words, figure: CapFigure): string {
  const values = { spent: w.count(figure.spent), cap: w.count(figure.cap) };
  if (figure.scope === 'step')
    return w.t(figure.period === 'daily' ? 'cap.step.daily' : 'cap.step.monthly', values);
  // A channel cap refuses only what is asked, or posted, in that channel: "this channel's" (raw
  // text that callers escape or send as plain text, where a <#C…> mention would not survive).
  if (figure.scope === 'channel')
    return w.t(figure.period === 'daily' ? 'cap.channel.daily' : 'cap.channel.monthly', values);
  return figure.scope === 'user'
    ? w.t(figure.period === 'daily' ? 'cap.user.daily' : 'cap.user.monthly', values)
    : w.t(figure.period === 'daily' ? 'cap.workspace.daily' : 'cap.workspace.monthly', values);
}

/** "your daily cap (8 of 12 points left)". */
export function describeRemaining(w: Words, figure: CapFigure): string {
  const values = { left: w.count(Math.max(0, figure.cap - figure.spent)), cap: w.count(figure.cap) };
  if (figure.scope === 'channel')
    return w.t(figure.period === 'daily' ? 'cap.left.channel.daily' : 'cap.left.channel.monthly', values);
  return figure.scope === 'user'
    ? w.t(figure.period === 'daily' ? 'cap.left.user.daily' : 'cap.left.user.monthly', values)
    : w.t(figure.period === 'daily' ? 'cap.left.workspace.daily' : 'cap.left.workspace.monthly', values);
}

/** By how many points `wanted` more would pass the cap. */
export const overBy = (figure: CapFigure, wanted: number): number =>
  Math.max(0, figure.spent + wanted - figure.cap);

/**
 * What a refused lookup would have cost, in its own units: never "about 0 points" for quota calls.
 * `points` is what its calls hold against the caps; `quoted` what its quote says (null: a price
 * not known yet), said too when it is less than what is held.
 */
export function wantedWords(
  w: Words,
  points: number,
  quotaCalls: number,
  hasPoints: boolean,
  quoted: number | null = points,
): string {
  const quota = w.t('cap.quotaCalls', { count: quotaCalls, n: w.count(quotaCalls) });
  if (!hasPoints) return w.t('cap.quotaNoPoints', { quota });
  const about =
    quoted === null
      ? w.t('cap.unknownHeld', { held: w.count(points) })
      : quoted < points
        ? w.t('cap.aboutHeld', { count: quoted, n: w.count(quoted), held: w.count(points) })
        : w.t('cap.aboutPoints', { count: points, n: w.count(points) });
  return quotaCalls > 0 ? w.t('cap.pointsAndQuota', { points: about, quota }) : about;
}

export function describeRefusal(w: Words, refusal: Refusal): string {
  switch (refusal.reason) {
    case 'not_allowed':
    case 'no_plat_account':
      return w.t(`refusal.reason.${refusal.reason}`);
    case 'budget': {
      const values = {
        wanted: wantedWords(w, refusal.wanted, refusal.quotaCalls, refusal.points, refusal.quoted),
        cap: describeCap(w, refusal.cap),
        over: w.points(overBy(refusal.cap, refusal.wanted)),
      };
      // Item lookups cost no points: refused only because the cap is already passed.
      return refusal.wanted > 0
        ? w.t('refusal.reason.budget', values)
        : w.t('refusal.reason.budget_passed', values);
    }
    case 'page_past_last':
      return w.t('refusal.reason.page_past_last', {
        text: pastLastText(w, refusal),
        age: w.age(refusal.ageMs),
      });
    case 'price_unknown':
      return w.t('refusal.reason.price_unknown', {
        operations: w.list(refusal.operations.map((op) => operationTitle(w, op))),
        caps: w.list(refusal.caps.map((c) => describeRemaining(w, c))),
      });
    default:
      return w.t(`refusal.reason.${refusal.reason}`, { shop: refusal.shop });
  }
}

/** "Page 3 is past the last page: 20 orders fit on 1 page of 20." (pages count from 1) */
export function pastLastText(
  w: Words,
  p: { page: number; pages: number; total: number; pageSize: number },
): string {
  return w.t('orders.pastLast', {
    count: p.pages,
    page: w.count(p.page),
    pages: w.count(p.pages),
    size: w.count(p.pageSize),
    orders: w.t('common.orders', { count: p.total, n: w.count(p.total) }),
  });
}

/** "Item details", "商品详情". */
export function operationTitle(w: Words, operation: Operation): string {
  return w.t(`domain.operation.${operation}`);
}

/** "Waybill print data (basic)", "面单打印数据（基础版）". */
export function operationLabel(w: Words, line: Pick<QuoteLine, 'operation' | 'edition'>): string {
  const edition = editionName(line.operation, line.edition);
  const operation = operationTitle(w, line.operation);
  return edition
    ? w.t('domain.operationWithEdition', {
        operation,
        edition: w.t(`domain.edition.${edition as keyof Catalog['domain']['edition']}`),
      })
    : operation;
}

/** Why input cannot be looked up, in words (raw text). */
export function describeProblem(w: Words, p: Problem): string {
  if (p.code === 'waybill_unknown_carrier') {
    const shown = (p.carriers ?? []).map((c) =>
      c.candidates.length > 1
        ? w.t('problem.waybill_could_be', { number: c.number, candidates: orList(w, c.candidates) })
        : c.number,
    );
    const more = Number(p.values?.more ?? 0);
    const list = w.join(shown);
    return w.t('problem.waybill_unknown_carrier', {
      numbers: more > 0 ? w.t('problem.waybill_and_more', { list, n: w.count(more) }) : list,
      codes: String(p.values?.codes ?? ''),
    });
  }
  return w.t(`problem.${p.code}`, { ...p.values });
}

/** "ZTO or STO" / "ZTO 或 STO": Intl writes 或 tight against Latin codes; Chinese spaces them. */
function orList(w: Words, items: readonly string[]): string {
  const text = new Intl.ListFormat(w.locale, { type: 'disjunction' }).format(items);
  if (w.locale !== 'zh-CN') return text;
  return text.replace(
    /([A-Za-z0-9])?或([A-Za-z0-9])?/g,
    (_all, before: string | undefined, after: string | undefined) =>
      `${before ? `${before} ` : ''}或${after ? ` ${after}` : ''}`,
  );
}

/** A digest command's or form's problem (digest/grammar.ts), in words (raw text). */
export function describeDigestProblem(
  w: Words,
  p: { code: keyof Catalog['digestProblem']; values?: Record<string, string> },
): string {
  return w.t(`digestProblem.${p.code}`, { ...p.values });
}
