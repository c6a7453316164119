/**
 * The agent's words (issue 36): suggested prompts, the priced plan under one Confirm, the task
 * cards of its streamed reply, the closing line that states what was really charged, feedback
 * buttons, and the answers that cost nothing (help, cannot-do, a question back, bad input).
 */
import type { AnyChunk, KnownBlock, TaskUpdateChunk } from '@slack/types';
import type { ModelFailure } from '../agent/model.js';
import type { Question } from '../agent/planner.js';
import type { PlanRecord, PlanRecordStep, PlanStep, PricedPlan } from '../agent/plans.js';
import type { ToolName } from '../lookups/tools.js';
import type { LookupRequest } from '../lookups/types.js';
import { ACTIONS } from './action-ids.js';
import { chargeNoteText, quoteShort } from './charge-note.js';
import type { Words } from './i18n/words.js';
import { actions, button, buttonValue, context, message, type RenderedMessage, section } from './kit.js';
import { packSections } from './limits.js';
import { escapeClip } from './text.js';
import { toolWords } from './tools.js';
import { describeCap, describeProblem, describeRefusal, describeRequest } from './words-of.js';

/** Slack's suggested prompts (assistant.threads.setSuggestedPrompts: at most 4). */
export function suggestedPrompts(w: Words): { title: string; prompts: { title: string; message: string }[] } {
  const { t } = w;
  const keys = ['waybills', 'item', 'orders', 'spend'] as const;
  return {
    title: t('agent.promptsTitle'),
    prompts: keys.map((k) => ({
      title: t(`agent.prompt.${k}.title`),
      message: t(`agent.prompt.${k}.message`),
    })),
  };
}

export const agentStatus = (w: Words, what: 'planning' | 'running'): string => w.t(`agent.status.${what}`);

/** What a step does, in words (escaped). */
export function stepWhat(w: Words, step: PlanStep): string {
  if (step.spend)
    return w.t(step.spend.everyone ? 'agent.spendWhat.everyone' : 'agent.spendWhat.mine', {
      period: w.t(`platdesk.period.${step.spend.period}`),
    });
  return step.request ? requestWhat(w, step.request) : escapeClip(toolWords(w, step.call.tool).title, 100);
}

/** What a step's lookup asks, in words (escaped): its waybill numbers, its time window. */
function requestWhat(w: Words, r: LookupRequest): string {
  if (r.kind === 'waybill-info' || r.kind === 'waybill-print') {
    // The numbers themselves: the person checks the plan names the waybills they meant.
    const codes = r.waybills.map((x) => x.waybillCode);
    const shown = codes.length > 5 ? [...codes.slice(0, 5), '…'] : codes;
    return escapeClip(`${describeRequest(w, r)} (${shown.join(', ')})`, 300);
  }
  if (r.kind === 'orders' && (r.filters.startTime || r.filters.endTime)) {
    // The time window: a plan of one call per day must tell its days apart.
    const from = r.filters.startTime ? w.dateTime(r.filters.startTime) : '…';
    const to = r.filters.endTime ? w.dateTime(r.filters.endTime) : '…';
    return escapeClip(`${describeRequest(w, r)}, ${from} – ${to}`, 300);
  }
  return escapeClip(describeRequest(w, r), 300);
}

function stepLine(w: Words, step: PlanStep): string {
  const { t } = w;
  const n = step.index + 1;
  const what = stepWhat(w, step);
  switch (step.status) {
    case 'paid':
      return t('agent.step.paid', { n, what, price: step.quote ? quoteShort(w, step.quote) : '' });
    case 'cached':
      return t('agent.step.cached', { n, what, age: w.age(step.cached?.ageMs ?? 0) });
    case 'free':
      return t('agent.step.free', { n, what });
    case 'refused':
      return t('agent.step.refused', {
        n,
        what,
        why: step.refusal ? escapeClip(describeRefusal(w, step.refusal), 500) : '',
      });
    case 'invalid':
      return t('agent.step.invalid', {
        n,
        what,
        why: escapeClip(step.problems.map((p) => describeProblem(w, p)).join(' '), 500),
      });
    case 'over_cap':
      return t('agent.step.overCap', { n, what });
  }
}

export interface PlanView {
  plan: PricedPlan;
  assumedShop: string | null;
  modelFallback: ModelFailure | null;
  expiresInMinutes: number;
}

