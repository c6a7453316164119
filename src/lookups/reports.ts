/**
 * Spend reports read from the ledger: totals by period, by operation, by user and by day, and
 * the CSV export for accounting.
 */

import { NO_ANSWER_CODE } from '../plat/codes.js';
import { MAYBE_NOT_SENT_CODE } from '../store/ledger.js';
import type { LedgerEntry, LedgerGroupRow, LedgerTotals, Store } from '../store/store.js';
import { localDateOf } from '../zoned-time.js';
import { periodStarts } from './budgets.js';

export type ReportPeriod = 'today' | 'month' | 'last30';

export interface UsageReport {
  period: ReportPeriod;
  from: Date;
  to: Date;
  /** The budget zone: days and the period are counted in it, and shown in it. */
  timeZone: string;
  userId: string | null;
  totals: LedgerTotals;
  byOperation: LedgerGroupRow[];
  /** Only for workspace reports (no user). */
  byUser: LedgerGroupRow<string | null>[];
  /** Days with spend, keyed 'YYYY-MM-DD' in the budget zone, oldest first, each by operation. */
  byDay: DayTotals[];
  /** Every day of the period ('YYYY-MM-DD' in the budget zone), oldest first, spend or none. */
  days: string[];
}

export interface DayTotals extends LedgerGroupRow {
  /** The day's spend per operation (the App Home's spend chart, issue 26). */
  byOperation: LedgerGroupRow[];
}

/**
 * Totals per local day of `timeZone` over [from, to), by operation, and every day's date; days
 * with no ledger rows are left out of `byDay`. One query per day (at most 31, on the indexed time
 * column) rather than a UTC day in SQL, so the days the report lists are the days the budgets count.
 */
async function totalsByLocalDay(
  store: Store,
  q: { from: Date; to: Date; userId: string | null; timeZone: string },
): Promise<{ byDay: DayTotals[]; days: string[] }> {
  const byDay: DayTotals[] = [];
  const days: string[] = [];
  for (let day = q.from; day < q.to; ) {
    const next = periodStarts(day, q.timeZone).nextDay;
    const to = next < q.to ? next : q.to;
    const key = localDateOf(day.getTime(), q.timeZone);
    days.push(key);
    const byOperation = await store.ledger.groupTotals('operation', {
      from: day,
      to,
      ...(q.userId ? { userId: q.userId } : {}),
    });
    const sum = (f: 'points' | 'calls' | 'quotaCalls') => byOperation.reduce((n, g) => n + g[f], 0);
    if (sum('calls') > 0)
      byDay.push({
        key,
        points: sum('points'),
        calls: sum('calls'),
        quotaCalls: sum('quotaCalls'),
        byOperation,
      });
    day = next;
  }
  return { byDay, days };
}

export function reportRange(period: ReportPeriod, now: Date, timeZone: string): { from: Date; to: Date } {
  const p = periodStarts(now, timeZone);
  switch (period) {
    case 'today':
      return { from: p.day, to: p.nextDay };
    case 'month':
      return { from: p.month, to: p.nextMonth };
    case 'last30':
      return { from: new Date(p.nextDay.getTime() - 30 * 86_400_000), to: p.nextDay };
  }
}

export async function usageReport(
  store: Store,
  q: { period: ReportPeriod; userId: string | null; now: Date; timeZone: string },
): Promise<UsageReport> {
  const range = reportRange(q.period, q.now, q.timeZone);
  const scope = { ...range, ...(q.userId ? { userId: q.userId } : {}) };
  const [totals, byOperation, byUser, { byDay, days }] = await Promise.all([
    store.ledger.totals(scope),
    store.ledger.groupTotals('operation', scope),
    q.userId ? [] : store.ledger.groupTotals('user', scope),
    totalsByLocalDay(store, { ...range, userId: q.userId, timeZone: q.timeZone }),
  ]);
  return {
    period: q.period,
    ...range,
    timeZone: q.timeZone,
    userId: q.userId,
    totals,
    byOperation,
    byUser,
    byDay,
    days,
  };
}

/** The ledger export's columns, in order; blocks/ names them in the reader's language. */
export const CSV_COLUMNS = [
  'at',
  'user_id',
  'channel_id',
  'operation',
  'edition',
  'points',
  'yuan',
  'quota_calls',
  'code',
  'outcome',
  'request_id',
  'correlation_id',
  'pending_id',
  'source',
  'workflow_execution_id',
  'step_id',
] as const;

/**
 * RFC 4180 field; a leading =, +, -, @, tab or carriage return is prefixed so spreadsheets do not
 * run it as a formula (https://owasp.org/www-community/attacks/CSV_Injection).
 */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  // A plain negative number (the yuan column of a negative charge) is not a formula: keep it a number.
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string' && !/^-\d+(\.\d+)?$/.test(text))
    text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The outcome column: 'ok', 'error' (the service answered another code), 'no_answer' for a
 * call that reached the service but whose answer could not be read (code -1, NO_ANSWER_CODE),
 * or 'maybe_not_sent' for a call written ahead whose holder died before it could tell whether it
 * left (code -2: counted in no total; docs/money.md, "What the ledger knows of a call").
 */
function outcomeOf(e: LedgerEntry): string {
  if (e.code === MAYBE_NOT_SENT_CODE) return 'maybe_not_sent';
  return e.code === NO_ANSWER_CODE ? 'no_answer' : e.outcome;
}

export type CsvColumn = (typeof CSV_COLUMNS)[number];

/** RFC 4180 CSV of the ledger; `header` names the columns (default: their names). */
export function ledgerCsv(
  entries: Iterable<LedgerEntry>,
  header: (column: CsvColumn) => string = (column) => column,
): string {
  const lines = [CSV_COLUMNS.map((c) => csvField(header(c))).join(',')];
  for (const e of entries) {
    lines.push(
      [
        e.at.toISOString(),
        e.userId,
        e.channelId,
        e.operation,
        e.edition,
        e.points,
        (e.points / 100).toFixed(2),
        e.quotaCalls,
        e.code,
        outcomeOf(e),
        e.requestId,
        e.correlationId,
        e.pendingId,
        e.source,
        e.workflowExecutionId,
        e.stepId,
      ]
        .map(csvField)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
