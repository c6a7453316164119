/**
 * Daily and monthly caps in points, per user and for the whole workspace. A call that would
 * exceed a cap is refused before it is made; at 80 % the user is warned. Spend is read from the
 * ledger; points of calls in flight are reserved so concurrent calls cannot overshoot together.
 */
import { offsetAt } from '../digest/zoned-time.js';
import type { Ledger } from '../store/store.js';
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
  /** Checks `points` more against every cap that applies to this user now. */
  check(userId: string | null, points: number): BudgetCheck;
  /** Every cap that applies to this user now, with what is spent of it (empty: no cap is set). */
  figures(userId: string | null): CapFigure[];
  /** Reserves points for a call about to start; the returned function releases them. */
  reserve(userId: string | null, points: number): () => void;
}

export function createBudgetGuard(deps: {
  ledger: Ledger;
  budgets: () => Budgets;
  now: () => Date;
}): BudgetGuard {
  const reserved = new Map<string, number>();
  const WORKSPACE = '*';
  const reservedFor = (key: string) => reserved.get(key) ?? 0;

  function capsFor(budgets: Budgets, userId: string | null): { scope: CapScope; caps: Caps }[] {
    const out: { scope: CapScope; caps: Caps }[] = [{ scope: 'workspace', caps: budgets.workspace }];
    // Scheduled work (no user) counts against the workspace only.
    if (userId) out.push({ scope: 'user', caps: budgets.users[userId] ?? budgets.perUser });
    return out;
  }

  function figures(userId: string | null): CapFigure[] {
    const budgets = deps.budgets();
    const applicable = capsFor(budgets, userId);
    // No caps set (the default): nothing to read from the ledger.
    if (applicable.every(({ caps }) => caps.daily === null && caps.monthly === null)) return [];
    const periods = periodStarts(deps.now(), budgets.timezone);
    const out: CapFigure[] = [];
    for (const { scope, caps } of applicable) {
      for (const period of ['daily', 'monthly'] as const) {
        const cap = caps[period];
        if (cap === null) continue;
        const from = period === 'daily' ? periods.day : periods.month;
        const to = period === 'daily' ? periods.nextDay : periods.nextMonth;
        const spentInLedger = deps.ledger.totals({
          from,
          to,
          ...(scope === 'user' && userId ? { userId } : {}),
        }).points;
        const spent = spentInLedger + reservedFor(scope === 'user' && userId ? userId : WORKSPACE);
        out.push({ scope, period, cap, spent });
      }
    }
    return out;
  }

  return {
    figures,

    check(userId, points) {
      const warnings: CapFigure[] = [];
      let exceeded: CapFigure | null = null;
      for (const figure of figures(userId)) {
        if (figure.spent + points > figure.cap) exceeded ??= figure;
        else if (figure.spent + points >= figure.cap * WARN_AT) warnings.push(figure);
      }
      return exceeded ? { ok: false, exceeded, wanted: points, warnings } : { ok: true, warnings };
    },

    reserve(userId, points) {
      const keys = userId ? [WORKSPACE, userId] : [WORKSPACE];
      for (const key of keys) reserved.set(key, reservedFor(key) + points);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const key of keys) {
          const left = reservedFor(key) - points;
          if (left > 0) reserved.set(key, left);
          else reserved.delete(key);
        }
      };
    },
  };
}
