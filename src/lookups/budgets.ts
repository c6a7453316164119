/**
 * Daily and monthly caps in points, per user and for the whole workspace. A call that would
 * exceed a cap is refused before it is made; at 80 % the user is warned. Spend is read from the
 * store's running totals (store/budgets.ts: counters kept with every ledger row); points of calls
 * in flight are reserved there, atomically with the check, so concurrent calls cannot overshoot
 * together, even from different processes.
 */
import { DEFAULT_RETRY } from '../plat/client.js';
import { DEFAULT_TIMEOUTS } from '../plat/http.js';
import { periodsOf } from '../store/periods.js';
import type { BudgetReservations, CapLimit, CapUse } from '../store/store.js';
import type { Budgets, Caps } from './settings.js';

export const WARN_AT = 0.8;

/** 'step': a Workflow Builder step's approved spend (lookups/steps.ts). */
export type CapScope = 'user' | 'workspace' | 'step';
export type CapPeriod = 'daily' | 'monthly';

export interface CapFigure {
  scope: CapScope;
  period: CapPeriod;
  cap: number;
  /** Points already spent in the period (ledger) plus points reserved by calls in flight. */
  spent: number;
}

export type BudgetCheck =
  | { ok: true; warnings: CapFigure[] }
  | { ok: false; exceeded: CapFigure; wanted: number; warnings: CapFigure[] };

/** The start of the local day and month containing `at`, as instants (store/periods.ts). */
export function periodStarts(
  at: Date,
  timeZone: string,
): { day: Date; month: Date; nextDay: Date; nextMonth: Date } {
  const { daily, monthly } = periodsOf(at, timeZone);
  return { day: daily.from, nextDay: daily.to, month: monthly.from, nextMonth: monthly.to };
}

/** A reservation held for a call in flight. */
export interface HeldBudget {
  /** The store's reservation (null: no cap applies, nothing is held). */
  id: string | null;
  /**
   * Grows the reservation by `points` (a retry about to be sent) under the same caps, all or
   * nothing; false: a cap would be passed, so the retry must not be sent.
   */
  extend(points: number): Promise<boolean>;
  /** Gives back what its charges did not use (call once they are durably in the ledger). */
  release(): Promise<void>;
}

export interface BudgetGuard {
  /** Checks `points` more against every cap that applies to this user now (ledger + reservations). */
  check(userId: string | null, points: number): Promise<BudgetCheck>;
  /** Every cap that applies to this user now, with what is spent of it (empty: no cap is set). */
  figures(userId: string | null): Promise<CapFigure[]>;
  /**
   * Checks and reserves `points` for a call about to start, atomically in the store (two
   * processes can never both pass a cap). On success, `release` gives the reservation back once
   * the call's charge is in the ledger (or it made none).
   */
  reserve(
    userId: string | null,
    points: number,
    extra?: readonly ExtraCaps[],
  ): Promise<BudgetCheck & { held: HeldBudget }>;
}

/** Caps of another scope reserved together with the workspace's (a workflow step's approval). */
export interface ExtraCaps {
  scope: 'step';
  subject: string;
  caps: Caps;
}

/**
 * The longest a call may take from its reservation to its last answer: every attempt's deadline,
 * the backoff before each retry, and a wait in the limiter's queue (bounded: at most 100 queued,
 * at 10 calls/s) before each attempt.
 */
export const LONGEST_CALL_MS =
  (DEFAULT_RETRY.maxRetries + 1) * (DEFAULT_TIMEOUTS.deadlineMs + 60_000) +
  DEFAULT_RETRY.maxRetries * DEFAULT_RETRY.maxDelayMs * 1.25;
/**
 * A reservation is given back once its charges are written; it expires on its own only if its
 * process died (or the store stayed unreachable), and never before its call can have ended: twice
 * the longest call. Each retry moves the expiry on again (HeldBudget.extend).
 */
export const RESERVATION_TTL_MS = 2 * LONGEST_CALL_MS;

const figureOf = (use: CapUse): CapFigure => ({
  // Caps are set for the workspace, per user (lookups/settings.ts) and per workflow step
  // (lookups/steps.ts); channel counters only count.
  scope: use.scope === 'user' || use.scope === 'step' ? use.scope : 'workspace',
  period: use.period,
  cap: use.cap,
  spent: use.spent,
});

export function createBudgetGuard(deps: {
  reservations: BudgetReservations;
  budgets: () => Promise<Budgets>;
  now: () => Date;
}): BudgetGuard {
  /** Every cap that applies to this user now, with its period. */
  async function capsFor(userId: string | null, extra: readonly ExtraCaps[] = []): Promise<CapLimit[]> {
    const budgets = await deps.budgets();
    const applicable: { scope: CapScope; subject: string; caps: Caps }[] = [
      { scope: 'workspace', subject: '*', caps: budgets.workspace },
      ...extra,
    ];
    // Scheduled work (no user) counts against the workspace only.
    if (userId)
      applicable.push({ scope: 'user', subject: userId, caps: budgets.users[userId] ?? budgets.perUser });
    // No caps set (the default): nothing to read.
    if (applicable.every(({ caps }) => caps.daily === null && caps.monthly === null)) return [];
    const periods = periodsOf(deps.now(), budgets.timezone);
    const limits: CapLimit[] = [];
    for (const { scope, subject, caps } of applicable) {
      for (const period of ['daily', 'monthly'] as const) {
        const cap = caps[period];
        if (cap === null) continue;
        limits.push({ scope, subject, period, key: periods[period].key, cap });
      }
    }
    return limits;
  }

  function verdict(uses: CapUse[], points: number): BudgetCheck {
    let exceeded: CapFigure | null = null;
    const warnings: CapFigure[] = [];
    for (const use of uses) {
      if (use.spent + points > use.cap) exceeded ??= figureOf(use);
      else if (use.spent + points >= use.cap * WARN_AT) warnings.push(figureOf(use));
    }
    return exceeded ? { ok: false, exceeded, wanted: points, warnings } : { ok: true, warnings };
  }

  const nothingHeld: HeldBudget = { id: null, extend: async () => true, release: async () => undefined };

  return {
    async figures(userId) {
      const caps = await capsFor(userId);
      if (caps.length === 0) return [];
      return (await deps.reservations.uses(caps)).map(figureOf);
    },

    async check(userId, points) {
      const caps = await capsFor(userId);
      if (caps.length === 0) return { ok: true, warnings: [] };
      return verdict(await deps.reservations.uses(caps), points);
    },

    async reserve(userId, points, extra = []) {
      const caps = await capsFor(userId, extra);
      // Nothing to count against, or nothing to count: no reservation needed.
      if (caps.length === 0 || points <= 0) {
        const uses = caps.length === 0 ? [] : await deps.reservations.uses(caps);
        return { ...verdict(uses, points), held: nothingHeld };
      }
      const result = await deps.reservations.reserve({ userId, points, caps, ttlMs: RESERVATION_TTL_MS });
      const check = verdict(result.uses, points);
      if (!result.ok) return { ...check, held: nothingHeld };
      let released = false;
      return {
        ...check,
        held: {
          id: result.id,
          extend: (more) =>
            more <= 0 ? Promise.resolve(true) : deps.reservations.extend(result.id, more, RESERVATION_TTL_MS),
          release: async () => {
            if (released) return;
            released = true;
            await deps.reservations.release(result.id);
          },
        },
      };
    },
  };
}
