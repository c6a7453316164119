/**
 * Spend reports read from the ledger: totals by period, by operation, by user and by day, and
 * the CSV export for accounting.
 */
import type { LedgerEntry, LedgerGroupRow, LedgerTotals, Store } from '../store/store.js';
import { periodStarts } from './budgets.js';

export type ReportPeriod = 'today' | 'month' | 'last30';

export interface UsageReport {
  period: ReportPeriod;
  from: Date;
  to: Date;
  userId: string | null;
  totals: LedgerTotals;
  byOperation: LedgerGroupRow[];
  /** Only for workspace reports (no user). */
  byUser: LedgerGroupRow<string | null>[];
  byDay: LedgerGroupRow[];
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
  const [totals, byOperation, byUser, byDay] = await Promise.all([
    store.ledger.totals(scope),
    store.ledger.groupTotals('operation', scope),
    q.userId ? [] : store.ledger.groupTotals('user', scope),
    store.ledger.groupTotals('day', scope),
  ]);
  return { period: q.period, ...range, userId: q.userId, totals, byOperation, byUser, byDay };
}

const CSV_COLUMNS = [
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

export async function ledgerCsv(
  entries: AsyncIterable<LedgerEntry> | Iterable<LedgerEntry>,
): Promise<string> {
  const lines = [CSV_COLUMNS.join(',')];
  for await (const e of entries) {
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
        e.outcome,
        e.requestId,
        e.correlationId,
        e.pendingId,
        e.source,
      ]
        .map(csvField)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
