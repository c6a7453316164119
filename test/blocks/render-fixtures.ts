/**
 * The large rendered messages every limit test runs on (and the external validator checks), plus
 * a helper to read every string a user could see.
 */

import {
  renderAlert,
  renderAlertApproval,
  renderAlertList,
  renderAlertReminder,
} from '../../src/blocks/alerts.js';
import { renderConfirmation } from '../../src/blocks/confirmation.js';
import { renderDigestThread } from '../../src/blocks/digest.js';
import { renderPlatError } from '../../src/blocks/errors.js';
import { renderHelp, SLASH_COMMANDS } from '../../src/blocks/help.js';
import { renderItem, renderItemPrices } from '../../src/blocks/item.js';
import type { RenderedMessage } from '../../src/blocks/kit.js';
import { renderOrdersPage } from '../../src/blocks/orders.js';
import { renderShopId, renderShopInfo } from '../../src/blocks/shop.js';
import { renderWaybillInfo, renderWaybillPrint } from '../../src/blocks/waybills.js';
import { summarize } from '../../src/digest/summarize.js';
import type { AlertOrder, AlertSubscription, DigestRun, DigestSubscription } from '../../src/store/store.js';
import {
  allPlatErrors,
  HOUR,
  ITEM_ID,
  makeAlertSubscription,
  makeItem,
  makeItemPrices,
  makeOrder,
  makeOrdersOutcome,
  makeQuote,
  makeQuoteLine,
  makeShopInfo,
  makeSku,
  makeWaybillInfoRecord,
  makeWaybillPrintOutcome,
  NOW,
  OWNER_ID,
  PENDING_ID,
} from '../helpers/domain-factories.js';
import { en, zh } from '../helpers/words.js';

/** Every string value anywhere in the blocks, one per line. */
export function allText(value: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return out.join('\n');
}

export const HOSTILE = '<!channel> <@U1> & <https://evil.example|click>';
export const LONG_HOSTILE_TITLE = `${HOSTILE} ${'Linen & <cotton> '.repeat(300)}`.slice(0, 5000);

const charge = { chargedPoints: 10, quotaCalls: 0 };

function waybillInfo(n: number) {
  return {
    kind: 'waybill-info' as const,
    ownerId: OWNER_ID,
    records: Array.from({ length: n }, (_, i) =>
      makeWaybillInfoRecord(i, { note: `${HOSTILE}${'x'.repeat(500)}` }),
    ),
    failedBatches: [],
    chargedPoints: n,
  };
}

export function largeMessages(): { name: string; message: RenderedMessage }[] {
  const longOrders = Array.from({ length: 100 }, (_, i) =>
    makeOrder(i, {
      goodsName: `${HOSTILE} ${'Very long goods name '.repeat(30)}`,
      goodsSpec: 'Colour & size <XL> '.repeat(20),
      remark: `${HOSTILE} ${'remark text '.repeat(100)}`,
      remarkTag: (i % 6) + 1,
      remarkTagName: 'urgent & <important>',
      lastShipTime: new Date(NOW.getTime() + ((i % 5) - 2) * 12 * HOUR),
    }),
  );
  return [
    {
      name: 'item-300-skus-200-attributes',
      message: renderItem(en, makeItem({ title: LONG_HOSTILE_TITLE }, { skus: 300, attributes: 200 }), {
        prices: makeItemPrices(),
        charge: { chargedPoints: 0, quotaCalls: 2 },
        itemUrl: `https://item.taobao.com/item.htm?id=${ITEM_ID}`,
      }),
    },
    {
      name: 'item-long-sku-names',
      message: renderItem(
        en,
        makeItem({
          skus: Array.from({ length: 300 }, (_, i) =>
            makeSku(i, { propNames: 'n&'.repeat(1000), propValues: '<v>'.repeat(1000) }),
          ),
          attributes: Array.from({ length: 200 }, () => ({
            name: '<&>'.repeat(500),
            value: '&'.repeat(3000),
          })),
          categoryIds: Array.from({ length: 500 }, (_, i) => i),
        }),
        { prices: null, charge: { chargedPoints: 0, quotaCalls: 1 } },
      ),
    },
    { name: 'item-prices', message: renderItemPrices(en, makeItemPrices(), charge) },
    {
      name: 'orders-100-long',
      message: renderOrdersPage(en, makeOrdersOutcome(longOrders, { page: 1, totalElements: 350 }), {
        charge,
        now: NOW,
        nextQuote: makeQuote([
          makeQuoteLine({ operation: 'paging-orders', configuredPoints: 2, lastSeenPoints: 2 }),
        ]),
        pager: { previous: 'orders:0', next: 'orders:2' },
      }),
    },
    {
      name: 'waybill-print-20',
      message: renderWaybillPrint(en, makeWaybillPrintOutcome(20), { charge, downloadValue: 'wp_1' }),
    },
    {
      name: 'waybill-print-200',
      message: renderWaybillPrint(en, makeWaybillPrintOutcome(200), { charge, downloadValue: 'wp_2' }),
    },
    { name: 'waybill-info-20', message: renderWaybillInfo(en, waybillInfo(20), { charge }) },
    { name: 'waybill-info-200', message: renderWaybillInfo(en, waybillInfo(200), { charge }) },
    { name: 'shop-info', message: renderShopInfo(en, makeShopInfo({ name: LONG_HOSTILE_TITLE }), charge) },
    {
      name: 'shop-id-missing',
      message: renderShopId(en, { found: false, wwid: HOSTILE, message: 'shop does not exist' }, charge),
    },
    {
      name: 'confirmation',
      message: renderConfirmation(en, {
        pendingId: PENDING_ID,
        request: { kind: 'shop-id', wwid: LONG_HOSTILE_TITLE },
        quote: makeQuote(Array.from({ length: 40 }, (_, i) => makeQuoteLine({ calls: i + 1 }))),
        expiresInMinutes: 10,
      }),
    },
    ...allPlatErrors().map((error, i) => ({
      name: `error-${i}-${error.code}`,
      message: renderPlatError(en, error),
    })),
    { name: 'error-plain', message: renderPlatError(en, new Error(LONG_HOSTILE_TITLE)) },
    ...SLASH_COMMANDS.map((command) => ({
      name: `help-${command.slice(1)}`,
      message: renderHelp(en, command),
    })),
    ...alertMessages(),
    ...threadMessages(longOrders),
  ];
}

