/**
 * Daily and monthly caps in points, per user and for the whole workspace. A call that would
 * exceed a cap is refused before it is made; at 80 % the user is warned. Spend is read from the
 * ledger; points of calls in flight are reserved so concurrent calls cannot overshoot together.
 */
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

/** Offset of a time zone from UTC at an instant, in ms (positive east of Greenwich). */
function zoneOffsetMs(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(at / 1000) * 1000;
}

/** The start of the local day and month containing `at`, as instants. */
export function periodStarts(
  at: Date,
  timeZone: string,
): { day: Date; month: Date; nextDay: Date; nextMonth: Date } {
  const local = new Date(at.getTime() + zoneOffsetMs(timeZone, at.getTime()));
  const y = local.getUTCFullYear();
  const m = local.getUTCMonth();
  const d = local.getUTCDate();
  // Local midnight as an instant: subtract the zone's offset at (about) that moment; twice for DST days.
  const instant = (wallUtc: number) => {
    let guess = wallUtc - zoneOffsetMs(timeZone, wallUtc);
    guess = wallUtc - zoneOffsetMs(timeZone, guess);
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

  return {
    check(userId, points) {
      const budgets = deps.budgets();
      const now = deps.now();
      const periods = periodStarts(now, budgets.timezone);
      const warnings: CapFigure[] = [];
      let exceeded: CapFigure | null = null;
      for (const { scope, caps } of capsFor(budgets, userId)) {
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
          const figure = { scope, period, cap, spent };
          if (spent + points > cap) exceeded ??= figure;
          else if (spent + points >= cap * WARN_AT) warnings.push(figure);
        }
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
