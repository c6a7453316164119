/**
 * The periods spend is counted in (issue 20 pt 1): the local day and the local month of an
 * instant in the workspace's budget zone, as keys ('2026-11-25', '2026-11') and as instants
 * [from, to). One function for the caps (lookups/budgets.ts), the counters written with each
 * ledger row (ledger.ts) and the reconciliation (budgets.ts), so they can never disagree on
 * which period a charge belongs to. Built on src/zoned-time.ts (Intl only; SQLite knows no zones).
 */
import { addDays, canonicalTimeZone, localDateOf, startOfLocalDay } from '../zoned-time.js';
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

/** Zones as given → a zone Intl knows (an unknown one in a hand-edited setting counts in the default zone rather than fail a charge). */
const zones = new Map<string, string>();
function knownZone(timeZone: string): string {
  let zone = zones.get(timeZone);
  if (zone === undefined) {
    zone = canonicalTimeZone(timeZone) ?? DEFAULT_BUDGET_ZONE;
    zones.set(timeZone, zone);
  }
  return zone;
}

/** The local day and month containing `at`. */
export function periodsOf(at: Date | number, timeZone: string): { daily: Period; monthly: Period } {
  const zone = knownZone(timeZone);
  const day = localDateOf(typeof at === 'number' ? at : at.getTime(), zone);
  const month = day.slice(0, 7);
  const nextMonth = addDays(`${month}-28`, 4).slice(0, 7);
  return {
    daily: {
      period: 'daily',
      key: day,
      from: new Date(startOfLocalDay(day, zone)),
      to: new Date(startOfLocalDay(addDays(day, 1), zone)),
    },
    monthly: {
      period: 'monthly',
      key: month,
      from: new Date(startOfLocalDay(`${month}-01`, zone)),
      to: new Date(startOfLocalDay(`${nextMonth}-01`, zone)),
    },
  };
}

/** Only the keys (the hot path of every ledger row: no midnight arithmetic). */
export function periodKeys(at: Date | number, timeZone: string): { daily: string; monthly: string } {
  const day = localDateOf(typeof at === 'number' ? at : at.getTime(), knownZone(timeZone));
  return { daily: day, monthly: day.slice(0, 7) };
}

/** The budget zone as stored in the tenant's settings (read in the caller's transaction). */
export async function budgetZone(db: Executor, tenant: string): Promise<string> {
  const row = await db
    .selectFrom('settings')
    .select('value_json')
    .where('tenant_id', '=', tenant)
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
