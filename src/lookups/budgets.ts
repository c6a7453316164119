/**
 * Daily and monthly caps in points, per user and for the whole workspace. A call that would
 * exceed a cap is refused before it is made; at 80 % the user is warned. Spend is read from the
 * ledger; points of calls in flight are reserved in the store (store/budgets.ts), atomically with
 * the check, so concurrent calls cannot overshoot together, even from different processes.
 */
import { offsetAt } from '../digest/zoned-time.js';
import type { BudgetReservations, CapLimit, CapUse } from '../store/store.js';
import type { Budgets, Caps } from './settings.js';

export const WARN_AT = 0.8;

export type CapScope = 'user' | 'workspace';
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

/** The start of the local day and month containing `at`, as instants. */
export function periodStarts(
  at: Date,
  timeZone: string,
): { day: Date; month: Date; nextDay: Date; nextMonth: Date } {
  const local = new Date(at.getTime() + offsetAt(at.getTime(), timeZone));
  const y = local.getUTCFullYear();
  const m = local.getUTCMonth();
  const d = local.getUTCDate();
  // Local midnight as an instant: subtract the zone's offset at (about) that moment; twice for DST days.
  const instant = (wallUtc: number) => {
    let guess = wallUtc - offsetAt(wallUtc, timeZone);
    guess = wallUtc - offsetAt(guess, timeZone);
    return new Date(guess);
  };
  return {
    day: instant(Date.UTC(y, m, d)),
    nextDay: instant(Date.UTC(y, m, d + 1)),
    month: instant(Date.UTC(y, m, 1)),
    nextMonth: instant(Date.UTC(y, m + 1, 1)),
  };
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
  reserve(userId: string | null, points: number): Promise<BudgetCheck & { release: () => Promise<void> }>;
}

/**
 * A reservation outlives its call only if its process died mid-call; it then stops counting
 * after this long (above the plat call deadline with its retries).
 */
export const RESERVATION_TTL_MS = 5 * 60 * 1000;

const figureOf = (use: CapUse): CapFigure => ({
  scope: use.scope,
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
  async function capsFor(userId: string | null): Promise<CapLimit[]> {
    const budgets = await deps.budgets();
    const applicable: { scope: CapScope; caps: Caps }[] = [{ scope: 'workspace', caps: budgets.workspace }];
    // Scheduled work (no user) counts against the workspace only.
    if (userId) applicable.push({ scope: 'user', caps: budgets.users[userId] ?? budgets.perUser });
    // No caps set (the default): nothing to read from the ledger.
    if (applicable.every(({ caps }) => caps.daily === null && caps.monthly === null)) return [];
    const periods = periodStarts(deps.now(), budgets.timezone);
    const limits: CapLimit[] = [];
    for (const { scope, caps } of applicable) {
      for (const period of ['daily', 'monthly'] as const) {
        const cap = caps[period];
        if (cap === null) continue;
        const from = period === 'daily' ? periods.day : periods.month;
        const to = period === 'daily' ? periods.nextDay : periods.nextMonth;
        limits.push({ scope, period, cap, from, to });
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

  const nothingToRelease = async () => undefined;

  return {
    async figures(userId) {
      const caps = await capsFor(userId);
      if (caps.length === 0) return [];
      return (await deps.reservations.uses(userId, caps)).map(figureOf);
    },

    async check(userId, points) {
      const caps = await capsFor(userId);
      if (caps.length === 0) return { ok: true, warnings: [] };
      return verdict(await deps.reservations.uses(userId, caps), points);
    },

    async reserve(userId, points) {
      const caps = await capsFor(userId);
      // Nothing to count against, or nothing to count: no reservation needed.
      if (caps.length === 0 || points <= 0) {
        const uses = caps.length === 0 ? [] : await deps.reservations.uses(userId, caps);
        return { ...verdict(uses, points), release: nothingToRelease };
      }
      const result = await deps.reservations.reserve({ userId, points, caps, ttlMs: RESERVATION_TTL_MS });
      const check = verdict(result.uses, points);
      if (!result.ok) return { ...check, release: nothingToRelease };
      let released = false;
      return {
        ...check,
        release: async () => {
          if (released) return;
          released = true;
          await deps.reservations.release(result.id);
        },
      };
    },
  };
}
