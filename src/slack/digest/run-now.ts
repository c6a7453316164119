/**
 * "Run now" and "Run anyway": run a digest at an admin's request and tell that admin how it went.
 * The digest itself (and its progress, page k of n) appears in the subscription's channel.
 */
import { digestFailureReason, renderDigestAnswer, renderDigestApproval } from '../../blocks/digest.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { formatPoints, formatYuan, plural } from '../../blocks/text.js';
import type { DigestScheduler, ManualResult } from '../../digest/scheduler.js';
import { isPlatError } from '../../plat/errors.js';
import type { SlackDeps } from '../deps.js';

export type DigestReply = (message: RenderedMessage) => Promise<unknown>;

export async function answerOf(deps: SlackDeps, result: ManualResult): Promise<RenderedMessage> {
  switch (result.kind) {
    case 'posted': {
      const s = result.summary;
      return renderDigestAnswer(
        `:white_check_mark: Digest posted in <#${await channelOf(deps, result.run.subscriptionId)}>: ` +
          `${plural(s.orders, 'order')}, ${formatYuan(s.amountFen / 100)}; it cost ${formatPoints(result.run.chargedPoints)}.`,
      );
    }
    case 'awaiting_approval': {
      const subscription = await deps.store.digests.get(result.run.subscriptionId);
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

async function channelOf(deps: SlackDeps, subscriptionId: number): Promise<string> {
  return (await deps.store.digests.get(subscriptionId))?.channelId ?? 'unknown';
}

export async function runNowAndAnswer(
  deps: SlackDeps,
  scheduler: DigestScheduler,
  subscriptionId: number,
  userId: string,
  reply: DigestReply,
): Promise<void> {
  const sub = await deps.store.digests.get(subscriptionId);
  if (!sub) {
    await reply(await answerOf(deps, { kind: 'not_found' }));
    return;
  }
  await reply(
    renderDigestAnswer(
      `:hourglass_flowing_sand: Running digest #${sub.id} now; progress is shown in <#${sub.channelId}>.`,
    ),
  );
  await reply(await answerOf(deps, await scheduler.runNow(subscriptionId, userId)));
}
