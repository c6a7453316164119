/**
 * Running totals for the caps and the idempotent ledger (issue 20 pts 1–2), on both engines
 * (CONVENTIONS 13): counters written with each ledger row, reservations as one conditional
 * upsert per counter (concurrent reservations from several pools never pass a cap), charges paid
 * from their reservation, expiry, reconciliation against the ledger, the one-time backfill of a
 * ledger written before the counters, and a charge id written twice counting once.
 */
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../src/store/engine.js';
import { createChargeRecorder } from '../../src/store/ledger.js';
import { MIGRATIONS, migrate } from '../../src/store/migrations.js';
import { periodsOf } from '../../src/store/periods.js';
import type { Schema } from '../../src/store/schema.js';
import type { CapLimit, NewLedgerEntry, Store } from '../../src/store/store.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import { startCommitCutter } from '../helpers/pg-commit-cutter.js';
import {
  createPostgresDatabase,
  dropPostgresDatabase,
  ENGINES,
  type EngineName,
  migrationsBefore,
  type TestDatabase,
  testDatabase,
} from '../helpers/store-engines.js';

/** 2025-03-01 17:00 in Asia/Shanghai (the default budget zone). */
const T0 = Date.parse('2025-03-01T09:00:00.000Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function manualClock(start = T0) {
  let t = start;
  return {
    clock: { now: () => t },
    advance(ms: number) {
      t += ms;
    },
  };
}

const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

let charges = 0;
function entry(overrides: Partial<NewLedgerEntry> = {}): NewLedgerEntry {
  return ledgerEntry({ chargeId: `charge-${++charges}`, at: new Date(T0), ...overrides });
}

const cap = (
  scope: CapLimit['scope'],
  subject: string,
  points: number,
  period: CapLimit['period'] = 'daily',
) =>
  ({ scope, subject, period, key: period === 'daily' ? '2025-03-01' : '2025-03', cap: points }) as CapLimit;

/** Plain SQL on the test database, beside the store (to inject a difference, or to seed an old schema). */
async function raw(db: TestDatabase): Promise<Kysely<Schema>> {
  const dialect =
    db.engine === 'postgres'
      ? new PostgresDialect({ pool: new pg.Pool({ connectionString: db.options.url ?? '', max: 1 }) })
      : new SqliteDialect({ database: new Database(db.options.path ?? '', { timeout: 5000 }) });
  return new Kysely<Schema>({ dialect });
}

