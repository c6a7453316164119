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
 * - The offer is a shortcut batch of kind 'agent' (store/shortcut-batches.ts) whose id is also
 *   each step's plan id (store PendingLookup.planId). Its Confirm claims it once (a double click,
 *   a redelivery or another person's click runs nothing), then claims every step at once, under
 *   this process's lease as any confirmed lookup is claimed (lookups/interrupted.ts), and runs
 *   them in turn (each its own fence and ledger rows, source 'agent').
 * - Stop (or Cancel) cancels every step none of whose calls was sent (store `withdraw`, which
 *   races the fence in one conditional UPDATE): no further charge. A step whose call went
 *   finishes and is told as it is.
 * - A crash mid-plan, during a step or between two, leaves the plan's unfinished steps claimed by
 *   a process that is gone: the claim sweep marks them interrupted (once, across processes) like
 *   a command's lookup, and the process that marks the last one tells the plan in its thread
 *   (`planRecord`: which steps ran, which did not, what the ledger holds;
 *   slack/interrupted-lookups.ts). No step is run again: the plan's Confirm is used.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Refusal } from '../lookups/access.js';
import type { CapFigure } from '../lookups/budgets.js';
import {
  CLAIM_LEASE_MS,
  chargesOfLookup,
  type InterruptedTruth,
  interruptedTruth,
} from '../lookups/interrupted.js';
import { type Actor, CONFIRM_TTL_MS, type LookupService, summarize } from '../lookups/lookup-service.js';
import type { Problem } from '../lookups/parse/problems.js';
import { problem } from '../lookups/parse/problems.js';
import { sumQuotes } from '../lookups/shortcut-lookups.js';
import { isToolName, type SPEND_PERIODS, type ToolName, toolAsk, toolInput } from '../lookups/tools.js';
import type { LookupOutcome, LookupRequest, Pending, Quote } from '../lookups/types.js';
import { isPlatError } from '../plat/errors.js';
import type { LedgerTotals, ShortcutBatch, Store } from '../store/store.js';
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
  lookups: Pick<
    LookupService,
    'prepare' | 'cached' | 'checkCaps' | 'cancel' | 'claim' | 'run' | 'withdraw' | 'holder'
  >;
  store: Pick<Store, 'shortcutBatches' | 'pending' | 'ledger' | 'cache'>;
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
  // The offer's id, fixed first: every step's row names the plan it belongs to.
  const planId = randomUUID();
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
      planId,
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
      id: planId,
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
  /** The step is about to run. */
  started(step: RunStep): Promise<void> | void;
  /** Its answer (charged as `outcome.chargedPoints` says). */
  done(step: RunStep, outcome: LookupOutcome & { shared?: boolean }, pending: Pending): Promise<void> | void;
  /** It failed (a PlatError: over a cap now, refused by the service…). */
  failed(step: RunStep, error: unknown, pending: Pending): Promise<void> | void;
  /** Not run: the plan was stopped before its call. */
  stopped(step: RunStep): Promise<void> | void;
}

/** How a step of a confirmed plan ended in this run, and what its calls were reported to cost. */
interface StepRun {
  state: 'done' | 'failed' | 'stopped';
  points: number;
  quotaCalls: number;
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
 * The plan's Confirm: claims the offer once, then every step at once (the Confirm was consent for
 * all of them; held under this process's lease, so a crash from here on leaves claims the sweep
 * finds), and runs them in turn through the lookup service (source 'agent'). A step withdrawn by
 * a Stop before its call was sent is not run. `resultJson`: what to keep with a finished step.
 */
