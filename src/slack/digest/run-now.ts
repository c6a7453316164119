/**
 * "Run now" and "Run anyway": run a digest at an admin's request and tell that admin how it went.
 * The digest itself (and its progress, page k of n) appears in the subscription's channel.
 */
import {
  digestFailureReason,
  renderDigestAnswer,
  renderDigestApproval,
  renderDigestRerunQuestion,
} from '../../blocks/digest.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { formatPoints, formatYuan, plural } from '../../blocks/text.js';
import type { DigestScheduler, ManualResult } from '../../digest/scheduler.js';
import { parseSummary } from '../../digest/summarize.js';
import { isPlatError } from '../../plat/errors.js';
import type { DigestSubscription } from '../../store/digests.js';
import type { SlackDeps } from '../deps.js';

export type DigestReply = (message: RenderedMessage) => Promise<unknown>;

export function answerOf(deps: SlackDeps, result: ManualResult): RenderedMessage {
  switch (result.kind) {
    case 'posted': {
      const s = result.summary;
      return renderDigestAnswer(
        `:white_check_mark: Digest posted in <#${channelOf(deps, result.run.subscriptionId)}>: ` +
          `${plural(s.orders, 'order')}, ${formatYuan(s.amountFen / 100)}; it cost ${formatPoints(result.run.chargedPoints)}.`,
      );
    }
    case 'awaiting_approval': {
      const subscription = deps.store.digests.get(result.run.subscriptionId);
      if (!subscription) return renderDigestAnswer('That digest was removed.');
      return renderDigestApproval({
        subscription,
        run: result.run,
        estimatePoints: result.estimatePoints,
        capPoints: result.capPoints,
      });
    }
    case 'failed': {
      const remedy = isPlatError(result.error) ? ` ${result.error.remedy}` : '';
      return renderDigestAnswer(
        `:warning: The digest could not be prepared: ${digestFailureReason(result.error)}.${remedy}`,
      );
    }
    case 'not_found':
      return renderDigestAnswer('There is no such digest (see `/orders digest list`).');
    case 'already_handled':
      return renderDigestAnswer('That digest was already approved or run; nothing more was charged.');
    case 'stopped':
      return renderDigestAnswer('platdesk is restarting; try again in a minute.');
  }
}

function channelOf(deps: SlackDeps, subscriptionId: number): string {
  return deps.store.digests.get(subscriptionId)?.channelId ?? 'unknown';
}

/**
 * `/orders digest run <id>`. When today's digest was already posted, running again would fetch
 * and charge the same orders again: ask first, stating the charge (the Run again button).
 */
export async function runNowAndAnswer(
  deps: SlackDeps,
  scheduler: DigestScheduler,
  subscriptionId: number,
  userId: string,
  reply: DigestReply,
): Promise<void> {
  const sub = deps.store.digests.get(subscriptionId);
  if (!sub) {
    await reply(answerOf(deps, { kind: 'not_found' }));
    return;
  }
  const posted = scheduler.postedToday(subscriptionId);
  const newest = deps.store.digests.lastRun(subscriptionId);
  if (posted && newest) {
    await reply(
      renderDigestRerunQuestion({
        subscription: sub,
        posted,
        orders: parseSummary(posted.summaryJson)?.orders ?? null,
        newestRunId: newest.id,
        estimatePoints: posted.chargedPoints,
      }),
    );
    return;
  }
  await runAndAnswer(deps, scheduler, sub, userId, reply);
}

/**
 * "Run again" after the question: admins only, single-use (it runs only while the run it was
 * asked about is still the newest one; the new run is created before anything is awaited).
 */
export async function runAgainAndAnswer(
  deps: SlackDeps,
  scheduler: DigestScheduler,
  value: { subscriptionId: number; newestRunId: number },
  userId: string,
  reply: DigestReply,
): Promise<void> {
  const sub = deps.store.digests.get(value.subscriptionId);
  if (!sub) {
    await reply(answerOf(deps, { kind: 'not_found' }));
    return;
  }
  if (deps.store.digests.lastRun(sub.id)?.id !== value.newestRunId) {
    await reply(
      renderDigestAnswer(
        `Digest #${sub.id} has run since this question; nothing more was charged. ` +
          `Use \`/orders digest run ${sub.id}\` to ask again.`,
      ),
    );
    return;
  }
  await runAndAnswer(deps, scheduler, sub, userId, reply);
}

async function runAndAnswer(
  deps: SlackDeps,
  scheduler: DigestScheduler,
  sub: DigestSubscription,
  userId: string,
  reply: DigestReply,
): Promise<void> {
  // Started before the first await: the manual run exists at once, so a second click sees it.
  const result = scheduler.runNow(sub.id, userId);
  await reply(
    renderDigestAnswer(
      `:hourglass_flowing_sand: Running digest #${sub.id} now; progress is shown in <#${sub.channelId}>.`,
    ),
  );
  await reply(answerOf(deps, await result));
}
