/**
 * One ship-by check of a held alert check record: the cost cap, the fetch (the digest's
 * fetchOrders: 24 h windows, pages of 100, bulk priority in the shared limiter, every page in the
 * ledger as 'alert'), then
 *  - orders alerted before and now shipped (status 2 or 3) → their messages say "Shipped ✓";
 *  - awaiting orders (status 1) due within the alert's hours and never alerted → one message;
 *  - alerted orders still awaiting one hour before their deadline → one reminder each.
 *
 * The caller (scheduler.ts) claims the check and handles failures; the check holds its lease
 * the digest's way (digest/run-fence.ts): a timer renews it under the claim's epoch whatever the
 * check is doing (a page waiting in the limiter behind interactive lookups included), every plat
 * call is fenced by it, and a holder that lost it stops before its next call.
 */

import { fetchOrders, splitWindows } from '../digest/fetch-orders.js';
import {
  type HistoryUnreadableReason,
  postOnce,
  unknownPostOf,
  unreadableReason,
} from '../digest/posted-once.js';
import { type RunFence, type RunLeaseTimings, withRunFence } from '../digest/run-fence.js';
import { DigestLeaseLostError, DigestOverCapError, RunStrandedError } from '../digest/runner.js';
import { leasedRunCalls, settleUnanswered } from '../digest/sent-calls.js';
import type { ChargeEvent, Order } from '../plat/types.js';
import type { AlertCheck, AlertOrder, AlertOrderFacts, AlertSubscription } from '../store/store.js';
import { ALERT_LOOKBACK_MS, messageCost } from './cost.js';
import type { AlertDeps } from './types.js';

const HOUR = 3_600_000;
/** An order gets its reminder once it is due within this (issue 15: one hour before). */
export const REMIND_BEFORE_MS = HOUR;
/**
 * At most this many orders in one message (two blocks each, under Slack's 50); the rest, least
 * urgent, are alerted by the next check.
 */
export const MAX_ORDERS_PER_ALERT = 20;

export interface CheckContext extends AlertDeps, RunLeaseTimings {
  now: () => number;
}

export type CheckResult =
  | { kind: 'posted'; check: AlertCheck; alerted: number; shipped: number; reminded: number }
  /** Slack's answer to the alert's post was unclear (digest/posted-once.ts; checkAt null: given up, `reason` why). */
  | { kind: 'unknown'; check: AlertCheck; checkAt: Date | null; reason: HistoryUnreadableReason | null }
  | {
      kind: 'awaiting_approval';
      check: AlertCheck;
      estimatePoints: number;
      spentPoints: number;
      capPoints: number;
    };

const facts = (o: Order & { lastShipTime: Date }): AlertOrderFacts => ({
  orderSn: o.orderSn,
  goodsName: o.goodsName,
  goodsCount: o.goodsCount,
  amountFen: Math.round(o.payAmount * 100),
  lastShipTime: o.lastShipTime,
});

export interface CheckOptions {
  force: boolean;
  signal?: AbortSignal;
  /**
   * A stranded check whose slot has passed (digest/stranded.ts): settle what its earlier holders
   * sent, then end it (RunStrandedError), buying nothing more.
   */
  end?: boolean;
}

export async function executeAlertCheck(
  ctx: CheckContext,
  sub: AlertSubscription,
  check: AlertCheck,
  options: CheckOptions,
): Promise<CheckResult> {
  return withRunFence(
    ctx,
    check,
    (id, lease) => ctx.store.alerts.renew(id, lease),
    ctx.logger,
    (fence) => checkHeld(ctx, sub, check, options, fence),
  );
}

