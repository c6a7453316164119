/**
 * Workflow Builder steps (issue 25): `lookup_waybill`, `lookup_item`, `orders_due`, `lookup_shop`
 * end here, in the same use cases as the slash commands. A step cannot ask for a Confirm, so an
 * admin approves each step's spend in advance (a cap per day and per month, in points); without
 * an approval a step spends nothing.
 *
 * Money (DESIGN rule 8): a run is a pending lookup whose id is fixed by Slack's
 * function_execution_id (`step:<id>`), created idempotently and claimed once, so a redelivered
 * `function_executed` finds the first delivery's row: it is never charged again, and it answers
 * with the first one's outcome (stored with the row) or, while that one still runs, not at all.
 * Every call reserves against the step's counters (scope 'step') and the workspace's caps in one
 * transaction (store/budgets.ts), and its ledger row names the workflow's run and the step.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { isPlatError, PlatNoAccountError } from '../plat/errors.js';
import type { Order } from '../plat/types.js';
import { periodsOf } from '../store/periods.js';
import type { Settings, Store } from '../store/store.js';
import type { StepRefusal } from './access.js';
import type { LookupService } from './lookup-service.js';
import { decodeFailure, decodeOutcome, encodeFailure, encodeOutcome } from './outcome-codec.js';
import type { Problem } from './parse/problems.js';
import type { Caps } from './settings.js';
import { ORDERS_DUE_PAGE_SIZE, type ToolInputs, type ToolOn, toolAsk, toolsFor } from './tools.js';
import type { LookupOutcome, LookupRequest, Quote } from './types.js';

export { MAX_HOURS_AHEAD, ORDERS_DUE_PAGE_SIZE } from './tools.js';

/**
 * The steps' callback ids: the catalog's tools offered as steps (lookups/tools.ts), as
 * manifest.yml declares them under `functions:`.
 */
export const STEP_IDS = toolsFor('step').map((t) => t.name) as readonly StepId[];
export type StepId = ToolOn<'step'>;
export const isStepId = (id: string): id is StepId => (STEP_IDS as readonly string[]).includes(id);

/** A pending lookup's user when the workflow passed no person (the ledger then has no user). */
export const WORKFLOW_USER_PREFIX = 'workflow:';

/** Steps' runs are claimed within seconds of their creation; a day covers any redelivery. */
const STEP_ROW_TTL_MS = 24 * 60 * 60 * 1000;

// ---- approvals ------------------------------------------------------------------------------

const approvalSchema = lazySchema(() =>
  z.object({
    daily: z.number().nonnegative().finite().nullable().default(null),
    monthly: z.number().nonnegative().finite().nullable().default(null),
    // Narrowing (issue 34 H1): the shops (aliases, owner or shop ids) and channels it is for; empty: any.
    shops: z.array(z.string()).default([]),
    channels: z.array(z.string()).default([]),
  }),
);
const approvalsSchema = lazySchema(() => z.record(z.string(), approvalSchema).default({}));
export type StepApproval = z.infer<typeof approvalSchema>;
/** An approval as it is set: its narrowing may be left out (none). */
export type StepApprovalInput = z.input<typeof approvalSchema>;

export const STEP_APPROVALS_KEY = 'steps.approvals';

/**
 * Each step's approved caps in points, stored with the other spend settings (audited), and the
 * shops and channels it may be narrowed to. An approval needs at least one cap; a cap of 0
 * approves nothing.
 */
export interface StepApprovals {
  all(): Promise<Partial<Record<StepId, StepApproval>>>;
  get(stepId: StepId): Promise<StepApproval | null>;
  /** null withdraws the approval (the step then spends nothing). */
  set(stepId: StepId, approval: StepApprovalInput | null, actorId: string): Promise<void>;
}

