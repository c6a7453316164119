/**
 * The deterministic planner's coverage (issue 36): questions as support staff write them, half in
 * Chinese, each with the plan (or the question back) it must give. Shared by
 * test/agent/planner.test.ts (every row must hold) and `npm run bench:agent` (prints the accuracy).
 */
import type { Proposal, Ref, ThreadContext } from '../../src/agent/planner.js';
import type { RegisteredShop } from '../../src/lookups/settings.js';

/** 2026-11-20 12:00 in China (UTC+8). */
export const NOW = new Date('2026-11-20T04:00:00Z');

export const TWO_SHOPS: RegisteredShop[] = [
  { alias: 'bee', ownerId: '2200001001', shopId: '57301234', channels: [] },
  { alias: 'tea', ownerId: '2200001002', shopId: '57305678', channels: [] },
];
export const ONE_SHOP: RegisteredShop[] = [
  { alias: 'bee', ownerId: '2200001001', shopId: '57301234', channels: [] },
];

const ITEMS: Ref[] = [
  { kind: 'item', itemId: '680001234501', link: 'https://item.taobao.com/item.htm?id=680001234501' },
  { kind: 'item', itemId: '680001234505', link: 'https://detail.tmall.com/item.htm?id=680001234505' },
];
const WAYBILLS: Ref[] = [
  { kind: 'waybill', code: 'SF1234567890123', carrier: 'SF', ownerId: '2200001001' },
  { kind: 'waybill', code: 'YT1234567890123', carrier: 'YTO', ownerId: '2200001001' },
];

export interface Phrasing {
  text: string;
  lang: 'zh' | 'en';
  shops?: RegisteredShop[];
  context?: ThreadContext;
  expect: Proposal;
}

const plan = (
  calls: Proposal & { kind: 'plan' } extends { calls: infer C } ? C : never,
  assumedShop: string | null = null,
): Proposal => ({
  kind: 'plan',
  calls,
  assumedShop,
});
const ask = (question: Extract<Proposal, { kind: 'ask' }>['question']): Proposal => ({
  kind: 'ask',
  question,
});
const waybill = (waybills: string, owner_id: string, carrier?: string) => ({
  tool: 'lookup_waybill' as const,
  input: { waybills, owner_id, ...(carrier ? { carrier } : {}) },
});
const item = (item: string, with_prices = false) => ({
  tool: 'lookup_item' as const,
  input: { item, with_prices },
});
const shop = (s: string) => ({ tool: 'lookup_shop' as const, input: { shop: s } });
const due = (s: string, hours_ahead: number) => ({
  tool: 'orders_due' as const,
  input: { shop: s, hours_ahead },
});
const orders = (s: string, extra: Record<string, unknown> = {}) => ({
  tool: 'orders_page' as const,
  input: { shop: s, ...extra },
});
const spend = (period: string, everyone = false) => ({
  tool: 'spend' as const,
  input: { period, everyone },
});
const LINK = 'https://item.taobao.com/item.htm?id=680001234501';
const TMALL = 'https://detail.tmall.com/item.htm?id=680001234505';

