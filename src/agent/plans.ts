/**
 * A plan priced, offered under one Confirm, and run (issue 36). The agent is one more caller of
 * the lookup service (lookups/lookup-service.ts): every step is prepared like a slash command's
 * lookup (access policy, shop registry and channel limits, the cache, the price, the caps) and
 * stored as a pending lookup; nothing is called before the Confirm.
 *
 * - Free steps (an answer still in the cache, the spend report from the ledger) are answered at once.
 * - The paid steps' total is checked against the caps before it is offered: a plan a cap cannot
 *   cover says which cap and by how much, and offers the steps that fit (the rest are not offered).
 * - More than MAX_PAID_STEPS paid steps are refused before anything is stored, with how to narrow.
 * - The offer is a shortcut batch of kind 'agent' (store/shortcut-batches.ts): its Confirm claims
 *   it once (a double click, a redelivery or another person's click runs nothing), then each step
 *   is claimed and run in turn (its own single-use claim, fence and ledger rows, source 'agent').
 * - Stop (or Cancel) cancels every step not yet claimed: no further charge. A step already running
 *   finishes and is told as it is; a crash mid-step is told as for commands
 *   (slack/interrupted-lookups.ts), and the steps after it are never run (their rows stay open and
 *   expire: the batch that could claim them is used).
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Refusal } from '../lookups/access.js';
import type { CapFigure } from '../lookups/budgets.js';
import { type Actor, CONFIRM_TTL_MS, type LookupService, summarize } from '../lookups/lookup-service.js';
import type { Problem } from '../lookups/parse/problems.js';
import { problem } from '../lookups/parse/problems.js';
import { sumQuotes } from '../lookups/shortcut-lookups.js';
import { isToolName, type SPEND_PERIODS, type ToolName, toolAsk, toolInput } from '../lookups/tools.js';
import type { LookupOutcome, LookupRequest, Pending, Quote } from '../lookups/types.js';
import { isPlatError } from '../plat/errors.js';
import type { Store } from '../store/store.js';
import type { ToolCall } from './planner.js';

/** Issue 36: a plan of more paid steps than this is refused, with how to narrow it. */
export const MAX_PAID_STEPS = 20;
/** The shortcut batch kind an agent's offer is stored as. */
export const AGENT_BATCH_KIND = 'agent';

export type StepStatus =
  /** Waits for the Confirm: a pending lookup with its price. */
  | 'paid'
  /** Answered now, free: the cache holds its answer. */
  | 'cached'
  /** Answered now, free: a read of the ledger. */
  | 'free'
  /** Not allowed, over a cap alone, or its price not known under a cap: never offered. */
  | 'refused'
  /** Its input cannot be looked up (a model's bad call, a bad id): never offered. */
  | 'invalid'
  /** Left out of the Confirm: the plan's total passed a cap and this step did not fit. */
  | 'over_cap';

export interface PlanStep {
  index: number;
  call: ToolCall;
  status: StepStatus;
  request: LookupRequest | null;
  quote: Quote | null;
  /** The pending lookup (paid: run on Confirm; cached: the refresh a pager or download names). */
  pendingId: string | null;
  /** lookup_item: the item's documented link (kept for follow-ups). */
  itemLink: string | null;
  cached: { outcome: LookupOutcome; ageMs: number } | null;
  spend: { period: (typeof SPEND_PERIODS)[number]; everyone: boolean } | null;
  refusal: Refusal | null;
  problems: Problem[];
}

export interface PricedPlan {
  steps: PlanStep[];
  /** The total of the steps under the Confirm. */
  total: Quote;
  /** The steps under the Confirm, in order (indexes into steps). */
  offered: number[];
  /** The plan's whole total passed a cap: which, by how much, and the steps that fit. */
  overCap: { cap: CapFigure; wanted: number; over: number } | null;
  /** The Confirm's batch id (null: nothing to confirm). */
  batchId: string | null;
}

export type Priced = { kind: 'priced'; plan: PricedPlan } | { kind: 'too_many'; paidSteps: number };

export interface PlanDeps {
  lookups: Pick<LookupService, 'prepare' | 'cached' | 'checkCaps' | 'cancel' | 'claim' | 'run'>;
  store: Pick<Store, 'shortcutBatches'>;
  ordersEdition: () => number;
}

const storedSchema = lazySchema(() =>
  z.object({
    steps: z.array(
      z.object({
        index: z.number(),
        pendingId: z.string(),
        tool: z.string(),
        itemLink: z.string().nullable(),
      }),
    ),
  }),
);
type StoredPlan = z.infer<typeof storedSchema>;

