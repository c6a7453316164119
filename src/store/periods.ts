/**
 * The periods spend is counted in (issue 20 pt 1): the local day and the local month of an
 * instant in the workspace's budget zone, as keys ('2026-11-25', '2026-11') and as instants
 * [from, to). One function for the caps (lookups/budgets.ts), the counters written with each
 * ledger row (ledger.ts) and the reconciliation (budgets.ts), so they can never disagree on
 * which period a charge belongs to. Intl only; SQLite knows no zones.
 */
import type { Executor } from './schema.js';

export type PeriodName = 'daily' | 'monthly';

export interface Period {
  period: PeriodName;
  /** 'YYYY-MM-DD' (daily) or 'YYYY-MM' (monthly), local to the zone. */
  key: string;
  from: Date;
  to: Date;
}

/** The zone of the caps when none is set (lookups/settings.ts budgetsSchema's default). */
export const DEFAULT_BUDGET_ZONE = 'Asia/Shanghai';
/** The settings key of the budgets (lookups/settings.ts SETTING_KEYS.budgets). */
export const BUDGETS_SETTING_KEY = 'budgets';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      // An unknown zone in a hand-edited setting: count in the default zone rather than fail a charge.
      f = formatter(DEFAULT_BUDGET_ZONE);
    }
    formatters.set(timeZone, f);
  }
  return f;
}

function wall(atMs: number, timeZone: string): { y: number; m: number; d: number; offset: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(atMs)))
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const y = parts.year ?? 1970;
  const m = parts.month ?? 1;
  const d = parts.day ?? 1;
  const asUtc = Date.UTC(y, m - 1, d, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  return { y, m, d, offset: asUtc - Math.floor(atMs / 1000) * 1000 };
}

/** The instant of local midnight of the wall date whose UTC reading is `wallUtc`. */
function localMidnight(wallUtc: number, timeZone: string): number {
  // Subtract the zone's offset at (about) that moment; twice for days whose offset changes.
  let guess = wallUtc - wall(wallUtc, timeZone).offset;
  guess = wallUtc - wall(guess, timeZone).offset;
  return guess;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The local day and month containing `at`. */
export function periodsOf(at: Date | number, timeZone: string): { daily: Period; monthly: Period } {
  const { y, m, d } = wall(typeof at === 'number' ? at : at.getTime(), timeZone);
  return {
    daily: {
      period: 'daily',
      key: `${pad(y, 4)}-${pad(m)}-${pad(d)}`,
      from: new Date(localMidnight(Date.UTC(y, m - 1, d), timeZone)),
      to: new Date(localMidnight(Date.UTC(y, m - 1, d + 1), timeZone)),
    },
    monthly: {
      period: 'monthly',
      key: `${pad(y, 4)}-${pad(m)}`,
      from: new Date(localMidnight(Date.UTC(y, m - 1, 1), timeZone)),
      to: new Date(localMidnight(Date.UTC(y, m, 1), timeZone)),
    },
  };
}

/** Only the keys (the hot path of every ledger row: no midnight arithmetic). */
export function periodKeys(at: Date | number, timeZone: string): { daily: string; monthly: string } {
  const { y, m, d } = wall(typeof at === 'number' ? at : at.getTime(), timeZone);
  return { daily: `${pad(y, 4)}-${pad(m)}-${pad(d)}`, monthly: `${pad(y, 4)}-${pad(m)}` };
}

/** The budget zone as stored in the settings (read in the caller's transaction). */
export async function budgetZone(db: Executor): Promise<string> {
  const row = await db
    .selectFrom('settings')
    .select('value_json')
    .where('key', '=', BUDGETS_SETTING_KEY)
    .executeTakeFirst();
  if (!row) return DEFAULT_BUDGET_ZONE;
  try {
    const zone = (JSON.parse(row.value_json) as { timezone?: unknown }).timezone;
    return typeof zone === 'string' && zone !== '' ? zone : DEFAULT_BUDGET_ZONE;
  } catch {
    return DEFAULT_BUDGET_ZONE;
  }
}
