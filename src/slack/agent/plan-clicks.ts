/**
 * The agent's plan buttons (issue 36): Confirm runs the plan once (agent/plans.ts claims its batch
 * once: a double click or a redelivery runs nothing more), streaming each step's task card from
 * pending to done or error, posting each answer as the command renders it, and closing with what
 * was really charged and feedback buttons. Cancel (Stop) cancels the steps not yet run. Feedback
 * votes are kept, one per person and answer.
 */
import type { App, FeedbackButtonsAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { confirmPlan } from '../../agent/ask.js';
import { neverRan, planRecord, stopPlan, wasCutOff } from '../../agent/plans.js';
import { ACTIONS } from '../../blocks/action-ids.js';
import {
  agentStatus,
  failedStepText,
  renderAgentNotice,
  renderPlanCutOff,
  renderPlanNotRun,
  renderRunSummary,
  taskChunk,
} from '../../blocks/agent.js';
import { chargeNoteText } from '../../blocks/charge-note.js';
import { errorTitle, renderPlatError } from '../../blocks/errors.js';
import type { Words } from '../../blocks/i18n/words.js';
import { toolWords } from '../../blocks/tools.js';
import { describeRequest } from '../../blocks/words-of.js';
import { isToolName, type ToolName } from '../../lookups/tools.js';
import { isPlatError } from '../../plat/errors.js';
import { answerOf, keptResult } from '../answer.js';
import { onMessageClick } from '../clicks/message-click.js';
import type { SlackDeps } from '../deps.js';
import { agentDeps } from './agent-deps.js';
import { createPlanStream } from './plan-stream.js';

/** A step's words for its task card: what it looks up. */
const stepTitle = (w: Words, tool: ToolName, request: Parameters<typeof describeRequest>[1] | null) =>
  request ? describeRequest(w, request) : toolWords(w, tool).title;

/**
 * A plan a crash cut off, or whose process died after its Confirm before any step started, as the
 * store and the ledger hold it (null: neither).
 */
async function cutOffNotice(deps: SlackDeps, batchId: string, w: Words) {
  const record = await planRecord(agentDeps(deps), batchId);
  if (!record) return null;
  if (wasCutOff(record)) return renderPlanCutOff(w, record);
  const batch = await deps.store.shortcutBatches.get(batchId);
  // Closed by another process after this one's died (closeAbandonedPlan): nothing ran, nothing charged.
  if (batch && neverRan(batch, record)) return renderPlanNotRun(w, record);
  return null;
}

async function runConfirmed(
  deps: SlackDeps,
  client: WebClient,
  input: { batchId: string; userId: string; teamId: string | null; reply: (m: object) => Promise<unknown> },
): Promise<void> {
  const w = await deps.language.user(input.userId);
  const batch = await deps.store.shortcutBatches.get(input.batchId);
  if (!batch?.channelId || !batch.threadTs) {
    await input.reply({
      response_type: 'ephemeral',
      replace_original: false,
      ...renderAgentNotice(w, { kind: 'closed', reason: 'not_found' }),
    });
    return;
  }
  const where = { channelId: batch.channelId, threadTs: batch.threadTs, userId: input.userId };
  const out = createPlanStream(
    client,
    { ...where, teamId: input.teamId },
    {
      logger: deps.logger,
      ...(deps.agentSlackTimeoutMs !== undefined ? { timeoutMs: deps.agentSlackTimeoutMs } : {}),
    },
  );
  let started = false;
  let undelivered = 0;
  const tools: ToolName[] = [];
  const result = await confirmPlan(
    agentDeps(deps),
    input.batchId,
    input.userId,
    {
      async started(step) {
        tools.push(step.tool);
        if (!started) {
          started = true;
          await out.status(agentStatus(w, 'running'));
        }
        await out.append([
          taskChunk({ index: step.index, what: toolWords(w, step.tool).title }, 'in_progress'),
        ]);
      },
      async done(step, outcome, pending) {
        const what = stepTitle(w, step.tool, pending.request);
        const charged = chargeNoteText(w, {
          chargedPoints: outcome.chargedPoints,
          quotaCalls: 'quotaCalls' in outcome ? outcome.quotaCalls : 0,
          ...(outcome.shared ? { shared: true } : {}),
        });
        await out.append([taskChunk({ index: step.index, what }, 'complete', charged)]);
        const answered = await out.post(
          await answerOf(deps, w, outcome, pending),
          pending.request.kind === 'orders',
        );
        if (!answered) undelivered++;
      },
      async failed(step, error, pending) {
        const what = stepTitle(w, step.tool, pending.request);
        const why = isPlatError(error) ? errorTitle(w, error.code) : w.t('error.noReason');
        await out.append([taskChunk({ index: step.index, what }, 'error', failedStepText(w, what, why))]);
        if (!(await out.post(renderPlatError(w, error), true))) undelivered++;
        await deps.alerts.notifyIfAccountError(error, { userId: input.userId });
      },
      async stopped(step) {
        await out.append([
          taskChunk(
            { index: step.index, what: toolWords(w, step.tool).title },
            'error',
            w.t('agent.stopped'),
          ),
        ]);
      },
    },
    keptResult,
  );
  if (result.kind === 'closed') {
    // A second click, another person's, or too late: nothing ran, nothing was streamed. After a
    // crash cut the plan off, what became of it (the same words its thread was told).
    const cut = result.reason === 'already_used' ? await cutOffNotice(deps, input.batchId, w) : null;
    await input.reply({
      response_type: 'ephemeral',
      replace_original: false,
      ...(cut ?? renderAgentNotice(w, { kind: 'closed', reason: result.reason })),
    });
    return;
  }
  // What was charged, as the ledger holds it (the calls' own reports if the store cannot be read now).
  const record = await planRecord(agentDeps(deps), input.batchId).catch((err: unknown) => {
    deps.logger.warn(
      { err },
      'plan not read back from the store: its summary states what the calls reported',
    );
    return null;
  });
  const summary = renderRunSummary(w, {
    record,
    points: result.points,
    quotaCalls: result.quotaCalls,
    stopped: result.stopped,
    tools,
    listSteps: out.unclear,
    undelivered,
    planId: input.batchId,
  });
  // Closed already by another process that took this one for gone (it was stalled past a lease
  // after its last step): that one posted the summary.
  const settled = await deps.store.shortcutBatches.get(input.batchId).then(
    (b) => b?.settledAt != null,
    () => false,
  );
  if (!settled) await out.finish(summary);
  // Told: no other process closes it again. Should this process die between the summary and here,
  // the one that closes it finds the summary in the thread first (its block id) and posts nothing.
  await deps.store.shortcutBatches.settle(input.batchId).catch((err: unknown) => {
    deps.logger.warn({ err }, 'plan not marked told: another process looks for its summary in the thread');
  });
  await out.status('');
}

export function registerPlanClicks(app: App, deps: SlackDeps): void {
  onMessageClick(app, deps, ACTIONS.agentConfirm, async ({ action, body, client, reply }) => {
    if (!action.value) return;
    const run = runConfirmed(deps, client, {
      batchId: action.value,
      userId: body.user.id,
      teamId: body.team?.id ?? null,
      reply,
    });
    // Shutdown waits for a confirmed plan, so its answers are delivered, not only recorded.
    await deps.lookups.hold(run);
  });

  onMessageClick(app, deps, ACTIONS.agentStop, async ({ action, body, reply }) => {
    if (!action.value) return;
    const w = await deps.language.user(body.user.id);
    // After a crash cut the plan off there is nothing to stop: what became of it.
    const cut = await cutOffNotice(deps, action.value, w);
    if (cut) {
      await reply({ response_type: 'ephemeral', replace_original: false, ...cut });
      return;
    }
    const stopped = await stopPlan(agentDeps(deps), action.value, body.user.id);
    const notice =
      stopped.kind === 'stopped'
        ? renderAgentNotice(w, { kind: 'stopped', running: stopped.running })
        : renderAgentNotice(w, { kind: 'closed', reason: stopped.reason });
    await reply({ response_type: 'ephemeral', replace_original: false, ...notice });
  });

  onMessageClick<FeedbackButtonsAction>(app, deps, ACTIONS.agentFeedback, async ({ action, body, reply }) => {
    const [vote, list = ''] = action.value.split(':');
    if (vote !== 'good' && vote !== 'bad') return;
    const tools = list.split(',').filter(isToolName);
    await deps.store.agent.addFeedback({
      userId: body.user.id,
      channelId: body.channel?.id ?? '',
      messageTs: body.message?.ts ?? body.container?.message_ts ?? '',
      value: vote,
      tools: tools.join(','),
      at: deps.now(),
    });
    const w = await deps.language.user(body.user.id);
    await reply({
      response_type: 'ephemeral',
      replace_original: false,
      ...renderAgentNotice(w, { kind: 'feedback' }),
    });
  });
}
