/**
 * Runs a validated request through the plat client and gathers what came back. The calls of
 * one request share its CallOptions (priority, correlation id, the ledger's charge listener).
 */

import type { CallOptions, PlatClient } from '../plat/client.js';
import { isPlatError, type PlatError } from '../plat/errors.js';
import { MAX_WAYBILLS_PER_CALL } from '../plat/inputs.js';
import type { LookupOutcome, LookupRequest, WaybillRef } from './types.js';

function batches<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** What the calls of one lookup cost together (each call's own sum over its attempts). */
interface Charged {
  chargePoints: number | null;
  quotaCalls: number;
  attempts: number;
}

const sumCharges = (results: Charged[]) => results.reduce((total, r) => total + (r.chargePoints ?? 0), 0);
const sumQuota = (results: Charged[]) => results.reduce((total, r) => total + r.quotaCalls, 0);

/**
 * Attempts sent over the lookup's calls, stated with the charge when a call was retried (issue 10:
 * "Charged 9 points over 3 attempts"); nothing when each call took one attempt.
 */
function attemptsOf(results: Charged[]): { attempts?: number } {
  const sent = results.reduce((total, r) => total + r.attempts, 0);
  return results.some((r) => r.attempts > 1) ? { attempts: sent } : {};
}

/**
 * Batches of one waybill request. A batch that fails as a whole (302, timeout…) is reported with
 * its waybill numbers; the other batches still answer. Only PlatErrors are caught.
 */
async function runBatches<R>(
  waybills: readonly WaybillRef[],
  send: (batch: WaybillRef[]) => Promise<{ data: R[] } & Charged>,
) {
  const settled = await Promise.all(
    batches(waybills, MAX_WAYBILLS_PER_CALL).map(async (batch) => {
      try {
        return { batch, result: await send(batch) };
      } catch (error) {
        if (!isPlatError(error)) throw error;
        return { batch, error };
      }
    }),
  );
  const records: R[] = [];
  const failedBatches: { waybillCodes: string[]; error: PlatError }[] = [];
  const charged: Charged[] = [];
  for (const s of settled) {
    if ('result' in s && s.result) {
      records.push(...s.result.data);
      charged.push(s.result);
    } else if ('error' in s && s.error) {
      failedBatches.push({ waybillCodes: s.batch.map((w) => w.waybillCode), error: s.error });
      charged.push(s.error);
    }
  }
  const chargedPoints = sumCharges(charged);
  // Every batch failed the same way: that is the answer (e.g. the shop is not authorized).
  const first = failedBatches[0];
  if (first && records.length === 0 && failedBatches.every((f) => f.error.code === first.error.code))
    throw first.error;
  return { records, failedBatches, chargedPoints, ...attemptsOf(charged) };
}

export async function executeLookup(
  client: PlatClient,
  request: LookupRequest,
  options: CallOptions,
): Promise<LookupOutcome> {
  switch (request.kind) {
    case 'item': {
      const [item, prices] = await Promise.all([
        client.itemInfo({ itemId: request.itemId }, options),
        request.withPrices ? client.itemPrices({ itemId: request.itemId }, options) : null,
      ]);
      const calls = prices ? [item, prices] : [item];
      return {
        kind: 'item',
        item: item.data,
        prices: prices?.data ?? null,
        chargedPoints: sumCharges(calls),
        quotaCalls: sumQuota(calls),
        ...attemptsOf(calls),
      };
    }
    case 'item-prices': {
      const prices = await client.itemPrices({ itemId: request.itemId }, options);
      return {
        kind: 'item-prices',
        prices: prices.data,
        chargedPoints: prices.chargePoints ?? 0,
        quotaCalls: prices.quotaCalls,
        ...attemptsOf([prices]),
      };
    }
    case 'shop-info': {
      const shop = await client.shopInfo({ url: request.url, type: request.shopType }, options);
      return {
        kind: 'shop-info',
        shop: shop.data,
        url: request.url,
        chargedPoints: shop.chargePoints ?? 0,
        ...attemptsOf([shop]),
      };
    }
    case 'shop-id': {
      const shop = await client.shopId({ wwid: request.wwid }, options);
      return {
        kind: 'shop-id',
        result: shop.data,
        chargedPoints: shop.chargePoints ?? 0,
        ...attemptsOf([shop]),
      };
    }
    case 'waybill-print': {
      const out = await runBatches(request.waybills, async (batch) => {
        const result = await client.waybillPrintData(
          {
            shopId: request.shopId,
            waybills: batch.map((w, i) => ({
              waybillCode: w.waybillCode,
              objectId: String(i + 1),
              ...(w.carrier ? { cpCode: w.carrier } : {}),
            })),
          },
          options,
        );
        // spec §2.2: a failed record may carry only its object_id; name it by the number it was sent for.
        const data = result.data.map((r) =>
          r.waybillCode ? r : { ...r, waybillCode: batch[Number(r.objectId) - 1]?.waybillCode ?? null },
        );
        return { ...result, data };
      });
      return { kind: 'waybill-print', shopId: request.shopId, ...out };
    }
    case 'waybill-info': {
      const out = await runBatches(request.waybills, (batch) =>
        client.waybillInfo(
          {
            ownerId: request.ownerId,
            waybills: batch.map((w) => ({ waybillCode: w.waybillCode, wpCode: w.carrier ?? '' })),
          },
          options,
        ),
      );
      return { kind: 'waybill-info', ownerId: request.ownerId, ...out };
    }
    case 'orders': {
      const page = await client.orders(
        { ownerId: request.ownerId, page: request.page, pageSize: request.pageSize, ...request.filters },
        options,
      );
      return {
        kind: 'orders',
        ownerId: request.ownerId,
        page: page.data,
        filters: request.filters,
        chargedPoints: page.chargePoints ?? 0,
        ...attemptsOf([page]),
      };
    }
  }
}