async function checkHeld(
  ctx: CheckContext,
  sub: AlertSubscription,
  check: AlertCheck,
  options: CheckOptions,
  fence: RunFence,
): Promise<CheckResult> {
  const alerts = ctx.store.alerts;
  // The claim's epoch fences every write of this holder (store/runs.ts).
  const holder = fence.holder;
  const lease = fence.lease;
  // Claimed in 'posting': a history check of a post left unknown. Its orders are recorded; nothing
  // is fetched again.
  if (check.state === 'posting') {
    if (!(await alerts.renew(check.id, lease()))) throw new DigestLeaseLostError(check.id);
    const pending = (await alerts.orders(sub.id, ['pending'])).filter((o) => o.checkId === check.id);
    return postAlertOnce(ctx, sub, check, fence, pending, { at: ctx.now(), deferred: 0, verify: true });
  }
  // Charge ids: this check and the holder's epoch (a takeover makes calls of its own), then each
  // call and its attempt, each written ahead of its call (digest/sent-calls.ts).
  const runCalls = {
    store: ctx.store,
    charges: ctx.charges,
    runKey: `alert:${check.id}`,
    epoch: holder.epoch,
    logger: ctx.logger,
  };
  await settleUnanswered(runCalls, (n) => alerts.addCharge(check.id, 0, n));
  if (options.end) throw new RunStrandedError(check.id);
  const calls = leasedRunCalls({
    ...runCalls,
    now: ctx.now,
    source: 'alert',
    channelId: sub.channelId,
    correlationId: `alert-${check.id}`,
    edition: 1,
  });
  const forgetRecorded = () =>
    ctx.store.sentCalls
      .forgetRecorded(runCalls.runKey)
      .catch((err: unknown) => ctx.logger?.warn({ err, checkId: check.id }, 'sent calls not forgotten'));
  const approved = options.force || (await alerts.approvedOn(sub.id, check.localDate)) !== null;
  const cap = approved ? Number.POSITIVE_INFINITY : sub.capPoints;
  const spent = await alerts.spentOn(sub.id, check.localDate);
  const price = await ctx.priceOf('paging-orders', 1);
  const now = ctx.now();
  const from = new Date(now - ALERT_LOOKBACK_MS);
  const to = new Date(now);

  const park = async (estimatePoints: number): Promise<CheckResult> => {
    if (!(await alerts.awaitApproval(check.id, holder, estimatePoints, new Date(ctx.now()))))
      throw new DigestLeaseLostError(check.id);
    ctx.logger?.info({ checkId: check.id, estimatePoints, spent, cap }, 'alert check over the daily cap');
    return {
      kind: 'awaiting_approval',
      check: (await alerts.check(check.id)) ?? check,
      estimatePoints,
      spentPoints: spent,
      capPoints: sub.capPoints,
    };
  };

  // Estimate before any call: the last check's pages, at least one a window.
  const estimatedPages = Math.max(
    splitWindows(from, to).length,
    (await alerts.lastPosted(sub.id))?.calls ?? 0,
  );
  if (price !== null && spent + estimatedPages * price > cap) return park(estimatedPages * price);

  const chargeWrites: Promise<unknown>[] = [];
  const onCharge = (event: ChargeEvent): void => {
    // The ledger row is never lost (kept until the store can be written); the check's own tally
    // is what the daily cap counts.
    chargeWrites.push(
      calls.record(event),
      alerts
        .addCharge(check.id, event.points, 1)
        .catch((err: unknown) =>
          ctx.logger?.warn({ err, checkId: check.id }, 'alert check charge not tallied'),
        ),
    );
  };
  let orders: Order[];
  try {
    orders = (
      await fetchOrders(ctx.client, {
        ownerId: sub.ownerId,
        from,
        to,
        priority: 'bulk',
        correlationId: `alert-${check.id}`,
        channelId: sub.channelId,
        onCharge,
        checkPlan: (plan) => {
          const each = price ?? plan.lastPagePoints;
          if (each !== null && spent + plan.pagesPlanned * each > cap)
            throw new DigestOverCapError(plan.pagesPlanned * each);
        },
        fence,
        writeAhead: calls.writeAhead,
        ...(options.signal ? { signal: options.signal } : {}),
      })
    ).orders;
  } catch (error) {
    await Promise.all(chargeWrites);
    await forgetRecorded();
    if (error instanceof DigestOverCapError) return park(error.estimatePoints);
    throw error;
  }
  await Promise.all(chargeWrites);
  await forgetRecorded();

  const byNumber = new Map(orders.map((o) => [o.orderSn, o]));
  const at = ctx.now();
  // Only orders still due can be alerted, so only those are looked up (the table keeps a week).
  const known = new Set(
    (await alerts.orders(sub.id, ['pending', 'alerted', 'handled', 'shipped', 'unknown'], new Date(at))).map(
      (o) => o.orderSn,
    ),
  );
  const due = orders
    .filter(
      (o): o is Order & { lastShipTime: Date } =>
        o.status === 1 &&
        o.lastShipTime !== null &&
        o.lastShipTime.getTime() >= at &&
        o.lastShipTime.getTime() <= at + sub.withinHours * HOUR &&
        !known.has(o.orderSn),
    )
    .sort(
      (a, b) => a.lastShipTime.getTime() - b.lastShipTime.getTime() || a.orderSn.localeCompare(b.orderSn),
    );
  // Orders an interrupted attempt recorded go out with this message, within the same bound.
  const waiting = (await alerts.orders(sub.id, ['pending'])).length;
  const batch = due.slice(0, Math.max(0, MAX_ORDERS_PER_ALERT - waiting));

  // Recorded before posting: a restart from here on posts these, and no later check lists them.
  const pending = await alerts.recordPending(check.id, lease(), batch.map(facts));
  if (pending === null || !(await alerts.markPosting(check.id, lease())))
    throw new DigestLeaseLostError(check.id);
  // Read again: its record now holds what its calls charged, which the message states.
  const posted = await postAlertOnce(ctx, sub, (await alerts.check(check.id)) ?? check, fence, pending, {
    at,
    deferred: due.length - batch.length,
    verify: false,
  });
  if (posted.kind === 'unknown') return posted;

  const quietly = (p: Promise<unknown>, what: string) =>
    p.catch((err: unknown) => ctx.logger?.warn({ err, checkId: check.id }, what));

  // Shipped since they were alerted: each message carrying one is updated once.
  const touched = new Set<string>();
  let shipped = 0;
  for (const order of await alerts.orders(sub.id, ['alerted'], new Date(at - ALERT_LOOKBACK_MS))) {
    const now = byNumber.get(order.orderSn);
    if (
      (now?.status === 2 || now?.status === 3) &&
      (await alerts.markShipped(sub.id, order.orderSn, new Date(at)))
    ) {
      shipped += 1;
      if (order.messageTs) touched.add(order.messageTs);
    }
  }
  for (const ts of touched) {
    const ofMessage = await alerts.ordersOfMessage(sub.id, ts);
    await quietly(
      ctx.publisher.updateAlert(sub, ts, ofMessage, at, await messageCost(alerts, ofMessage)),
      'alert message not updated',
    );
  }

  // One reminder an order, marked before it is sent: a crash may lose one, never send two.
  let reminded = 0;
  for (const order of await alerts.orders(sub.id, ['alerted'], new Date(at - ALERT_LOOKBACK_MS))) {
    const left = order.lastShipTime.getTime() - at;
    if (order.checkId === check.id || left <= 0 || left > REMIND_BEFORE_MS) continue;
    if (byNumber.get(order.orderSn)?.status !== 1) continue;
    if (!(await alerts.markReminded(sub.id, order.orderSn, new Date(at)))) continue;
    reminded += 1;
    await quietly(ctx.publisher.remind(sub, order, at), 'alert reminder not delivered');
  }

  ctx.logger?.info(
    { checkId: check.id, subscriptionId: sub.id, alerted: pending.length, shipped, reminded },
    'alert check done',
  );
  return { ...posted, shipped, reminded };
}