export async function runPlan(
  deps: PlanDeps,
  batchId: string,
  userId: string,
  events: RunEvents,
  resultJson?: (outcome: LookupOutcome) => string | null,
): Promise<RunResult> {
  // Named with this process: should it die before the plan's summary (even before its steps are
  // claimed), a surviving process can tell it is gone and close the plan (closeAbandonedPlan).
  const claimed = await deps.store.shortcutBatches.claim(batchId, userId, deps.lookups.holder.instanceId);
  if (!claimed.ok) return { kind: 'closed', reason: claimed.reason };
  const offered = (readStored(claimed.batch.payloadJson)?.steps ?? []).filter((s) => isToolName(s.tool));
  const claims: (Pending | null)[] = [];
  for (const s of offered) {
    // A Stop between the Confirm and here cancelled the step: it is not run (and costs nothing).
    const mine = await deps.lookups.claim(s.pendingId, userId);
    claims.push(mine.ok ? mine.pending : null);
  }
  const steps: StepRun[] = [];
  let next = 0;
  try {
    for (; next < offered.length; next++) {
      const s = offered[next] as StoredPlan['steps'][number];
      const step: RunStep = { index: s.index, tool: s.tool as ToolName, itemLink: s.itemLink };
      const pending = claims[next] ?? null;
      if (!pending) {
        steps.push({ state: 'stopped', points: 0, quotaCalls: 0 });
        await events.stopped(step);
        continue;
      }
      await events.started(step);
      let outcome: (LookupOutcome & { shared?: boolean }) | null = null;
      let failure: unknown = null;
      try {
        outcome = await deps.lookups.run(pending, {
          source: 'agent',
          ...(resultJson ? { resultJson } : {}),
        });
      } catch (error) {
        failure = error;
      }
      if (outcome) {
        steps.push({
          state: 'done',
          points: outcome.chargedPoints,
          quotaCalls: 'quotaCalls' in outcome ? outcome.quotaCalls : 0,
        });
        await events.done(step, outcome, pending);
        continue;
      }
      // Withdrawn by a Stop before its call left (its fence found it cancelled): stopped, uncharged.
      if ((await deps.store.pending.get(pending.id))?.state === 'cancelled') {
        steps.push({ state: 'stopped', points: 0, quotaCalls: 0 });
        await events.stopped(step);
        continue;
      }
      // A failed call may still have been charged (plat/errors.ts chargePoints): counted.
      const charged = isPlatError(failure)
        ? { points: failure.chargePoints ?? 0, quotaCalls: failure.answered ? failure.quotaCalls : 0 }
        : { points: 0, quotaCalls: 0 };
      steps.push({ state: 'failed', ...charged });
      await events.failed(step, failure, pending);
    }
  } finally {
    // Whatever ended the run early: the steps it claimed and never started are given up, uncharged
    // (a live holder would otherwise keep renewing claims it will never run).
    for (const pending of claims.slice(next))
      if (pending) await deps.lookups.withdraw(pending.id, userId).catch(() => false);
  }
  return {
    kind: 'ran',
    channelId: claimed.batch.channelId,
    threadTs: claimed.batch.threadTs,
    points: steps.reduce((n, s) => n + s.points, 0),
    quotaCalls: steps.reduce((n, s) => n + s.quotaCalls, 0),
    stopped: steps.filter((s) => s.state === 'stopped').length,
  };
}

/**
 * Stop or Cancel: the offer is closed (claimed, if nobody confirmed it yet, so no Confirm can run
 * it) and every step none of whose calls was sent is cancelled: not yet claimed, or claimed by the
 * Confirm and waiting its turn. `running`: it was confirmed and is running.
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
    else if (c.pending?.state === 'running') {
      if (await deps.lookups.withdraw(s.pendingId, userId)) cancelled++;
      else running = true;
    }
  }
  // Confirmed, and nothing left to stop (every step done, failed or cancelled): said as it is,
  // not as a stop.
  if (!claimed.ok && !running && cancelled === 0) return { kind: 'closed', reason: 'already_used' };
  return { kind: 'stopped', running: !claimed.ok, cancelled };
}

// ---- what became of a confirmed plan (after a crash) -------------------------------------------

/** What became of one step of a confirmed plan, as the store and the ledger hold it now. */
export type StepFate =
  /** It ran to its answer, or failed; charged as the ledger holds it. */
  | { kind: 'done' | 'failed' }
  /** Cut off by a crash after a call of it was sent (or may have been): never run again. */
  | { kind: 'cut'; truth: Extract<InterruptedTruth, { sent: true }> }
  /** Never run: cut off before its call, stopped, or never claimed. No charge. */
  | { kind: 'not_run' }
  /** Still held by a process that may be alive: not yet known. */
  | { kind: 'running' };

export interface PlanRecordStep {
  index: number;
  tool: ToolName;
  pending: Pending | null;
  fate: StepFate;
  /** The ledger's rows for it: what it was charged, and calls whose charge is not known. */
  charged: LedgerTotals;
  costUnknown: number;
  maybeNotSent: number;
}

export interface PlanRecord {
  planId: string;
  userId: string;
  channelId: string | null;
  threadTs: string | null;
  /** Whether its Confirm was used (claimed): only then may any step have run. */
  confirmed: boolean;
  steps: PlanRecordStep[];
  /** The plan's total as the ledger holds it. */
  charged: LedgerTotals;
  costUnknown: number;
  maybeNotSent: number;
}

/**
 * What became of a plan, read from the store and the ledger only (never from a process's memory):
 * what a surviving or restarted process tells after a crash, and what a Confirm clicked again
 * after one answers. Null: no such plan (or not an agent's).
 */