/** The plan with each step's price, the total under one Confirm, and Confirm / Cancel. */
export function renderPlan(w: Words, view: PlanView): RenderedMessage {
  const { t } = w;
  const { plan } = view;
  const short = quoteShort(w, plan.total);
  const blocks: KnownBlock[] = [section(t('agent.planIntro'))];
  const notes: string[] = [];
  if (view.modelFallback) notes.push(t(`agent.modelFallback.${view.modelFallback}`));
  if (view.assumedShop) notes.push(t('agent.assumedShop', { shop: escapeClip(view.assumedShop, 60) }));
  if (notes.length > 0) blocks.push(context(...notes));
  blocks.push(
    ...packSections(
      plan.steps.map((s) => stepLine(w, s)),
      { maxBlocks: 6, more: (n) => t('common.more', { count: n, n: w.count(n) }) },
    ),
  );
  if (plan.overCap) {
    const values = {
      wanted: w.points(plan.overCap.wanted),
      cap: describeCap(w, plan.overCap.cap),
      over: w.points(plan.overCap.over),
    };
    blocks.push(section(t(plan.offered.length > 0 ? 'agent.overCap' : 'agent.overCapNone', values)));
  }
  if (plan.batchId) {
    const id = buttonValue(plan.batchId);
    const count = plan.offered.length;
    blocks.push(
      section(t('agent.total', { total: short, count, n: w.count(count) })),
      actions([
        button({
          label: t('agent.confirmButton', { short }),
          actionId: ACTIONS.agentConfirm,
          value: id,
          style: 'primary',
        }),
        button({ label: t('agent.stopButton'), actionId: ACTIONS.agentStop, value: id }),
      ]),
      context(
        t('confirm.expires', {
          count: view.expiresInMinutes,
          n: w.count(Math.max(1, Math.round(view.expiresInMinutes))),
        }),
      ),
    );
  } else blocks.push(context(t('agent.nothingToConfirm')));
  return message(t('agent.fallback', { total: plan.batchId ? short : t('charge.noCharge') }), blocks, 3);
}

type TaskStatus = TaskUpdateChunk['status'];

/** A step's task card in the streamed reply (Slack's `task_update` chunk, plan display). */
export function taskChunk(
  step: Pick<PlanStep, 'index'> & { what: string },
  status: TaskStatus,
  details?: string,
): TaskUpdateChunk {
  const chunk: TaskUpdateChunk = {
    type: 'task_update',
    id: `step-${step.index + 1}`,
    title: escapeClip(`${step.index + 1}. ${step.what}`, 250),
    status,
  };
  if (details) chunk.details = escapeClip(details, 500);
  return chunk;
}

/** The plan's task cards as it is offered: free steps done, paid ones pending, the rest errors. */
export function planChunks(w: Words, plan: PricedPlan): AnyChunk[] {
  const chunks: AnyChunk[] = [{ type: 'plan_update', title: w.t('agent.planTitle') }];
  for (const s of plan.steps) {
    const what = stepWhat(w, s);
    const status: TaskStatus =
      s.status === 'paid' ? 'pending' : s.status === 'cached' || s.status === 'free' ? 'complete' : 'error';
    chunks.push(
      taskChunk({ index: s.index, what }, status, status === 'pending' ? undefined : stepLine(w, s)),
    );
  }
  return chunks;
}

/** A failed step, in words. */
export const failedStepText = (w: Words, what: string, why: string): string =>
  w.t('agent.failedStep', { what, why: escapeClip(why, 500) });

/** The feedback value: the vote and the plan's tools (no question text is kept). */
export function agentFeedbackValue(vote: 'good' | 'bad', tools: readonly ToolName[]): string {
  return buttonValue(`${vote}:${[...new Set(tools)].join(',')}`);
}

/** Slack's feedback buttons under an answer (context_actions, feedback_buttons). */
function feedbackBlock(w: Words, tools: readonly ToolName[]): KnownBlock {
  return {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: ACTIONS.agentFeedback,
        positive_button: {
          text: { type: 'plain_text', text: '👍' },
          accessibility_label: w.t('agent.feedbackGood'),
          value: agentFeedbackValue('good', tools),
        },
        negative_button: {
          text: { type: 'plain_text', text: '👎' },
          accessibility_label: w.t('agent.feedbackBad'),
          value: agentFeedbackValue('bad', tools),
        },
      },
    ],
  };
}