/**
 * The alert's post, once (digest/posted-once.ts): keyed in its metadata, no automatic retry, an
 * unclear answer recorded 'unknown'; with `verify` the channel's history is read for the key first.
 * Nothing new to alert posts nothing. Right before the post, the attempt is stamped under the
 * holder's epoch and the fence checked; the fence's signal goes with the request (issue 33
 * finding 5). Slack's sure refusal is thrown (PostRefusedError: the scheduler fails the check);
 * any other error too, and the scheduler sends the check to its history check.
 */
async function postAlertOnce(
  ctx: CheckContext,
  sub: AlertSubscription,
  check: AlertCheck,
  fence: RunFence,
  pending: readonly AlertOrder[],
  options: { at: number; deferred: number; verify: boolean },
): Promise<Extract<CheckResult, { kind: 'posted' | 'unknown' }>> {
  const alerts = ctx.store.alerts;
  const holder = fence.holder;
  const current = (await alerts.check(check.id)) ?? check;
  const progress = current.checkProgress;
  const outcome =
    pending.length === 0
      ? null
      : await postOnce({
          verify: options.verify,
          find: () => ctx.publisher.findAlert(sub, current, { fence, progress }),
          post: async () => {
            if (!(await alerts.markPostAttempt(check.id, holder, new Date(ctx.now()))))
              throw new DigestLeaseLostError(check.id);
            fence.check();
            return ctx.publisher.postAlert(sub, current, pending, options.at, options.deferred, { fence });
          },
        });
  if (outcome?.kind === 'unknown' || outcome?.kind === 'unverified' || outcome?.kind === 'deferred') {
    const unknown = unknownPostOf(outcome, check.attempts, ctx.now());
    if (!(await alerts.markUnknown(check.id, holder, unknown))) throw new DigestLeaseLostError(check.id);
    ctx.logger?.warn(
      { checkId: check.id, err: outcome.error, checkAt: unknown.checkAt },
      outcome.kind === 'deferred' ? 'alert history check put off (rate limit)' : 'alert post outcome unknown',
    );
    return {
      kind: 'unknown',
      check: (await alerts.check(check.id)) ?? check,
      checkAt: unknown.checkAt,
      reason: outcome.kind === 'unverified' ? unreadableReason(outcome.error) : null,
    };
  }
  if (!(await alerts.markPosted(check.id, holder, outcome?.ts ?? null, new Date(ctx.now()))))
    ctx.logger?.warn({ checkId: check.id }, 'alert posted but its check record was taken over');
  if (outcome?.kind === 'found')
    ctx.logger?.info({ checkId: check.id }, 'alert found in the channel: recorded, not posted again');
  return {
    kind: 'posted',
    check: (await alerts.check(check.id)) ?? check,
    alerted: pending.length,
    shipped: 0,
    reminded: 0,
  };
}
