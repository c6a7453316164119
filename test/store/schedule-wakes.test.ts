/**
 * The due times of the one wake loop (issue 39; store/schedule-wakes.ts), on both engines: a
 * subscription added is due at once; a plan after a wake-up replaces the due time it consumed
 * only while the row still holds it, any other write keeps the earlier; `due` and `next` read
 * earliest first; `takeDue` takes each due row once, however many replicas take at once; an
 * erased tenant has none.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { makeNewAlertSubscription } from '../helpers/domain-factories.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const T0 = Date.parse('2026-11-25T02:00:00.000Z');
const A = 'T0000WAKEA';
const B = 'T0000WAKEB';
const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

async function fresh(engine: (typeof ENGINES)[number]): Promise<Store> {
  const db = await testDatabase(engine);
  databases.push(db);
  return db.open({ clock: { now: () => T0 }, encryptionKeys: [{ id: 'k1', key: randomBytes(32) }] });
}

describe.each(ENGINES)('schedule wakes (%s)', (engine) => {
  it('an added subscription is due at once; a plan after its wake-up replaces it, a stale one keeps the earlier', async () => {
    const store = await fresh(engine);
    const wakes = store.scheduleWakes;
    expect(await wakes.next()).toBeNull();
    await store.forTenant(A).alerts.add(makeNewAlertSubscription());
    expect(await wakes.due(T0, 10)).toEqual([{ tenant: A, kind: 'alert', at: 0 }]);
    // The wake-up that consumed 0 plans T0 + 1 h: replaced.
    await wakes.set(A, 'alert', T0 + 3_600_000, 0);
    expect(await wakes.due(T0, 10)).toEqual([]);
    expect(await wakes.next()).toBe(T0 + 3_600_000);
    // A plan from an older look (it consumed 0, the row moved since) never pushes it later…
    await wakes.set(A, 'alert', T0 + 7_200_000, 0);
    expect(await wakes.next()).toBe(T0 + 3_600_000);
    // …and any write without `seen` keeps the earlier of the two.
    await wakes.set(A, 'alert', T0 + 60_000);
    expect(await wakes.next()).toBe(T0 + 60_000);
    await wakes.set(A, 'alert', T0 + 120_000);
    expect(await wakes.next()).toBe(T0 + 60_000);
    // Nothing planned (Infinity) after the wake-up that consumed it: never due.
    await wakes.set(A, 'alert', Number.POSITIVE_INFINITY, T0 + 60_000);
    expect(await wakes.next()).toBeNull();
    expect(await wakes.due(Number.MAX_SAFE_INTEGER - 1, 10)).toEqual([]);
  });

  it('due and next read earliest first, at most the limit; erase removes a tenant’s rows', async () => {
    const store = await fresh(engine);
    const wakes = store.scheduleWakes;
    await wakes.set(A, 'digest', T0 + 20);
    await wakes.set(B, 'digest', T0 + 10);
    await wakes.set(B, 'alert', T0 + 30);
    expect(await wakes.next()).toBe(T0 + 10);
    expect(await wakes.due(T0 + 25, 1)).toEqual([{ tenant: B, kind: 'digest', at: T0 + 10 }]);
    expect((await wakes.due(T0 + 25, 10)).map((r) => r.tenant)).toEqual([B, A]);
    expect(await wakes.adoptMissing()).toBe(0);
    await store.tenants.erase(B);
    expect((await wakes.due(T0 + 100, 10)).map((r) => `${r.tenant}:${r.kind}`)).toEqual([`${A}:digest`]);
    // A tenant whose subscriptions all have rows adopts nothing (no row doubled, none moved).
    await store.forTenant(B).alerts.add(makeNewAlertSubscription());
    expect(await wakes.adoptMissing()).toBe(0);
    expect((await wakes.due(T0, 10)).map((r) => `${r.tenant}:${r.kind}:${r.at}`)).toEqual([`${B}:alert:0`]);
  });

  it('due rows are taken earliest first, each once: another replica taking then finds the rest; the plan after the wake-up replaces a row; a replica that dies leaves it due again', async () => {
    const store = await fresh(engine);
    const wakes = store.scheduleWakes;
    await wakes.set(A, 'digest', T0 - 1000);
    await wakes.set(B, 'digest', T0 - 2000);
    await wakes.set(B, 'alert', T0 + 1000);
    const taken = T0 + 30_000;
    expect(await wakes.takeDue(T0, 1, taken)).toEqual([{ tenant: B, kind: 'digest' }]);
    // A second replica a moment later: the row left, not the one taken.
    expect(await wakes.takeDue(T0, 5, taken + 5)).toEqual([{ tenant: A, kind: 'digest' }]);
    expect(await wakes.takeDue(T0, 5, taken)).toEqual([]);
    expect(await wakes.due(T0, 10)).toEqual([]);
    // Its holder died before planning: due again once the take runs out, for one replica.
    expect(await wakes.due(taken, 10)).toEqual([
      { tenant: B, kind: 'alert', at: T0 + 1000 },
      { tenant: B, kind: 'digest', at: taken },
    ]);
    // The plan after the wake-up (it consumed the taken value) replaces it, later or not.
    await wakes.set(B, 'digest', T0 + 3_600_000, taken);
    await wakes.set(A, 'digest', T0 + 3_600_000, taken + 5);
    expect(await wakes.next()).toBe(T0 + 1000);
  });

  it('replicas taking a burst at once take each due row once between them', async () => {
    const store = await fresh(engine);
    const wakes = store.scheduleWakes;
    const tenants = Array.from({ length: 60 }, (_, i) => `T0000BURST${String(i).padStart(2, '0')}`);
    for (const tenant of tenants) await wakes.set(tenant, 'digest', T0);
    const replica = async () => {
      const mine: string[] = [];
      for (;;) {
        const rows = await wakes.takeDue(T0, 4, T0 + 30_000);
        if (rows.length === 0) return mine;
        mine.push(...rows.map((r) => r.tenant));
      }
    };
    const [a, b, c] = await Promise.all([replica(), replica(), replica()]);
    const all = [...(a ?? []), ...(b ?? []), ...(c ?? [])];
    expect(all.sort()).toEqual(tenants);
  });

  it('a workspace set aside as never due (it could not be served) is due at once when it is installed again', async () => {
    const store = await fresh(engine);
    const wakes = store.scheduleWakes;
    await wakes.set(A, 'alert', T0 - 10);
    await wakes.set(A, 'alert', Number.POSITIVE_INFINITY, T0 - 10);
    await wakes.set(B, 'alert', T0 + 60_000);
    expect(await wakes.due(T0 + 120_000, 10)).toEqual([{ tenant: B, kind: 'alert', at: T0 + 60_000 }]);
    for (const tenant of [A, B])
      await store.installations.save({
        tenant,
        enterpriseId: null,
        enterpriseName: null,
        teamId: tenant,
        teamName: tenant,
        isEnterpriseInstall: false,
        appId: 'A1',
        botId: 'B1',
        botUserId: 'UB1',
        botScopes: ['commands'],
        botToken: 'xoxb-installed-again',
        botRefreshToken: null,
        botExpiresAt: null,
        installerUserId: 'U1',
      });
    // A is looked at now; B keeps its due time.
    expect(await wakes.due(T0, 10)).toEqual([{ tenant: A, kind: 'alert', at: 0 }]);
    expect(await wakes.next()).toBe(0);
    expect((await wakes.due(T0 + 120_000, 10)).map((r) => r.tenant)).toEqual([A, B]);
  });
});

describe('schedule wakes (postgres): a row being written when it is taken', () => {
  it('is skipped by a take, and taken by a take that waits for the write, if it is still due then', async () => {
    const db = await testDatabase('postgres');
    databases.push(db);
    const store = await db.open({
      clock: { now: () => T0 },
      encryptionKeys: [{ id: 'k1', key: randomBytes(32) }],
    });
    const wakes = store.scheduleWakes;
    await wakes.set(A, 'alert', 0);
    // A plan's write of the same row, still open (it keeps the earlier due time).
    const writer = new pg.Client({ connectionString: db.options.url ?? '' });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`UPDATE schedule_wakes SET due_at = LEAST(due_at, $1) WHERE tenant_id = $2`, [
        T0,
        A,
      ]);
      expect(await wakes.takeDue(T0, 5, T0 + 30_000)).toEqual([]);
      let waited: { tenant: string; kind: string }[] | null = null;
      const waiting = wakes.takeDue(T0, 5, T0 + 30_000, { waitForLocked: true }).then((rows) => {
        waited = rows;
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(waited).toBeNull();
      await writer.query('COMMIT');
      await waiting;
      expect(waited).toEqual([{ tenant: A, kind: 'alert' }]);
      expect(await wakes.next()).toBe(T0 + 30_000);
    } finally {
      await writer.end();
    }
  });
});