/** A step of a confirmed plan as it ended, from the store and the ledger (agent/plans.ts planRecord). */
function recordStepLine(w: Words, step: PlanRecordStep): string {
  const { t } = w;
  const n = step.index + 1;
  const what = step.pending
    ? requestWhat(w, step.pending.request)
    : escapeClip(toolWords(w, step.tool).title, 100);
  // Every call it made went unanswered: no figure would be what was charged.
  const unknown = step.charged.calls > 0 && step.costUnknown === step.charged.calls;
  const charged = unknown
    ? t('agent.record.costUnknown')
    : chargeNoteText(w, { chargedPoints: step.charged.points, quotaCalls: step.charged.quotaCalls });
  switch (step.fate.kind) {
    case 'done':
      return t('agent.record.done', { n, what, charged });
    case 'failed':
      return t('agent.record.failed', { n, what, charged });
    case 'cut':
      return step.charged.calls === 0 && step.maybeNotSent > 0
        ? t('agent.record.cutMaybe', { n, what })
        : t('agent.record.cut', { n, what, charged });
    case 'running':
      return t('agent.record.running', { n, what });
    case 'not_run':
      return t('agent.record.notRun', { n, what });
  }
}

/** The plan's total as the ledger holds it, and the calls whose charge platdesk does not know. */
function recordTotalLines(w: Words, record: Pick<PlanRecord, 'charged' | 'costUnknown'>): string[] {
  const { t } = w;
  const charged = chargeNoteText(w, {
    chargedPoints: record.charged.points,
    quotaCalls: record.charged.quotaCalls,
  });
  const lines = [t('agent.record.total', { charged })];
  if (record.costUnknown > 0)
    lines.push(t('agent.record.unknown', { count: record.costUnknown, n: w.count(record.costUnknown) }));
  return lines;
}

export interface RunSummary {
  /** What became of the plan, read back from the store and the ledger; null when it could not be read. */
  record: PlanRecord | null;
  /** What the calls reported (used when the record could not be read). */
  points: number;
  quotaCalls: number;
  stopped: number;
  tools: readonly ToolName[];
  /**
   * The task cards may not show how each step ended (Slack did not confirm a streamed update):
   * every step is listed in the summary.
   */
  listSteps: boolean;
  /** Answers Slack did not confirm it received: the person is told they may be missing. */
  undelivered: number;
  /** The plan's id: its summary is marked with it, so a process that closes the plan later finds it. */
  planId?: string;
}

/**
 * The block id a plan's closing summary carries (agent/plans.ts): a process closing a plan whose
 * summary it did not see posted looks for it in the thread first.
 */
export const agentSummaryBlockId = (planId: string): string => `agent-summary:${planId}`;

/** The plan's closing line: what was really charged, as the ledger records it. */
export function renderRunSummary(w: Words, run: RunSummary): RenderedMessage {
  const { t } = w;
  const { record } = run;
  const charged = record
    ? chargeNoteText(w, { chargedPoints: record.charged.points, quotaCalls: record.charged.quotaCalls })
    : chargeNoteText(w, { chargedPoints: run.points, quotaCalls: run.quotaCalls });
  // The ledger's figure; the calls' own reports only when the store could not be read back.
  const lines = [t(record ? 'agent.doneSummary' : 'agent.doneSummaryReported', { charged })];
  if (record && record.costUnknown > 0)
    lines.push(t('agent.record.unknown', { count: record.costUnknown, n: w.count(record.costUnknown) }));
  if (run.stopped > 0) lines.push(t('agent.stoppedSteps', { count: run.stopped, n: w.count(run.stopped) }));
  if (run.undelivered > 0)
    lines.push(t('agent.undelivered', { count: run.undelivered, n: w.count(run.undelivered) }));
  const text = lines.join('\n');
  const blocks: KnownBlock[] = [
    { ...section(text), ...(run.planId ? { block_id: agentSummaryBlockId(run.planId) } : {}) },
  ];
  if (run.listSteps && record)
    blocks.push(
      ...packSections(
        record.steps.map((s) => recordStepLine(w, s)),
        { maxBlocks: 6, more: (n) => t('common.more', { count: n, n: w.count(n) }) },
      ),
    );
  blocks.push(feedbackBlock(w, run.tools));
  return message(text, blocks, 1);
}

/**
 * A confirmed plan a crash cut off (agent/plans.ts planRecord), told in its thread by the process
 * that found it: which steps ran, which were cut off mid-call, which never ran, and what the
 * ledger holds, calls whose charge is not known included. None of its steps runs again.
 */
export function renderPlanCutOff(w: Words, record: PlanRecord): RenderedMessage {
  const { t } = w;
  const intro = t('agent.record.intro');
  const totals = recordTotalLines(w, record);
  const blocks: KnownBlock[] = [
    section(intro),
    ...packSections(
      record.steps.map((s) => recordStepLine(w, s)),
      { maxBlocks: 6, more: (n) => t('common.more', { count: n, n: w.count(n) }) },
    ),
    section(totals.join('\n')),
    context(t('agent.record.answers')),
  ];
  return message([intro, ...totals].join('\n'), blocks, 1);
}

