/**
 * Points charged per call. The spec leaves prices open (§8 "Amount charged per call: not shown";
 * notes.md: prices come from configuration), so these defaults are the sandbox's own. Richer
 * editions (§9) cost more, so a client that quotes one price for every edition is caught.
 */
import type { Operation } from './spec-table.js';
import type { PriceSetting, Sandbox, SandboxPrices } from './types.js';

export const DEFAULT_PRICES = {
  platdybw: { 1: 5, 3: 8 },
  // spec §8: the item operations are charged one call of the quota, not points.
  platiteminfo: 0,
  platiteminfoprice: 0,
  'get-shop-info': { 1: 10, 2: 20, 3: 15 },
  'get-shop-id': 2,
  platdzmd: { 1: 4, 2: 3, 3: 6 },
  'paging-orders': { 1: 2, 2: 1 },
} as const satisfies Record<Operation, PriceSetting>;

export type PriceOf = (operation: Operation, edition: number | null) => number;

/**
 * The sandbox's prices as the app's price table (PLAT_PRICES' shape: edition → points, `*` for
 * every edition), so an app on the sandbox quotes what the sandbox will charge.
 */
export function priceList(overrides: SandboxPrices = {}): Record<Operation, Record<string, number>> {
  const list = {} as Record<Operation, Record<string, number>>;
  for (const operation of Object.keys(DEFAULT_PRICES) as Operation[]) {
    const byEdition: Record<string, number> = {};
    for (const setting of [DEFAULT_PRICES[operation], overrides[operation]]) {
      if (typeof setting === 'number')
        for (const k of ['*', ...Object.keys(byEdition)]) byEdition[k] = setting;
      else if (setting) Object.assign(byEdition, setting);
    }
    list[operation] = byEdition;
  }
  return list;
}

/** Builds the price lookup: an overriding number covers every edition, a map only the editions it names. */
export function createPriceTable(overrides: SandboxPrices = {}): PriceOf {
  return (operation, edition) =>
    settingPrice(overrides[operation], edition) ?? settingPrice(DEFAULT_PRICES[operation], edition) ?? 0;
}

function settingPrice(setting: PriceSetting | undefined, edition: number | null): number | undefined {
  if (setting === undefined || typeof setting === 'number') return setting;
  return edition === null ? undefined : setting[edition];
}

/** The sandbox's prices as PLAT_PRICES (`operation[:edition]=points`); quota-charged operations left out. */
export function platPrices(prices: Sandbox['prices']): string {
  return Object.entries(prices)
    .flatMap(([operation, byEdition]) =>
      Object.entries(byEdition)
        .filter(([, points]) => points > 0)
        .map(([edition, points]) =>
          edition === '*' ? `${operation}=${points}` : `${operation}:${edition}=${points}`,
        ),
    )
    .join(',');
}