export const PHRASINGS: Phrasing[] = [
  // ---- waybills (Chinese) ----
  {
    lang: 'zh',
    text: 'SF1234567890123 和 YT1234567890123 到哪了？',
    shops: ONE_SHOP,
    expect: plan([waybill('SF1234567890123 YT1234567890123', 'bee')], 'bee'),
  },
  {
    lang: 'zh',
    text: '帮我查下这个快递 SF1234567890123 bee的',
    shops: TWO_SHOPS,
    expect: plan([waybill('SF1234567890123', 'bee')]),
  },
  {
    lang: 'zh',
    text: 'tea 店的单号 YT1234567890123 物流到哪了',
    shops: TWO_SHOPS,
    expect: plan([waybill('YT1234567890123', 'tea')]),
  },
  {
    lang: 'zh',
    text: '查一下运单 SF1234567890123',
    shops: TWO_SHOPS,
    expect: ask({ code: 'which_shop', options: ['bee', 'tea'] }),
  },
  {
    lang: 'zh',
    text: '运单 773012345678901 到哪了 商家:2200001001',
    shops: [],
    expect: ask({ code: 'which_carrier', numbers: ['773012345678901'], candidates: ['ZTO', 'STO'] }),
  },
  {
    lang: 'zh',
    text: '中通 773012345678901 到哪了 商家:2200001001',
    shops: [],
    expect: plan([waybill('773012345678901', '2200001001', 'ZTO')]),
  },
  {
    lang: 'zh',
    text: '快递单号 9812345678901 签收了吗',
    shops: ONE_SHOP,
    expect: plan([waybill('9812345678901', 'bee')], 'bee'),
  },
  { lang: 'zh', text: '查快递 SF1234567890123', shops: [], expect: ask({ code: 'owner_needed' }) },
  {
    lang: 'zh',
    text: '打印面单 SF1234567890123 YT1234567890123 bee',
    shops: TWO_SHOPS,
    expect: plan([
      { tool: 'waybill_print', input: { waybills: 'SF1234567890123 YT1234567890123', shop_id: 'bee' } },
    ]),
  },
  {
    lang: 'zh',
    text: '7312345678901',
    shops: ONE_SHOP,
    expect: ask({ code: 'item_or_waybill', value: '7312345678901' }),
  },
  // ---- waybills (English) ----
  {
    lang: 'en',
    text: 'where is SF1234567890123?',
    shops: ONE_SHOP,
    expect: plan([waybill('SF1234567890123', 'bee')], 'bee'),
  },
  {
    lang: 'en',
    text: 'track YT1234567890123 and SF1234567890123 for tea',
    shops: TWO_SHOPS,
    expect: plan([waybill('YT1234567890123 SF1234567890123', 'tea')]),
  },
  {
    lang: 'en',
    text: 'tracking for ZTO 773012345678901 owner:2200001001',
    shops: [],
    expect: plan([waybill('773012345678901', '2200001001', 'ZTO')]),
  },
  {
    lang: 'en',
    text: 'has waybill 9812345678901 been delivered',
    shops: TWO_SHOPS,
    expect: ask({ code: 'which_shop', options: ['bee', 'tea'] }),
  },
  {
    lang: 'en',
    text: 'print waybills SF1234567890123 shop id: 57301234',
    shops: TWO_SHOPS,
    expect: plan([{ tool: 'waybill_print', input: { waybills: 'SF1234567890123', shop_id: 'bee' } }]),
  },
  // ---- items (Chinese) ----
  { lang: 'zh', text: `这个商品什么情况 ${LINK}`, expect: plan([item(LINK)]) },
  { lang: 'zh', text: `${LINK} 多少钱`, expect: plan([item(LINK, true)]) },
  { lang: 'zh', text: '查下商品 680001234501', expect: plan([item('680001234501')]) },
  {
    lang: 'zh',
    text: '宝贝 680001234501 和 680001234505 的价格',
    expect: plan([item('680001234501', true), item('680001234505', true)]),
  },
  { lang: 'zh', text: `${TMALL} 是哪家店的`, expect: plan([shop(TMALL)]) },
  {
    lang: 'zh',
    text: '这个链接 https://m.tb.cn/h.abc123 看下',
    expect: ask({ code: 'full_link', link: 'https://m.tb.cn/h.abc123' }),
  },
  {
    lang: 'zh',
    text: '商品 680001234501 是哪家店的',
    expect: ask({ code: 'item_link_for_shop', itemId: '680001234501' }),
  },
  { lang: 'zh', text: `帮忙看看 ${LINK} 和 ${TMALL}`, expect: plan([item(LINK), item(TMALL)]) },
  // ---- items (English) ----
  { lang: 'en', text: `what is this item ${LINK}`, expect: plan([item(LINK)]) },
  { lang: 'en', text: `price of ${TMALL} please`, expect: plan([item(TMALL, true)]) },
  { lang: 'en', text: 'look up item 680001234501 with prices', expect: plan([item('680001234501', true)]) },
  { lang: 'en', text: `which shop sells ${LINK}`, expect: plan([shop(LINK)]) },
  {
    lang: 'en',
    text: 'mobile.yangkeduo.com/goods.html?goods_id=680001234506',
    expect: plan([item('https://mobile.yangkeduo.com/goods.html?goods_id=680001234506')]),
  },
  // ---- seller accounts ----
  { lang: 'zh', text: '旺旺号 beeclothing 是哪家店', expect: plan([shop('beeclothing')]) },
  { lang: 'zh', text: '旺旺：山间绿茶官方旗舰店 的店铺id', expect: plan([shop('山间绿茶官方旗舰店')]) },
  {
    lang: 'en',
    text: 'find the shop of seller account crunchy_snacks',
    expect: plan([shop('crunchy_snacks')]),
  },
  { lang: 'en', text: 'ww beeclothing shop id?', expect: plan([shop('beeclothing')]) },
  // ---- orders due (Chinese) ----
  { lang: 'zh', text: '2200001001 今天要发的单有哪些快超时了', expect: plan([due('2200001001', 12)]) },
  { lang: 'zh', text: 'bee 明早 9 点前要发货的订单', shops: TWO_SHOPS, expect: plan([due('bee', 21)]) },
  { lang: 'zh', text: '有没有超时没发货的单', shops: ONE_SHOP, expect: plan([due('bee', 24)], 'bee') },
  { lang: 'zh', text: 'tea 6小时内要发的', shops: TWO_SHOPS, expect: plan([due('tea', 6)]) },
  {
    lang: 'zh',
    text: '待发货订单',
    shops: TWO_SHOPS,
    expect: ask({ code: 'which_shop', options: ['bee', 'tea'] }),
  },
  { lang: 'zh', text: '商家 2200001004 下午3点前要发的单', expect: plan([due('2200001004', 3)]) },
  // ---- orders due (English) ----
  {
    lang: 'en',
    text: 'which bee orders are due to ship today',
    shops: TWO_SHOPS,
    expect: plan([due('bee', 12)]),
  },
  { lang: 'en', text: 'overdue orders for tea', shops: TWO_SHOPS, expect: plan([due('tea', 24)]) },
  { lang: 'en', text: 'orders due within 6 hours', shops: ONE_SHOP, expect: plan([due('bee', 6)], 'bee') },
  // "must ship" is what is due, not a list of the last hours' orders.
  {
    lang: 'en',
    text: 'Which orders of 2200001004 must ship in the next 6 hours?',
    expect: plan([due('2200001004', 6)]),
  },
  { lang: 'en', text: 'what should tea ship by 6pm', shops: TWO_SHOPS, expect: plan([due('tea', 6)]) },
  {
    lang: 'en',
    text: 'what must ship by tomorrow 9am for 2200001001',
    expect: plan([due('2200001001', 21)]),
  },
  // ---- orders (Chinese) ----
  {
    lang: 'zh',
    text: 'bee 今天的订单',
    shops: TWO_SHOPS,
    expect: plan([orders('bee', { from: '2026-11-20 00:00', to: '2026-11-20 12:00' })]),
  },
  {
    lang: 'zh',
    text: '看下 tea 昨天的订单',
    shops: TWO_SHOPS,
    expect: plan([orders('tea', { from: '2026-11-19 00:00', to: '2026-11-19 23:59' })]),
  },
  {
    lang: 'zh',
    text: 'bee 最近3天的订单',
    shops: TWO_SHOPS,
    expect: plan([
      orders('bee', { from: '2026-11-20 00:00', to: '2026-11-20 12:00' }),
      orders('bee', { from: '2026-11-19 00:00', to: '2026-11-19 23:59' }),
      orders('bee', { from: '2026-11-18 00:00', to: '2026-11-18 23:59' }),
    ]),
  },
  { lang: 'zh', text: '2200001002 的订单 第2页', expect: plan([orders('2200001002', { page: 2 })]) },
  { lang: 'zh', text: 'bee 红旗的订单', shops: TWO_SHOPS, expect: plan([orders('bee', { flag: 1 })]) },
  { lang: 'zh', text: '查订单', shops: [], expect: ask({ code: 'owner_needed' }) },
  {
    lang: 'zh',
    text: '11月18日 bee 的订单 每页50',
    shops: TWO_SHOPS,
    expect: plan([orders('bee', { size: 50, from: '2026-11-18 00:00', to: '2026-11-18 23:59' })]),
  },
  // ---- orders (English) ----
  {
    lang: 'en',
    text: "show me yesterday's orders for tea",
    shops: TWO_SHOPS,
    expect: plan([orders('tea', { from: '2026-11-19 00:00', to: '2026-11-19 23:59' })]),
  },
  {
    lang: 'en',
    text: 'bee orders last 2 days',
    shops: TWO_SHOPS,
    expect: plan([
      orders('bee', { from: '2026-11-20 00:00', to: '2026-11-20 12:00' }),
      orders('bee', { from: '2026-11-19 00:00', to: '2026-11-19 23:59' }),
    ]),
  },
  {
    lang: 'en',
    text: 'orders of 2200001001 page 3, 50 per page',
    expect: plan([orders('2200001001', { page: 3, size: 50 })]),
  },
  { lang: 'en', text: 'list orders', shops: ONE_SHOP, expect: plan([orders('bee')], 'bee') },
  // A shop named that is not registered: asked back, never swapped for the one that is.
  {
    lang: 'en',
    text: 'orders due today for shop lotus',
    shops: ONE_SHOP,
    expect: ask({ code: 'unknown_shop', name: 'lotus', options: ['bee'] }),
  },
  {
    lang: 'zh',
    text: '店铺 lotus 今天要发的单',
    shops: ONE_SHOP,
    expect: ask({ code: 'unknown_shop', name: 'lotus', options: ['bee'] }),
  },
  {
    lang: 'zh',
    text: '查一下 lotus 店今天的订单',
    shops: TWO_SHOPS,
    expect: ask({ code: 'unknown_shop', name: 'lotus', options: ['bee', 'tea'] }),
  },
  // ---- spend (free) ----
  { lang: 'zh', text: '这个月花了多少钱', expect: plan([spend('month')]) },
  { lang: 'zh', text: '今天扣了多少费用', expect: plan([spend('today')]) },
  { lang: 'zh', text: '团队这个月的扣费', expect: plan([spend('month', true)]) },
  { lang: 'en', text: 'what did we spend this month', expect: plan([spend('month', true)]) },
  { lang: 'en', text: 'how much have I spent today?', expect: plan([spend('today')]) },
  // ---- follow-ups ----
  {
    lang: 'zh',
    text: '再查一下它的店铺',
    context: { refs: [ITEMS[0] as Ref], lastCalls: [] },
    expect: plan([shop(LINK)]),
  },
  {
    lang: 'zh',
    text: '第二个的价格呢',
    context: { refs: ITEMS, lastCalls: [] },
    expect: plan([item(TMALL, true)]),
  },
  {
    lang: 'zh',
    text: '第二个到哪了',
    context: { refs: WAYBILLS, lastCalls: [] },
    expect: plan([waybill('YT1234567890123', '2200001001', 'YTO')]),
  },
  {
    lang: 'zh',
    text: '再查一下',
    context: { refs: [], lastCalls: [due('bee', 24)] },
    expect: plan([due('bee', 24)]),
  },
  {
    lang: 'zh',
    text: '第三个呢',
    context: { refs: ITEMS, lastCalls: [] },
    expect: ask({ code: 'which_result', count: 2 }),
  },
  {
    lang: 'en',
    text: 'the second one',
    context: { refs: ITEMS, lastCalls: [] },
    expect: plan([item(TMALL)]),
  },
  {
    lang: 'en',
    text: 'which shop is it from?',
    context: { refs: [ITEMS[1] as Ref], lastCalls: [] },
    expect: plan([shop(TMALL)]),
  },
  {
    lang: 'en',
    text: 'check it again',
    context: { refs: [], lastCalls: [item(LINK)] },
    expect: plan([item(LINK)]),
  },
  {
    lang: 'en',
    text: 'and the first one?',
    context: { refs: [], lastCalls: [] },
    expect: ask({ code: 'nothing_before' }),
  },
  // ---- help and what it cannot do ----
  { lang: 'zh', text: '你能做什么', expect: { kind: 'help' } },
  { lang: 'en', text: 'help', expect: { kind: 'help' } },
  { lang: 'zh', text: '帮我给客户退款', expect: { kind: 'unsupported' } },
  { lang: 'en', text: 'write a reply to the buyer', expect: { kind: 'unsupported' } },
  { lang: 'zh', text: '2200001009 是什么', expect: ask({ code: 'what_number', value: '2200001009' }) },
];
