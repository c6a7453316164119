/**
 * The deterministic planner (issue 36, the default; no model): a question in Chinese or English
 * → the tool calls that answer it (lookups/tools.ts), a question back when something is
 * ambiguous, or "cannot do". It recognises waybill numbers (and the carriers staff name), item
 * links and ids, seller accounts, shop aliases, owner ids, dates and times (agent/when.ts) and the
 * intents the slash commands cover, and follow-ups that point at what the thread found before
 * ("the second one", "再查一下它的店铺"). It never guesses with money: a number that could be an
 * item or a waybill, a shop among several, a carrier the number does not tell, are asked back.
 * Nothing here calls anything; the plan is priced and confirmed by agent/plans.ts.
 */
import { findShop } from '../lookups/access.js';
import { canonicalItemUrl, findItemRefs, type ItemRef, unwrapSlackLink } from '../lookups/parse/item-link.js';
import { CARRIER_CODES, carriersByShape, findWaybillCodes, guessCarrier } from '../lookups/parse/waybill.js';
import type { RegisteredShop } from '../lookups/settings.js';
import type { ToolName } from '../lookups/tools.js';
import { REMARK_FLAG_WORDS } from '../plat/remark-flags.js';
import { cstText, dayStart, findWhen, numberOf, type When } from './when.js';

/** One tool call a planner proposes (the same shape a model's tool call has). */
export interface ToolCall {
  tool: ToolName;
  input: Record<string, unknown>;
}

/** What a thread's earlier answers found, for follow-ups (ids only: no receiver data, no remark). */
export type Ref =
  | { kind: 'item'; itemId: string; link: string | null }
  | { kind: 'waybill'; code: string; carrier: string | null; ownerId: string | null }
  | { kind: 'shop'; shopId: string | null; name: string | null; link: string | null }
  | { kind: 'order'; orderSn: string; ownerId: string };

export interface ThreadContext {
  /** The last answer's findings, in the order it showed them ("the second one" is refs[1]). */
  refs: readonly Ref[];
  /** The calls of the thread's last plan ("再查一下", "again"). */
  lastCalls: readonly ToolCall[];
}

export const EMPTY_CONTEXT: ThreadContext = { refs: [], lastCalls: [] };

/** Why the planner asks back instead of planning (blocks/agent.ts words each). */
export type Question =
  | { code: 'which_shop'; options: string[] }
  /** A shop named by a word that is no registered alias: which registered one (never a swap). */
  | { code: 'unknown_shop'; name: string; options: string[] }
  | { code: 'owner_needed' }
  | { code: 'shop_id_needed' }
  | { code: 'which_carrier'; numbers: string[]; candidates: string[] }
  | { code: 'item_or_waybill'; value: string }
  | { code: 'what_number'; value: string }
  | { code: 'which_result'; count: number }
  | { code: 'nothing_before' }
  | { code: 'full_link'; link: string }
  | { code: 'item_link_for_shop'; itemId: string };

export type Proposal =
  | {
      kind: 'plan';
      calls: ToolCall[];
      /** The shop used because it is the only one registered (said in the plan, before any charge). */
      assumedShop: string | null;
    }
  | { kind: 'ask'; question: Question }
  | { kind: 'help' }
  | { kind: 'unsupported' };

export interface PlannerInput {
  text: string;
  now: Date;
  shops: readonly RegisteredShop[];
  context: ThreadContext;
}

// ---- words staff write ----------------------------------------------------------------------