export function createStepApprovals(settings: Settings): StepApprovals {
  const read = async () => {
    const parsed = approvalsSchema.safeParse((await settings.get(STEP_APPROVALS_KEY)) ?? undefined);
    const out: Partial<Record<StepId, StepApproval>> = {};
    if (!parsed.success) return out;
    for (const [id, approval] of Object.entries(parsed.data))
      if (isStepId(id) && (approval.daily !== null || approval.monthly !== null)) out[id] = approval;
    return out;
  };
  return {
    all: read,
    get: async (stepId) => (await read())[stepId] ?? null,
    async set(stepId, approval, actorId) {
      const all = await read();
      if (approval === null || (approval.daily === null && approval.monthly === null)) delete all[stepId];
      else all[stepId] = approvalSchema.parse(approval);
      await settings.set(STEP_APPROVALS_KEY, all, actorId);
    },
  };
}

// ---- inputs → request -------------------------------------------------------------------------

export type StepInputs = ToolInputs;

/** What a step asks: the lookup request and what the outputs are computed with. */
export type StepAsk =
  | {
      ok: true;
      stepId: StepId;
      request: LookupRequest;
      hoursAhead: number | null;
      /**
       * lookup_item: the item's page in the documented link form of the marketplace the input's
       * link names (spec/notes.md "Item links"); null for a bare id (its marketplace is not
       * known: the item operation answers no link and no marketplace).
       */
      itemLink: string | null;
    }
  | { ok: false; stepId: StepId; problems: Problem[] };

/**
 * A step's inputs as the catalog reads them (lookups/tools.ts `toolAsk`: the slash commands'
 * parsers, so bad input never reaches a call). `ordersEdition`: the edition /orders is called with.
 */
export function stepRequest(stepId: StepId, inputs: StepInputs, ordersEdition: number): StepAsk {
  const ask = toolAsk(stepId, inputs, { ordersEdition });
  if (!ask.ok) return { ok: false, stepId, problems: ask.problems };
  // Every step tool asks for a lookup (the free spend report is no step).
  if (ask.kind !== 'lookup') throw new Error(`step ${stepId} is not a lookup`);
  return { ok: true, stepId, request: ask.request, hoursAhead: ask.hoursAhead, itemLink: ask.itemLink };
}

/** Orders awaiting shipment whose ship-by time has passed, or falls within the next hours. */
export function ordersDue(
  orders: readonly Order[],
  now: Date,
  hoursAhead: number,
): { due: Order[]; overdue: Order[] } {
  const until = now.getTime() + hoursAhead * 3_600_000;
  const awaiting = orders.filter((o) => o.status === 1 && o.lastShipTime !== null);
  const at = (o: Order) => (o.lastShipTime as Date).getTime();
  const byTime = (a: Order, b: Order) => at(a) - at(b);
  return {
    overdue: awaiting.filter((o) => at(o) < now.getTime()).sort(byTime),
    due: awaiting.filter((o) => at(o) >= now.getTime() && at(o) <= until).sort(byTime),
  };
}

// ---- a run ---------------------------------------------------------------------------------------

/** One delivery of `function_executed`, as Slack names it. */
export interface StepExecution {
  /**
   * The channel the workflow declares it posts the answer in (the step's `channel` input): what an
   * approval narrowed to channels is checked against. A declaration, not a fact: Slack does not
   * tell a step where a later step posts (access.ts checkStepAccess says what it may decide).
   */
  channelId?: string | null;
  /** function_execution_id: the same on every redelivery. */
  executionId: string;
  /**
   * workflow_execution_id: the run of the workflow this step is part of. function_executed names
   * no id of the workflow itself (https://docs.slack.dev/reference/events/function_executed).
   */
  workflowExecutionId: string;
  stepId: StepId;
  /**
   * The person who started the workflow as Slack vouches for them (the `user_context` input, which
   * no builder can type); null when the workflow has none (a schedule, an event): the run is then
   * the workflow's own.
   */
  userId: string | null;
  teamId: string | null;
}

