/**
 * What a request will cost, before it is sent (DESIGN rule 2): the configured price for the
 * operation and edition (PLAT_PRICES) and/or the last withholding_money seen for it.
 */
import type { PriceTable } from '../config.js';
import { MAX_WAYBILLS_PER_CALL } from '../plat/inputs.js';
import { OPERATIONS, type Operation } from '../plat/operations.js';
import type { LookupRequest, Quote, QuoteLine } from './types.js';

export interface PriceSources {
  prices: PriceTable;
  /** The last charge seen for an operation and edition (from the ledger). */
  lastCharge(operation: Operation, edition: number | null): number | null;
  /** The edition the client sends for an operation. */
  editionFor(operation: Operation): number | null;
}

export function configuredPrice(
  prices: PriceTable,
  operation: Operation,
  edition: number | null,
): number | null {
  const byEdition = prices[operation];
  if (!byEdition) return null;
  return (edition !== null ? byEdition[String(edition)] : undefined) ?? byEdition['*'] ?? null;
}

/**
 * PLAT_PRICES with the admins' overrides on top (App Home "Prices"): an override replaces the
 * configured price of the same operation and edition, other editions keep theirs.
 */
export function mergePrices(configured: PriceTable, overrides: PriceTable): PriceTable {
  const out: PriceTable = { ...configured };
  for (const [operation, byEdition] of Object.entries(overrides) as [Operation, Record<string, number>][])
    out[operation] = { ...configured[operation], ...byEdition };
  return out;
}

/** The calls a request makes: waybills go in batches of at most 20 (spec §8). */
export function plannedCalls(request: LookupRequest): { operation: Operation; calls: number }[] {
  switch (request.kind) {
    case 'item':
      return request.withPrices
        ? [
            { operation: 'platiteminfo', calls: 1 },
            { operation: 'platiteminfoprice', calls: 1 },
          ]
        : [{ operation: 'platiteminfo', calls: 1 }];
    case 'item-prices':
      return [{ operation: 'platiteminfoprice', calls: 1 }];
    case 'shop-info':
      return [{ operation: 'get-shop-info', calls: 1 }];
    case 'shop-id':
      return [{ operation: 'get-shop-id', calls: 1 }];
    case 'waybill-print':
      return [{ operation: 'platdybw', calls: Math.ceil(request.waybills.length / MAX_WAYBILLS_PER_CALL) }];
    case 'waybill-info':
      return [{ operation: 'platdzmd', calls: Math.ceil(request.waybills.length / MAX_WAYBILLS_PER_CALL) }];
    case 'orders':
      return [{ operation: 'paging-orders', calls: 1 }];
  }
}

export function quote(request: LookupRequest, sources: PriceSources): Quote {
  const lines: QuoteLine[] = plannedCalls(request).map(({ operation, calls }) => {
    const edition = sources.editionFor(operation);
    return {
      operation,
      edition,
      calls,
      unit: OPERATIONS[operation].charge === 'quota' ? 'quota' : 'points',
      configuredPoints: configuredPrice(sources.prices, operation, edition),
      lastSeenPoints: sources.lastCharge(operation, edition),
    };
  });
  let totalPoints: number | null = 0;
  let quotaCalls = 0;
  for (const line of lines) {
    if (line.unit === 'quota') {
      quotaCalls += line.calls;
      continue;
    }
    const each = line.configuredPoints ?? line.lastSeenPoints;
    totalPoints = each === null || totalPoints === null ? null : totalPoints + each * line.calls;
  }
  return { lines, totalPoints, quotaCalls };
}