const W = {
  waybill:
    /运单|快递|物流|单号|到哪|走到哪|轨迹|签收|派送|派件|揽收|包裹|track|tracking|waybill|parcel|shipment|delivered|where (?:is|are)/,
  print: /打印|面单|print/,
  item: /商品|宝贝|链接|产品|item|product|listing|\bsku/,
  price: /价格|多少钱|价钱|售价|报价|几块|\bprices?\b|how much/,
  shop: /店铺|哪家店|哪个店|哪家|店家|谁家|店名|\bshop\b|\bstore\b|\bseller\b/,
  ww: /旺旺号?|卖家账号|seller account|\bww\b|wangwang/,
  orders: /订单|单子|的单(?!号)|几单|多少单|\borders?\b/,
  due: /要发|待发|该发|未发|没发|发货|超时|逾期|到期|\bdue\b|ship by|overdue|\blate\b|to ship|\b(?:must|should) ship|deadline/,
  spend:
    /花了|花费|扣了|扣费|费用|用了多少|花多少|\bspend\b|\bspent\b|\bcosts?\b|\bcharged?\b|\bcharges\b|\bbill\b|budget/,
  everyone:
    /大家|全部|所有人|团队|整个|全组|我们|workspace|everyone|whole team|the team|all of us|\bwe\b|\bour\b/,
  help: /^(help|帮助|\?|？|你好|hi|hello)[!！。.]?$|你能做什么|能做什么|可以做什么|怎么用|what can you do|how do i use|what do you do/,
  again: /再查|再看|重新查|刷新|again|refresh|once more/,
  pronoun: /它|这个|那个|该商品|该店|这家|那家|这件|\bit\b|\bits\b|this one|that one|\bthem\b|这些|那些|上面/,
} as const;

/** Carriers as staff name them. */
const CARRIER_WORDS: readonly [RegExp, string][] = [
  [/中通|\bzto\b/, 'ZTO'],
  [/圆通|\byto\b/, 'YTO'],
  [/申通|\bsto\b/, 'STO'],
  [/韵达|\byunda\b/, 'YUNDA'],
  [/顺丰|\bsf\b(?!\d)|s\.f\./, 'SF'],
  [/百世|汇通|\bhtky\b/, 'HTKY'],
  [/\bems\b/, 'EMS'],
  [/邮政|\bpostb\b|china post/, 'POSTB'],
  [/京东|\bjd\b(?!\w)/, 'JD'],
  [/德邦|\bdeppon\b|\bdbkd\b/, 'DBKD'],
];

const ORDINALS: Readonly<Record<string, number>> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  '1st': 1,
  '2nd': 2,
  '3rd': 3,
  '4th': 4,
  '5th': 5,
};

/** Full-width letters, digits and colons as a Chinese input method types them, made plain. */
export function normalize(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/<@[UW][A-Z0-9]+(?:\|[^>]*)?>/g, ' ')
    .replace(/<((?:https?|mailto):[^|>]+)(?:\|[^>]*)?>/g, (_, url: string) => unwrapSlackLink(`<${url}>`))
    .replace(/\s+/g, ' ')
    .trim();
}

/** Which earlier finding "the second one", "第二个", "the last one" names (1-based; -1 the last). */
function ordinalOf(t: string): number | null {
  const cn = /第\s*([一二三四五六七八九十\d]{1,3})\s*(?:个|条|件|家|单|项|行)?/.exec(t);
  if (cn) {
    const n = numberOf(cn[1] ?? '');
    if (Number.isFinite(n) && n > 0) return n;
  }
  if (/最后一个|最后那个|the last one|the last\b/.test(t)) return -1;
  const en =
    /\b(?:the\s+)?(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)\b(?:\s+(?:one|item|link|waybill|shop|order|result))?/.exec(
      t,
    );
  if (en) return ORDINALS[en[1] ?? ''] ?? null;
  const hash = /(?:^|\s)#(\d{1,2})\b|\bnumber (\d{1,2})\b|\bno\.\s*(\d{1,2})\b/.exec(t);
  if (hash) return Number(hash[1] ?? hash[2] ?? hash[3]);
  return null;
}

/** The seller account named after "旺旺", "ww", "seller account" (up to the next space or punctuation). */
function wwOf(text: string): string | null {
  const m =
    /(?:旺旺号?|卖家账号|seller account|\bww\b|wangwang)\s*(?:是|为|:|：|=)?\s*([^\s,，。？?！!、;；:：]{2,40})/i.exec(
      text,
    );
  if (!m?.[1]) return null;
  const id = m[1].replace(/(的店铺|的店|店铺|是哪家店|是哪个店|是哪家|对应.*)$/u, '');
  return id.length >= 2 ? id : null;
}

