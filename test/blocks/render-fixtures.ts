/**
 * The large rendered messages every limit test runs on (and the external validator checks), plus
 * a helper to read every string a user could see.
 */

import { renderConfirmation } from '../../src/blocks/confirmation.js';
import { renderPlatError } from '../../src/blocks/errors.js';
import { renderHelp, SLASH_COMMANDS } from '../../src/blocks/help.js';
import { renderItem, renderItemPrices } from '../../src/blocks/item.js';
import type { RenderedMessage } from '../../src/blocks/kit.js';
import { renderOrdersPage } from '../../src/blocks/orders.js';
import { renderShopId, renderShopInfo } from '../../src/blocks/shop.js';
import { renderWaybillInfo, renderWaybillPrint } from '../../src/blocks/waybills.js';
import {
  allPlatErrors,
  HOUR,
  ITEM_ID,
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
import { en } from '../helpers/words.js';

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
  ];
}