export type StepResult =
  /**
   * `ageMs`: answered from the cache (no call); null: looked up now (or by the first delivery).
   * `byWorkflow`: no person Slack vouches for started it, so it is booked to the workflow's run.
   */
  | {
      kind: 'done';
      ask: Extract<StepAsk, { ok: true }>;
      outcome: LookupOutcome;
      ageMs: number | null;
      byWorkflow: boolean;
    }
  | { kind: 'invalid'; problems: Problem[] }
  | { kind: 'not_approved' }
  /** Refused by the access rules or the approval's narrowing (access.ts checkStepAccess): no call. */
  | { kind: 'refused'; refusal: StepRefusal }
  /** The lookup failed (a PlatError: over a cap, the service refused…); `error` as the run saw it. */
  | { kind: 'failed'; error: unknown }
  /** A redelivery while the first delivery still runs: that one completes the step. */
  | { kind: 'in_progress' }
  /**
   * The first delivery's process stopped while its run held the claim (start-up marked it
   * interrupted): its call may have been sent and charged, so it is never run again.
   */
  | { kind: 'interrupted' };

export interface StepRunner {
  readonly approvals: StepApprovals;
  run(execution: StepExecution, inputs: StepInputs): Promise<StepResult>;
}

export function createStepRunner(deps: {
  lookups: LookupService;
  store: Store;
  ordersEdition: () => number;
}): StepRunner {
  const { lookups, store } = deps;
  const approvals = createStepApprovals(store.settings);

  /** The outcome a finished row holds (done: the outcome; failed: the error). */
  const storedResult = (
    state: string,
    resultJson: string | null,
    ask: Extract<StepAsk, { ok: true }>,
    byWorkflow: boolean,
  ) => {
    if (resultJson === null) return null;
    if (state === 'done') {
      const stored = JSON.parse(resultJson) as { outcome: string; ageMs: number | null };
      return {
        kind: 'done' as const,
        ask,
        outcome: decodeOutcome(stored.outcome),
        ageMs: stored.ageMs,
        byWorkflow,
      };
    }
    if (state === 'failed') return { kind: 'failed' as const, error: decodeFailure(resultJson) };
    return null;
  };

  async function run(execution: StepExecution, inputs: StepInputs): Promise<StepResult> {
    const ask = stepRequest(execution.stepId, inputs, deps.ordersEdition());
    if (!ask.ok) return { kind: 'invalid', problems: ask.problems };
    const rowId = `step:${execution.executionId}`;
    const byWorkflow = execution.userId === null;
    // A redelivery whose first delivery claimed its row passed the checks below then: it is
    // answered from that row and never checked again, so a policy changed in between cannot
    // report a charged run as refused.
    const earlier = await store.pending.get<LookupRequest, Quote>(rowId);
    if (earlier && earlier.state !== 'pending') {
      if (earlier.state === 'interrupted') return { kind: 'interrupted' };
      const asked = { ...ask, request: earlier.request };
      return storedResult(earlier.state, earlier.resultJson, asked, byWorkflow) ?? { kind: 'in_progress' };
    }
    // No plat account yet: the step fails with that reason, before anything is stored or spent.
    try {
      await lookups.ensureAccount();
    } catch (error) {
      if (error instanceof PlatNoAccountError) return { kind: 'failed', error };
      throw error;
    }
    const approval = await approvals.get(execution.stepId);
    if (!approval) return { kind: 'not_approved' };
    // The rules a person's lookup is under (issue 34 H1): who may spend, registered shops, a
    // shop's channels, aliases; and what the approval narrows the step to.
    const access = await lookups.checkStepAccess(
      ask.request,
      { userId: execution.userId, channelId: execution.channelId ?? null },
      approval,
    );
    if (!access.ok) return { kind: 'refused', refusal: access.refusal };
    const request = access.request;
    const asked = { ...ask, request };

    const userId = execution.userId ?? `${WORKFLOW_USER_PREFIX}${execution.workflowExecutionId}`;
    // Keyed by the execution: a redelivery creates nothing and finds this row.
    const row = await store.pending.create({
      id: rowId,
      userId,
      channelId: execution.channelId ?? null,
      teamId: execution.teamId,
      request,
      quote: await lookups.quote(request),
      summary: `${execution.stepId}:${execution.workflowExecutionId}`,
      responseUrl: null,
      ttlMs: STEP_ROW_TTL_MS,
    });
    const claimed = await store.pending.claim<LookupRequest, Quote>(row.id, row.userId, lookups.holder);
    if (!claimed.ok) {
      if (claimed.reason === 'interrupted') return { kind: 'interrupted' };
      const stored = claimed.pending
        ? storedResult(claimed.pending.state, claimed.pending.resultJson, asked, byWorkflow)
        : null;
      return stored ?? { kind: 'in_progress' };
    }
    const pending = claimed.pending;

    // Identical runs share the cache: an answer still fresh is given without a call.
    const hit = await lookups.cached(request);
    if (hit) {
      const stored = JSON.stringify({ outcome: encodeOutcome(hit.outcome), ageMs: hit.ageMs });
      await store.pending.finish(pending.id, 'done', stored);
      return { kind: 'done', ask: asked, outcome: hit.outcome, ageMs: hit.ageMs, byWorkflow };
    }
    try {
      const outcome = await lookups.run(pending, {
        source: 'workflow',
        step: {
          workflowExecutionId: execution.workflowExecutionId,
          stepId: execution.stepId,
          caps: approval as Caps,
        },
        resultJson: (o) => JSON.stringify({ outcome: encodeOutcome(o), ageMs: null }),
        // Kept with the failed row, so a redelivery fails with the same reason.
        failureJson: (error) => (isPlatError(error) ? encodeFailure(error) : null),
      });
      return { kind: 'done', ask: asked, outcome, ageMs: null, byWorkflow };
    } catch (error) {
      return { kind: 'failed', error };
    }
  }

  return { approvals, run };
}