/** A registered shop the text names by alias (a whole word), owner id or shop id. */
function namedShops(text: string, shops: readonly RegisteredShop[]): RegisteredShop[] {
  const lower = text.toLowerCase();
  return shops.filter((s) => {
    const alias = s.alias.toLowerCase();
    const at = lower.indexOf(alias);
    if (at >= 0) {
      const before = lower[at - 1] ?? ' ';
      const after = lower[at + alias.length] ?? ' ';
      if (!/[\w.-]/.test(before) && !/[\w-]/.test(after)) return true;
    }
    return [s.ownerId, s.shopId].some((id) => id !== null && new RegExp(`(?<!\\d)${id}(?!\\d)`).test(text));
  });
}

/** Words that follow "shop" in a question without being a shop's name. */
const NOT_SHOP_NAMES = new Set(
  'a an the of for from in on at is it its this that with and or to by id ids link links info information name names alias aliases owner owners account please list registered'.split(
    ' ',
  ),
);

/**
 * A shop the text names by a word ("shop lotus", "店铺 lotus", "lotus 店") that is not a
 * registered alias, or null. Numbers are ids (owner or shop), read elsewhere.
 */
function unregisteredShopName(text: string, shops: readonly RegisteredShop[]): string | null {
  const aliases = new Set(shops.map((s) => s.alias.toLowerCase()));
  const patterns = [
    /\bshop\s+([a-z][\w-]{1,39})\b/gi,
    /(?:店铺|商店)\s*([a-z][\w-]{1,39})/gi,
    /(?<![\w-])([a-z][\w-]{1,39})\s*(?:店铺|店|家店)(?!\s*id)/gi,
  ];
  for (const re of patterns)
    for (const m of text.matchAll(re)) {
      const word = (m[1] ?? '').toLowerCase();
      if (!NOT_SHOP_NAMES.has(word) && !aliases.has(word)) return m[1] as string;
    }
  return null;
}

/** Bare numbers of 5–20 digits that are not inside a link. */
function bareNumbers(text: string): string[] {
  const withoutLinks = text.replace(/(?:https?:\/\/)?[a-z0-9.-]+\.(?:com|cn|hk)\/\S*/gi, ' ');
  return [
    ...new Set([...withoutLinks.matchAll(/(?<![\w.:/-])(\d{5,20})(?![\w])/g)].map((m) => m[1] as string)),
  ];
}

const hoursUntil = (at: Date, now: Date) =>
  Math.min(168, Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 3_600_000)));

/** How far ahead "due" looks for a date or time (default: the day ahead). */
function hoursAheadOf(when: When | null, now: Date): number {
  if (!when) return 24;
  switch (when.kind) {
    case 'hours':
      return Math.min(168, Math.max(1, when.hours));
    case 'until':
      return hoursUntil(when.at, now);
    case 'day':
      // "今天要发的": what is due before today ends.
      return hoursUntil(
        new Date(Math.max(when.start.getTime() + 86_400_000, now.getTime() + 3_600_000)),
        now,
      );
    case 'days':
      return 24;
  }
}

/** Order windows of a date: one per day (the platform allows 24 hours a query, notes.md). */
function windowsOf(when: When | null, now: Date): { from: string; to: string }[] {
  if (!when) return [];
  const day = (start: Date) => {
    const end = new Date(
      Math.min(start.getTime() + 86_400_000 - 60_000, Math.max(now.getTime(), start.getTime() + 60_000)),
    );
    return { from: cstText(start), to: cstText(end) };
  };
  switch (when.kind) {
    case 'day':
      return [day(when.start)];
    case 'days':
      return when.starts.map(day);
    case 'hours':
      return [{ from: cstText(new Date(now.getTime() - when.hours * 3_600_000)), to: cstText(now) }];
    case 'until':
      return [day(dayStart(when.at))];
  }
}

