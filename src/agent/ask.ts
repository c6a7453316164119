/**
 * A question to the agent, end to end as a use case (issue 36): read the thread's memory, plan
 * (the optional model first, the deterministic planner as the default and the fallback), price the
 * plan under one Confirm (agent/plans.ts), answer the free steps; and, on the Confirm, run it and
 * remember what its answers found. Never calls the plat API before the Confirm. Slack-free:
 * slack/agent/ streams and renders what this returns.
 */
import type { LookupService } from '../lookups/lookup-service.js';
import { type UsageReport, usageReport } from '../lookups/reports.js';
import type { LookupOutcome } from '../lookups/types.js';
import type { Store } from '../store/store.js';
import { nextContext, readContext, refsOf, writeContext } from './memory.js';
import type { ModelFailure, ModelPlanner } from './model.js';
import { planDeterministic, type Question, type Ref, type ToolCall } from './planner.js';
import {
  type PlanDeps,
  type PricedPlan,
  pricePlan,
  type RunEvents,
  type RunResult,
  runPlan,
} from './plans.js';

/** Longer questions are refused (they are pasted logs, not questions), at no cost. */
export const MAX_QUESTION_CHARS = 2000;

export interface AgentDeps extends PlanDeps {
  lookups: PlanDeps['lookups'] & Pick<LookupService, 'settings'>;
  store: Store;
  isAdmin: (userId: string) => Promise<boolean>;
  /** The optional model (null: the deterministic planner only). */
  model: ModelPlanner | null;
  now: () => Date;
}

export interface Asker {
  userId: string;
  teamId: string | null;
  channelId: string;
  threadTs: string;
}

/** A free step's spend report, or why this person may not see it. */
export type SpendAnswer = { kind: 'usage'; report: UsageReport } | { kind: 'denied' };

export type AgentAnswer =
  | { kind: 'empty' }
  | { kind: 'too_long'; max: number }
  | { kind: 'help' }
  | { kind: 'unsupported'; modelFallback: ModelFailure | null }
  | { kind: 'ask'; question: Question; modelFallback: ModelFailure | null }
  | { kind: 'too_many'; paidSteps: number }
  | {
      kind: 'plan';
      plan: PricedPlan;
      assumedShop: string | null;
      modelFallback: ModelFailure | null;
      /** The free spend steps' reports, by step index. */
      spend: Map<number, SpendAnswer>;
    };

async function propose(deps: AgentDeps, text: string, asker: Asker) {
  const [registry, stored] = await Promise.all([
    deps.lookups.settings.shops(),
    deps.store.agent.thread(asker.channelId, asker.threadTs),
  ]);
  const context = readContext(stored);
  const now = deps.now();
  let modelFallback: ModelFailure | null = null;
  if (deps.model) {
    const proposal = await deps.model.propose({
      text,
      now,
      shops: registry.shops.map((s) => s.alias),
      context,
    });
    if (proposal.ok)
      return { proposal: { kind: 'plan' as const, calls: proposal.calls, assumedShop: null }, modelFallback };
    modelFallback = proposal.failure;
  }
  return { proposal: planDeterministic({ text, now, shops: registry.shops, context }), modelFallback };
}

/** Plans and prices a question; stores the offer and the thread's memory. No plat call. */
export async function askAgent(deps: AgentDeps, text: string, asker: Asker): Promise<AgentAnswer> {
  const trimmed = text.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (trimmed.length > MAX_QUESTION_CHARS) return { kind: 'too_long', max: MAX_QUESTION_CHARS };
  const { proposal, modelFallback } = await propose(deps, trimmed, asker);
  switch (proposal.kind) {
    case 'help':
      return { kind: 'help' };
    case 'unsupported':
      return { kind: 'unsupported', modelFallback };
    case 'ask':
      return { kind: 'ask', question: proposal.question, modelFallback };
  }
  const actor = { userId: asker.userId, channelId: asker.channelId, teamId: asker.teamId, responseUrl: null };
  const priced = await pricePlan(deps, proposal.calls, actor, {
    channelId: asker.channelId,
    threadTs: asker.threadTs,
  });
  if (priced.kind === 'too_many') return { kind: 'too_many', paidSteps: priced.paidSteps };
  const { plan } = priced;

  const spend = new Map<number, SpendAnswer>();
  for (const step of plan.steps) {
    if (!step.spend) continue;
    // Everyone's spend is an admin's to see, as with `/platdesk usage all`.
    if (step.spend.everyone && !(await deps.isAdmin(asker.userId))) {
      spend.set(step.index, { kind: 'denied' });
      continue;
    }
    const report = await usageReport(deps.store, {
      period: step.spend.period,
      userId: step.spend.everyone ? null : asker.userId,
      now: deps.now(),
      timeZone: (await deps.lookups.settings.budgets()).timezone,
    });
    spend.set(step.index, { kind: 'usage', report });
  }

  // The thread remembers this plan's calls, and what its free answers found (ids only).
  const refs: Ref[] = plan.steps.flatMap((s) =>
    s.cached && s.request ? refsOf(s.cached.outcome, s.request, s.itemLink) : [],
  );
  const before = readContext(await deps.store.agent.thread(asker.channelId, asker.threadTs));
  await deps.store.agent.setThread(
    asker.channelId,
    asker.threadTs,
    writeContext(nextContext(proposal.calls, refs.length > 0 ? refs : before.refs)),
  );
  return { kind: 'plan', plan, assumedShop: proposal.assumedShop, modelFallback, spend };
}

/**
 * The plan's Confirm: runs it once (agent/plans.ts runPlan) and remembers what its answers found,
 * for the thread's follow-ups.
 */
export async function confirmPlan(
  deps: AgentDeps,
  batchId: string,
  userId: string,
  events: RunEvents,
  resultJson?: (outcome: LookupOutcome) => string | null,
): Promise<RunResult> {
  const refs: Ref[] = [];
  const result = await runPlan(
    deps,
    batchId,
    userId,
    {
      ...events,
      async done(step, outcome, pending) {
        refs.push(...refsOf(outcome, pending.request, step.itemLink));
        await events.done(step, outcome, pending);
      },
    },
    resultJson,
  );
  if (result.kind === 'ran' && result.channelId && result.threadTs && refs.length > 0) {
    const before = readContext(await deps.store.agent.thread(result.channelId, result.threadTs));
    await deps.store.agent.setThread(
      result.channelId,
      result.threadTs,
      writeContext(nextContext(before.lastCalls as ToolCall[], refs)),
    );
  }
  return result;
}