// ---- admin view --------------------------------------------------------------------------------

/** One run of each step as a quote sees it (one waybill, an item without prices, one page, a shop link). */
const SAMPLE_REQUESTS: Record<StepId, LookupRequest> = {
  lookup_waybill: { kind: 'waybill-info', ownerId: '-', waybills: [{ waybillCode: '-', carrier: null }] },
  lookup_item: { kind: 'item', itemId: '-', withPrices: false },
  orders_due: { kind: 'orders', ownerId: '-', page: 0, pageSize: ORDERS_DUE_PAGE_SIZE, filters: {} },
  lookup_shop: { kind: 'shop-info', url: '-', shopType: '0' },
};

/** A step as an admin sees it: what a run costs, what is approved, what is spent of it. */
export interface StepView {
  stepId: StepId;
  /** What one run costs (its configured or last seen price; item steps: a quota call). */
  quote: Quote;
  approval: StepApproval | null;
  /** Points spent (and reserved by runs in flight) today and this month, in the budget zone. */
  spent: { daily: number; monthly: number };
}

export interface StepsAdmin {
  readonly approvals: StepApprovals;
  view(now: Date): Promise<StepView[]>;
}

export function createStepsAdmin(deps: {
  lookups: Pick<LookupService, 'quote' | 'settings' | 'ensureAccount'>;
  store: Store;
}): StepsAdmin {
  const approvals = createStepApprovals(deps.store.settings);
  return {
    approvals,
    async view(now) {
      // No plat account yet: no step can run, so none is offered for approval.
      try {
        await deps.lookups.ensureAccount();
      } catch (error) {
        if (error instanceof PlatNoAccountError) return [];
        throw error;
      }
      const all = await approvals.all();
      const periods = periodsOf(now, (await deps.lookups.settings.budgets()).timezone);
      const views: StepView[] = [];
      for (const stepId of STEP_IDS) {
        const [daily, monthly] = await deps.store.budgets.uses(
          (['daily', 'monthly'] as const).map((period) => ({
            scope: 'step' as const,
            subject: stepId,
            period,
            key: periods[period].key,
            cap: Number.POSITIVE_INFINITY,
          })),
        );
        views.push({
          stepId,
          quote: await deps.lookups.quote(SAMPLE_REQUESTS[stepId]),
          approval: all[stepId] ?? null,
          spent: { daily: daily?.spent ?? 0, monthly: monthly?.spent ?? 0 },
        });
      }
      return views;
    },
  };
}