/**
 * A confirmed plan closed by a process other than the one that ran it, which died after the
 * Confirm and before its closing summary: either none of its steps started (`not_run`: nothing
 * was charged; asking again offers it again), or every step ran and only the summary was missing.
 * Every step as the store and the ledger hold it, the ledger's total, and the summary's marker.
 */
export function renderPlanClosedLate(
  w: Words,
  record: PlanRecord,
  how: 'not_run' | 'summary',
  tools: readonly ToolName[],
): RenderedMessage {
  const { t } = w;
  const intro = t(how === 'not_run' ? 'agent.record.notRunIntro' : 'agent.record.lateIntro');
  const totals = recordTotalLines(w, record);
  const blocks: KnownBlock[] = [
    { ...section(intro), block_id: agentSummaryBlockId(record.planId) },
    ...packSections(
      record.steps.map((s) => recordStepLine(w, s)),
      { maxBlocks: 6, more: (n) => t('common.more', { count: n, n: w.count(n) }) },
    ),
    section(totals.join('\n')),
    ...(how === 'summary' ? [context(t('agent.record.answers'))] : []),
    feedbackBlock(w, tools),
  ];
  return message([intro, ...totals].join('\n'), blocks, 1);
}

/** What a click on a plan closed as never run is told (the same words its thread was told, without the feedback). */
export function renderPlanNotRun(w: Words, record: PlanRecord): RenderedMessage {
  const full = renderPlanClosedLate(w, record, 'not_run', []);
  return { text: full.text, blocks: full.blocks.filter((b) => b.type !== 'context_actions') };
}

/** Feedback under an answer that cost nothing (help, a question back, free steps only). */
export function withFeedback(w: Words, m: RenderedMessage, tools: readonly ToolName[]): RenderedMessage {
  return { text: m.text, blocks: [...m.blocks, feedbackBlock(w, tools)] };
}

export type AgentNotice =
  | { kind: 'help' }
  | { kind: 'unsupported' }
  | { kind: 'empty' }
  | { kind: 'too_long'; max: number }
  | { kind: 'edited' }
  | { kind: 'too_many'; paidSteps: number; max: number }
  | { kind: 'ask'; question: Question }
  | { kind: 'stopped'; running: boolean }
  | { kind: 'closed'; reason: 'not_found' | 'not_yours' | 'already_used' | 'expired' }
  | { kind: 'feedback' };

function questionText(w: Words, q: Question): string {
  const { t } = w;
  const list = (xs: readonly string[]) => escapeClip(w.list(xs), 500);
  switch (q.code) {
    case 'which_shop':
      return t('agent.question.which_shop', { options: list(q.options) });
    case 'unknown_shop':
      return q.options.length > 0
        ? t('agent.question.unknown_shop', { name: escapeClip(q.name, 40), options: list(q.options) })
        : t('agent.question.no_such_shop', { name: escapeClip(q.name, 40) });
    case 'which_carrier':
      return t('agent.question.which_carrier', { numbers: list(q.numbers), candidates: list(q.candidates) });
    case 'item_or_waybill':
    case 'what_number':
      return t(`agent.question.${q.code}`, { value: escapeClip(q.value, 60) });
    case 'which_result':
      return t('agent.question.which_result', { count: q.count });
    case 'full_link':
      return t('agent.question.full_link', { link: escapeClip(q.link, 200) });
    case 'item_link_for_shop':
      return t('agent.question.item_link_for_shop', { itemId: escapeClip(q.itemId, 30) });
    default:
      return t(`agent.question.${q.code}`);
  }
}

/** An answer that costs nothing. */
export function renderAgentNotice(w: Words, notice: AgentNotice): RenderedMessage {
  const { t } = w;
  let text: string;
  switch (notice.kind) {
    case 'help':
      text = t('agent.help');
      break;
    case 'unsupported':
      text = t('agent.unsupported');
      break;
    case 'empty':
      text = t('agent.empty');
      break;
    case 'too_long':
      text = t('agent.tooLong', { max: w.count(notice.max) });
      break;
    case 'edited':
      text = t('agent.edited');
      break;
    case 'too_many':
      text = t('agent.tooMany', { n: w.count(notice.paidSteps), max: w.count(notice.max) });
      break;
    case 'ask':
      text = questionText(w, notice.question);
      break;
    case 'stopped':
      text = t(notice.running ? 'agent.stoppedRunning' : 'agent.stopped');
      break;
    case 'closed':
      text = t(`agent.closed.${notice.reason}`);
      break;
    case 'feedback':
      text = t('agent.feedbackThanks');
      break;
  }
  return message(text, [section(text)]);
}
