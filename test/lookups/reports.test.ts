/**
 * Ledger reports: the CSV export for accounting (RFC 4180, formula-safe) and the usage report's
 * ranges in the budget zone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ledgerCsv, reportRange, usageReport } from '../../src/lookups/reports.js';
import type { LedgerEntry, NewLedgerEntry, Store } from '../../src/store/store.js';
import { openTestStore } from '../helpers/store-engines.js';

const HEADER =
  'at,user_id,channel_id,operation,edition,points,yuan,quota_calls,code,outcome,request_id,correlation_id,pending_id,source,workflow_execution_id,step_id';

function entry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    id: 1,
    chargeId: 'p-1:0:0',
    at: new Date('2026-11-20T04:00:00.000Z'),
    userId: 'U1234',
    channelId: 'C1234',
    operation: 'get-shop-info',
    edition: 1,
    points: 10,
    quotaCalls: 0,
    code: 0,
    outcome: 'ok',
    requestId: 'sbx-1',
    correlationId: 'corr-1',
    pendingId: 'p-1',
    source: 'interactive',
    workflowExecutionId: null,
    stepId: null,
    ...overrides,
  };
}

/** The fields of one CSV line, per RFC 4180 (quoted fields may hold commas, quotes and newlines). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

describe('ledgerCsv', () => {
  it('a header, one CRLF line per entry, points and yuan', async () => {
    const csv = ledgerCsv([entry(), entry({ id: 2, points: 5, operation: 'platdybw', edition: 1 })]);
    expect(csv).toBe(
      [
        HEADER,
        '2026-11-20T04:00:00.000Z,U1234,C1234,get-shop-info,1,10,0.10,0,0,ok,sbx-1,corr-1,p-1,interactive,,',
        '2026-11-20T04:00:00.000Z,U1234,C1234,platdybw,1,5,0.05,0,0,ok,sbx-1,corr-1,p-1,interactive,,',
        '',
      ].join('\r\n'),
    );
  });

  it('every call that reached the service is a line: uncharged answers and unread ones (code -1, no_answer)', async () => {
    const csv = ledgerCsv([
      entry({ points: 0, code: 204, outcome: 'error', requestId: null }),
      entry({
        operation: 'platiteminfo',
        points: 0,
        quotaCalls: 1,
        code: -1,
        outcome: 'error',
        requestId: null,
      }),
    ]);
    expect(csv.split('\r\n').slice(1, 3)).toEqual([
      '2026-11-20T04:00:00.000Z,U1234,C1234,get-shop-info,1,0,0.00,0,204,error,,corr-1,p-1,interactive,,',
      '2026-11-20T04:00:00.000Z,U1234,C1234,platiteminfo,1,0,0.00,1,-1,no_answer,,corr-1,p-1,interactive,,',
    ]);
  });

  it("a workflow step's charge names its workflow and step (issue 25)", () => {
    const csv = ledgerCsv([
      entry({
        source: 'workflow',
        workflowExecutionId: 'Wx0123ABC',
        stepId: 'lookup_waybill',
        channelId: null,
      }),
    ]);
    expect(csv.split('\r\n')[1]).toBe(
      '2026-11-20T04:00:00.000Z,U1234,,get-shop-info,1,10,0.10,0,0,ok,sbx-1,corr-1,p-1,workflow,Wx0123ABC,lookup_waybill',
    );
  });

  it('null fields are empty', async () => {
    const csv = ledgerCsv([
      entry({
        userId: null,
        channelId: null,
        edition: null,
        requestId: null,
        correlationId: null,
        pendingId: null,
      }),
    ]);
    expect(csv.split('\r\n')[1]).toBe(
      '2026-11-20T04:00:00.000Z,,,get-shop-info,,10,0.10,0,0,ok,,,,interactive,,',
    );
  });

  it('quotes fields with commas, quotes and line breaks (RFC 4180)', async () => {
    const csv = ledgerCsv([entry({ requestId: 'a,b', correlationId: 'say "hi"', pendingId: 'line\nbreak' })]);
    expect(csv.split('\r\n')[1]).toContain(',"a,b","say ""hi""","line\nbreak",');
    expect(parseCsv(csv)[1]?.slice(10, 13)).toEqual(['a,b', 'say "hi"', 'line\nbreak']);
  });

  it.each(['=HYPERLINK("http://x","y")', '+1+2', '-2+3', '@SUM(A1)', '\t=1', '\r=1'])(
    'prefixes a text field starting like a formula: %j',
    (dangerous) => {
      const rows = parseCsv(ledgerCsv([entry({ requestId: dangerous })]));
      expect(rows[1]?.[10]).toBe(`'${dangerous}`);
    },
  );

  it('does not prefix numbers (negative points stay numbers)', async () => {
    const rows = parseCsv(ledgerCsv([entry({ points: -5, code: -1 })]));
    expect(rows[1]?.[5]).toBe('-5');
    expect(rows[1]?.[6]).toBe('-0.05');
    expect(rows[1]?.[8]).toBe('-1');
  });

  it('an empty ledger is the header alone', async () => {
    expect(ledgerCsv([])).toBe(`${HEADER}\r\n`);
  });
});

describe('usageReport', () => {
  let store: Store;
  afterEach(() => store?.close());

  it("sums the period's ledger in the budget zone, by operation, user and day", async () => {
    const now = new Date('2026-11-20T04:00:00Z');
    store = await openTestStore(':memory:', { now: () => now });
    const row = (at: string, userId: string | null, points: number): NewLedgerEntry => {
      const { id: _id, ...rest } = entry({ at: new Date(at), userId, points, chargeId: `${at}|${userId}` });
      return rest;
    };
    await store.ledger.record(row('2026-11-20T01:00:00Z', 'U1', 10));
    await store.ledger.record(row('2026-11-19T17:00:00Z', 'U2', 5)); // 01:00 on 11-20 in Shanghai
    await store.ledger.record(row('2026-11-19T15:00:00Z', 'U1', 7)); // 23:00 on 11-19 in Shanghai
    const today = await usageReport(store, { period: 'today', userId: null, now, timeZone: 'Asia/Shanghai' });
    expect(today.totals).toEqual({ points: 15, quotaCalls: 0, calls: 2 });
    expect(today.byUser.map((g) => [g.key, g.points])).toEqual([
      ['U1', 10],
      ['U2', 5],
    ]);
    const mine = await usageReport(store, { period: 'month', userId: 'U1', now, timeZone: 'Asia/Shanghai' });
    expect(mine.totals.points).toBe(17);
    expect(mine.byUser).toEqual([]);
    expect(mine.byOperation).toEqual([{ key: 'get-shop-info', points: 17, quotaCalls: 0, calls: 2 }]);
  });

  it('counts days in the budget zone, as the caps do (issue 10, point 18), not in UTC', async () => {
    const now = new Date('2026-11-20T04:00:00Z');
    store = await openTestStore(':memory:', { now: () => now });
    const row = (at: string, points: number): NewLedgerEntry => {
      const { id: _id, ...rest } = entry({ at: new Date(at), points, chargeId: at });
      return rest;
    };
    // All three fall on 2026-11-19 in UTC; in Shanghai they are on two days.
    await store.ledger.record(row('2026-11-19T15:59:59Z', 7)); // 23:59:59 on 11-19 in Shanghai
    await store.ledger.record(row('2026-11-19T16:00:00Z', 5)); // 00:00 on 11-20 in Shanghai
    await store.ledger.record(row('2026-11-19T23:00:00Z', 3)); // 07:00 on 11-20 in Shanghai
    const shanghai = await usageReport(store, {
      period: 'last30',
      userId: null,
      now,
      timeZone: 'Asia/Shanghai',
    });
    expect(shanghai.timeZone).toBe('Asia/Shanghai');
    // Each day by operation too (the App Home's spend chart, issue 26).
    const op = (points: number, calls: number) => [{ key: 'get-shop-info', points, calls, quotaCalls: 0 }];
    expect(shanghai.byDay).toEqual([
      { key: '2026-11-19', points: 7, quotaCalls: 0, calls: 1, byOperation: op(7, 1) },
      { key: '2026-11-20', points: 8, quotaCalls: 0, calls: 2, byOperation: op(8, 2) },
    ]);
    // Every day of the 30, spend or none, oldest first, ending today in the zone.
    expect(shanghai.days).toHaveLength(30);
    expect(shanghai.days.at(-1)).toBe('2026-11-20');
    expect(shanghai.days[0]).toBe('2026-10-22');
    const mine = await usageReport(store, {
      period: 'month',
      userId: 'U1234',
      now,
      timeZone: 'America/New_York',
    });
    expect(mine.byDay).toEqual([
      { key: '2026-11-19', points: 15, quotaCalls: 0, calls: 3, byOperation: op(15, 3) },
    ]);
    // Every day listed sums to the report's total.
    expect(shanghai.byDay.reduce((n, d) => n + d.points, 0)).toBe(shanghai.totals.points);
  });

  it('reportRange: last30 ends with today', async () => {
    const now = new Date('2026-11-20T04:00:00Z');
    expect(reportRange('last30', now, 'Asia/Shanghai')).toEqual({
      from: new Date('2026-10-21T16:00:00Z'),
      to: new Date('2026-11-20T16:00:00Z'),
    });
  });
});
