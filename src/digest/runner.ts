/**
 * One execution of a claimed digest run: the cost cap, the fetch, the summary, the post, the
 * run record. The caller (scheduler.ts) holds the run's lease and handles failures; this module
 * keeps the lease alive and gives up the moment it finds someone else holds it.
 *
 * Cost cap: the estimate is pages × price per page. The price is PLAT_PRICES' paging-orders
 * price, else the last charge seen. The number of pages is not known before a call (totalElements
 * comes with page 0), so it is estimated twice:
 *  1. before any call, from the previous digest's order count (one page a window when unknown):
 *     over the cap → no call at all;
 *  2. after each window's first page, from totalElements: over the cap → the rest is not fetched.
 * Either way the run waits for an admin's "Run anyway".
 */

import { MAX_PAGE_SIZE } from '../plat/inputs.js';
import type { ChargeEvent } from '../plat/types.js';
import { ledgerEntryFor } from '../store/ledger.js';
import type { DigestRun, DigestSubscription, Lease, Store } from '../store/store.js';
import { type FetchPlan, fetchOrders, splitWindows } from './fetch-orders.js';
import { postOnce, unknownPostOf } from './posted-once.js';
import { type DigestSummary, parseSummary, summarize } from './summarize.js';
import type { DigestDeps, DigestPost } from './types.js';
import { addDays } from './zoned-time.js';

/** Store setting: the most points one digest may cost without an admin's approval. */
export const MAX_POINTS_SETTING = 'digest.maxPoints';
export const DEFAULT_MAX_POINTS = 200;

/** The cap from settings (a finite number ≥ 0), else the default. */
export async function digestCap(store: Store): Promise<number> {
  const value = await store.settings.get<unknown>(MAX_POINTS_SETTING);
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : DEFAULT_MAX_POINTS;
}

export class DigestOverCapError extends Error {
  readonly code = 'digest_over_cap';
  constructor(readonly estimatePoints: number) {
    super(`the digest would cost about ${estimatePoints} points`);
    this.name = 'DigestOverCapError';
  }
}

/** Another instance holds the run now (our lease expired): stop without posting. */
export class DigestLeaseLostError extends Error {
  readonly code = 'digest_lease_lost';
  constructor(runId: number) {
    super(`digest run ${runId} is held by another instance`);
    this.name = 'DigestLeaseLostError';
  }
}

export type RunResult =
  | { kind: 'posted'; run: DigestRun; messageTs: string; summary: DigestSummary }
  | { kind: 'awaiting_approval'; run: DigestRun; estimatePoints: number; capPoints: number }
  /**
   * Slack's answer to the post was unclear: the channel's history is read for the post's key at
   * `checkAt`; null when the history cannot be read (nothing is posted again, admins are told).
   */
  | { kind: 'unknown'; run: DigestRun; checkAt: Date | null };

export interface RunnerContext extends DigestDeps {
  now: () => number;
  instanceId: string;
  leaseMs: number;
  /** Least time between two progress updates of "Run now". */
  progressIntervalMs: number;
}

export interface ExecuteOptions {
  /** An admin approved the cost: no cap. */
  force: boolean;
  /** Post and update a progress message ("Run now"). */
  progress: boolean;
  signal?: AbortSignal;
}

/**
 * The comparison base: the same slot the day before (its run key with the date a day back: "2026-11-19"
 * or "2026-11-19 17:30"); for "Run now", the newest scheduled one.
 */
export async function previousDigest(
  store: Store,
  run: Pick<DigestRun, 'subscriptionId' | 'kind' | 'localDate'>,
): Promise<{ localDate: string; summary: DigestSummary } | null> {
  const date = run.localDate.slice(0, 10);
  const previous = await (run.kind === 'manual'
    ? store.digests.previousPosted(run.subscriptionId, addDays(date, 1))
    : store.digests.scheduledRun(run.subscriptionId, `${addDays(date, -1)}${run.localDate.slice(10)}`));
  if (previous?.state !== 'posted') return null;
  const summary = parseSummary(previous.summaryJson);
  return summary ? { localDate: previous.localDate, summary } : null;
}