describe.each(ENGINES)('running totals and the idempotent ledger on %s', (engine: EngineName) => {
  async function fresh(clock = manualClock()): Promise<{ db: TestDatabase; store: Store }> {
    const db = await testDatabase(engine);
    databases.push(db);
    return { db, store: await db.open(clock) };
  }

  it('every ledger row adds to its workspace, user and channel counters, day and month', async () => {
    const { store } = await fresh();
    await store.ledger.record(entry({ userId: 'U1', channelId: 'C1', points: 10 }));
    await store.ledger.record(entry({ userId: 'U2', channelId: 'C1', points: 5 }));
    await store.ledger.record(entry({ userId: null, channelId: 'C2', points: 7, source: 'digest' }));
    // Next local day (2025-03-02 in Shanghai) and another month's day.
    await store.ledger.record(entry({ at: new Date(T0 + DAY), userId: 'U1', points: 3 }));
    await store.ledger.record(entry({ at: new Date(T0 - 2 * DAY), userId: 'U1', points: 100 }));
    const uses = await store.budgets.uses([
      cap('workspace', '*', 1000),
      cap('user', 'U1', 1000),
      cap('user', 'U2', 1000),
      cap('channel', 'C1', 1000),
      cap('channel', 'C2', 1000),
      cap('workspace', '*', 1000, 'monthly'),
      cap('user', 'U1', 1000, 'monthly'),
    ]);
    expect(uses.map((u) => u.spent)).toEqual([22, 10, 5, 15, 7, 25, 13]);
    // The counters are what the ledger says, period by period.
    const periods = [periodsOf(T0, 'Asia/Shanghai'), periodsOf(T0 + DAY, 'Asia/Shanghai')].flatMap((p) => [
      p.daily,
      p.monthly,
    ]);
    expect(await store.budgets.reconcile(periods)).toEqual([]);
  });

  it("a workflow step's charge counts in its step's counter too, reconciled and reserved like the others", async () => {
    const { store } = await fresh();
    const step = {
      source: 'workflow' as const,
      workflowExecutionId: 'Wx1',
      stepId: 'lookup_waybill',
      channelId: null,
    };
    const row = await store.ledger.record(entry({ ...step, points: 8 }));
    expect(row).toMatchObject({ workflowExecutionId: 'Wx1', stepId: 'lookup_waybill', source: 'workflow' });
    await store.ledger.record(entry({ ...step, stepId: 'orders_due', points: 2 }));
    await store.ledger.record(entry({ points: 5 }));
    // As stored (read back, not the row record() returned).
    const stored = await store.ledger.list({ from: new Date(T0 - DAY), to: new Date(T0 + DAY) });
    expect(stored.map((e) => [e.source, e.workflowExecutionId, e.stepId, e.points])).toEqual(
      expect.arrayContaining([
        ['workflow', 'Wx1', 'lookup_waybill', 8],
        ['workflow', 'Wx1', 'orders_due', 2],
      ]),
    );
    const uses = await store.budgets.uses([
      cap('step', 'lookup_waybill', 100),
      cap('step', 'orders_due', 100, 'monthly'),
      cap('workspace', '*', 100),
    ]);
    expect(uses.map((u) => u.spent)).toEqual([8, 2, 15]);
    const p = periodsOf(T0, 'Asia/Shanghai');
    expect(await store.budgets.reconcile([p.daily, p.monthly])).toEqual([]);
    // A step's cap and the workspace's are reserved together, all or nothing.
    const refused = await store.budgets.reserve({
      userId: null,
      points: 3,
      caps: [cap('workspace', '*', 100), cap('step', 'lookup_waybill', 10)],
      ttlMs: MINUTE,
    });
    expect(refused).toMatchObject({ ok: false, exceeded: { scope: 'step', subject: 'lookup_waybill' } });
    expect((await store.budgets.uses([cap('workspace', '*', 100)]))[0]?.spent).toBe(15);
    const ok = await store.budgets.reserve({
      userId: null,
      points: 2,
      caps: [cap('workspace', '*', 100), cap('step', 'lookup_waybill', 10)],
      ttlMs: MINUTE,
    });
    expect(ok.ok).toBe(true);
    expect(
      (await store.budgets.uses([cap('workspace', '*', 100), cap('step', 'lookup_waybill', 10)])).map(
        (u) => u.spent,
      ),
    ).toEqual([17, 10]);
  });

  it('a pending lookup with a fixed id is created once: a second create returns the first row', async () => {
    const { store } = await fresh();
    const input = {
      id: 'step:Fx1',
      userId: 'U1',
      channelId: null,
      teamId: null,
      request: { n: 1 },
      quote: { q: 1 },
      summary: 's',
      responseUrl: null,
      ttlMs: DAY,
    };
    const first = await store.pending.create(input);
    const claimed = await store.pending.claim(first.id, 'U1', { instanceId: 'i1', leaseMs: MINUTE });
    expect(claimed.ok).toBe(true);
    const again = await store.pending.create({ ...input, request: { n: 2 } });
    expect(again).toMatchObject({ id: 'step:Fx1', state: 'running', request: { n: 1 } });
    expect((await store.pending.claim(first.id, 'U1', { instanceId: 'i2', leaseMs: MINUTE })).ok).toBe(false);
  });

  it('a charge id written twice is one row, counted once; the stored row is returned', async () => {
    const { store } = await fresh();
    const first = await store.ledger.record(entry({ chargeId: 'p-1:0:0', points: 10 }));
    const again = await store.ledger.record(entry({ chargeId: 'p-1:0:0', points: 10, requestId: 'other' }));
    expect(again).toEqual(first);
    await store.ledger.record(entry({ chargeId: 'p-1:0:1', points: 10, pendingId: 'p-1' }));
    expect((await store.budgets.uses([cap('workspace', '*', 1000)]))[0]?.spent).toBe(20);
    expect(
      await store.ledger.list({ from: new Date(T0 - DAY), to: new Date(T0 + DAY) }).then((r) => r.length),
    ).toBe(2);
    expect((await store.ledger.byPending('p-1')).map((e) => e.chargeId)).toEqual(['p-1:0:1']);
  });

  it('a placeholder (a call whose answer was never read) is upgraded by its late charge: one row with the real figures, the counters moved by the difference, its reservation paid', async () => {
    const { store } = await fresh();
    const caps = [cap('workspace', '*', 100), cap('user', 'U1', 100)];
    const id = 'digest:7:2:3:0';
    // A takeover wrote the call it found sent with no ledger row: code -1, 0 points.
    const placeholder = entry({ chargeId: id, code: -1, outcome: 'error', points: 0, userId: 'U1' });
    const written = await store.ledger.record(placeholder);
    expect(written).toMatchObject({ chargeId: id, code: -1, points: 0 });
    // The holder, alive but late (its store was unreachable), writes the real charge.
    const r = await store.budgets.reserve({ userId: 'U1', points: 12, caps, ttlMs: MINUTE });
    if (!r.ok) throw new Error('refused');
    const real = await store.ledger.record(
      entry({ chargeId: id, points: 10, requestId: 'req-1', at: new Date(T0 + 5000) }),
      { reservationId: r.id },
    );
    expect(real).toMatchObject({ id: written.id, chargeId: id, code: 0, points: 10, requestId: 'req-1' });
    const rows = await store.ledger.list({ from: new Date(T0 - DAY), to: new Date(T0 + DAY) });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ chargeId: id, code: 0, outcome: 'ok', points: 10, requestId: 'req-1' });
    // 10 spent and 2 still reserved; the reservation's 10 were paid from it.
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([12, 12]);
    await store.budgets.release(r.id);
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([10, 10]);
    // Never back: a placeholder written after the real row, or the real row again, change nothing.
    expect(await store.ledger.record(placeholder)).toMatchObject({ code: 0, points: 10 });
    expect(await store.ledger.record(entry({ chargeId: id, points: 10 }))).toMatchObject({
      requestId: 'req-1',
    });
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([10, 10]);
    const p = periodsOf(T0, 'Asia/Shanghai');
    expect(await store.budgets.reconcile([p.daily, p.monthly])).toEqual([]);
  });

  it('a "may not have been sent" row (-2) is upgraded to "sent, no answer" (-1), then to the charge; never down', async () => {
    const { store } = await fresh();
    const id = 'lookup:p-9:0:0';
    await store.ledger.record(entry({ chargeId: id, code: -2, outcome: 'error', points: 0 }));
    expect(
      await store.ledger.record(entry({ chargeId: id, code: -1, outcome: 'error', points: 0 })),
    ).toMatchObject({
      code: -1,
    });
    expect(
      await store.ledger.record(entry({ chargeId: id, code: -2, outcome: 'error', points: 0 })),
    ).toMatchObject({
      code: -1,
    });
    // An answer with an error code and no charge is still an answer: it knows more than -1.
    expect(
      await store.ledger.record(entry({ chargeId: id, code: 202, outcome: 'error', points: 0 })),
    ).toMatchObject({
      code: 202,
    });
    expect(await store.ledger.record(entry({ chargeId: id, code: 0, points: 10 }))).toMatchObject({
      code: 202,
    });
    const rows = await store.ledger.list({ from: new Date(T0 - DAY), to: new Date(T0 + DAY) });
    expect(rows.map((r) => [r.code, r.points])).toEqual([[202, 0]]);
    expect((await store.budgets.uses([cap('workspace', '*', 100)]))[0]?.spent).toBe(0);
  });

  it('a charge the store refuses for good is parked after a few tries (logged in full, reported), and the charges and releases behind it go on', async () => {
    const { store } = await fresh();
    const errors: object[] = [];
    const parked: { chargeId: string }[] = [];
    const recorder = createChargeRecorder({
      ledger: store.ledger,
      logger: { info: () => undefined, warn: () => undefined, error: (o) => void errors.push(o) },
      retryMs: 10,
      onParked: (charge) => void parked.push(charge),
    });
    try {
      const caps = [cap('workspace', '*', 100)];
      const r = await store.budgets.reserve({ userId: 'U1', points: 10, caps, ttlMs: MINUTE });
      if (!r.ok) throw new Error('refused');
      // A row the ledger's CHECK refuses on both engines, whatever is retried.
      const refused = entry({ chargeId: 'p-bad:0:0', outcome: 'bogus' as 'ok' });
      await recorder.record(refused);
      expect(recorder.backlog()).toBe(1);
      // Behind it: a good charge, and the release of its reservation once it is written.
      await recorder.record(entry({ chargeId: 'p-good:0:0', points: 10 }), { reservationId: r.id });
      let released = false;
      await recorder.afterWritten(async () => {
        released = true;
        await store.budgets.release(r.id);
      });
      await vi.waitFor(() => expect(recorder.backlog()).toBe(0), { timeout: 10_000 });
      await vi.waitFor(() => expect(released).toBe(true), { timeout: 5000 });
      const rows = await store.ledger.list({ from: new Date(T0 - DAY), to: new Date(T0 + DAY) });
      expect(rows.map((e) => e.chargeId)).toEqual(['p-good:0:0']);
      expect((await store.budgets.uses(caps))[0]?.spent).toBe(10);
      expect(parked.map((c) => c.chargeId)).toEqual(['p-bad:0:0']);
      expect(JSON.stringify(errors)).toContain('p-bad:0:0');
      expect(recorder.parked()).toBe(1);
    } finally {
      recorder.stop();
    }
  });

  it('a charge is paid from its reservation: reserved moves to spent in the same write', async () => {
    const { store } = await fresh();
    const caps = [cap('workspace', '*', 30), cap('user', 'U1', 100)];
    const r = await store.budgets.reserve({ userId: 'U1', points: 12, caps, ttlMs: MINUTE });
    if (!r.ok) throw new Error('refused');
    await store.ledger.record(entry({ points: 8 }), { reservationId: r.id });
    // 8 spent, 4 still reserved: 18 left under the workspace cap.
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([12, 12]);
    expect(
      await store.budgets.reserve({ userId: 'U2', points: 19, caps: [caps[0] as CapLimit], ttlMs: MINUTE }),
    ).toMatchObject({
      ok: false,
      exceeded: { scope: 'workspace', spent: 12 },
    });
    // A charge larger than what is left takes only what is left: reserved never goes below 0.
    await store.ledger.record(entry({ points: 9 }), { reservationId: r.id });
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([17, 17]);
    await store.budgets.release(r.id);
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([17, 17]);
    const p = periodsOf(T0, 'Asia/Shanghai');
    expect(await store.budgets.reconcile([p.daily, p.monthly])).toEqual([]);
  });

  it('extend grows a reservation under the same caps, all or nothing, and moves its expiry', async () => {
    const clock = manualClock();
    const { store } = await fresh(clock);
    const caps = [cap('workspace', '*', 20), cap('user', 'U1', 12)];
    const r = await store.budgets.reserve({ userId: 'U1', points: 5, caps, ttlMs: MINUTE });
    if (!r.ok) throw new Error('refused');
    expect(await store.budgets.extend(r.id, 5, MINUTE)).toBe(true);
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([10, 10]);
    // The user cap (12) refuses 5 more: nothing changes on the workspace counter either.
    expect(await store.budgets.extend(r.id, 5, MINUTE)).toBe(false);
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([10, 10]);
    // Extended at +50 s for another minute: still held at +100 s, gone at +110 s.
    clock.advance(50_000);
    expect(await store.budgets.extend(r.id, 1, MINUTE)).toBe(true);
    clock.advance(50_000);
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([11, 11]);
    clock.advance(10_000);
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([0, 0]);
    expect(await store.budgets.extend(r.id, 1, MINUTE)).toBe(false);
  });

  it('a reservation refused by its last counter leaves the counters before it untouched', async () => {
    const { store } = await fresh();
    // Taken in the order (scope, subject, …): the user's counter first, the workspace's last.
    const caps = [cap('workspace', '*', 10), cap('user', 'U1', 1000)];
    const r = await store.budgets.reserve({ userId: 'U1', points: 5, caps, ttlMs: MINUTE });
    expect(r.ok).toBe(true);
    expect(await store.budgets.reserve({ userId: 'U1', points: 6, caps, ttlMs: MINUTE })).toMatchObject({
      ok: false,
      exceeded: { scope: 'workspace', spent: 5 },
    });
    expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([5, 5]);
    expect(await store.budgets.reconcile([periodsOf(T0, 'Asia/Shanghai').daily])).toEqual([]);
  });

  it('a charge counts in the budget zone set a moment ago on another replica', async () => {
    const { db } = await fresh();
    const [a, b] = (await db.openMany(2)) as [Store, Store];
    // Replica a writes a charge in the default zone (Asia/Shanghai): 2025-03-01 there.
    await a.ledger.record(entry({ points: 10 }));
    // Replica b sets the zone to UTC. 8 hours later it is 2025-03-02 in Shanghai but still
    // 2025-03-01 in UTC: a's next charge must count on the UTC day, not on the zone it read before.
    await b.settings.set('budgets', { timezone: 'UTC' }, 'UADMIN');
    await a.ledger.record(entry({ at: new Date(T0 + 8 * 60 * MINUTE), points: 5 }));
    expect((await a.budgets.uses([cap('workspace', '*', 100)]))[0]?.spent).toBe(15);
    expect((await a.budgets.uses([{ ...cap('workspace', '*', 100), key: '2025-03-02' }]))[0]?.spent).toBe(0);
    const utc = periodsOf(T0, 'UTC');
    // The first charge counted in the Shanghai day of the same date: no difference either way.
    expect(await a.budgets.reconcile([utc.daily, utc.monthly])).toEqual([]);
  });

  it('many concurrent reservations from several pools against one cap never pass it', async () => {
    const { db } = await fresh();
    const stores = await db.openMany(4);
    const caps = [cap('workspace', '*', 100)];
    // 60 reservations of 5 points, each also under its user's cap, in varying cap orders.
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const mine = [cap('user', `U${i % 7}`, 1000), ...caps];
        return (stores[i % stores.length] as Store).budgets.reserve({
          userId: `U${i % 7}`,
          points: 5,
          caps: i % 2 ? mine : mine.reverse(),
          ttlMs: 10 * MINUTE,
        });
      }),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(20);
    const store = stores[0] as Store;
    expect((await store.budgets.uses(caps))[0]?.spent).toBe(100);
    // Half are paid (charges written against them, from every pool at once), the rest released.
    const held = results.flatMap((r) => (r.ok ? [r.id] : []));
    await Promise.all(
      held.map((id, i) =>
        i % 2
          ? (stores[i % stores.length] as Store).ledger.record(entry({ userId: `U${i}`, points: 5 }), {
              reservationId: id,
            })
          : (stores[i % stores.length] as Store).budgets.release(id),
      ),
    );
    await Promise.all(held.map((id) => store.budgets.release(id)));
    expect((await store.budgets.uses(caps))[0]?.spent).toBe(50);
    const p = periodsOf(T0, 'Asia/Shanghai');
    expect(await store.budgets.reconcile([p.daily, p.monthly])).toEqual([]);
  });

  it('reconciliation finds a counter that differs from the ledger, and a stray reservation', async () => {
    const { db, store } = await fresh();
    await store.ledger.record(entry({ userId: 'U1', points: 10 }));
    await store.ledger.record(entry({ userId: 'U2', points: 4 }));
    const r = await store.budgets.reserve({
      userId: 'U1',
      points: 3,
      caps: [cap('workspace', '*', 100)],
      ttlMs: MINUTE,
    });
    expect(r.ok).toBe(true);
    const p = periodsOf(T0, 'Asia/Shanghai');
    expect(await store.budgets.reconcile([p.daily, p.monthly])).toEqual([]);
    const k = await raw(db);
    try {
      // A lost update on U2's day counter, and a reserved count nothing holds.
      await sql`UPDATE spend_counters SET spent = spent - 4 WHERE scope = 'user' AND subject = 'U2' AND period = 'daily'`.execute(
        k,
      );
      await sql`UPDATE spend_counters SET reserved = reserved + 2 WHERE scope = 'workspace' AND period = 'daily'`.execute(
        k,
      );
    } finally {
      await k.destroy();
    }
    expect(await store.budgets.reconcile([p.daily, p.monthly])).toEqual(
      expect.arrayContaining([
        {
          scope: 'user',
          subject: 'U2',
          period: 'daily',
          key: '2025-03-01',
          field: 'spent',
          counter: 0,
          expected: 4,
        },
        {
          scope: 'workspace',
          subject: '*',
          period: 'daily',
          key: '2025-03-01',
          field: 'reserved',
          counter: 5,
          expected: 3,
        },
      ]),
    );
    expect(await store.budgets.reconcile([p.daily, p.monthly])).toHaveLength(2);
  });

  it("the workflow column written before it was renamed is kept as the workflow's run id", async () => {
    const db = await testDatabase(engine);
    databases.push(db);
    const k = await raw(db);
    try {
      await migrate(k, engine, migrationsBefore('RENAME COLUMN workflow_id TO workflow_execution_id'));
      await sql`INSERT INTO ledger (tenant_id, charge_id, at, user_id, channel_id, operation, edition, points,
          quota_calls, code, outcome, source, workflow_id, step_id)
        VALUES ('', 'c-old', ${T0}, 'U1', NULL, 'platdzmd', 1, 3, 0, 0, 'ok', 'workflow', 'WxOLD1', 'lookup_waybill')`.execute(
        k,
      );
    } finally {
      await k.destroy();
    }
    const store = (await db.open()) as Store;
    // A charge recorded after the rename (PostgreSQL: through the replaced platdesk_record).
    await store.ledger.record(
      entry({ source: 'workflow', workflowExecutionId: 'WxNEW1', stepId: 'orders_due', channelId: null }),
    );
    const rows = await store.ledger.list({ from: new Date(T0 - DAY), to: new Date(T0 + DAY) });
    expect(rows.map((e) => [e.workflowExecutionId, e.stepId]).sort()).toEqual([
      ['WxNEW1', 'orders_due'],
      ['WxOLD1', 'lookup_waybill'],
    ]);
  });

  it('a ledger written before the counters is backfilled once, in the budget zone', async () => {
    const db = await testDatabase(engine);
    databases.push(db);
    const k = await raw(db);
    try {
      await migrate(k, engine, MIGRATIONS.slice(0, 6));
      // Counted in UTC: 23:30 UTC on 2025-02-28 and 00:30 UTC on 2025-03-01 are two days, two months.
      await sql`INSERT INTO settings (key, value_json, updated_at, updated_by)
        VALUES ('budgets', '{"timezone":"UTC"}', 0, 'UADMIN')`.execute(k);
      const row = (at: string, user: string | null, points: number) =>
        sql`INSERT INTO ledger (at, user_id, channel_id, operation, edition, points, quota_calls, code, outcome, source)
          VALUES (${Date.parse(at)}, ${user}, 'C1', 'get-shop-info', 1, ${points}, 0, 0, 'ok', 'interactive')`.execute(
          k,
        );
      await row('2025-02-28T23:30:00Z', 'U1', 10);
      await row('2025-03-01T00:30:00Z', 'U1', 4);
      await row('2025-03-01T01:30:00Z', null, 6);
      await row('2025-03-03T12:00:00Z', 'U2', 1);
    } finally {
      await k.destroy();
    }
    // Two stores opening at once (PostgreSQL: two pools; SQLite: one after the other, as
    // better-sqlite3 waits for a lock on the very thread that holds it).
    const [a, b] =
      engine === 'postgres' ? await Promise.all([db.open(), db.open()]) : [await db.open(), await db.open()];
    const store = a as Store;
    const march = (subject: string, scope: CapLimit['scope'] = 'user') => ({
      scope,
      subject,
      cap: 1000,
    });
    const uses = await store.budgets.uses([
      { ...march('*', 'workspace'), period: 'daily', key: '2025-02-28' },
      { ...march('*', 'workspace'), period: 'daily', key: '2025-03-01' },
      { ...march('*', 'workspace'), period: 'monthly', key: '2025-03' },
      { ...march('U1'), period: 'monthly', key: '2025-02' },
      { ...march('U1'), period: 'daily', key: '2025-03-01' },
      { ...march('C1', 'channel'), period: 'monthly', key: '2025-03' },
    ]);
    // Filled once although two stores opened.
    expect(uses.map((u) => u.spent)).toEqual([10, 10, 11, 10, 4, 11]);
    const periods = ['2025-02-28', '2025-03-01', '2025-03-03'].flatMap((d) => {
      const p = periodsOf(Date.parse(`${d}T12:00:00Z`), 'UTC');
      return [p.daily, p.monthly];
    });
    expect(await store.budgets.reconcile(periods)).toEqual([]);
    expect(
      (await (b as Store).ledger.list({ from: new Date(0), to: new Date(T0 + 5 * DAY) })).map(
        (e) => e.chargeId,
      ),
    ).toEqual(['legacy:4', 'legacy:3', 'legacy:2', 'legacy:1']);
  });
});