const ALERT_SUB: AlertSubscription = makeAlertSubscription({
  id: 7,
  ownerId: OWNER_ID,
  shopLabel: `${HOSTILE} shop`,
});

/** A full alert (20 orders, long hostile names, every state), a reminder, the approval and a long list. */
function alertMessages(): { name: string; message: RenderedMessage }[] {
  const states = ['alerted', 'handled', 'shipped', 'alerted'] as const;
  const orders: AlertOrder[] = Array.from({ length: 20 }, (_, i) => ({
    subscriptionId: 7,
    orderSn: `261120-4004${String(i).padStart(11, '0')}`,
    checkId: 1,
    state: states[i % 4] ?? 'alerted',
    messageTs: '1.1',
    goodsName: `${HOSTILE} ${'Very long goods name '.repeat(30)}`,
    goodsCount: 3,
    amountFen: 12_345_678,
    lastShipTime: new Date(NOW.getTime() + (i - 2) * HOUR),
    claimedBy: i % 4 === 3 ? 'U1234' : null,
    claimedAt: i % 4 === 3 ? NOW : null,
    doneBy: i % 4 === 1 ? 'U5678' : null,
    doneAt: i % 4 === 1 ? NOW : null,
    remindedAt: null,
  }));
  const check = {
    id: 3,
    tenantId: '',
    subscriptionId: 7,
    slotAt: NOW,
    localDate: '2026-11-20',
    state: 'awaiting_approval' as const,
    attempts: 1,
    leaseOwner: null,
    leaseExpiresAt: null,
    nextAttemptAt: null,
    lastError: null,
    messageTs: null,
    chargedPoints: 0,
    calls: 0,
    estimatePoints: 14,
    createdAt: NOW,
    epoch: 1,
    postAttemptAt: null,
    checkProgress: null,
  };
  const rows = Array.from({ length: 60 }, (_, i) => ({
    subscription: { ...ALERT_SUB, id: i + 1 },
    spentToday: 182,
    nextCheckAt: NOW.getTime(),
  }));
  return [en, zh].flatMap((w) => [
    { name: `alert-20-orders-${w.locale}`, message: renderAlert(w, ALERT_SUB, orders, NOW.getTime(), 35) },
    {
      name: `alert-reminder-${w.locale}`,
      message: renderAlertReminder(w, ALERT_SUB, orders[3] as AlertOrder, NOW.getTime()),
    },
    {
      name: `alert-approval-${w.locale}`,
      message: renderAlertApproval(w, {
        subscription: ALERT_SUB,
        check,
        estimatePoints: 14,
        spentPoints: 190,
        capPoints: 200,
      }),
    },
    { name: `alert-list-60-${w.locale}`, message: renderAlertList(w, rows) },
  ]);
}

/** A threaded digest of 100 long flagged orders: the parent and each reply. */
function threadMessages(
  orders: ReturnType<typeof makeOrder>[],
): { name: string; message: RenderedMessage }[] {
  const sub: DigestSubscription = {
    id: 3,
    tenantId: '',
    ownerId: OWNER_ID,
    shopLabel: `${HOSTILE} shop`,
    channelId: 'C1234',
    localTime: '09:00',
    timeZone: 'Asia/Shanghai',
    createdBy: 'UADMIN',
    createdAt: NOW,
    times: ['09:00', '17:30'],
    days: [1, 2, 3, 4, 5],
    layout: 'thread',
    flags: [1, 2],
    statuses: [1],
  };
  const summary = summarize(orders, {
    window: { from: new Date(NOW.getTime() - 24 * HOUR), to: NOW },
    at: NOW,
  });
  const run = { id: 1, subscriptionId: 3, kind: 'scheduled', localDate: '2026-11-20 09:00' } as DigestRun;
  const { parent, replies } = renderDigestThread(en, {
    subscription: sub,
    run,
    summary,
    previous: null,
    cost: { points: 8, calls: 4 },
  });
  return [
    { name: 'digest-thread-parent', message: parent },
    ...replies.map((message, i) => ({ name: `digest-thread-reply-${i}`, message })),
  ];
}