/** A call's input checked against its tool's schema, then read as the commands read it. */
function askOf(call: ToolCall, ordersEdition: number) {
  if (!isToolName(call.tool))
    return { ok: false as const, problems: [problem('unknown_option', { option: call.tool })] };
  const parsed = toolInput(call.tool).safeParse(call.input);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') ?? call.tool;
    return { ok: false as const, problems: [problem('unknown_option', { option: `${call.tool}.${field}` })] };
  }
  return toolAsk(call.tool, parsed.data as Record<string, unknown>, { ordersEdition });
}

function emptyStep(index: number, call: ToolCall): PlanStep {
  return {
    index,
    call,
    status: 'invalid',
    request: null,
    quote: null,
    pendingId: null,
    itemLink: null,
    cached: null,
    spend: null,
    refusal: null,
    problems: [],
  };
}

/**
 * Prices the calls as one plan and stores the offer. Never calls the plat API: preparing reads
 * the cache, the prices and the caps, and stores pending lookups.
 */
export async function pricePlan(
  deps: PlanDeps,
  calls: readonly ToolCall[],
  actor: Actor,
  where: { channelId: string; threadTs: string },
): Promise<Priced> {
  const edition = deps.ordersEdition();
  const asks = calls.map((call) => askOf(call, edition));
  // Too many paid steps: refused before anything is stored (cached answers are free, not counted).
  const lookupsAsked = asks.filter((a) => a.ok && a.kind === 'lookup');
  if (lookupsAsked.length > MAX_PAID_STEPS) {
    let paid = 0;
    for (const a of lookupsAsked)
      if (a.ok && a.kind === 'lookup' && !(await deps.lookups.cached(a.request))) paid++;
    if (paid > MAX_PAID_STEPS) return { kind: 'too_many', paidSteps: paid };
  }

  const steps: PlanStep[] = [];
  for (const [index, call] of calls.entries()) {
    const step = emptyStep(index, call);
    steps.push(step);
    const ask = asks[index];
    if (!ask?.ok) {
      step.problems = ask?.problems ?? [];
      continue;
    }
    if (ask.kind === 'spend') {
      step.status = 'free';
      step.spend = { period: ask.period, everyone: ask.everyone };
      continue;
    }
    step.itemLink = ask.itemLink;
    const prepared = await deps.lookups.prepare(ask.request, actor, summarize(ask.request), {
      allowAuto: false,
    });
    switch (prepared.kind) {
      case 'refused':
        step.status = 'refused';
        step.refusal = prepared.refusal;
        step.request = ask.request;
        break;
      case 'cached':
        step.status = 'cached';
        step.request = prepared.refresh.request;
        step.quote = prepared.refreshQuote;
        step.pendingId = prepared.refresh.id;
        step.cached = { outcome: prepared.outcome, ageMs: prepared.ageMs };
        break;
      case 'auto':
      case 'confirm':
        step.status = 'paid';
        step.request = prepared.pending.request;
        step.quote = prepared.quote;
        step.pendingId = prepared.pending.id;
    }
  }

  // The total of the paid steps against the caps; over one: the steps that fit, in order.
  let paid = steps.filter((s) => s.status === 'paid');
  let overCap: PricedPlan['overCap'] = null;
  const pointsOf = (list: PlanStep[]) => sumQuotes(list.map((s) => s.quote as Quote)).totalPoints ?? 0;
  if (paid.length > 0 && pointsOf(paid) > 0) {
    const check = await deps.lookups.checkCaps(actor.userId, pointsOf(paid));
    if (!check.ok) {
      overCap = {
        cap: check.exceeded,
        wanted: check.wanted,
        over: check.exceeded.spent + check.wanted - check.exceeded.cap,
      };
      let fit = paid.length - 1;
      while (fit > 0 && !(await deps.lookups.checkCaps(actor.userId, pointsOf(paid.slice(0, fit)))).ok) fit--;
      for (const s of paid.slice(fit)) {
        s.status = 'over_cap';
        if (s.pendingId) await deps.lookups.cancel(s.pendingId, actor.userId);
      }
      paid = paid.slice(0, fit);
    }
  }

  const total = sumQuotes(paid.map((s) => s.quote as Quote));
  let batchId: string | null = null;
  if (paid.length > 0) {
    const stored: StoredPlan = {
      steps: paid.map((s) => ({
        index: s.index,
        pendingId: s.pendingId as string,
        tool: s.call.tool,
        itemLink: s.itemLink,
      })),
    };
    const batch = await deps.store.shortcutBatches.create({
      userId: actor.userId,
      kind: AGENT_BATCH_KIND,
      channelId: where.channelId,
      threadTs: where.threadTs,
      payloadJson: JSON.stringify(stored),
      ttlMs: CONFIRM_TTL_MS,
    });
    batchId = batch.id;
  }
  return { kind: 'priced', plan: { steps, total, offered: paid.map((s) => s.index), overCap, batchId } };
}

// ---- the Confirm -----------------------------------------------------------------------------------

/** One step of a confirmed plan, as the runner reports it. */
export interface RunStep {
  index: number;
  tool: ToolName;
  itemLink: string | null;
}

