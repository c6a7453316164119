/**
 * Tenants kept apart in the store (issue 24; src/store/tenants.ts), on both engines: what one
 * tenant writes, another never reads, claims, spends against or exports; adopt moves the single
 * tenant's rows to the first installed workspace; erase deletes a tenant and nothing else.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { addAdmin } from '../../src/lookups/settings.js';
import { createStepApprovals } from '../../src/lookups/steps.js';
import { openStore } from '../../src/store/engine.js';
import { migrate } from '../../src/store/migrations.js';
import type { Schema } from '../../src/store/schema.js';
import type { CapLimit, Lease, NewLedgerEntry, Store } from '../../src/store/store.js';
import { SINGLE_TENANT, TENANT_TABLES } from '../../src/store/tenants.js';
import { makeNewAlertSubscription } from '../helpers/domain-factories.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import { ENGINES, migrationsBefore, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const T0 = Date.parse('2026-11-25T02:00:00.000Z');
const MINUTE = 60_000;
const clock = { now: () => T0 };
const A = 'T0000AAAA';
const B = 'E0000BBBB';

const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

async function fresh(engine: (typeof ENGINES)[number]): Promise<Store> {
  const db = await testDatabase(engine);
  databases.push(db);
  return db.open({ clock });
}

const charge = (chargeId: string, points: number, userId = 'U1234'): NewLedgerEntry =>
  ledgerEntry({ chargeId, at: new Date(T0), userId, channelId: 'C1234', operation: 'paging-orders', points });

const workspaceDay = (cap: number): CapLimit => ({
  scope: 'workspace',
  subject: '*',
  period: 'daily',
  key: '2026-11-25',
  cap,
});

const lease = (owner: string): Lease => ({ owner, ms: 5 * MINUTE });

const range = { from: new Date(T0 - 60 * MINUTE), to: new Date(T0 + 60 * MINUTE) };

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe.each(ENGINES)('tenants on %s', (engine) => {
  it('the store openStore returns is the single tenant; forTenant binds the same contract to another', async () => {
    const store = await fresh(engine);
    expect(store.tenant).toBe(SINGLE_TENANT);
    const a = store.forTenant(A);
    expect(a.tenant).toBe(A);
    expect(store.forTenant(A)).toBe(a);
    expect(a.forTenant(SINGLE_TENANT)).toBe(store);
  });

  it('confirmations, preferences, settings and audit of A are invisible to B', async () => {
    const store = await fresh(engine);
    const a = store.forTenant(A);
    const b = store.forTenant(B);
    const p = await a.pending.create({
      userId: 'U1234',
      channelId: 'C1234',
      teamId: A,
      request: { kind: 'item' },
      quote: { totalPoints: 0 },
      summary: 'item 1',
      responseUrl: null,
      ttlMs: 5 * MINUTE,
    });
    expect(p.tenantId).toBe(A);
    expect(await b.pending.get(p.id)).toBeNull();
    // A forged button value naming A's confirmation: B's claim finds nothing, and A's stays claimable.
    const holder = { instanceId: 'i1', leaseMs: MINUTE };
    expect(await b.pending.claim(p.id, 'U1234', holder)).toEqual({
      ok: false,
      reason: 'not_found',
      pending: null,
    });
    expect(await b.pending.cancel(p.id, 'U1234')).toMatchObject({ ok: false, reason: 'not_found' });
    expect((await a.pending.claim(p.id, 'U1234', holder)).ok).toBe(true);
    expect(await b.pending.fence(p.id, holder, 1)).toBe(false);
    expect(await b.pending.finish(p.id, 'done', '{}')).toBe(false);
    expect(await b.pending.interrupt(p.id, 'i1', undefined, { holderGone: true })).toBeNull();
    // The process's own claims, whatever their tenant, each naming it.
    expect((await b.pending.runningClaims()).map((c) => [c.id, c.tenantId])).toEqual([[p.id, A]]);

    await a.prefs.setConfirmThreshold('U1234', 50);
    expect(await b.prefs.getConfirmThreshold('U1234')).toBeNull();
    await b.prefs.setConfirmThreshold('U1234', 5);
    expect(await a.prefs.getConfirmThreshold('U1234')).toBe(50);

    await a.settings.set('admins', ['UA'], 'UA');
    expect(await b.settings.get('admins')).toBeNull();
    expect(await store.settings.get('admins')).toBeNull();
    await b.settings.set('admins', ['UB'], 'UB');
    expect(await a.settings.get('admins')).toEqual(['UA']);
    expect(await b.settings.delete('admins', 'UB')).toBe(true);
    expect(await a.settings.get('admins')).toEqual(['UA']);
    expect((await b.audit.list(10)).map((r) => r.actorId)).toEqual(['UB', 'UB']);
    expect((await a.audit.list(10)).map((r) => r.action)).toEqual(['settings.set']);
  });

  it("addAdmin makes a tenant's admin (the first installer) in that tenant's settings only", async () => {
    const store = await fresh(engine);
    expect(await addAdmin(store.forTenant(A).settings, 'UINSTALLER', 'UINSTALLER')).toEqual(['UINSTALLER']);
    expect(await addAdmin(store.forTenant(A).settings, 'UINSTALLER', 'UINSTALLER')).toEqual(['UINSTALLER']);
    expect(await store.forTenant(A).settings.get('admins')).toEqual(['UINSTALLER']);
    expect(await store.forTenant(B).settings.get('admins')).toBeNull();
    expect(await store.settings.get('admins')).toBeNull();
  });

  it("B's ledger, totals, last charge and export exclude A's charges", async () => {
    const store = await fresh(engine);
    const a = store.forTenant(A);
    const b = store.forTenant(B);
    await a.ledger.record(charge('a:1', 30));
    await a.ledger.record(charge('a:2', 12));
    await b.ledger.record(charge('b:1', 7));
    expect(await b.ledger.totals(range)).toEqual({ points: 7, quotaCalls: 0, calls: 1 });
    expect(await a.ledger.totals(range)).toEqual({ points: 42, quotaCalls: 0, calls: 2 });
    expect(await store.ledger.totals(range)).toEqual({ points: 0, quotaCalls: 0, calls: 0 });
    expect((await collect(b.ledger.iterate(range))).map((e) => e.chargeId)).toEqual(['b:1']);
    expect((await b.ledger.list(range)).map((e) => e.chargeId)).toEqual(['b:1']);
    expect(await b.ledger.groupTotals('user', range)).toEqual([
      { key: 'U1234', points: 7, quotaCalls: 0, calls: 1 },
    ]);
    expect(await b.ledger.lastCharge('paging-orders', 1)).toBe(7);
    expect(await store.ledger.lastCharge('paging-orders', 1)).toBeNull();
  });

  it("workflow steps: A's approvals, step counters and step runs are A's alone", async () => {
    const store = await fresh(engine);
    const a = store.forTenant(A);
    const b = store.forTenant(B);
    await createStepApprovals(a.settings).set('lookup_waybill', { daily: 10, monthly: null }, 'UA');
    expect(await createStepApprovals(b.settings).get('lookup_waybill')).toBeNull();
    expect(await createStepApprovals(store.settings).all()).toEqual({});
    expect(await createStepApprovals(a.settings).get('lookup_waybill')).toEqual({
      daily: 10,
      monthly: null,
      shops: [],
      channels: [],
    });

    const stepDay = (cap: number): CapLimit => ({
      ...workspaceDay(cap),
      scope: 'step',
      subject: 'lookup_waybill',
    });
    await a.ledger.record({
      ...charge('a:step', 8),
      channelId: null,
      source: 'workflow',
      workflowExecutionId: 'Wf0001',
      stepId: 'lookup_waybill',
    });
    expect((await a.budgets.uses([stepDay(10)]))[0]?.spent).toBe(8);
    expect((await b.budgets.uses([stepDay(10)]))[0]?.spent).toBe(0);
    // A's step cap is nearly spent; B's same step reserves its whole cap.
    expect(
      await a.budgets.reserve({ userId: null, points: 3, caps: [stepDay(10)], ttlMs: MINUTE }),
    ).toMatchObject({
      ok: false,
      exceeded: { scope: 'step', subject: 'lookup_waybill' },
    });
    expect(
      (await b.budgets.reserve({ userId: null, points: 10, caps: [stepDay(10)], ttlMs: MINUTE })).ok,
    ).toBe(true);
    expect((await collect(b.ledger.iterate(range))).map((e) => e.chargeId)).toEqual([]);

    // A step's run is a pending lookup with a fixed id (its function_execution_id): A's only.
    const run = await a.pending.create({
      id: 'step:Fx0001',
      userId: 'U1234',
      channelId: null,
      teamId: A,
      request: { kind: 'waybill' },
      quote: { totalPoints: 1 },
      summary: 'waybill',
      responseUrl: null,
      ttlMs: 5 * MINUTE,
    });
    expect(run).toMatchObject({ id: 'step:Fx0001', tenantId: A });
    expect(await b.pending.get('step:Fx0001')).toBeNull();
  });

  it("B's caps are unaffected by A's spend and reservations; reconcile sees one tenant's counters", async () => {
    const store = await fresh(engine);
    const a = store.forTenant(A);
    const b = store.forTenant(B);
    await a.ledger.record(charge('a:1', 90));
    const heldByA = await a.budgets.reserve({
      userId: 'U1',
      points: 10,
      caps: [workspaceDay(100)],
      ttlMs: MINUTE,
    });
    expect(heldByA.ok).toBe(true);
    expect(
      (await a.budgets.reserve({ userId: 'U1', points: 1, caps: [workspaceDay(100)], ttlMs: MINUTE })).ok,
    ).toBe(false);
    const [useB] = await b.budgets.uses([workspaceDay(100)]);
    expect(useB?.spent).toBe(0);
    const byB = await b.budgets.reserve({
      userId: 'U1',
      points: 100,
      caps: [workspaceDay(100)],
      ttlMs: MINUTE,
    });
    expect(byB.ok).toBe(true);
    // B cannot grow or release A's reservation by its id.
    if (heldByA.ok) {
      expect(await b.budgets.extend(heldByA.id, 1, MINUTE)).toBe(false);
      await b.budgets.release(heldByA.id);
      const [useA] = await a.budgets.uses([workspaceDay(100)]);
      expect(useA?.spent).toBe(100);
    }
    const day = { period: 'daily' as const, key: '2026-11-25', from: range.from, to: range.to };
    expect(await a.budgets.reconcile([day])).toEqual([]);
    expect(await b.budgets.reconcile([day])).toEqual([]);
  });

  it('two tenants reserving and charging at once on two replicas (PostgreSQL: through the money functions) keep to their own counters, ledger and budget zone', async () => {
    const d = await testDatabase(engine);
    databases.push(d);
    let now = T0;
    const [r1, r2] = (await d.openMany(2, { clock: { now: () => now } })) as [Store, Store];
    const a = r1.forTenant(A);
    const b = r2.forTenant(B);
    const userDay = (cap: number): CapLimit => ({ ...workspaceDay(cap), scope: 'user', subject: 'U1' });
    const rounds = async (s: Store, prefix: string) => {
      for (let i = 0; i < 5; i++) {
        const held = await s.budgets.reserve({
          userId: 'U1',
          points: 10,
          caps: [workspaceDay(100), userDay(100)],
          ttlMs: MINUTE,
        });
        expect(held.ok).toBe(true);
        if (!held.ok) return;
        await s.ledger.record(charge(`${prefix}:${i}`, 7, 'U1'), { reservationId: held.id });
        await s.budgets.release(held.id);
      }
    };
    // The same counter keys, the same user, at the same time: A also keeps 30 points reserved.
    const [keptByA] = await Promise.all([
      a.budgets.reserve({
        userId: 'U1',
        points: 30,
        caps: [workspaceDay(100), userDay(100)],
        ttlMs: 10 * MINUTE,
      }),
      rounds(a, 'a'),
      rounds(b, 'b'),
    ]);
    expect(keptByA.ok).toBe(true);
    // B's cap sees B's 35 spent only (A's 35 spent + 30 reserved would refuse 65).
    const byB = await b.budgets.reserve({
      userId: 'U1',
      points: 65,
      caps: [workspaceDay(100)],
      ttlMs: MINUTE,
    });
    expect(byB.ok).toBe(true);
    expect(
      (await b.budgets.reserve({ userId: 'U1', points: 1, caps: [workspaceDay(100)], ttlMs: MINUTE })).ok,
    ).toBe(false);
    if (byB.ok) await b.budgets.release(byB.id);

    // A's budget zone set on the other replica (A's ledger on r1 read the default before): A's next
    // charge counts in Los Angeles (2026-11-24 there at T0); B's, with no setting, still in Shanghai.
    await r2.forTenant(A).settings.set('budgets', { timezone: 'America/Los_Angeles' }, 'UA');
    await a.ledger.record(charge('a:zone', 4, 'U1'));
    await b.ledger.record(charge('b:zone', 6, 'U1'));

    // An expired reservation of A, swept by B's replica, goes back to A's counters.
    expect(
      (await a.budgets.reserve({ userId: 'U1', points: 20, caps: [workspaceDay(100)], ttlMs: MINUTE })).ok,
    ).toBe(true);
    now += 2 * MINUTE;
    await b.budgets.uses([workspaceDay(100)]);

    const db = await rawDb(d);
    try {
      const counters = await db
        .selectFrom('spend_counters')
        .select(['tenant_id', 'scope', 'subject', 'period', 'period_key', 'spent', 'reserved'])
        .orderBy('tenant_id')
        .orderBy('scope')
        .orderBy('subject')
        .orderBy('period')
        .orderBy('period_key')
        .execute();
      const of = (tenant: string) =>
        counters
          .filter((c) => c.tenant_id === tenant)
          .map((c) => [
            `${c.scope}/${c.subject}/${c.period}/${c.period_key}`,
            Number(c.spent),
            Number(c.reserved),
          ]);
      expect(of(A)).toEqual([
        ['channel/C1234/daily/2026-11-24', 4, 0],
        ['channel/C1234/daily/2026-11-25', 35, 0],
        ['channel/C1234/monthly/2026-11', 39, 0],
        ['user/U1/daily/2026-11-24', 4, 0],
        ['user/U1/daily/2026-11-25', 35, 30],
        ['user/U1/monthly/2026-11', 39, 0],
        ['workspace/*/daily/2026-11-24', 4, 0],
        ['workspace/*/daily/2026-11-25', 35, 30],
        ['workspace/*/monthly/2026-11', 39, 0],
      ]);
      expect(of(B)).toEqual([
        ['channel/C1234/daily/2026-11-25', 41, 0],
        ['channel/C1234/monthly/2026-11', 41, 0],
        ['user/U1/daily/2026-11-25', 41, 0],
        ['user/U1/monthly/2026-11', 41, 0],
        ['workspace/*/daily/2026-11-25', 41, 0],
        ['workspace/*/monthly/2026-11', 41, 0],
      ]);
      expect(counters.filter((c) => c.tenant_id !== A && c.tenant_id !== B)).toEqual([]);
      const ledger = await db
        .selectFrom('ledger')
        .select(['tenant_id', 'charge_id', 'points'])
        .orderBy('charge_id')
        .execute();
      expect(ledger.map((r) => [r.tenant_id, r.charge_id, Number(r.points)])).toEqual([
        ...[0, 1, 2, 3, 4].map((i) => [A, `a:${i}`, 7]),
        [A, 'a:zone', 4],
        ...[0, 1, 2, 3, 4].map((i) => [B, `b:${i}`, 7]),
        [B, 'b:zone', 6],
      ]);
      const reservations = await db
        .selectFrom('budget_reservations')
        .select(['tenant_id', 'points'])
        .execute();
      expect(reservations.map((r) => [r.tenant_id, Number(r.points)])).toEqual([[A, 30]]);
    } finally {
      await db.destroy();
    }
    const day = { period: 'daily' as const, key: '2026-11-25', from: range.from, to: range.to };
    expect(await b.budgets.reconcile([day])).toEqual([]);
  });

  it('cache, alerts sent, unfurls and shortcut batches are per tenant', async () => {
    const store = await fresh(engine);
    const a = store.forTenant(A);
    const b = store.forTenant(B);
    await a.cache.set('item:1', '{"a":1}');
    expect(await b.cache.get('item:1', new Date(0))).toBeNull();
    await b.cache.set('item:1', '{"b":1}');
    expect((await a.cache.get('item:1', new Date(0)))?.valueJson).toBe('{"a":1}');
    await b.cache.clear();
    expect((await a.cache.get('item:1', new Date(0)))?.valueJson).toBe('{"a":1}');

    expect(await a.alertsSent.claim('budget:day', Number.POSITIVE_INFINITY)).toBe(true);
    expect(await b.alertsSent.claim('budget:day', Number.POSITIVE_INFINITY)).toBe(true);
    expect(await a.alertsSent.claim('budget:day', Number.POSITIVE_INFINITY)).toBe(false);
    expect((await b.alertsSent.recent('budget:', 5)).length).toBe(1);

    const auto = {
      channelId: 'C1234',
      itemId: '42',
      userId: 'U1',
      since: new Date(0),
      day: '2026-11-25',
      cap: 1,
    };
    expect((await a.unfurls.beginAuto(auto)).started).toBe(true);
    expect(await b.unfurls.autoUsed('C1234', '2026-11-25')).toBe(0);
    expect(await b.unfurls.recent('C1234', '42', new Date(0))).toEqual([]);
    expect((await b.unfurls.beginAuto(auto)).started).toBe(true);
    expect(await a.unfurls.beginAuto(auto)).toMatchObject({ started: false, reason: 'busy' });

    const batch = await a.shortcutBatches.create({
      userId: 'U1',
      kind: 'items',
      channelId: 'C1234',
      threadTs: null,
      payloadJson: '[]',
      ttlMs: MINUTE,
    });
    expect(await b.shortcutBatches.get(batch.id)).toBeNull();
    expect(await b.shortcutBatches.claim(batch.id, 'U1')).toMatchObject({ ok: false, reason: 'not_found' });
    expect((await a.shortcutBatches.claim(batch.id, 'U1')).ok).toBe(true);
  });

  it("digests and alerts of A are not B's; the cross-tenant readers name each tenant", async () => {
    const store = await fresh(engine);
    const a = store.forTenant(A);
    const b = store.forTenant(B);
    const digest = await a.digests.add({
      ownerId: '2200001002',
      shopLabel: 'snacks',
      channelId: 'C1234',
      localTime: '09:00',
      timeZone: 'Asia/Shanghai',
      createdBy: 'UA',
    });
    expect(digest.tenantId).toBe(A);
    expect(await b.digests.get(digest.id)).toBeNull();
    expect(await b.digests.list()).toEqual([]);
    expect(await b.digests.remove(digest.id, 'UB')).toBe(false);
    const claim = await a.digests.claimScheduled(
      {
        subscriptionId: digest.id,
        localDate: '2026-11-25',
        windowStart: new Date(T0 - 1440 * MINUTE),
        windowEnd: new Date(T0),
        requestedBy: null,
      },
      lease('i1'),
    );
    expect(claim.claimed).toBe(true);
    expect(claim.run.tenantId).toBe(A);
    expect(await b.digests.run(claim.run.id)).toBeNull();
    expect(await b.digests.renew(claim.run.id, { ...lease('i1'), epoch: claim.run.epoch })).toBe(false);
    expect(
      await b.digestPages.record(
        claim.run.id,
        { owner: 'i1', epoch: claim.run.epoch },
        {
          window: 0,
          page: 0,
          totalPages: 1,
          ordersJson: '[]',
          orderCount: 0,
          points: 5,
        },
      ),
    ).toBe(false);

    const alert = await a.alerts.add(makeNewAlertSubscription());
    const alertB = await b.alerts.add(makeNewAlertSubscription({ channelId: 'C9999' }));
    expect(await b.alerts.get(alert.id)).toBeNull();
    expect((await b.alerts.list()).map((s) => s.id)).toEqual([alertB.id]);
    const check = await a.alerts.claimCheck(
      { subscriptionId: alert.id, slotAt: new Date(T0), localDate: '2026-11-25' },
      lease('i1'),
    );
    expect(check.claimed).toBe(true);
    expect(await b.alerts.check(check.check.id)).toBeNull();
    expect(await b.alerts.openChecks()).toEqual([]);
    await b.alerts.approveDay(alert.id, '2026-11-25', 'UB', new Date(T0));
    expect(await a.alerts.approvedOn(alert.id, '2026-11-25')).toBeNull();

    expect((await store.tenants.digestSubscriptions()).map((s) => [s.id, s.tenantId])).toEqual([
      [digest.id, A],
    ]);
    expect((await store.tenants.alertSubscriptions()).map((s) => s.tenantId).sort()).toEqual([B, A].sort());
    expect((await store.tenants.openAlertChecks()).map((c) => [c.id, c.tenantId])).toEqual([
      [check.check.id, A],
    ]);
    expect(await store.tenants.list()).toEqual([A, B].sort());
  });

  it('adopt moves every row of the single tenant to the first installed one; the target keeps its own keys', async () => {
    const store = await fresh(engine);
    await store.settings.set('shops', { snacks: '2200001002' }, 'U1');
    await store.settings.set('admins', ['U1'], 'U1');
    await store.ledger.record(charge('s:1', 20));
    await store.cache.set('item:1', '{}');
    const a = store.forTenant(A);
    await a.settings.set('admins', ['UINSTALLER'], 'UINSTALLER');
    await a.ledger.record(charge('a:1', 5));
    const moved = await store.tenants.adopt(SINGLE_TENANT, A);
    expect(moved).toBeGreaterThan(0);
    expect(await store.settings.get('shops')).toBeNull();
    expect(await store.ledger.totals(range)).toEqual({ points: 0, quotaCalls: 0, calls: 0 });
    expect(await a.settings.get('shops')).toEqual({ snacks: '2200001002' });
    expect(await a.settings.get('admins')).toEqual(['UINSTALLER']);
    expect((await a.ledger.totals(range)).points).toBe(25);
    expect((await a.cache.get('item:1', new Date(0)))?.valueJson).toBe('{}');
    // The counters moved and were added together: the caps still count what was spent.
    const [use] = await a.budgets.uses([workspaceDay(1000)]);
    expect(use?.spent).toBe(25);
    expect(await store.tenants.list()).toEqual([A]);
  });

  it('erase deletes every row of one tenant (read from the tables) and leaves the others', async () => {
    const store = await fresh(engine);
    for (const [t, s] of [
      [A, store.forTenant(A)],
      [B, store.forTenant(B)],
    ] as const) {
      await s.settings.set('admins', [t], 'U1');
      await s.ledger.record(charge(`${t}:1`, 3));
      await s.cache.set('k', '{}');
      await s.prefs.setConfirmThreshold('U1', 1);
      await s.alerts.add(makeNewAlertSubscription());
    }
    expect(await store.tenants.erase(A)).toBeGreaterThan(0);
    const db = await rawDb(databases.at(-1) as TestDatabase);
    try {
      for (const table of TENANT_TABLES) {
        const { rows } = await sql<{
          n: number;
        }>`SELECT COUNT(*) AS n FROM ${sql.table(table)} WHERE tenant_id = ${A}`.execute(db);
        expect([table, Number(rows[0]?.n)]).toEqual([table, 0]);
      }
    } finally {
      await db.destroy();
    }
    expect(await store.forTenant(B).settings.get('admins')).toEqual([B]);
    expect((await store.forTenant(B).ledger.totals(range)).points).toBe(3);
    expect(await store.tenants.list()).toEqual([B]);
  });
});

