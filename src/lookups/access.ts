/**
 * Who may run charged lookups, and which shops may be queried from which channels. Shop
 * aliases from the registry are resolved here, so `/orders <alias>` works wherever an owner id
 * does. Refusals name who to ask.
 */

import type { AccessPolicy, RegisteredShop, ShopRegistry } from './settings.js';
import type { LookupRequest } from './types.js';

export type AccessRefusal = {
  ok: false;
  reason: 'not_allowed' | 'shop_channel' | 'shop_unregistered';
  message: string;
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
  if (!(await mayRun(deps, actor)))
    return {
      ok: false,
      reason: 'not_allowed',
      message: 'You are not on the list of people who may run charged lookups.',
    };
  const shopKey = shopKeyOf(request);
  if (!shopKey) return { ok: true, request };
  const registry = await deps.shops();
  const shop = findShop(registry, shopKey.key);
  if (!shop) {
    if (registry.registeredOnly && !(await deps.isAdmin(actor.userId)))
      return {
        ok: false,
        reason: 'shop_unregistered',
        message: `${shopKey.key} is not a registered shop; only registered shops may be queried.`,
      };
    return { ok: true, request };
  }
  if (shop.channels.length > 0 && !(actor.channelId && shop.channels.includes(actor.channelId)))
    return {
      ok: false,
      reason: 'shop_channel',
      message: `Orders and waybills of shop ${shop.alias} may only be looked up in its own channels.`,
    };
  const id = shopKey.field === 'ownerId' ? shop.ownerId : shop.shopId;
  if (!id)
    return {
      ok: false,
      reason: 'shop_unregistered',
      message: `Shop ${shop.alias} has no ${shopKey.field === 'ownerId' ? 'owner id' : 'shop id'} registered.`,
    };
  return { ok: true, request: { ...request, [shopKey.field]: id } as LookupRequest };
}
