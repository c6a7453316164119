/**
 * A question to the agent, from a DM, the Messages tab or a mention (issue 36): planned and priced
 * (agent/ask.ts), then streamed into the thread: the plan's task cards first, the answers of its
 * free steps, and the plan with one Confirm stating its total. Nothing is charged here.
 */
import type { SayStreamFn, SetStatusFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { type AgentAnswer, askAgent } from '../../agent/ask.js';
import { agentStatus, planChunks, renderAgentNotice, renderPlan, withFeedback } from '../../blocks/agent.js';
import type { Words } from '../../blocks/i18n/words.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { renderPlatdeskResult } from '../../blocks/platdesk.js';
import { CONFIRM_TTL_MS } from '../../lookups/lookup-service.js';
import type { LookupRequest, Quote } from '../../lookups/types.js';
import { EVENT_MEMORY_MS } from '../../lookups/unfurls.js';
import { answerOf } from '../answer.js';
import type { SlackDeps } from '../deps.js';
import { agentDeps, postInThread } from './agent-deps.js';

export interface Question {
  text: string;
  userId: string;
  teamId: string | null;
  channelId: string;
  threadTs: string;
  /** The message's own ts: a redelivered event of the same message is answered once. */
  messageTs: string;
  sayStream: SayStreamFn;
  setStatus: SetStatusFn | null;
}

/** Status is a courtesy: a refusal of it never stops the answer. */
async function status(deps: SlackDeps, setStatus: SetStatusFn | null, text: string): Promise<void> {
  if (!setStatus) return;
  try {
    await setStatus(text);
  } catch (err) {
    deps.logger.warn({ err }, 'agent status not set');
  }
}

function noticeOf(w: Words, answer: Exclude<AgentAnswer, { kind: 'plan' }>): RenderedMessage {
  switch (answer.kind) {
    case 'too_many':
      return renderAgentNotice(w, { kind: 'too_many', paidSteps: answer.paidSteps, max: 20 });
    case 'too_long':
      return renderAgentNotice(w, { kind: 'too_long', max: answer.max });
    case 'ask':
      return renderAgentNotice(w, { kind: 'ask', question: answer.question });
    case 'unsupported':
    case 'help':
    case 'empty':
      return renderAgentNotice(w, { kind: answer.kind });
  }
}

export async function answerQuestion(deps: SlackDeps, client: WebClient, q: Question): Promise<void> {
  // Slack redelivers an event whose ack it did not see: one answer per message.
  if (!(await deps.store.unfurls.firstSeen(`agent:${q.channelId}:${q.messageTs}`, EVENT_MEMORY_MS))) {
    deps.logger.info({ channelId: q.channelId }, 'agent question delivered again: ignored');
    return;
  }
  const w = await deps.language.user(q.userId);
  await status(deps, q.setStatus, agentStatus(w, 'planning'));
  const answer = await askAgent(agentDeps(deps), q.text, {
    userId: q.userId,
    teamId: q.teamId,
    channelId: q.channelId,
    threadTs: q.threadTs,
  });
  if (answer.kind !== 'plan') {
    const notice = noticeOf(w, answer);
    await q.sayStream().stop({ blocks: withFeedback(w, notice, []).blocks });
    await status(deps, q.setStatus, '');
    return;
  }
  const { plan } = answer;
  // The steps as one plan (Slack's plan display): the cards together under the plan's title.
  const stream = q.sayStream({ task_display_mode: 'plan' });
  // The task cards first: the person sees the plan take shape before the prices are worded.
  await stream.append({ chunks: planChunks(w, plan) });
  // Free steps are answered at once, each as the command would answer it.
  for (const step of plan.steps) {
    if (step.cached && step.pendingId && step.request) {
      const pending = await deps.store.pending.get<LookupRequest, Quote>(step.pendingId);
      if (!pending) continue;
      const rendered = await answerOf(deps, w, step.cached.outcome, pending, { ageMs: step.cached.ageMs });
      await postInThread(deps, client, q, rendered, step.request.kind === 'orders');
    }
    const spend = answer.spend.get(step.index);
    if (spend) {
      const rendered = renderPlatdeskResult(
        w,
        spend.kind === 'usage'
          ? { kind: 'usage', report: spend.report }
          : { kind: 'denied', reason: 'others_spend' },
      );
      // A spend report is the person's own business: only they see it.
      await postInThread(deps, client, q, rendered, true);
    }
  }
  const offer = renderPlan(w, {
    plan,
    assumedShop: answer.assumedShop,
    modelFallback: answer.modelFallback,
    expiresInMinutes: CONFIRM_TTL_MS / 60_000,
  });
  await stream.stop({ blocks: offer.blocks });
  await status(deps, q.setStatus, '');
}
