/**
 * One execution of a claimed digest run: the cost cap, the fetch, the summary, the post, the
 * run record. The caller (scheduler.ts) holds the run's lease and handles failures; this module
 * keeps the lease alive and gives up the moment it finds someone else holds it.
 *
 * Every page bought once per run (issue 19): each page is recorded (store digest_pages) in the
 * transaction that adds its charge to the run, under the holder's epoch; a takeover, a retry and
 * "Run anyway" go on after the last page recorded, and the summary is built from the recorded
 * pages. The lease is kept by a timer (run-fence.ts), not between pages, and fences every call.
 *
 * Cost cap: the estimate is what the run's calls already cost (every attempt) + the pages still
 * to buy × the price per page. The price is PLAT_PRICES' paging-orders price, else the last
 * charge seen. The number of pages is not known before a call (totalElements comes with page 0),
 * so it is estimated twice:
 *  1. before any call, from the pages recorded and the previous digest's order count (one page a
 *     window when unknown): over the cap → no call at all;
 *  2. after each window's first page, from totalElements: over the cap → the rest is not fetched.
 * Either way the run waits for an admin's "Run anyway", which fetches only what remains.
 */

import { MAX_PAGE_SIZE } from '../plat/inputs.js';
import type { ChargeEvent, Order } from '../plat/types.js';
import type { DigestRun, DigestSubscription, Store } from '../store/store.js';
import { addDays } from '../zoned-time.js';
import { type FetchPlan, fetchOrders, planFromDone, splitWindows } from './fetch-orders.js';
import { decodePageOrders, encodePageOrders } from './page-orders.js';
import { type HistoryUnreadableReason, postOnce, unknownPostOf, unreadableReason } from './posted-once.js';
import { type RunFence, RunLeaseLostError, type RunLeaseTimings, withRunFence } from './run-fence.js';
import { leasedRunCalls, settleUnanswered } from './sent-calls.js';
import { type DigestSummary, parseSummary, summarize } from './summarize.js';
import type { DigestDeps, DigestEstimate, DigestPost } from './types.js';

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
  constructor(
    readonly estimatePoints: number,
    readonly estimate?: DigestEstimate,
  ) {
    super(`the digest would cost about ${estimatePoints} points`);
    this.name = 'DigestOverCapError';
  }
}

/**
 * A run whose holder stopped (its lease ran out) and whose day has ended by the time it is claimed
 * again (digest/stranded.ts): its sent calls are settled, and it ends failed instead of buying the
 * rest of a day gone by. Scheduled runs are retried only within their local day; "Run now" too.
 */
