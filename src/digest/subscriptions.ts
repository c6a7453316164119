/**
 * Adding a digest: the one use case `/orders digest add` and the App Home's form share. The shop
 * alias is resolved to its owner id, a duplicate is refused, the subscription is stored (audited
 * with `userId`) and the scheduler plans again at once. The caller has checked the fields
 * (grammar.ts checkDigestAdd) and that `userId` is an admin.
 */
import type { DigestSubscription, Store } from '../store/store.js';
import type { DigestAdd } from './grammar.js';
import { digestCap } from './runner.js';
import { type DigestScheduler, nextRunPages } from './scheduler.js';
import type { PriceOf } from './types.js';

/** A shop alias or owner id → the owner id, or null when the alias names no shop. */
export type ResolveShop = (aliasOrOwner: string) => Promise<string | null>;

/**
 * A registered alias (any case) → its owner id (null when it has none); anything else is taken
 * as an owner id. `shops` reads the shop registry (lookups/settings.ts, wired by the caller).
 */
export function shopResolver(
  shops: () => Promise<readonly { alias: string; ownerId: string | null }[]>,
): ResolveShop {
  return async (text) => {
    const wanted = text.trim().toLowerCase();
    const shop = (await shops()).find((s) => s.alias.toLowerCase() === wanted);
    return shop ? shop.ownerId : text.trim();
  };
}

/** What a digest's next run costs at the least, stated before it runs (null: no price known yet). */
export interface DigestCostPreview {
  /** One page per 24 h window the run covers. */
  pages: number;
  /** Points of one page (paging-orders), or null when no price is known. */
  pagePoints: number | null;
  /** The digest cost cap: a run estimated above it waits for an admin. */
  capPoints: number;
}

export type DigestAddResult =
  | { kind: 'added'; subscription: DigestSubscription; nextRunAt: number; cost: DigestCostPreview }
  /** The shop alias names no owner id. */
  | { kind: 'unknown_shop' }
  /** The same owner, channel, time and zone is already subscribed. */
  | { kind: 'exists'; subscription: DigestSubscription };

export async function addDigestSubscription(
  deps: { store: Store; scheduler: DigestScheduler; resolveShop: ResolveShop; priceOf: PriceOf },
  add: DigestAdd,
  userId: string,
): Promise<DigestAddResult> {
  const store = deps.store.digests;
  const ownerId = await deps.resolveShop(add.shop);
  if (ownerId === null) return { kind: 'unknown_shop' };
  // The same shop, place and schedule with the same filters: a digest that already exists.
  const key = (
    times: readonly string[],
    days?: readonly number[] | null,
    flags?: readonly number[] | null,
    statuses?: readonly number[] | null,
  ) => JSON.stringify([times, days ?? null, flags ?? null, statuses ?? null]);
  const wanted = key(add.times ?? [add.localTime], add.days, add.flags, add.statuses);
  const same = (await store.list()).find(
    (s) =>
      s.ownerId === ownerId &&
      s.channelId === add.channelId &&
      s.timeZone === add.timeZone &&
      key(s.times, s.days, s.flags, s.statuses) === wanted,
  );
  if (same) return { kind: 'exists', subscription: same };
  const subscription = await store.add({
    ownerId,
    shopLabel: add.shop,
    channelId: add.channelId,
    localTime: add.localTime,
    timeZone: add.timeZone,
    createdBy: userId,
    ...(add.times ? { times: add.times } : {}),
    ...(add.days ? { days: add.days } : {}),
    ...(add.layout ? { layout: add.layout } : {}),
    ...(add.flags ? { flags: add.flags } : {}),
    ...(add.statuses ? { statuses: add.statuses } : {}),
  });
  deps.scheduler.reschedule();
  const nextRunAt = deps.scheduler.nextRunAt(subscription);
  return {
    kind: 'added',
    subscription,
    nextRunAt,
    cost: {
      pages: nextRunPages(subscription, nextRunAt),
      pagePoints: await deps.priceOf('paging-orders', 1),
      capPoints: await digestCap(deps.store),
    },
  };
}