export interface RunEvents {
  /** The step is about to be claimed and run. */
  started(step: RunStep): Promise<void> | void;
  /** Its answer (charged as `outcome.chargedPoints` says). */
  done(step: RunStep, outcome: LookupOutcome & { shared?: boolean }, pending: Pending): Promise<void> | void;
  /** It failed (a PlatError: over a cap now, refused by the service…). */
  failed(step: RunStep, error: unknown, pending: Pending): Promise<void> | void;
  /** Not run: the plan was stopped before it. */
  stopped(step: RunStep): Promise<void> | void;
}

export type RunResult =
  | {
      kind: 'ran';
      channelId: string | null;
      threadTs: string | null;
      points: number;
      quotaCalls: number;
      stopped: number;
    }
  /** The Confirm was not this person's, already used, or expired: nothing ran. */
  | { kind: 'closed'; reason: 'not_found' | 'not_yours' | 'already_used' | 'expired' };

function readStored(payloadJson: string): StoredPlan | null {
  try {
    const parsed = storedSchema.safeParse(JSON.parse(payloadJson));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The steps a stored offer holds (for a Stop, or to show them). */
export function offeredSteps(payloadJson: string): RunStep[] {
  return (readStored(payloadJson)?.steps ?? [])
    .filter((s) => isToolName(s.tool))
    .map((s) => ({ index: s.index, tool: s.tool as ToolName, itemLink: s.itemLink }));
}

/**
 * The plan's Confirm: claims the offer once, then claims and runs each step in turn through the
 * lookup service (source 'agent'). `resultJson`: what to keep with a finished step.
 */
export async function runPlan(
  deps: PlanDeps,
  batchId: string,
  userId: string,
  events: RunEvents,
  resultJson?: (outcome: LookupOutcome) => string | null,
): Promise<RunResult> {
  const claimed = await deps.store.shortcutBatches.claim(batchId, userId);
  if (!claimed.ok) return { kind: 'closed', reason: claimed.reason };
  const stored = readStored(claimed.batch.payloadJson);
  let points = 0;
  let quotaCalls = 0;
  let stopped = 0;
  for (const s of stored?.steps ?? []) {
    if (!isToolName(s.tool)) continue;
    const step: RunStep = { index: s.index, tool: s.tool, itemLink: s.itemLink };
    // A Stop cancelled the steps not yet claimed: they are not run (and cost nothing).
    const mine = await deps.lookups.claim(s.pendingId, userId);
    if (!mine.ok) {
      stopped++;
      await events.stopped(step);
      continue;
    }
    await events.started(step);
    try {
      const outcome = await deps.lookups.run(mine.pending, {
        source: 'agent',
        ...(resultJson ? { resultJson } : {}),
      });
      points += outcome.chargedPoints;
      if ('quotaCalls' in outcome) quotaCalls += outcome.quotaCalls;
      await events.done(step, outcome, mine.pending);
    } catch (error) {
      // A failed call may still have been charged (plat/errors.ts chargePoints): counted.
      if (isPlatError(error)) {
        points += error.chargePoints ?? 0;
        quotaCalls += error.answered ? error.quotaCalls : 0;
      }
      await events.failed(step, error, mine.pending);
    }
  }
  return {
    kind: 'ran',
    channelId: claimed.batch.channelId,
    threadTs: claimed.batch.threadTs,
    points,
    quotaCalls,
    stopped,
  };
}

/**
 * Stop or Cancel: the offer is closed (claimed, if nobody confirmed it yet, so no Confirm can run
 * it) and every step not yet claimed is cancelled. `running`: it was confirmed and is running.
 */
export async function stopPlan(
  deps: PlanDeps,
  batchId: string,
  userId: string,
): Promise<
  | { kind: 'stopped'; running: boolean; cancelled: number }
  | { kind: 'closed'; reason: 'not_found' | 'not_yours' | 'expired' | 'already_used' }
> {
  const claimed = await deps.store.shortcutBatches.claim(batchId, userId);
  if (!claimed.ok && claimed.reason !== 'already_used') return { kind: 'closed', reason: claimed.reason };
  const batch = claimed.batch;
  if (!batch) return { kind: 'closed', reason: 'not_found' };
  let cancelled = 0;
  let running = false;
  for (const s of readStored(batch.payloadJson)?.steps ?? []) {
    const c = await deps.lookups.cancel(s.pendingId, userId);
    if (c.ok) cancelled++;
    else if (c.pending?.state === 'running') running = true;
  }
  // Confirmed, and nothing left to stop (every step done, failed or cancelled): said as it is,
  // not as a stop.
  if (!claimed.ok && !running && cancelled === 0) return { kind: 'closed', reason: 'already_used' };
  return { kind: 'stopped', running: !claimed.ok, cancelled };
}
