/**
 * Slack's rate limit on reading a channel, kept by platdesk itself (issue 33 finding 10). For a
 * commercially distributed app that is not approved for the Slack Marketplace,
 * conversations.history and conversations.replies allow 1 request a minute and 15 messages a
 * request per workspace (Slack's docs, "Rate limits", and its changelog of 2025-05-29: new
 * installs since then, existing ones since 2026-03-03). Internal apps (one workspace) and
 * Marketplace apps keep the normal tier.
 *
 * Every replica of platdesk reads for the same workspaces, so the allowance is kept where they
 * all see it: in Redis when REDIS_URL is set (redis-read-budget.ts), else in the store
 * (store/turns.ts, one row per workspace and method). A history check asks for one request before each; refused, it is put
 * off to when the next one is due (posted-once.ts HistoryDeferredError), holding no lease.
 */

import { CLOCK_SKEW_BUDGET_MAX_MS } from '../config.js';
import type { PeriodicTurns } from '../store/store.js';

export type ReadMethod = 'conversations.history' | 'conversations.replies';

/** One workspace's allowance of history reads, shared by every replica. */
export interface SlackReadBudget {
  /** Takes one request of `method` now: 0; else how long (ms) until one may be asked for again. */
  take(method: ReadMethod): Promise<number>;
}

/**
 * Slack's minute, plus the clock-skew budget: the store's turns are stamped with each replica's
 * clock, so two replicas' turns are a real minute apart even when their clocks differ by that much.
 */
export const LIMITED_READ_PERIOD_MS = 60_000 + CLOCK_SKEW_BUDGET_MAX_MS;
/** Messages a limited request may ask for. */
export const LIMITED_READ_PAGE_SIZE = 15;

/** One allowance per workspace and method. */
export const readKey = (tenant: string, method: ReadMethod) => `slack-read:${method}:${tenant}`;

/** The allowance in the store (every replica on the database shares it). */
export function storeReadBudget(options: {
  turns: PeriodicTurns;
  tenant: string;
  /** This process, as the turn's holder. */
  holder: string;
  now: () => number;
  periodMs?: number;
}): SlackReadBudget {
  const periodMs = options.periodMs ?? LIMITED_READ_PERIOD_MS;
  return {
    async take(method) {
      const name = readKey(options.tenant, method);
      if (await options.turns.take(name, options.holder, periodMs)) return 0;
      const last = await options.turns.takenAt(name);
      return Math.max(1, (last?.getTime() ?? options.now()) + periodMs - options.now());
    },
  };
}

/** Every workspace's allowance, wherever it is kept. */
export interface ReadBudgets {
  forTenant(tenant: string): SlackReadBudget;
  stop(): Promise<void>;
}

/** Every workspace's allowance in the store (store.turns), one turn per workspace and method. */
export function storeReadBudgets(options: {
  turns: PeriodicTurns;
  holder: string;
  now: () => number;
  periodMs?: number;
}): ReadBudgets {
  return {
    forTenant: (tenant) => storeReadBudget({ ...options, tenant }),
    stop: async () => undefined,
  };
}
