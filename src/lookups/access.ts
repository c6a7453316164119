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
  /**
   * Over a cap: `wanted` points held against the caps (0: an item lookup refused because the cap
   * is already passed); `quoted` the quote's points (null: a price not known yet), less than
   * `wanted` when a larger charge was seen or the price is not known (the ceiling is held).
   */
  | {
      reason: 'budget';
      wanted: number;
      quoted: number | null;
      cap: CapFigure;
      quotaCalls: number;
      points: boolean;
    }
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

/**
 * Why a workflow step's run is refused (lookups/steps.ts): a person's reasons (the person Slack
 * vouches for is `userId`), and the step's own: no person where spending is limited to listed
 * people, a shop or channel outside what its approval names.
 */
export type StepRefusal =
  | (AccessRefusal['refusal'] & { userId?: string | null })
  | { reason: 'step_no_person' }
  | { reason: 'step_shop'; shops: readonly string[] }
  | { reason: 'step_channel'; channels: readonly string[] };

/** What an approval narrows a step to (empty: not narrowed). */
export interface StepNarrowing {
  shops: readonly string[];
  channels: readonly string[];
}
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

/**
 * A workflow step's run (issue 34 H1), under the rules a person's lookup is under, with what
 * Slack cannot vouch for in a step left out:
 * - the spender is the person Slack vouches for (`user_context`), or none (a scheduled or event
 *   workflow): with none, only a workspace where everyone may spend lets it run;
 * - a channel is only what the workflow declares (Slack does not tell a step where a later step
 *   posts), so it never lets a person spend (the policy's channels count for people in them) and
 *   never satisfies a shop's channel limit: a shop limited to channels is looked up by a step only
 *   when the step's approval names that shop; an approval narrowed to channels needs the run to
 *   name one of them;
 * - registered shops only and aliases apply as for a person; an approval narrowed to shops
 *   refuses any other shop.
 */
export async function checkStepAccess(
  deps: AccessDeps,
  request: LookupRequest,
  run: { userId: string | null; channelId: string | null },
  narrowing: StepNarrowing,
): Promise<{ ok: true; request: LookupRequest } | { ok: false; refusal: StepRefusal }> {
  if (run.userId === null) {
    if ((await deps.access()).mode !== 'everyone')
      return { ok: false, refusal: { reason: 'step_no_person' } };
  } else if (!(await mayRun(deps, { userId: run.userId, channelId: null })))
    return { ok: false, refusal: { reason: 'not_allowed', userId: run.userId } };
  if (narrowing.channels.length > 0 && !(run.channelId && narrowing.channels.includes(run.channelId)))
    return { ok: false, refusal: { reason: 'step_channel', channels: narrowing.channels } };
  const shopKey = shopKeyOf(request);
  if (!shopKey) return { ok: true, request };
  const registry = await deps.shops();
  const shop = findShop(registry, shopKey.key);
  // The approval's shops, as the registry knows them (an alias, owner or shop id of one), or as typed.
  const named = narrowing.shops.some((key) => {
    const approved = findShop(registry, key);
    return shop ? approved === shop : key === shopKey.key;
  });
  if (narrowing.shops.length > 0 && !named)
    return { ok: false, refusal: { reason: 'step_shop', shops: narrowing.shops } };
  if (!shop) {
    const admin = run.userId !== null && (await deps.isAdmin(run.userId));
    if (registry.registeredOnly && !admin)
      return { ok: false, refusal: { reason: 'shop_unregistered', shop: shopKey.key } };
    return { ok: true, request };
  }
  if (shop.channels.length > 0 && !named)
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
