/**
 * The alert use cases the Slack command and the App Home share: add (shop resolved, default cap
 * from the digest cap, scheduler planning again), list with today's spend, remove; and the
 * Claim / Handled buttons of an alert.
 */
import { digestCap } from '../digest/runner.js';
import type { ResolveShop } from '../digest/subscriptions.js';
import type { PriceOf } from '../digest/types.js';
import type { AlertSubscription, ClaimOrderResult, Store } from '../store/store.js';
import { localDateOf } from '../zoned-time.js';
import { firstCheckEstimate } from './cost.js';
import type { AlertAdd } from './grammar.js';
import type { AlertScheduler } from './scheduler.js';

export interface AlertUseCaseDeps {
  store: Store;
  scheduler: AlertScheduler;
  resolveShop: ResolveShop;
  now: () => number;
  /** The price checks are estimated at (digest/types.ts PriceOf). */
  priceOf: PriceOf;
}

export type AlertAddResult =
  /** `estimatePoints`: what its first check is estimated at (null: no price known yet). */
  | { kind: 'added'; subscription: AlertSubscription; nextCheckAt: number; estimatePoints: number | null }
  | { kind: 'unknown_shop' }
  | { kind: 'exists'; subscription: AlertSubscription };

export async function addAlert(
  deps: AlertUseCaseDeps,
  add: AlertAdd,
  userId: string,
): Promise<AlertAddResult> {
  const ownerId = await deps.resolveShop(add.shop);
  if (ownerId === null) return { kind: 'unknown_shop' };
  const same = (await deps.store.alerts.list()).find(
    (s) => s.ownerId === ownerId && s.channelId === add.channelId,
  );
  if (same) return { kind: 'exists', subscription: same };
  const subscription = await deps.store.alerts.add({
    ownerId,
    shopLabel: add.shop,
    channelId: add.channelId,
    withinHours: add.withinHours,
    everyMinutes: add.everyMinutes,
    hoursFrom: add.hoursFrom,
    hoursTo: add.hoursTo,
    timeZone: add.timeZone,
    capPoints: add.capPoints ?? (await digestCap(deps.store)),
    createdBy: userId,
  });
  deps.scheduler.reschedule();
  return {
    kind: 'added',
    subscription,
    nextCheckAt: deps.scheduler.nextCheckAt(subscription),
    estimatePoints: firstCheckEstimate(await deps.priceOf('paging-orders', 1)),
  };
}

export interface AlertRow {
  subscription: AlertSubscription;
  /** Points spent today (the subscription's local day). */
  spentToday: number;
  nextCheckAt: number;
}

export async function listAlerts(deps: AlertUseCaseDeps): Promise<AlertRow[]> {
  const subscriptions = await deps.store.alerts.list();
  return Promise.all(
    subscriptions.map(async (subscription) => ({
      subscription,
      spentToday: await deps.store.alerts.spentOn(
        subscription.id,
        localDateOf(deps.now(), subscription.timeZone),
      ),
      nextCheckAt: deps.scheduler.nextCheckAt(subscription),
    })),
  );
}

export async function removeAlert(deps: AlertUseCaseDeps, id: number, userId: string): Promise<boolean> {
  const removed = await deps.store.alerts.remove(id, userId);
  if (removed) deps.scheduler.reschedule();
  return removed;
}

/** A Claim or Handled button's value: which order of which alert. */
export function orderRef(subscriptionId: number, orderSn: string): string {
  return `${subscriptionId}:${orderSn}`;
}
export function readOrderRef(value: string | undefined): { subscriptionId: number; orderSn: string } | null {
  const m = /^(\d{1,9}):([\w-]{1,64})$/.exec(value ?? '');
  return m?.[1] && m[2] ? { subscriptionId: Number(m[1]), orderSn: m[2] } : null;
}

export function claimOrder(
  store: Store,
  value: string | undefined,
  userId: string,
  now: Date,
): Promise<ClaimOrderResult> {
  const ref = readOrderRef(value);
  if (!ref) return Promise.resolve({ ok: false, reason: 'not_found', order: null });
  return store.alerts.claimOrder(ref.subscriptionId, ref.orderSn, userId, now);
}

export function handleOrder(
  store: Store,
  value: string | undefined,
  userId: string,
  now: Date,
): Promise<ClaimOrderResult> {
  const ref = readOrderRef(value);
  if (!ref) return Promise.resolve({ ok: false, reason: 'not_found', order: null });
  return store.alerts.handleOrder(ref.subscriptionId, ref.orderSn, userId, now);
}