function pageOf(t: string): { page?: number; size?: number } {
  const out: { page?: number; size?: number } = {};
  const page = /第\s*(\d{1,3})\s*页|\bpage\s*(\d{1,3})\b|(?<!每)页[:：]?\s*(\d{1,3})/.exec(t);
  if (page) out.page = Number(page[1] ?? page[2] ?? page[3]);
  const size =
    /每页\s*(\d{1,3})|(\d{1,3})\s*(?:条|单)\s*一页|\b(\d{1,3})\s*(?:per page|a page)\b|size[:：]?\s*(\d{1,3})/.exec(
      t,
    );
  if (size) out.size = Number(size[1] ?? size[2] ?? size[3] ?? size[4]);
  return out;
}

function flagOf(t: string): number | null {
  const m = /(红|黄|绿|蓝|紫)(?:色)?旗|\b(red|yellow|green|blue|purple)\s+flag/.exec(t);
  if (!m) return null;
  return REMARK_FLAG_WORDS[m[1] ?? m[2] ?? ''] ?? null;
}

function carrierNamed(t: string): string | null {
  for (const [pattern, code] of CARRIER_WORDS) if (pattern.test(t)) return code;
  const option = /carrier[:：]\s*([a-z]{2,6})/.exec(t)?.[1]?.toUpperCase();
  return option && (CARRIER_CODES as readonly string[]).includes(option) ? option : null;
}

// ---- the planner ------------------------------------------------------------------------------

