/**
 * "Run now" and "Run anyway": run a digest at an admin's request and tell that admin how it went.
 * The digest itself (and its progress, page k of n) appears in the subscription's channel.
 */
import {
  digestFailureReason,
  digestRemedy,
  renderDigestAnswer,
  renderDigestApproval,
} from '../../blocks/digest.js';
import type { Words } from '../../blocks/i18n/words.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import type { DigestScheduler, ManualResult } from '../../digest/scheduler.js';
import type { SlackDeps } from '../deps.js';

export type DigestReply = (message: RenderedMessage) => Promise<unknown>;

/** The admin's answer, in the admin's language `w`. */
export function answerOf(deps: SlackDeps, w: Words, result: ManualResult): RenderedMessage {
  const { t } = w;
  switch (result.kind) {
    case 'posted': {
      const s = result.summary;
      return renderDigestAnswer(
        t('digest.answer.posted', {
          channel: `<#${channelOf(deps, result.run.subscriptionId)}>`,
          count: s.orders,
          n: w.count(s.orders),
          amount: w.yuan(s.amountFen / 100),
          points: w.points(result.run.chargedPoints),
        }),
      );
    }
    case 'awaiting_approval': {
      const subscription = deps.store.digests.get(result.run.subscriptionId);
      if (!subscription) return renderDigestAnswer(t('digest.answer.gone'));
      return renderDigestApproval(w, {
        subscription,
        run: result.run,
        estimatePoints: result.estimatePoints,
        capPoints: result.capPoints,
      });
    }
    case 'failed': {
      const remedy = digestRemedy(w, result.error);
      return renderDigestAnswer(
        t('digest.answer.failed', {
          reason: digestFailureReason(w, result.error),
          remedy: remedy ? ` ${remedy}` : '',
        }),
      );
    }
    case 'not_found':
      return renderDigestAnswer(t('digest.answer.notFound'));
    case 'already_handled':
      return renderDigestAnswer(t('digest.answer.alreadyHandled'));
    case 'stopped':
      return renderDigestAnswer(t('digest.answer.stopped'));
  }
}

function channelOf(deps: SlackDeps, subscriptionId: number): string {
  return deps.store.digests.get(subscriptionId)?.channelId ?? 'unknown';
}

export async function runNowAndAnswer(
  deps: SlackDeps,
  scheduler: DigestScheduler,
  subscriptionId: number,
  userId: string,
  reply: DigestReply,
): Promise<void> {
  const w = await deps.language.user(userId);
  const sub = deps.store.digests.get(subscriptionId);
  if (!sub) {
    await reply(answerOf(deps, w, { kind: 'not_found' }));
    return;
  }
  await reply(
    renderDigestAnswer(w.t('digest.answer.running', { id: sub.id, channel: `<#${sub.channelId}>` })),
  );
  await reply(answerOf(deps, w, await scheduler.runNow(subscriptionId, userId)));
}