export async function executeDigestRun(
  ctx: RunnerContext,
  subscription: DigestSubscription,
  claimed: DigestRun,
  options: ExecuteOptions,
): Promise<RunResult> {
  const { store, publisher } = ctx;
  const digests = store.digests;
  const lease = (): Lease => ({ owner: ctx.instanceId, now: new Date(ctx.now()), ms: ctx.leaseMs });
  const cap = options.force ? Number.POSITIVE_INFINITY : await digestCap(store);
  const edition = 1; // the time filters need the enhanced edition (spec §4.7)
  const price = await ctx.priceOf('paging-orders', edition);
  const run = claimed;

  const park = async (estimatePoints: number): Promise<RunResult> => {
    if (!(await digests.awaitApproval(run.id, ctx.instanceId, estimatePoints, new Date(ctx.now()))))
      throw new DigestLeaseLostError(run.id);
    ctx.logger?.info({ runId: run.id, estimatePoints, capPoints: cap }, 'digest over the cost cap');
    return {
      kind: 'awaiting_approval',
      run: (await digests.run(run.id)) ?? run,
      estimatePoints,
      capPoints: cap,
    };
  };

  // A previous attempt got as far as posting (Slack failed): post its summary, fetch nothing again.
  let summary = parseSummary(run.summaryJson);
  if (!summary) {
    const windows = splitWindows(run.windowStart, run.windowEnd).length;
    const last = await previousDigest(store, { ...run, kind: 'manual' });
    const estimatedPages = Math.max(windows, Math.ceil((last?.summary.orders ?? 0) / MAX_PAGE_SIZE));
    if (price !== null && estimatedPages * price > cap) return park(estimatedPages * price);

    let progressTs = run.messageTs;
    if (options.progress && progressTs === null) {
      progressTs = await publisher.postProgress(subscription, run, null, null);
      await digests.setMessageTs(run.id, progressTs);
    }
    let lastProgressAt = Number.NEGATIVE_INFINITY;
    let progressChain: Promise<unknown> = Promise.resolve();
    const onProgress = async (plan: FetchPlan): Promise<void> => {
      // Every page renews the lease: a long fetch keeps the run; a lost lease stops it here.
      if (!(await digests.renew(run.id, lease()))) throw new DigestLeaseLostError(run.id);
      const now = ctx.now();
      if (progressTs === null || plan.pagesDone >= plan.pagesPlanned) return;
      if (plan.pagesDone > 1 && now - lastProgressAt < ctx.progressIntervalMs) return;
      lastProgressAt = now;
      const ts = progressTs;
      // Updates go out one at a time, in order; a failed update only costs the progress line.
      progressChain = progressChain
        .then(() => publisher.postProgress(subscription, run, plan, ts))
        .catch((err: unknown) => ctx.logger?.warn({ err, runId: run.id }, 'digest progress not updated'));
    };
    const chargeWrites: Promise<unknown>[] = [];
    const onCharge = (event: ChargeEvent): void => {
      // The ledger row is never lost (kept until the store can be written); the run's own tally
      // is a convenience for the digest's cost line.
      chargeWrites.push(
        ctx.charges.record(
          ledgerEntryFor(event, {
            userId: null,
            channelId: subscription.channelId,
            pendingId: null,
            source: 'digest',
          }),
        ),
        digests
          .addCharge(run.id, event.points, 1)
          .catch((err: unknown) => ctx.logger?.warn({ err, runId: run.id }, 'digest run charge not tallied')),
      );
    };

    let fetched: Awaited<ReturnType<typeof fetchOrders>>;
    try {
      fetched = await fetchOrders(ctx.client, {
        ownerId: subscription.ownerId,
        from: run.windowStart,
        to: run.windowEnd,
        priority: 'bulk',
        correlationId: `digest-${run.id}`,
        onCharge,
        onProgress,
        checkPlan: (plan) => {
          const each = price ?? plan.lastPagePoints;
          if (each !== null && plan.pagesPlanned * each > cap)
            throw new DigestOverCapError(plan.pagesPlanned * each);
        },
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      await Promise.all([progressChain, ...chargeWrites]);
      if (error instanceof DigestOverCapError) return park(error.estimatePoints);
      throw error;
    }
    await Promise.all([progressChain, ...chargeWrites]);
    // The subscription's filters (flag colours, statuses), stated in the digest's header.
    const kept = fetched.orders.filter(
      (o) =>
        (!subscription.flags || (o.remarkTag !== null && subscription.flags.includes(o.remarkTag))) &&
        (!subscription.statuses || (o.status !== null && subscription.statuses.includes(o.status))),
    );
    summary = summarize(kept, {
      window: { from: run.windowStart, to: run.windowEnd },
      at: new Date(Math.max(ctx.now(), run.windowEnd.getTime())),
    });
  }

  // From here on the summary is stored, so a failed post is retried without fetching again. A run
  // claimed in 'posting' is a history check of a post left unknown: it is still 'posting'.
  const verify = run.state === 'posting';
  if (
    !(verify
      ? await digests.renew(run.id, lease())
      : await digests.markPosting(run.id, lease(), JSON.stringify(summary)))
  )
    throw new DigestLeaseLostError(run.id);
  const current = (await digests.run(run.id)) ?? run;
  const post: DigestPost = {
    subscription,
    run: current,
    summary,
    previous: await previousDigest(store, current),
    cost: { points: current.chargedPoints, calls: current.calls },
  };
  // "Run now" replaces its progress message: an update, which may simply be sent again.
  const outcome =
    current.messageTs !== null
      ? { kind: 'posted' as const, ts: await publisher.postDigest(post, current.messageTs) }
      : await postOnce({
          verify,
          find: () => publisher.findDigest(post),
          post: () => publisher.postDigest(post, null),
        });
  if (outcome.kind === 'unknown' || outcome.kind === 'unverified') {
    const unknown = unknownPostOf(outcome, current.attempts, ctx.now());
    if (!(await digests.markUnknown(run.id, ctx.instanceId, unknown))) throw new DigestLeaseLostError(run.id);
    ctx.logger?.warn(
      { runId: run.id, err: outcome.error, checkAt: unknown.checkAt },
      'digest post outcome unknown',
    );
    return { kind: 'unknown', run: (await digests.run(run.id)) ?? current, checkAt: unknown.checkAt };
  }
  const messageTs = outcome.ts;
  if (!(await digests.markPosted(run.id, ctx.instanceId, messageTs, new Date(ctx.now()))))
    ctx.logger?.warn({ runId: run.id }, 'digest posted but its run record was taken over');
  ctx.logger?.info(
    { runId: run.id, subscriptionId: subscription.id, orders: summary.orders, points: current.chargedPoints },
    outcome.kind === 'found' ? 'digest found in the channel: recorded, not posted again' : 'digest posted',
  );
  return { kind: 'posted', run: (await digests.run(run.id)) ?? current, messageTs, summary };
}