export class RunStrandedError extends Error {
  readonly code = 'run_stranded';
  constructor(runId: number) {
    super(`run ${runId}: platdesk stopped while it ran, and its day has ended`);
    this.name = 'RunStrandedError';
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
  | {
      kind: 'awaiting_approval';
      run: DigestRun;
      estimatePoints: number;
      capPoints: number;
      estimate: DigestEstimate;
    }
  /**
   * Slack's answer to the post was unclear: the channel's history is read for the post's key at
   * `checkAt`; null when the history cannot be read (nothing is posted again, admins are told,
   * `reason` says why).
   */
  | { kind: 'unknown'; run: DigestRun; checkAt: Date | null; reason: HistoryUnreadableReason | null };

export interface RunnerContext extends DigestDeps, RunLeaseTimings {
  now: () => number;
  /** Least time between two progress updates of "Run now". */
  progressIntervalMs: number;
}

export interface ExecuteOptions {
  /** An admin approved the cost: no cap. */
  force: boolean;
  /** Post and update a progress message ("Run now"). */
  progress: boolean;
  signal?: AbortSignal;
  /**
   * A stranded run whose day has ended (digest/stranded.ts): settle what its earlier holders
   * sent, then end it (RunStrandedError), buying nothing more.
   */
  end?: boolean;
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

/** Whether an error means the holder lost its run (another claim, or its lease ran out): it stops quietly. */
export function isLeaseLost(error: unknown): boolean {
  return error instanceof DigestLeaseLostError || error instanceof RunLeaseLostError;
}

/** Orders of the recorded pages, de-duplicated by order number, in the order the pages listed them. */
function ordersOfPages(pages: readonly { ordersJson: string }[]): Order[] {
  const byNumber = new Map<string, Order>();
  for (const page of pages)
    for (const order of decodePageOrders(page.ordersJson))
      if (!byNumber.has(order.orderSn)) byNumber.set(order.orderSn, order);
  return [...byNumber.values()];
}

export async function executeDigestRun(
  ctx: RunnerContext,
  subscription: DigestSubscription,
  claimed: DigestRun,
  options: ExecuteOptions,
): Promise<RunResult> {
  return withRunFence(
    ctx,
    claimed,
    (id, lease) => ctx.store.digests.renew(id, lease),
    ctx.logger,
    (fence) => executeHeld(ctx, subscription, claimed, options, fence),
  );
}

async function executeHeld(
  ctx: RunnerContext,
  subscription: DigestSubscription,
  claimed: DigestRun,
  options: ExecuteOptions,
  fence: RunFence,
): Promise<RunResult> {
  const { store, publisher } = ctx;
  const digests = store.digests;
  const holder = fence.holder;
  const cap = options.force ? Number.POSITIVE_INFINITY : await digestCap(store);
  const edition = 1; // the time filters need the enhanced edition (spec §4.7)
  const price = await ctx.priceOf('paging-orders', edition);
  const run = claimed;
  // Charge ids: this run and the holder's epoch (every claim bumps it, so a takeover's calls have
  // ids of their own), then each call and its attempt, each written ahead of its call.
  const runCalls = {
    store,
    charges: ctx.charges,
    runKey: `digest:${run.id}`,
    epoch: holder.epoch,
    logger: ctx.logger,
  };
  await settleUnanswered(runCalls, (n) => digests.addCharge(run.id, 0, n));
  if (options.end) throw new RunStrandedError(run.id);
  const calls = leasedRunCalls({
    ...runCalls,
    now: ctx.now,
    source: 'digest',
    channelId: subscription.channelId,
    correlationId: `digest-${run.id}`,
    edition,
  });
  const forgetRecorded = () =>
    store.sentCalls
      .forgetRecorded(runCalls.runKey)
      .catch((err: unknown) => ctx.logger?.warn({ err, runId: run.id }, 'sent calls not forgotten'));

  const park = async (estimate: DigestEstimate): Promise<RunResult> => {
    const estimatePoints = estimate.chargedPoints + estimate.leftPoints;
    if (!(await digests.awaitApproval(run.id, holder, estimatePoints, new Date(ctx.now()))))
      throw new DigestLeaseLostError(run.id);
    ctx.logger?.info(
      { runId: run.id, estimatePoints, capPoints: cap, ...estimate },
      'digest over the cost cap',
    );
    return {
      kind: 'awaiting_approval',
      run: (await digests.run(run.id)) ?? run,
      estimatePoints,
      capPoints: cap,
      estimate,
    };
  };

  // A previous attempt got as far as posting (Slack failed): post its summary, fetch nothing again.
  let summary = parseSummary(run.summaryJson);
  if (!summary) {
    const done = await store.digestPages.list(run.id);
    /** Points charged by the run's calls so far: earlier attempts, then this one's as they come. */
    let chargedPoints = run.chargedPoints;
    const estimateOf = (plan: FetchPlan, each: number): DigestEstimate => {
      const pagesLeft = Math.max(0, plan.pagesPlanned - plan.pagesDone);
      return { chargedPoints, pagesDone: plan.pagesDone, pagesLeft, leftPoints: pagesLeft * each };
    };

    const windows = splitWindows(run.windowStart, run.windowEnd).length;
    const resumed = planFromDone(run.windowStart, run.windowEnd, done);
    const last = await previousDigest(store, { ...run, kind: 'manual' });
    // Before any call: the pages recorded say most; the previous digest's size helps while no
    // window's first page is in.
    const fromLast = Math.max(windows, Math.ceil((last?.summary.orders ?? 0) / MAX_PAGE_SIZE));
    const firstPlan: FetchPlan = {
      ...resumed,
      pagesPlanned: Math.max(resumed.pagesPlanned, resumed.pagesDone === 0 ? fromLast : 0),
    };
    if (price !== null) {
      const estimate = estimateOf(firstPlan, price);
      if (estimate.pagesLeft > 0 && estimate.chargedPoints + estimate.leftPoints > cap) return park(estimate);
    }

    let progressTs = run.messageTs;
    if (options.progress && progressTs === null) {
      // Without its progress message the run still runs: its digest is then posted as a keyed
      // post of its own (checked in the channel's history first, as every unclear post is).
      progressTs = await publisher.postProgress(subscription, run, null, null).catch((err: unknown) => {
        ctx.logger?.warn(
          { err, runId: run.id },
          'digest progress message not posted: the digest is posted on its own',
        );
        return null;
      });
      if (progressTs !== null) await digests.setMessageTs(run.id, progressTs);
    }
    let lastProgressAt = Number.NEGATIVE_INFINITY;
    let progressChain: Promise<unknown> = Promise.resolve();
    const onProgress = (plan: FetchPlan): void => {
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
    const tally = (points: number) =>
      chargeWrites.push(
        // Calls that bought no page (errors, answers not read) count in the run's cost too.
        digests
          .addCharge(run.id, points, 1)
          .catch((err: unknown) => ctx.logger?.warn({ err, runId: run.id }, 'digest run charge not tallied')),
      );
    /** Charges of answered calls whose page is not recorded yet (tallied with their page, or alone). */
    const unrecorded: number[] = [];
    const onCharge = (event: ChargeEvent): void => {
      chargedPoints += event.points;
      // The ledger row is never lost (kept until the store can be written).
      chargeWrites.push(calls.record(event));
      if (event.code === 0) unrecorded.push(event.points);
      else tally(event.points);
    };

    try {
      await fetchOrders(ctx.client, {
        ownerId: subscription.ownerId,
        from: run.windowStart,
        to: run.windowEnd,
        priority: 'bulk',
        correlationId: `digest-${run.id}`,
        channelId: subscription.channelId,
        done,
        onCharge,
        onPage: async (page) => {
          const points = page.points ?? 0;
          unrecorded.shift();
          const recorded = await store.digestPages.record(run.id, holder, {
            window: page.window,
            page: page.page,
            totalPages: page.totalPages,
            ordersJson: encodePageOrders(page.orders),
            orderCount: page.orderCount,
            points,
          });
          if (!recorded) {
            // Bought, but the run is no longer ours: its cost still counts; stop before any other call.
            tally(points);
            throw new DigestLeaseLostError(run.id);
          }
        },
        onProgress,
        checkPlan: (plan) => {
          const each = price ?? plan.lastPagePoints;
          if (each === null) return;
          const estimate = estimateOf(plan, each);
          if (estimate.pagesLeft > 0 && estimate.chargedPoints + estimate.leftPoints > cap)
            throw new DigestOverCapError(estimate.chargedPoints + estimate.leftPoints, estimate);
        },
        fence,
        writeAhead: calls.writeAhead,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      await settle(progressChain, chargeWrites, unrecorded, tally);
      await forgetRecorded();
      if (error instanceof DigestOverCapError && error.estimate) return park(error.estimate);
      throw error;
    }
    await settle(progressChain, chargeWrites, unrecorded, tally);
    await forgetRecorded();
    const pages = await store.digestPages.list(run.id);
    // The subscription's filters (flag colours, statuses), stated in the digest's header.
    const kept = ordersOfPages(pages).filter(
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
  // claimed in 'posting' is a history check of a post left unknown: it is still 'posting'. From
  // here on no end but Slack's sure refusal fails the run (issue 33 finding 4): an error of any
  // other kind sends it to its history check (scheduler.ts failed), so a post Slack accepted and
  // the store did not record is found, never sent again.
  const verify = run.state === 'posting';
  if (
    !(verify
      ? await digests.renew(run.id, fence.lease())
      : await digests.markPosting(run.id, fence.lease(), JSON.stringify(summary)))
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
  /**
   * Right before the post is sent (issue 33 finding 5): the attempt is stamped under the holder's
   * epoch (a holder whose run was claimed again stops here; the history check reads around this
   * instant), then the fence is checked (a holder paused past its lease stops here); the fence's
   * signal goes with the Slack request.
   */
  const attempt = async () => {
    if (!(await digests.markPostAttempt(run.id, holder, new Date(ctx.now()))))
      throw new DigestLeaseLostError(run.id);
    fence.check();
  };
  const progress = current.checkProgress;
  // "Run now" replaces its progress message: an update, which may simply be sent again (its
  // thread's replies are keyed and completed, never doubled), so there is nothing to look for.
  const outcome = await postOnce({
    verify: verify && current.messageTs === null,
    find: () => publisher.findDigest(post, { fence, progress }),
    post: async () => {
      await attempt();
      return publisher.postDigest(post, current.messageTs, { fence, progress });
    },
  });
  if (outcome.kind === 'unknown' || outcome.kind === 'unverified' || outcome.kind === 'deferred') {
    const unknown = unknownPostOf(outcome, current.attempts, ctx.now());
    if (!(await digests.markUnknown(run.id, holder, unknown))) throw new DigestLeaseLostError(run.id);
    ctx.logger?.warn(
      { runId: run.id, err: outcome.error, checkAt: unknown.checkAt },
      outcome.kind === 'deferred'
        ? 'digest history check put off (rate limit)'
        : 'digest post outcome unknown',
    );
    return {
      kind: 'unknown',
      run: (await digests.run(run.id)) ?? current,
      checkAt: unknown.checkAt,
      reason: outcome.kind === 'unverified' ? unreadableReason(outcome.error) : null,
    };
  }
  const messageTs = outcome.ts;
  // The chart only once the post is recorded, and only by the run's holder (no second chart from
  // a holder that lost the run).
  if (await digests.markPosted(run.id, holder, messageTs, new Date(ctx.now())))
    await publisher.postChart(post, messageTs);
  else ctx.logger?.warn({ runId: run.id }, 'digest posted but its run record was taken over');
  ctx.logger?.info(
    { runId: run.id, subscriptionId: subscription.id, orders: summary.orders, points: current.chargedPoints },
    outcome.kind === 'found' ? 'digest found in the channel: recorded, not posted again' : 'digest posted',
  );
  return { kind: 'posted', run: (await digests.run(run.id)) ?? current, messageTs, summary };
}

/**
 * Waits for the progress updates and charge writes; an answered call whose page was never
 * recorded (its answer did not parse) still counts in the run's cost.
 */
async function settle(
  progress: Promise<unknown>,
  writes: Promise<unknown>[],
  unrecorded: number[],
  tally: (points: number) => void,
): Promise<void> {
  for (const points of unrecorded.splice(0)) tally(points);
  await Promise.all([progress, ...writes]);
}
