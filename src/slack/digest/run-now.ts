/**
 * "Run now" and "Run anyway": run a digest at an admin's request and tell that admin how it went,
 * in the admin's language. The digest itself (and its progress, page k of n) appears in the
 * subscription's channel, in the channel's language.
 */
import {
  digestFailureReason,
  digestRemedy,
  renderDigestAnswer,
  renderDigestApproval,
  renderDigestRerunQuestion,
} from '../../blocks/digest.js';
import type { Words } from '../../blocks/i18n/words.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import type { DigestScheduler, ManualResult } from '../../digest/scheduler.js';
import { parseSummary } from '../../digest/summarize.js';
import type { DigestSubscription } from '../../store/store.js';
import type { SlackDeps } from '../deps.js';

export type DigestReply = (message: RenderedMessage) => Promise<unknown>;

/** The admin's answer, in the admin's language `w`. */
export async function answerOf(deps: SlackDeps, w: Words, result: ManualResult): Promise<RenderedMessage> {
  const { t } = w;
  switch (result.kind) {
    case 'posted': {
      const s = result.summary;
      return renderDigestAnswer(
        t('digest.answer.posted', {
          channel: `<#${await channelOf(deps, result.run.subscriptionId)}>`,
          count: s.orders,
          n: w.count(s.orders),
          amount: w.yuan(s.amountFen / 100),
          points: w.points(result.run.chargedPoints),
        }),
      );
    }
    case 'awaiting_approval': {
      const subscription = await deps.store.digests.get(result.run.subscriptionId);
      if (!subscription) return renderDigestAnswer(t('digest.answer.gone'));
      return renderDigestApproval(w, {
        subscription,
        run: result.run,
        estimatePoints: result.estimatePoints,
        capPoints: result.capPoints,
        estimate: result.estimate,
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

async function channelOf(deps: SlackDeps, subscriptionId: number): Promise<string> {
  return (await deps.store.digests.get(subscriptionId))?.channelId ?? 'unknown';
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
  // The language first: nothing is awaited between the checks below and starting the run.
  const w = await deps.language.user(userId);
  const sub = await deps.store.digests.get(subscriptionId);
  if (!sub) {
    await reply(await answerOf(deps, w, { kind: 'not_found' }));
    return;
  }
  const posted = await scheduler.postedToday(subscriptionId);
  const newest = await deps.store.digests.lastRun(subscriptionId);
  if (posted && newest) {
    await reply(
      renderDigestRerunQuestion(w, {
        subscription: sub,
        posted,
        orders: parseSummary(posted.summaryJson)?.orders ?? null,
        newestRunId: newest.id,
        estimatePoints: posted.chargedPoints,
      }),
    );
    return;
  }
  await runAndAnswer(deps, w, scheduler, sub, userId, reply);
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
  const w = await deps.language.user(userId);
  const sub = await deps.store.digests.get(value.subscriptionId);
  if (!sub) {
    await reply(await answerOf(deps, w, { kind: 'not_found' }));
    return;
  }
  if ((await deps.store.digests.lastRun(sub.id))?.id !== value.newestRunId) {
    await reply(renderDigestAnswer(w.t('digest.answer.ranSince', { id: sub.id })));
    return;
  }
  await runAndAnswer(deps, w, scheduler, sub, userId, reply, value.newestRunId);
}

async function runAndAnswer(
  deps: SlackDeps,
  w: Words,
  scheduler: DigestScheduler,
  sub: DigestSubscription,
  userId: string,
  reply: DigestReply,
  newestRunId?: number,
): Promise<void> {
  // Started before the reply is awaited; with newestRunId the run is created only while that run
  // is still the newest (store.ts DigestStore.createManual), so a second click runs nothing.
  const result = scheduler.runNow(sub.id, userId, newestRunId);
  await reply(
    renderDigestAnswer(w.t('digest.answer.running', { id: sub.id, channel: `<#${sub.channelId}>` })),
  );
  await reply(await answerOf(deps, w, await result));
}
