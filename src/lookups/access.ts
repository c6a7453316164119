/**
 * Who may run charged lookups, and which shops may be queried from which channels. Shop
 * aliases from the registry are resolved here, so `/orders <alias>` works wherever an owner id
 * does. Refusals name who to ask.
 */

import type { Operation } from '../plat/operations.js';
import type { CapFigure } from './budgets.js';
import type { AccessPolicy, RegisteredShop, ShopRegistry } from './settings.js';
import type { LookupRequest } from './types.js';

/** Why a lookup is refused, with what the sentence names (blocks/ words it: `refusal.reason.*`). */
export type Refusal =
  | { reason: 'not_allowed' }
  | { reason: 'shop_unregistered'; shop: string }
  | { reason: 'shop_channel'; shop: string }
  | { reason: 'shop_no_owner'; shop: string }
  | { reason: 'shop_no_shop_id'; shop: string }
  /** Over a cap; `wanted` points (0: an item lookup refused because the cap is already passed). */
  | { reason: 'budget'; wanted: number; cap: CapFigure; quotaCalls: number; points: boolean }
  /** Under an active cap, a price not known yet cannot be checked: only an admin may run it. */
  | { reason: 'price_unknown'; operations: readonly Operation[]; caps: readonly CapFigure[] }
  /** The workspace has no plat account yet (distributed mode): an admin connects one on the App Home. */
  | { reason: 'no_plat_account' }
  /**
   * A typed orders page past the last one, by the count an earlier page brought (lookups/
   * order-counts.ts): refused before any charge. `page` and `pages` count from 1.
   */
  | { reason: 'page_past_last'; page: number; pages: number; total: number; pageSize: number; ageMs: number };

export type AccessRefusal = {
  ok: false;
  refusal: Exclude<Refusal, { reason: 'budget' | 'price_unknown' | 'no_plat_account' | 'page_past_last' }>;
};
export type AccessResult = { ok: true; request: LookupRequest } | AccessRefusal;

export interface AccessDeps {
  access: () => Promise<AccessPolicy>;
  shops: () => Promise<ShopRegistry>;
  isAdmin: (userId: string) => Promise<boolean>;
  /** Slack user group membership (usergroups.users.list); only asked when groups are listed. */
  isInGroup: (groupId: string, userId: string) => Promise<boolean>;
}

export interface AccessActor {
  userId: string;
  channelId: string | null;
}

/** The registered shop whose alias, owner id or shop id this is. */
export function findShop(registry: ShopRegistry, key: string): RegisteredShop | null {
  const k = key.toLowerCase();
  return (
    registry.shops.find((s) => s.alias.toLowerCase() === k) ??
    registry.shops.find((s) => s.ownerId === key || s.shopId === key) ??
    null
  );
}

async function mayRun(deps: AccessDeps, actor: AccessActor): Promise<boolean> {
  const policy = await deps.access();
  if (policy.mode === 'everyone' || (await deps.isAdmin(actor.userId))) return true;
  if (policy.users.includes(actor.userId)) return true;
  if (actor.channelId && policy.channels.includes(actor.channelId)) return true;
  for (const group of policy.groups) if (await deps.isInGroup(group, actor.userId)) return true;
  return false;
}

/** Which id of a shop a request names, and how to put the resolved id back. */
function shopKeyOf(request: LookupRequest): { key: string; field: 'ownerId' | 'shopId' } | null {
  switch (request.kind) {
    case 'orders':
    case 'waybill-info':
      return { key: request.ownerId, field: 'ownerId' };
    case 'waybill-print':
      return { key: request.shopId, field: 'shopId' };
    default:
      return null;
  }
}

export async function checkAccess(
  deps: AccessDeps,
  request: LookupRequest,
  actor: AccessActor,
): Promise<AccessResult> {
  if (!(await mayRun(deps, actor))) return { ok: false, refusal: { reason: 'not_allowed' } };
  const shopKey = shopKeyOf(request);
  if (!shopKey) return { ok: true, request };
  const registry = await deps.shops();
  const shop = findShop(registry, shopKey.key);
  if (!shop) {
    if (registry.registeredOnly && !(await deps.isAdmin(actor.userId)))
      return { ok: false, refusal: { reason: 'shop_unregistered', shop: shopKey.key } };
    return { ok: true, request };
  }
  if (shop.channels.length > 0 && !(actor.channelId && shop.channels.includes(actor.channelId)))
    return { ok: false, refusal: { reason: 'shop_channel', shop: shop.alias } };
  const id = shopKey.field === 'ownerId' ? shop.ownerId : shop.shopId;
  if (!id)
    return {
      ok: false,
      refusal: {
        reason: shopKey.field === 'ownerId' ? 'shop_no_owner' : 'shop_no_shop_id',
        shop: shop.alias,
      },
    };
  return { ok: true, request: { ...request, [shopKey.field]: id } as LookupRequest };
}
