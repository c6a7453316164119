/**
 * Tells the users of confirmed lookups that a crash cut (lookups/interrupted.ts), and keeps this
 * process's own claims held: every CLAIM_RENEW_MS it renews their leases and looks for claims of
 * holders that are gone since (another process that died while this one runs).
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { AGENT_BATCH_KIND, closeAbandonedPlan, planRecord } from '../agent/plans.js';
import { agentSummaryBlockId, renderPlanClosedLate, renderPlanCutOff } from '../blocks/agent.js';
import { renderInterrupted } from '../blocks/confirmation.js';
import type { RenderedMessage } from '../blocks/kit.js';
import { renderOutcome } from '../blocks/outcome.js';
import { type Instance, isCertainlyGone } from '../instance.js';
import { CLAIM_RENEW_MS, interruptedTruth, interruptGoneClaims } from '../lookups/interrupted.js';
import type { Pending } from '../lookups/types.js';
import type { ClaimHolder, Store } from '../store/store.js';
import type { LocaleResolver } from './locale-resolver.js';
import { sendPrivately } from './private-reply.js';

/** How a claim's user is reached: by its tenant's Slack client, in their own language. */
export interface ClaimSlack {
  client: WebClient;
  language: Pick<LocaleResolver, 'user'>;
}

export type ClaimWatchDeps = ClaimWatchBase &
  (
    | ClaimSlack
    | {
        /** Distributed mode: the Slack of a claim's tenant (null: no longer installed). */
        slackOf: (tenant: string) => Promise<ClaimSlack | null>;
      }
  );

interface ClaimWatchBase {
  store: Store;
  logger: Pick<Logger, 'warn' | 'error'>;
  instance: Instance;
  holder: ClaimHolder;
  now: () => Date;
  /**
   * The longest a plat call can take (plat/client.ts longestCallMs): a claim whose lease ran out
   * is taken as gone only this long after, when a cut-off holder's last call is surely over.
   */
  longestCallMs: number;
  everyMs?: number;
}

export interface ClaimWatch {
  /** Marks interrupted the claims of holders that are gone (at start: before taking requests). */
  sweep(): Promise<Pending[]>;
  /**
   * Tells each user by direct message, then closes the agent plans a gone process left without a
   * summary (closeAbandonedPlans); resolves when every message was tried.
   */
  tell(interrupted: readonly Pending[]): Promise<void>;
  start(): void;
  stop(): void;
}