/** A raw Kysely on the test database, to read the tables themselves. */
async function rawDb(d: TestDatabase): Promise<Kysely<Schema>> {
  if (d.engine === 'sqlite')
    return new Kysely<Schema>({
      dialect: new SqliteDialect({ database: new Database(d.options.path as string) }),
    });
  const { postgresDialect } = await import('../../src/store/postgres-dialect.js');
  return new Kysely<Schema>({
    dialect: postgresDialect(d.options.url as string, {
      poolMax: 1,
      connectTimeoutMs: 3000,
      queryTimeoutMs: 10_000,
    }),
  });
}

describe('migration 13 (workflow steps)', () => {
  it("keeps every tenant's counters under migration 12's key and adds the 'step' scope", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-steps-'));
    try {
      const path = join(dir, 'old.db');
      const old = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(path) }) });
      // Every migration before the one that added the step scope.
      await migrate(old, 'sqlite', migrationsBefore("'channel', 'step'"));
      await expect(
        sql`INSERT INTO spend_counters (tenant_id, scope, subject, period, period_key, spent, reserved) VALUES (${A}, 'step', 'lookup_item', 'daily', '2026-11-25', 1, 0)`.execute(
          old,
        ),
      ).rejects.toThrow(/CHECK/);
      for (const [tenant, spent] of [
        [A, 40],
        [B, 7],
      ] as const)
        await sql`INSERT INTO spend_counters (tenant_id, scope, subject, period, period_key, spent, reserved) VALUES (${tenant}, 'workspace', '*', 'daily', '2026-11-25', ${spent}, 0)`.execute(
          old,
        );
      await old.destroy();
      const store = await openStore({ path, clock });
      try {
        expect((await store.forTenant(A).budgets.uses([workspaceDay(100)]))[0]?.spent).toBe(40);
        expect((await store.forTenant(B).budgets.uses([workspaceDay(100)]))[0]?.spent).toBe(7);
        const stepDay: CapLimit = { ...workspaceDay(100), scope: 'step', subject: 'lookup_item' };
        const r = await store
          .forTenant(A)
          .budgets.reserve({ userId: null, points: 5, caps: [stepDay], ttlMs: MINUTE });
        expect(r.ok).toBe(true);
        // Same scope, subject and period in two tenants: two rows (tenant first in the key).
        expect(
          (
            await store
              .forTenant(B)
              .budgets.reserve({ userId: null, points: 100, caps: [stepDay], ttlMs: MINUTE })
          ).ok,
        ).toBe(true);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('migration 12', () => {
  it("gives the rows of a database from before tenants to the single tenant ''", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-tenants-'));
    try {
      const path = join(dir, 'old.db');
      const old = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(path) }) });
      // Every migration before the one that brought tenants.
      await migrate(old, 'sqlite', migrationsBefore('ADD COLUMN tenant_id'));
      await sql`INSERT INTO settings (key, value_json, updated_at, updated_by) VALUES ('admins', '["U1"]', 1, 'U1')`.execute(
        old,
      );
      await sql`INSERT INTO spend_counters (scope, subject, period, period_key, spent, reserved) VALUES ('workspace', '*', 'daily', '2026-11-25', 40, 0)`.execute(
        old,
      );
      await old.destroy();
      const store = await openStore({ path, clock });
      try {
        expect(await store.settings.get('admins')).toEqual(['U1']);
        const [use] = await store.budgets.uses([workspaceDay(100)]);
        expect(use?.spent).toBe(40);
        expect(await store.forTenant(A).settings.get('admins')).toBeNull();
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