export function planDeterministic(input: PlannerInput): Proposal {
  const text = normalize(input.text);
  const t = text.toLowerCase();
  const { now, shops, context } = input;
  const has = (k: keyof typeof W) => W[k].test(t);
  const when = findWhen(t, now);

  // What the text names.
  const links = findItemRefs(text);
  const shortLink = links.find((r): r is Extract<ItemRef, { ok: false }> => !r.ok);
  const items = links.filter((r): r is Extract<ItemRef, { ok: true }> => r.ok);
  const linkIds = new Set(items.map((r) => r.itemId));
  const waybills = findWaybillCodes(text).filter((c) => !linkIds.has(c));
  const named = namedShops(text, shops);
  const namedIds = new Set(
    named.flatMap((s) => [s.ownerId, s.shopId]).filter((x): x is string => x !== null),
  );
  const ww = has('ww') ? wwOf(text) : null;
  const explicitOwner = /(?:owner|商家(?:\s*id)?|商家号)\s*[:：=]?\s*(\d{5,20})/i.exec(text)?.[1] ?? null;
  const explicitShopId =
    /(?:shop(?:\s*id)?|店铺\s*id|店铺号)\s*[:：=]\s*([\w-]{3,40})/i.exec(text)?.[1] ?? null;

  // Bare numbers: waybill-shaped ones are waybills unless the text speaks of items; other numbers
  // are items when it speaks of items, owners when it speaks of orders; anything else is asked.
  const itemIds: string[] = [];
  let owner: string | null = explicitOwner;
  for (const n of bareNumbers(text)) {
    if (linkIds.has(n) || namedIds.has(n) || n === explicitOwner || n === explicitShopId) continue;
    const waybillShaped = waybills.includes(n);
    const itemish = has('item') || has('price') || (has('shop') && !has('orders') && !has('due'));
    if (waybillShaped) {
      if (itemish && !has('waybill')) {
        waybills.splice(waybills.indexOf(n), 1);
        itemIds.push(n);
      } else if (!has('waybill') && !has('print') && (has('orders') || has('due'))) {
        waybills.splice(waybills.indexOf(n), 1);
        owner ??= n;
      } else if (
        !has('waybill') &&
        !has('print') &&
        carriersByShape(n).length > 0 &&
        !/[a-z]/i.test(n) &&
        !itemish
      ) {
        // A number of digits only that fits a carrier's shape and an item id's: ask.
        if (!carrierNamed(t)) return { kind: 'ask', question: { code: 'item_or_waybill', value: n } };
      }
      continue;
    }
    if (itemish) itemIds.push(n);
    else if (has('orders') || has('due')) owner ??= n;
    else return { kind: 'ask', question: { code: 'what_number', value: n } };
  }

  if (has('help') && links.length === 0 && waybills.length === 0 && itemIds.length === 0)
    return { kind: 'help' };
  if (shortLink && items.length === 0)
    return { kind: 'ask', question: { code: 'full_link', link: shortLink.input } };

  // The spend report: free, from the ledger.
  if (has('spend') && items.length + waybills.length + itemIds.length === 0 && !has('orders')) {
    const period = /30\s*天|30 days|last30/.test(t)
      ? 'last30'
      : when?.kind === 'day' && when.today
        ? 'today'
        : 'month';
    return {
      kind: 'plan',
      calls: [{ tool: 'spend', input: { period, everyone: has('everyone') } }],
      assumedShop: null,
    };
  }

  // Which shop an order or waybill question is about: named, or the only one registered.
  let assumedShop: string | null = null;
  const shopFor = (need: 'ownerId' | 'shopId'): { id: string } | { ask: Question } => {
    const withId = (list: readonly RegisteredShop[]) => list.filter((s) => s[need] !== null);
    const direct = need === 'ownerId' ? owner : explicitShopId;
    if (direct) {
      const registered = findShop({ shops: [...shops], registeredOnly: false }, direct);
      return { id: registered?.alias ?? direct };
    }
    const candidates = withId(named);
    if (candidates.length === 1) return { id: (candidates[0] as RegisteredShop).alias };
    if (candidates.length > 1)
      return { ask: { code: 'which_shop', options: candidates.map((s) => s.alias) } };
    const all = withId(shops);
    // A shop named that is not registered is asked about, never replaced by the registered one.
    const unknown = unregisteredShopName(text, shops);
    if (unknown)
      return { ask: { code: 'unknown_shop', name: unknown, options: all.map((s) => s.alias).slice(0, 10) } };
    if (all.length === 1) {
      assumedShop = (all[0] as RegisteredShop).alias;
      return { id: assumedShop };
    }
    if (all.length > 1) return { ask: { code: 'which_shop', options: all.map((s) => s.alias).slice(0, 10) } };
    return { ask: { code: need === 'ownerId' ? 'owner_needed' : 'shop_id_needed' } };
  };

  const calls: ToolCall[] = [];
  const plan = (): Proposal => ({ kind: 'plan', calls, assumedShop });

  // ---- follow-ups: nothing named, but the thread found something before ---------------------
  const named0 = items.length + waybills.length + itemIds.length + named.length === 0 && !ww && !owner;
  const ordinal = ordinalOf(t);
  if (named0 && (ordinal !== null || has('pronoun') || has('again'))) {
    if (has('again') && ordinal === null && !has('shop') && !has('price') && context.lastCalls.length > 0)
      return {
        kind: 'plan',
        calls: context.lastCalls.map((c) => ({ ...c, input: { ...c.input } })),
        assumedShop: null,
      };
    if (context.refs.length === 0) return { kind: 'ask', question: { code: 'nothing_before' } };
    let ref: Ref | undefined;
    if (ordinal !== null) {
      ref = ordinal === -1 ? context.refs.at(-1) : context.refs[ordinal - 1];
      if (!ref) return { kind: 'ask', question: { code: 'which_result', count: context.refs.length } };
    } else if (context.refs.length === 1 || has('shop') || has('price')) {
      // "它的店铺" after an item list names the item the thread spoke of last.
      ref =
        [...context.refs].reverse().find((r) => (has('shop') || has('price') ? r.kind === 'item' : true)) ??
        context.refs.at(-1);
    } else return { kind: 'ask', question: { code: 'which_result', count: context.refs.length } };
    if (!ref) return { kind: 'ask', question: { code: 'nothing_before' } };
    switch (ref.kind) {
      case 'item':
        if (has('shop')) {
          if (!ref.link) return { kind: 'ask', question: { code: 'item_link_for_shop', itemId: ref.itemId } };
          calls.push({ tool: 'lookup_shop', input: { shop: ref.link } });
        } else
          calls.push({
            tool: 'lookup_item',
            input: { item: ref.link ?? ref.itemId, with_prices: has('price') },
          });
        return plan();
      case 'waybill':
        calls.push({
          tool: 'lookup_waybill',
          input: {
            waybills: ref.code,
            ...(ref.ownerId ? { owner_id: ref.ownerId } : {}),
            ...(ref.carrier ? { carrier: ref.carrier } : {}),
          },
        });
        if (!ref.ownerId) {
          const shop = shopFor('ownerId');
          if ('ask' in shop) return { kind: 'ask', question: shop.ask };
          (calls[0] as ToolCall).input.owner_id = shop.id;
        }
        return plan();
      case 'shop':
        if (ref.link) calls.push({ tool: 'lookup_shop', input: { shop: ref.link } });
        else return { kind: 'ask', question: { code: 'nothing_before' } };
        return plan();
      case 'order':
        calls.push({ tool: 'orders_page', input: { shop: ref.ownerId } });
        return plan();
    }
  }

  // ---- items and shops of items --------------------------------------------------------------
  const shopOfItem = has('shop') && !has('orders') && !has('due');
  for (const ref of items) {
    if (shopOfItem)
      calls.push({
        tool: 'lookup_shop',
        input: { shop: ref.url ?? canonicalItemUrl(ref.itemId, ref.marketplace ?? '0') },
      });
    else
      calls.push({ tool: 'lookup_item', input: { item: ref.url ?? ref.itemId, with_prices: has('price') } });
  }
  for (const id of itemIds) {
    if (shopOfItem) return { kind: 'ask', question: { code: 'item_link_for_shop', itemId: id } };
    calls.push({ tool: 'lookup_item', input: { item: id, with_prices: has('price') } });
  }
  if (ww) calls.push({ tool: 'lookup_shop', input: { shop: ww } });

  // ---- waybills ---------------------------------------------------------------------------------
  if (waybills.length > 0) {
    if (has('print')) {
      const shop = shopFor('shopId');
      if ('ask' in shop) return { kind: 'ask', question: shop.ask };
      calls.push({ tool: 'waybill_print', input: { waybills: waybills.join(' '), shop_id: shop.id } });
    } else {
      const carrier = carrierNamed(t);
      const unknown = carrier ? [] : waybills.filter((c) => guessCarrier(c) === null);
      if (unknown.length > 0) {
        const candidates = [...new Set(unknown.flatMap((c) => carriersByShape(c)))];
        return { kind: 'ask', question: { code: 'which_carrier', numbers: unknown.slice(0, 5), candidates } };
      }
      const shop = shopFor('ownerId');
      if ('ask' in shop) return { kind: 'ask', question: shop.ask };
      calls.push({
        tool: 'lookup_waybill',
        input: { waybills: waybills.join(' '), owner_id: shop.id, ...(carrier ? { carrier } : {}) },
      });
    }
  }

  // ---- orders -----------------------------------------------------------------------------------
  const orderish =
    has('orders') || has('due') || (named.length > 0 && calls.length === 0 && waybills.length === 0);
  if (orderish && !(calls.length > 0 && !has('orders') && !has('due'))) {
    const shop = shopFor('ownerId');
    if ('ask' in shop) return { kind: 'ask', question: shop.ask };
    if (has('due'))
      calls.push({ tool: 'orders_due', input: { shop: shop.id, hours_ahead: hoursAheadOf(when, now) } });
    else {
      const extra: Record<string, unknown> = { ...pageOf(t) };
      const flag = flagOf(t);
      if (flag !== null) extra.flag = flag;
      const windows = windowsOf(when, now);
      if (windows.length === 0) calls.push({ tool: 'orders_page', input: { shop: shop.id, ...extra } });
      for (const w of windows)
        calls.push({ tool: 'orders_page', input: { shop: shop.id, ...extra, from: w.from, to: w.to } });
    }
  }

  if (calls.length === 0) return has('help') ? { kind: 'help' } : { kind: 'unsupported' };
  return plan();
}