export async function planRecord(deps: Pick<PlanDeps, 'store'>, planId: string): Promise<PlanRecord | null> {
  const batch = await deps.store.shortcutBatches.get(planId);
  if (!batch || batch.kind !== AGENT_BATCH_KIND) return null;
  const steps: PlanRecordStep[] = [];
  for (const s of readStored(batch.payloadJson)?.steps ?? []) {
    if (!isToolName(s.tool)) continue;
    const pending = await deps.store.pending.get<LookupRequest, Quote>(s.pendingId);
    const charges = await chargesOfLookup(deps.store, s.pendingId);
    let fate: StepFate;
    switch (pending?.state) {
      case 'done':
      case 'failed':
        fate = { kind: pending.state };
        break;
      case 'running':
        fate = { kind: 'running' };
        break;
      case 'interrupted': {
        const truth = await interruptedTruth(deps.store, pending);
        fate = truth.sent ? { kind: 'cut', truth } : { kind: 'not_run' };
        break;
      }
      default:
        fate = { kind: 'not_run' };
    }
    steps.push({ index: s.index, tool: s.tool, pending, fate, ...charges });
  }
  const sum = (f: (s: PlanRecordStep) => number) => steps.reduce((n, s) => n + f(s), 0);
  return {
    planId,
    userId: batch.userId,
    channelId: batch.channelId,
    threadTs: batch.threadTs,
    confirmed: batch.state !== 'open',
    steps,
    charged: {
      points: sum((s) => s.charged.points),
      quotaCalls: sum((s) => s.charged.quotaCalls),
      calls: sum((s) => s.charged.calls),
    },
    costUnknown: sum((s) => s.costUnknown),
    maybeNotSent: sum((s) => s.maybeNotSent),
  };
}

/** A plan a crash cut off: confirmed, a step cut or left unrun, and none still held. */
export const wasCutOff = (record: PlanRecord): boolean =>
  record.confirmed &&
  record.steps.every((s) => s.fate.kind !== 'running') &&
  record.steps.some((s) => s.pending?.state === 'interrupted');

// ---- a plan its process left without a summary (after a crash) ---------------------------------

/** What a process closing a plan another one left tells: none of it ran, or its missing summary. */
export interface LateClose {
  kind: 'not_run' | 'summary';
  record: PlanRecord;
}

export interface HolderJudge {
  /** This process's instance id: its own plans are closed by their run, never by the sweep. */
  me: string;
  /** Whether the process of that instance id is certainly gone (instance.ts isCertainlyGone). */
  gone(instanceId: string): boolean;
  nowMs: number;
  /** The longest a plat call can take (plat/client.ts longestCallMs). */
  graceMs: number;
}

/**
 * A confirmed plan whose process died after its Confirm and before its closing summary, where no
 * step was cut off (those the claim sweep marks, and tellPlan tells): it died between using the
 * Confirm and claiming the steps (none started; they are cancelled here, so a process that was
 * only slow finds them so and runs none), or after the last step's answer. Its process is gone
 * when its instance is certainly gone, or when a lease and a call's longest time have passed since
 * anything of the plan moved (a live process closes its plan within a few Slack deadlines of its
 * last step). Settled here once across processes (store `settle`): the caller that gets a
 * LateClose is the one to tell it. Null: nothing to close now (running, not yet judged gone, or
 * settled by another).
 */
export async function closeAbandonedPlan(
  deps: Pick<PlanDeps, 'store'>,
  batch: ShortcutBatch,
  judge: HolderJudge,
): Promise<LateClose | null> {
  if (batch.kind !== AGENT_BATCH_KIND || batch.state !== 'used' || batch.settledAt) return null;
  if (batch.usedBy === judge.me) return null;
  const record = await planRecord(deps, batch.id);
  if (!record) return null;
  if (record.steps.some((s) => s.fate.kind === 'running')) return null;
  // Cut off mid-step: told as such by the claim sweep's teller; nothing more to close.
  if (record.steps.some((s) => s.pending?.state === 'interrupted')) {
    await deps.store.shortcutBatches.settle(batch.id);
    return null;
  }
  const lastMoved = Math.max(
    batch.stateChangedAt.getTime(),
    ...record.steps.map((s) => s.pending?.stateChangedAt.getTime() ?? 0),
  );
  const gone =
    (batch.usedBy !== null && judge.gone(batch.usedBy)) ||
    judge.nowMs - lastMoved > CLAIM_LEASE_MS + judge.graceMs;
  if (!gone) return null;
  for (const s of record.steps) {
    if (s.pending?.state !== 'pending') continue;
    const cancelled = await deps.store.pending.cancel(s.pending.id, s.pending.userId);
    // Claimed after all: its process lives and runs the plan (and closes it).
    if (!cancelled.ok && cancelled.pending?.state === 'running') return null;
  }
  if (!(await deps.store.shortcutBatches.settle(batch.id))) return null;
  const now = (await planRecord(deps, batch.id)) ?? record;
  const ran = now.steps.some((s) => s.fate.kind === 'done' || s.fate.kind === 'failed');
  return { kind: ran ? 'summary' : 'not_run', record: now };
}

/**
 * A plan whose Confirm was used (`batch.usedBy`: by a Confirm, not a Cancel) and closed without
 * any of its steps ever claimed: cancelled unclaimed by closeAbandonedPlan, nothing charged.
 */
export const neverRan = (batch: ShortcutBatch, record: PlanRecord): boolean =>
  batch.usedBy !== null &&
  batch.settledAt !== null &&
  record.steps.every((s) => s.pending?.state === 'cancelled' && s.pending.claimedBy === null) &&
  record.charged.calls === 0 &&
  record.maybeNotSent === 0;
