/**
 * The nightly reconciliation (lookups/reconcile.ts, issue 20 pt 1) on both engines: once a local
 * day whichever replica's housekeeping gets there first compares the running totals with the
 * ledger; a difference injected into a counter is found, logged and handed to the admins' alert,
 * whose text names it in both languages.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { alertText } from '../../src/blocks/home.js';
import { createHousekeeping } from '../../src/lookups/housekeeping.js';
import { reconcileOncePerDay, type SpendCheck } from '../../src/lookups/reconcile.js';
import type { NewLedgerEntry, Store } from '../../src/store/store.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';
import { en, zh } from '../helpers/words.js';

/** 2026-11-20 10:00 in Shanghai. */
const NOW = Date.parse('2026-11-20T02:00:00Z');
const DAY = 86_400_000;

const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

const charge = (chargeId: string, at: number, userId: string | null, points: number): NewLedgerEntry =>
  ledgerEntry({ chargeId, at: new Date(at), userId, operation: 'get-shop-id', edition: null, points });

/** A write that bypasses the store (a lost update, a hand edit): U1's counter of 2026-11-20. */
async function corrupt(db: TestDatabase): Promise<void> {
  const statement =
    "UPDATE spend_counters SET spent = spent + 3 WHERE scope = 'user' AND subject = 'U1' AND period = 'daily' AND period_key = '2026-11-20'";
  if (db.engine === 'postgres') {
    const client = new pg.Client({ connectionString: db.options.url ?? '' });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  } else {
    const file = new Database(db.options.path ?? '', { timeout: 5000 });
    try {
      file.prepare(statement).run();
    } finally {
      file.close();
    }
  }
}

describe.each(ENGINES)('nightly reconciliation on %s', (engine) => {
  it('finds an injected difference once a day, logs it and tells the admins', async () => {
    const db = await testDatabase(engine);
    databases.push(db);
    let now = NOW;
    const [a, b] = (await db.openMany(2, { clock: { now: () => now } })) as [Store, Store];
    await a.ledger.record(charge('y1', NOW - DAY, 'U1', 10));
    await a.ledger.record(charge('y2', NOW - DAY, 'U2', 5));
    await a.ledger.record(charge('t1', NOW, 'U1', 2));
    const logged: { msg: string; o: object }[] = [];
    const logger = {
      info: (o: object, msg: string) => void logged.push({ o, msg }),
      warn: (o: object, msg: string) => void logged.push({ o, msg }),
      error: (o: object, msg: string) => void logged.push({ o, msg }),
    };
    const told: SpendCheck[] = [];

    // 2026-11-20: yesterday, today and November match the ledger; nothing to tell.
    const clean = await reconcileOncePerDay({
      store: a,
      now: new Date(now),
      logger,
      onDifferences: (c) => told.push(c),
    });
    expect(clean).toEqual({ day: '2026-11-19', differences: [] });
    expect(logged.map((l) => l.msg)).toEqual(['spend totals match the ledger']);

    await corrupt(db);
    // Once a day, by whichever replica: the other one does not check again today.
    expect(await reconcileOncePerDay({ store: b, now: new Date(now), logger })).toBeNull();

    // The next night, through the other replica's housekeeping: the corrupted day is yesterday.
    now += DAY;
    const lines: { msg?: string; day?: string; differences?: unknown[] }[] = [];
    const housekeeping = createHousekeeping({
      store: b,
      holder: 'replica-b',
      now: () => new Date(now),
      logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
      onSpendDifferences: (c) => told.push(c),
    });
    await housekeeping.run();
    expect(told).toEqual([
      {
        day: '2026-11-20',
        differences: [
          {
            scope: 'user',
            subject: 'U1',
            period: 'daily',
            key: '2026-11-20',
            field: 'spent',
            counter: 5,
            expected: 2,
          },
        ],
      },
    ]);
    expect(
      lines.find((l) => l.msg === 'spend totals differ from the ledger: caps count the totals'),
    ).toMatchObject({
      day: '2026-11-20',
      differences: [{ subject: 'U1', counter: 5, expected: 2 }],
    });
    await housekeeping.run();
    expect(told).toHaveLength(1);

    const found = told[0] as SpendCheck;
    const alert = { kind: 'spend-totals' as const, day: found.day, count: 1, sample: found.differences };
    expect(alertText(en, alert)).toContain(
      'Nightly check of 2026-11-20: 1 spend total differs from the ledger',
    );
    expect(alertText(en, alert)).toContain('<@U1>, daily 2026-11-20: total 5, ledger 2 points');
    expect(alertText(zh, alert)).toContain('<@U1>，每日 2026年11月20日：累计 5，扣费明细 2 点');
  });

  it('each hourly pass looks at the tenants that spent lately, not at every tenant installed', async () => {
    const db = await testDatabase(engine);
    databases.push(db);
    const now = NOW;
    const store = await db.open({ clock: { now: () => now } });
    const idle = Array.from({ length: 30 }, (_, i) => `T0IDLE${String(i).padStart(2, '0')}`);
    // Installed and set up, never spent (a setting is a row of theirs).
    for (const t of idle) await store.forTenant(t).settings.set('locale', 'en', 'UADMIN');
    // Spent today (a ledger row), and earlier this month (its month's counter).
    await store.forTenant('T0SPENTTODAY').ledger.record(charge('a1', NOW, 'U1', 2));
    await store.forTenant('T0SPENTMONTH').ledger.record(charge('b1', NOW - 15 * DAY, 'U1', 4));
    // Spent three months ago only: nothing of it in the periods compared.
    await store.forTenant('T0SPENTLONGAGO').ledger.record(charge('c1', NOW - 90 * DAY, 'U1', 4));
    const housekeeping = createHousekeeping({
      store,
      holder: 'replica-a',
      now: () => new Date(now),
      logger: pino({ level: 'silent' }),
    });
    await housekeeping.run();
    // The day's check is marked done (alerts sent) for the recent spenders only: a claim of the
    // same key is refused for them, taken for the others.
    const checked = async (t: string) =>
      !(await store.forTenant(t).alertsSent.claim('reconcile|2026-11-20', Number.POSITIVE_INFINITY));
    expect(await checked('T0SPENTTODAY')).toBe(true);
    expect(await checked('T0SPENTMONTH')).toBe(true);
    expect(await checked('T0SPENTLONGAGO')).toBe(false);
    for (const t of idle.slice(0, 5)) expect(await checked(t)).toBe(false);
  });
});
