/**
 * One alert check run for real (src/alerts/check.ts) on a fresh claim, as the cost test and
 * `npm run bench:alerts` both measure it, and the sandbox's own count of the orders each 24 h
 * window of its lookback holds, to compare the calls with.
 */

import { type CheckContext, executeAlertCheck } from '../../src/alerts/check.js';
import { ALERT_LOOKBACK_MS } from '../../src/alerts/cost.js';
import type { AlertPublisher } from '../../src/alerts/types.js';
import type { Clock } from '../../src/clock.js';
import { splitWindows } from '../../src/digest/fetch-orders.js';
import { RUN_LEASE_DEFAULTS } from '../../src/digest/run-fence.js';
import { buildOrderBook } from '../../src/sandbox/fixtures.js';
import { createChargeRecorder } from '../../src/store/ledger.js';
import type { AlertSubscription } from '../../src/store/store.js';

/** A publisher that posts nothing anywhere: only the check's calls and charges are measured. */
export const quietAlertPublisher: AlertPublisher = {
  postAlert: async () => '1.1',
  findAlert: async () => null,
  updateAlert: async () => {},
  remind: async () => {},
  postFailure: async () => '1.2',
  askApproval: async () => {},
  alertUnverified: async () => {},
};

/**
 * Claims the check of `sub` for the slot at `now()` and runs it under the production lease
 * (digest/run-fence.ts), renewed by real timers while `now()` says the time.
 */
export async function claimAndCheck(
  ctx: Omit<CheckContext, 'publisher' | 'charges' | keyof typeof RUN_LEASE_DEFAULTS | 'clock'>,
  sub: AlertSubscription,
  options: { localDate: string; force: boolean },
) {
  const { leaseMs } = RUN_LEASE_DEFAULTS;
  const clock: Clock = {
    now: ctx.now,
    setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
  const at = new Date(ctx.now());
  const claim = await ctx.store.alerts.claimCheck(
    { subscriptionId: sub.id, slotAt: at, localDate: options.localDate },
    { owner: ctx.instanceId, ms: leaseMs },
  );
  if (!claim.claimed) throw new Error('the alert check was not claimed');
  const charges = createChargeRecorder({
    ledger: ctx.store.ledger,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  const result = await executeAlertCheck(
    { ...ctx, ...RUN_LEASE_DEFAULTS, clock, charges, publisher: quietAlertPublisher },
    sub,
    claim.check,
    {
      force: options.force,
    },
  );
  return { check: claim.check, result };
}

/** The orders of `owner` the sandbox holds in each 24 h window of the check's lookback before `anchor`. */
export function ordersPerWindow(anchor: number, counts: Record<string, number>, owner: string) {
  const orders = buildOrderBook(anchor, counts).get(owner) ?? [];
  return splitWindows(new Date(anchor - ALERT_LOOKBACK_MS), new Date(anchor)).map((w) =>
    orders.filter((o) => o.confirm_time >= w.start.getTime() && o.confirm_time < w.end.getTime()),
  );
}
