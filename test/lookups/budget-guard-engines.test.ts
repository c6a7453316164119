/**
 * The budget guard over a real store of each engine (CONVENTIONS 13): one judgement of a
 * reservation, the store's (issue 33 finding 14), and channel caps counted and reserved like the
 * others (finding 15).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createBudgetGuard } from '../../src/lookups/budgets.js';
import { type Budgets, budgetsSchema } from '../../src/lookups/settings.js';
import { DEFAULT_BUDGET_ZONE, periodKeys } from '../../src/store/periods.js';
import type { CapLimit, Store } from '../../src/store/store.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const NOW = new Date('2026-11-20T04:00:00Z');
const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

describe.each(ENGINES)('the budget guard on %s', (engine) => {
  async function rig(budgets: Partial<Budgets>) {
    const db = await testDatabase(engine);
    databases.push(db);
    const store: Store = await db.open({ clock: { now: () => NOW.getTime() } });
    const full = budgetsSchema.parse(budgets);
    const guard = createBudgetGuard({
      reservations: store.budgets,
      budgets: async () => full,
      now: () => NOW,
    });
    let n = 0;
    const spend = (points: number, fields: { userId?: string | null; channelId?: string | null } = {}) =>
      store.ledger.record(
        ledgerEntry({ chargeId: `spend-${++n}`, at: NOW, userId: 'U1', channelId: 'C1', points, ...fields }),
      );
    const counter = async (scope: CapLimit['scope'], subject: string) => {
      const key = periodKeys(NOW, DEFAULT_BUDGET_ZONE).daily;
      const [use] = await store.budgets.uses([{ scope, subject, period: 'daily', key, cap: 0 }]);
      return use?.spent ?? 0;
    };
    return { store, guard, spend, counter };
  }

  it('a reservation the store grants within its rounding slack is reported granted, held, and released once', async () => {
    // 19 charges of 0.1 point add up to 1.9000000000000006 in floating point: 0.1 more is
    // 2.0000000000000004, over a cap of 2 by less than the store's slack, so the store grants it.
    const { guard, spend, counter } = await rig({ workspace: { daily: 2, monthly: null } });
    for (let i = 0; i < 19; i++) await spend(0.1);
    const spent = await counter('workspace', '*');
    expect(spent).toBeGreaterThan(1.9);
    expect(spent + 0.1).toBeGreaterThan(2);

    const granted = await guard.reserve('U1', 0.1);
    expect(granted.ok).toBe(true);
    expect(granted.held.id).not.toBeNull();
    expect(await counter('workspace', '*')).toBeCloseTo(2, 9);
    await granted.held.release();
    expect(await counter('workspace', '*')).toBeCloseTo(1.9, 9);

    // A real refusal holds nothing: the counter is as it was.
    const refused = await guard.reserve('U1', 0.2);
    expect(refused).toMatchObject({ ok: false, exceeded: { scope: 'workspace', period: 'daily', cap: 2 } });
    expect(refused.held.id).toBeNull();
    expect(await counter('workspace', '*')).toBeCloseTo(1.9, 9);
  });

  it('a channel cap counts every charge made in its channel, reserved before the call like the others', async () => {
    const { guard, spend, counter } = await rig({ channels: { C1: { daily: 10, monthly: null } } });
    await spend(6, { userId: 'U1', channelId: 'C1' });
    await spend(6, { userId: 'U2', channelId: 'C2' });
    expect(await counter('channel', 'C1')).toBe(6);

    // Another person in the capped channel: refused with the channel's figures.
    expect(await guard.check('U2', 5, 'C1')).toEqual({
      ok: false,
      exceeded: { scope: 'channel', channelId: 'C1', period: 'daily', cap: 10, spent: 6 },
      wanted: 5,
      warnings: [],
    });
    // The same person in another channel, and work with no channel: not capped by C1.
    expect((await guard.check('U2', 5, 'C2')).ok).toBe(true);
    expect((await guard.check(null, 5)).ok).toBe(true);

    // Reserved atomically: two reservations of 4 in C1 cannot both pass the 4 left.
    const first = await guard.reserve('U1', 4, { channelId: 'C1' });
    const second = await guard.reserve('U2', 4, { channelId: 'C1' });
    expect(first.ok).toBe(true);
    expect(second).toMatchObject({ ok: false, exceeded: { scope: 'channel', channelId: 'C1', spent: 10 } });
    expect(await counter('channel', 'C1')).toBe(10);
    await first.held.release();
    expect(await counter('channel', 'C1')).toBe(6);
    expect(await guard.figures('U1', 'C1')).toEqual([
      { scope: 'channel', channelId: 'C1', period: 'daily', cap: 10, spent: 6 },
    ]);
  });
});
