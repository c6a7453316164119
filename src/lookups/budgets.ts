/**
 * Daily and monthly caps in points, for the whole workspace, per user and per channel (and a
 * workflow step's approval). A call that would exceed a cap is refused before it is made; at 80 %
 * the user is warned. Spend is read from the store's running totals (store/budgets.ts: counters
 * kept with every ledger row); points of calls in flight are reserved there, atomically with the
 * check, so concurrent calls cannot overshoot together, even from different processes. The
 * store's answer to a reservation is the decision (issue 33 finding 14): granted is held and
 * reported granted, refused holds nothing.
 */
import { DEFAULT_RETRY } from '../plat/client.js';
import { DEFAULT_TIMEOUTS } from '../plat/http.js';
import { POINTS_EPSILON } from '../store/budgets.js';
import { periodsOf } from '../store/periods.js';
import type { BudgetReservations, CapLimit, CapUse } from '../store/store.js';
import type { Budgets, Caps } from './settings.js';

export const WARN_AT = 0.8;

/** 'step': a Workflow Builder step's approved spend (lookups/steps.ts). */
export type CapScope = 'user' | 'workspace' | 'channel' | 'step';
export type CapPeriod = 'daily' | 'monthly';

export interface CapFigure {
  scope: CapScope;
  /** The channel of a channel cap (only then). */
  channelId?: string;
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
  /**
   * Checks `points` more against every cap that applies now to this user in this channel (ledger +
   * reservations), judged as the store judges a reservation. A read: nothing is held.
   */
  check(userId: string | null, points: number, channelId?: string | null): Promise<BudgetCheck>;
  /** Every cap that applies now to this user in this channel, with what is spent of it (empty: none set). */
  figures(userId: string | null, channelId?: string | null): Promise<CapFigure[]>;
  /**
   * Checks and reserves `points` for a call about to start, atomically in the store (two
   * processes can never both pass a cap); the store's answer is the decision. On success,
   * `release` gives the reservation back once the call's charge is in the ledger (or it made
   * none). `at`: the instant whose day and month the caps were judged in, which is when the
   * call's charges are booked (issue 33 finding 8: one clock, the reservation's).
   */
  reserve(
    userId: string | null,
    points: number,
    options?: { channelId?: string | null; extra?: readonly ExtraCaps[] },
  ): Promise<BudgetCheck & { held: HeldBudget; at: Date }>;
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
  // Caps are set for the workspace, per user and per channel (lookups/settings.ts) and per
  // workflow step (lookups/steps.ts).
  scope: use.scope,
  ...(use.scope === 'channel' ? { channelId: use.subject } : {}),
  period: use.period,
  cap: use.cap,
  spent: use.spent,
});

/**
 * Would `points` more pass this cap? The store's own rule (store/budgets.ts: `spent + reserved +
 * points <= cap`, with its slack for fractional prices), so a check and a reservation of the
 * same figures never disagree.
 */
const wouldPass = (use: CapUse, points: number) => use.spent + points > use.cap + POINTS_EPSILON;

export function createBudgetGuard(deps: {
  reservations: BudgetReservations;
  budgets: () => Promise<Budgets>;
  now: () => Date;
}): BudgetGuard {
  /** Every cap that applies at `at` to this user in this channel, with its period. */
  async function capsFor(
    at: Date,
    userId: string | null,
    channelId: string | null,
    extra: readonly ExtraCaps[] = [],
  ): Promise<CapLimit[]> {
    const budgets = await deps.budgets();
    const applicable: { scope: CapScope; subject: string; caps: Caps }[] = [
      { scope: 'workspace', subject: '*', caps: budgets.workspace },
      ...extra,
    ];
    // Scheduled work (no user) counts against the workspace and its channel only.
    if (userId)
      applicable.push({ scope: 'user', subject: userId, caps: budgets.users[userId] ?? budgets.perUser });
    // A channel's cap limits every charge counted in its channel's counter (store/budgets.ts).
    const channel = channelId ? budgets.channels[channelId] : undefined;
    if (channelId && channel) applicable.push({ scope: 'channel', subject: channelId, caps: channel });
    // No caps set (the default): nothing to read.
    if (applicable.every(({ caps }) => caps.daily === null && caps.monthly === null)) return [];
    const periods = periodsOf(at, budgets.timezone);
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

  const warningsOf = (uses: readonly CapUse[], points: number): CapFigure[] =>
    uses.filter((use) => !wouldPass(use, points) && use.spent + points >= use.cap * WARN_AT).map(figureOf);

  function verdict(uses: CapUse[], points: number): BudgetCheck {
    const exceeded = uses.find((use) => wouldPass(use, points));
    const warnings = warningsOf(uses, points);
    return exceeded
      ? { ok: false, exceeded: figureOf(exceeded), wanted: points, warnings }
      : { ok: true, warnings };
  }

  const nothingHeld: HeldBudget = { id: null, extend: async () => true, release: async () => undefined };

  return {
    async figures(userId, channelId = null) {
      const caps = await capsFor(deps.now(), userId, channelId);
      if (caps.length === 0) return [];
      return (await deps.reservations.uses(caps)).map(figureOf);
    },

    async check(userId, points, channelId = null) {
      const caps = await capsFor(deps.now(), userId, channelId);
      if (caps.length === 0) return { ok: true, warnings: [] };
      return verdict(await deps.reservations.uses(caps), points);
    },

    async reserve(userId, points, options = {}) {
      const at = deps.now();
      const caps = await capsFor(at, userId, options.channelId ?? null, options.extra);
      // Nothing to count against, or nothing to count: no reservation needed.
      if (caps.length === 0 || points <= 0) {
        const uses = caps.length === 0 ? [] : await deps.reservations.uses(caps);
        return { ...verdict(uses, points), held: nothingHeld, at };
      }
      const result = await deps.reservations.reserve({ userId, points, caps, ttlMs: RESERVATION_TTL_MS });
      // The store's answer is the decision (finding 14): it is not judged again here.
      const warnings = warningsOf(result.uses, points);
      if (!result.ok)
        return {
          ok: false,
          exceeded: figureOf(result.exceeded),
          wanted: points,
          warnings,
          held: nothingHeld,
          at,
        };
      let released = false;
      return {
        ok: true,
        warnings,
        at,
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