describe('the ledger on PostgreSQL, when a commit succeeds but its answer is lost', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('the charge written again after the cut is one row, counted once', async () => {
    const url = await createPostgresDatabase();
    cleanups.push(() => dropPostgresDatabase(url));
    const cutter = await startCommitCutter(url);
    cleanups.push(() => cutter.close());
    const store = await openStore({ url: cutter.url, clock: { now: () => T0 } });
    cleanups.push(() => store.close());
    const warnings: unknown[] = [];
    const recorder = createChargeRecorder({
      ledger: store.ledger,
      logger: { info: () => undefined, error: () => undefined, warn: (o) => void warnings.push(o) },
      retryMs: 20,
    });
    cleanups.push(async () => recorder.stop());
    const caps = [cap('workspace', '*', 100)];
    const r = await store.budgets.reserve({ userId: 'U1', points: 10, caps, ttlMs: MINUTE });
    if (!r.ok) throw new Error('refused');

    cutter.arm();
    await recorder.record(entry({ chargeId: 'p-cut:0:0', points: 10 }), { reservationId: r.id });
    // The client saw the connection cut on COMMIT: the charge is kept, although it committed.
    expect(cutter.cut()).toBe(1);
    expect(warnings).toHaveLength(1);
    // Written again (the same charge id) once the store answers: a no-op.
    await vi.waitFor(() => expect(recorder.backlog()).toBe(0), { timeout: 5000 });
    const rows = await store.ledger.list({ from: new Date(T0 - DAY), to: new Date(T0 + DAY) });
    expect(rows.map((e) => e.chargeId)).toEqual(['p-cut:0:0']);
    expect((await store.budgets.uses(caps))[0]?.spent).toBe(10);
    await store.budgets.release(r.id);
    expect((await store.budgets.uses(caps))[0]?.spent).toBe(10);
    const p = periodsOf(T0, 'Asia/Shanghai');
    expect(await store.budgets.reconcile([p.daily, p.monthly])).toEqual([]);
  });
});