export function createClaimWatch(deps: ClaimWatchDeps): ClaimWatch {
  let timer: NodeJS.Timeout | undefined;
  /** Tells the user of one interrupted lookup by direct message. */
  async function tellOne(p: Pending): Promise<void> {
    // What is known first (sent? charged? its answer kept?): told as it is, never offered again once sent.
    const truth = await interruptedTruth(deps.store.forTenant(p.tenantId), p);
    const slack = 'slackOf' in deps ? await deps.slackOf(p.tenantId) : deps;
    if (!slack) {
      deps.logger.warn({ pendingId: p.id }, 'interrupted lookup of a tenant no longer installed: not told');
      return;
    }
    const w = await slack.language.user(p.userId);
    const to = { userId: p.userId, channelId: null };
    await sendPrivately(
      slack.client,
      to,
      renderInterrupted(w, p.request, truth, { offerAgain: false }),
      deps.logger,
    );
    if (truth.sent && truth.answer)
      await sendPrivately(slack.client, to, renderOutcome(w, truth.answer, { now: deps.now() }), deps.logger);
  }
  const watch: ClaimWatch = {
    async sweep() {
      const interrupted = await interruptGoneClaims(deps.store, deps.instance, deps.longestCallMs);
      for (const p of interrupted)
        deps.logger.warn(
          { pendingId: p.id, kind: p.request.kind, holder: p.claimedBy },
          'lookup interrupted: its process is gone',
        );
      return interrupted;
    },
    async tell(interrupted) {
      // A step of an agent's plan is told with its plan, in the plan's thread, once per plan.
      const plans = new Map<string, Pending[]>();
      for (const p of interrupted)
        if (p.planId) {
          const key = `${p.tenantId}\n${p.planId}`;
          plans.set(key, [...(plans.get(key) ?? []), p]);
        }
      for (const steps of plans.values()) {
        const first = steps[0] as Pending;
        // A plan no longer known (pruned): its steps are told one by one, as any lookup.
        if ((await tellPlan(deps, first.tenantId, first.planId as string)) === 'no_plan')
          for (const p of steps) await tellOne(p);
      }
      for (const p of interrupted) if (!p.planId) await tellOne(p);
      await closeAbandonedPlans(deps);
    },
    start() {
      timer ??= setInterval(() => {
        void (async () => {
          await deps.store.pending.renewClaims(deps.holder);
          await watch.tell(await watch.sweep());
        })().catch((err: unknown) => {
          // The store failing now is reported by /healthz; the next beat tries again.
          deps.logger.error({ err }, 'could not renew lookup claims');
        });
      }, deps.everyMs ?? CLAIM_RENEW_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
  return watch;
}

/**
 * How long the record that a cut-off plan was told is kept (the first-seen records of Slack's
 * event ids): the processes that mark its steps do so within a lease and a call's longest time.
 */
const PLAN_TOLD_MEMORY_MS = 24 * 60 * 60 * 1000;

/**
 * Tells a confirmed plan a crash cut off (agent/plans.ts planRecord) in its thread, once across
 * processes, when none of its steps is still held: which steps ran, which did not, and what the
 * ledger holds. 'later': a step is still held (the process that marks the last one tells);
 * 'no_plan': the plan is no longer known.
 */
async function tellPlan(
  deps: ClaimWatchDeps,
  tenantId: string,
  planId: string,
): Promise<'told' | 'later' | 'already' | 'no_plan'> {
  const store = deps.store.forTenant(tenantId);
  const record = await planRecord({ store }, planId);
  if (!record?.channelId || !record.threadTs) return 'no_plan';
  if (record.steps.some((s) => s.fate.kind === 'running')) return 'later';
  // Of the processes that marked its steps at once, one tells (the event ids' first-seen record).
  if (!(await store.unfurls.firstSeen(`agent-plan-cut:${planId}`, PLAN_TOLD_MEMORY_MS))) return 'already';
  const slack = 'slackOf' in deps ? await deps.slackOf(tenantId) : deps;
  if (!slack) {
    deps.logger.warn({ planId }, 'interrupted plan of a tenant no longer installed: not told');
    return 'told';
  }
  const w = await slack.language.user(record.userId);
  await tellInThread(
    slack.client,
    { channel: record.channelId, ts: record.threadTs, userId: record.userId, planId },
    renderPlanCutOff(w, record),
    deps.logger,
  );
  deps.logger.warn({ planId, steps: record.steps.length }, 'agent plan interrupted: told in its thread');
  return 'told';
}

/**
 * The agent plans whose process died after their Confirm and before their closing summary, with
 * no step cut off (agent/plans.ts closeAbandonedPlan): none of their steps started, or every step
 * ran and only the summary is missing. Each is closed once across processes and told in its
 * thread: what ran and what the ledger holds, or that it did not run and cost nothing. A summary
 * its process posted before dying (without marking it told) is looked for in the thread first, by
 * its block id, and never posted again.
 */
async function closeAbandonedPlans(deps: ClaimWatchDeps): Promise<void> {
  const nowMs = deps.now().getTime();
  const judge = {
    me: deps.instance.id,
    gone: (id: string) => isCertainlyGone(id, deps.instance),
    nowMs,
    graceMs: deps.longestCallMs,
  };
  const since = new Date(nowMs - PLAN_TOLD_MEMORY_MS);
  for (const { tenantId, batch } of await deps.store.shortcutBatches.unsettled(AGENT_BATCH_KIND, since)) {
    const store = deps.store.forTenant(tenantId);
    const closed = await closeAbandonedPlan({ store }, batch, judge);
    if (!closed?.record.channelId || !closed.record.threadTs) continue;
    const { record } = closed;
    const slack = 'slackOf' in deps ? await deps.slackOf(tenantId) : deps;
    if (!slack) {
      deps.logger.warn(
        { planId: record.planId },
        'plan of a tenant no longer installed: not closed in Slack',
      );
      continue;
    }
    const where = { channel: record.channelId as string, ts: record.threadTs as string };
    if (await summaryInThread(slack.client, where, record.planId, deps.logger)) continue;
    const w = await slack.language.user(record.userId);
    const notice = renderPlanClosedLate(
      w,
      record,
      closed.kind,
      record.steps.map((s) => s.tool),
    );
    await tellInThread(
      slack.client,
      { ...where, userId: record.userId, planId: record.planId },
      notice,
      deps.logger,
    );
    deps.logger.warn(
      { planId: record.planId, how: closed.kind },
      'agent plan left without a summary by a gone process: closed in its thread',
    );
  }
}

/**
 * Posts a plan's notice in its thread; a person no longer in that conversation (a channel left)
 * is told by direct message instead.
 */
async function tellInThread(
  client: WebClient,
  where: { channel: string; ts: string; userId: string; planId: string },
  notice: RenderedMessage,
  logger: Pick<Logger, 'warn' | 'error'>,
): Promise<void> {
  try {
    await client.chat.postMessage({
      channel: where.channel,
      thread_ts: where.ts,
      text: notice.text,
      blocks: notice.blocks,
    });
  } catch (err) {
    logger.warn(
      { err, planId: where.planId },
      'agent plan notice not posted in its thread: by direct message',
    );
    await sendPrivately(client, { userId: where.userId, channelId: null }, notice, logger);
  }
}

/** Whether the plan's summary is in its thread already (its process posted it, then died). */
async function summaryInThread(
  client: WebClient,
  where: { channel: string; ts: string },
  planId: string,
  logger: Pick<Logger, 'warn'>,
): Promise<boolean> {
  const marker = `"${agentSummaryBlockId(planId)}"`;
  try {
    let cursor: string | undefined;
    do {
      const page = await client.conversations.replies({
        channel: where.channel,
        ts: where.ts,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      if ((page.messages ?? []).some((m) => JSON.stringify(m.blocks ?? []).includes(marker))) return true;
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    return false;
  } catch (err) {
    // Unread: posted anyway (a summary told twice beats a plan never told; the settle is once).
    logger.warn({ err, planId }, 'thread not read before closing a plan');
    return false;
  }
}
