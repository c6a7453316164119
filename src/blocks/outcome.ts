/**
 * Any lookup's answer, from what came back. Pure: the orders pager's pending lookups are
 * prepared by the caller first (slack/answer.ts) and passed in as ids.
 */
import type { RegisteredShop } from '../lookups/settings.js';
import type { LookupOutcome } from '../lookups/types.js';
import type { ChargeNote } from './charge-note.js';
import type { Words } from './i18n/words.js';
import { renderItem, renderItemPrices } from './item.js';
import type { RenderedMessage } from './kit.js';
import { type OrdersRenderOptions, renderOrdersPage } from './orders.js';
import { renderShopId, renderShopInfo } from './shop.js';
import { renderWaybillInfo, renderWaybillPrint } from './waybills.js';

export interface OutcomeRenderOptions {
  /** The answer's time (orders: shipping deadline flags). */
  now: Date;
  /** Set when the answer came from the cache (nothing was called). */
  cached?: { ageMs: number };
  /** The short id the print data Download button carries (the finished lookup's id). */
  downloadValue?: string;
  /** Orders only: the pager, prepared before rendering (none when absent). */
  pager?: Pick<OrdersRenderOptions, 'nextQuote' | 'pager'>;
  /** A shop id's answer: the shop as registered here, if it is. */
  registeredShop?: Pick<RegisteredShop, 'alias' | 'ownerId'> | null;
}

export function renderOutcome(
  w: Words,
  outcome: LookupOutcome & { shared?: boolean },
  options: OutcomeRenderOptions,
): RenderedMessage {
  const charge: ChargeNote = {
    chargedPoints: outcome.chargedPoints,
    quotaCalls: 'quotaCalls' in outcome ? outcome.quotaCalls : 0,
    ...(outcome.attempts !== undefined ? { attempts: outcome.attempts } : {}),
    ...(options.cached ? { cached: options.cached } : {}),
    ...(outcome.shared ? { shared: true } : {}),
  };
  switch (outcome.kind) {
    case 'item':
      return renderItem(w, outcome.item, { prices: outcome.prices, charge });
    case 'item-prices':
      return renderItemPrices(w, outcome.prices, charge);
    case 'shop-info':
      return renderShopInfo(w, outcome.shop, charge);
    case 'shop-id':
      return renderShopId(w, outcome.result, charge, options.registeredShop ?? null);
    case 'waybill-print': {
      const hasFile = outcome.records.some((r) => r.success && (r.printData ?? r.printDataRaw) !== null);
      return renderWaybillPrint(w, outcome, {
        charge,
        ...(hasFile && options.downloadValue !== undefined ? { downloadValue: options.downloadValue } : {}),
      });
    }
    case 'waybill-info':
      return renderWaybillInfo(w, outcome, { charge });
    case 'orders':
      return renderOrdersPage(w, outcome, {
        charge,
        now: options.now,
        ...(options.pager ?? { nextQuote: null, pager: { previous: null, next: null } }),
      });
  }
}
