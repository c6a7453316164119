/**
 * Budget periods are local days and months of the configured zone (the marketplaces' Asia/Shanghai
 * by default; a zone with daylight saving has 23- and 25-hour days), and the guard checks every cap
 * against the ledger plus the points of calls in flight.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createBudgetGuard, periodStarts } from '../../src/lookups/budgets.js';
import { type Budgets, budgetsSchema } from '../../src/lookups/settings.js';
import { openStore } from '../../src/store/engine.js';
import type { Store } from '../../src/store/store.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';

const HOUR = 3_600_000;
const at = (iso: string) => new Date(iso);

describe('periodStarts: Asia/Shanghai (UTC+8, no daylight saving)', () => {
  it('the local day starts at 16:00 UTC the day before', async () => {
    expect(periodStarts(at('2026-11-20T04:00:00Z'), 'Asia/Shanghai')).toEqual({
      day: at('2026-11-19T16:00:00Z'),
      nextDay: at('2026-11-20T16:00:00Z'),
      month: at('2026-10-31T16:00:00Z'),
      nextMonth: at('2026-11-30T16:00:00Z'),
    });
  });

  it('the last second before local midnight is still that day; midnight starts the next', async () => {
    expect(periodStarts(at('2026-11-20T15:59:59Z'), 'Asia/Shanghai').day).toEqual(at('2026-11-19T16:00:00Z'));
    expect(periodStarts(at('2026-11-20T16:00:00Z'), 'Asia/Shanghai').day).toEqual(at('2026-11-20T16:00:00Z'));
  });

  it('UTC evening of the last day of a month is already the next local month (and year)', async () => {
    expect(periodStarts(at('2026-12-31T17:00:00Z'), 'Asia/Shanghai')).toEqual({
      day: at('2026-12-31T16:00:00Z'),
      nextDay: at('2027-01-01T16:00:00Z'),
      month: at('2026-12-31T16:00:00Z'),
      nextMonth: at('2027-01-31T16:00:00Z'),
    });
  });
});

describe('periodStarts: America/New_York on daylight-saving days', () => {
  it('spring forward (2026-03-08): a 23-hour day', async () => {
    const p = periodStarts(at('2026-03-08T12:00:00Z'), 'America/New_York');
    expect(p.day).toEqual(at('2026-03-08T05:00:00Z'));
    expect(p.nextDay).toEqual(at('2026-03-09T04:00:00Z'));
    expect(p.nextDay.getTime() - p.day.getTime()).toBe(23 * HOUR);
    expect(p.month).toEqual(at('2026-03-01T05:00:00Z'));
    expect(p.nextMonth).toEqual(at('2026-04-01T04:00:00Z'));
  });

  it('spring forward, just after the jump (03:30 EDT) and just before it (01:30 EST)', () => {
    expect(periodStarts(at('2026-03-08T07:30:00Z'), 'America/New_York').day).toEqual(
      at('2026-03-08T05:00:00Z'),
    );
    expect(periodStarts(at('2026-03-08T06:30:00Z'), 'America/New_York').day).toEqual(
      at('2026-03-08T05:00:00Z'),
    );
  });

  it('fall back (2026-11-01): a 25-hour day', async () => {
    const p = periodStarts(at('2026-11-01T15:00:00Z'), 'America/New_York');
    expect(p.day).toEqual(at('2026-11-01T04:00:00Z'));
    expect(p.nextDay).toEqual(at('2026-11-02T05:00:00Z'));
    expect(p.nextDay.getTime() - p.day.getTime()).toBe(25 * HOUR);
    expect(p.month).toEqual(at('2026-11-01T04:00:00Z'));
    expect(p.nextMonth).toEqual(at('2026-12-01T05:00:00Z'));
  });

  it('fall back, in the repeated hour (01:30 EDT and 01:30 EST)', () => {
    expect(periodStarts(at('2026-11-01T05:30:00Z'), 'America/New_York').day).toEqual(
      at('2026-11-01T04:00:00Z'),
    );
    expect(periodStarts(at('2026-11-01T06:30:00Z'), 'America/New_York').day).toEqual(
      at('2026-11-01T04:00:00Z'),
    );
  });

  it('late evening local time is still the local day, not the UTC one', () => {
    // 2026-03-09T03:30Z is 23:30 EDT on 03-08.
    expect(periodStarts(at('2026-03-09T03:30:00Z'), 'America/New_York').day).toEqual(
      at('2026-03-08T05:00:00Z'),
    );
  });
});

describe('createBudgetGuard', async () => {
  const NOW = at('2026-11-20T04:00:00Z');
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  async function rig(budgets: Partial<Budgets>) {
    store = await openStore({ path: ':memory:', clock: { now: () => NOW.getTime() } });
    const full = budgetsSchema.parse(budgets);
    const guard = createBudgetGuard({
      reservations: store.budgets,
      budgets: async () => full,
      now: () => NOW,
    });
    let charges = 0;
    const spend = (userId: string | null, points: number, when = NOW) =>
      store.ledger.record(
        ledgerEntry({ chargeId: `spend-${++charges}`, at: when, userId, channelId: null, points }),
      );
    return { guard, spend };
  }

  it('no caps: always ok, no warnings', async () => {
    const { guard } = await rig({});
    expect(await guard.check('U1', 1_000_000)).toEqual({ ok: true, warnings: [] });
  });

  it('refuses what would go over a cap, with the figures; exactly at the cap is allowed (with a warning)', async () => {
    const { guard, spend } = await rig({ perUser: { daily: 100, monthly: null } });
    await spend('U1', 60);
    expect(await guard.check('U1', 41)).toEqual({
      ok: false,
      exceeded: { scope: 'user', period: 'daily', cap: 100, spent: 60 },
      wanted: 41,
      warnings: [],
    });
    expect(await guard.check('U1', 40)).toEqual({
      ok: true,
      warnings: [{ scope: 'user', period: 'daily', cap: 100, spent: 60 }],
    });
  });

  it('warns from 80 %', async () => {
    const { guard, spend } = await rig({ workspace: { daily: null, monthly: 1000 } });
    await spend('U1', 700);
    expect((await guard.check('U1', 99)).warnings).toEqual([]);
    expect((await guard.check('U1', 100)).warnings).toEqual([
      { scope: 'workspace', period: 'monthly', cap: 1000, spent: 700 },
    ]);
  });

  it("a user's cap counts only their spend; the workspace cap counts everyone's", async () => {
    const { guard, spend } = await rig({
      perUser: { daily: 50, monthly: null },
      workspace: { daily: 80, monthly: null },
    });
    await spend('U1', 50);
    expect(await guard.check('U2', 20)).toMatchObject({ ok: true });
    expect(await guard.check('U2', 31)).toMatchObject({
      ok: false,
      exceeded: { scope: 'workspace', spent: 50 },
    });
    expect(await guard.check('U1', 1)).toMatchObject({ ok: false, exceeded: { scope: 'user', spent: 50 } });
  });

  it("a user's own cap replaces the per-user one", async () => {
    const { guard } = await rig({
      perUser: { daily: 10, monthly: null },
      users: { U1: { daily: 500, monthly: null } },
    });
    expect((await guard.check('U1', 100)).ok).toBe(true);
    expect((await guard.check('U2', 100)).ok).toBe(false);
  });

  it('scheduled work (no user) counts against the workspace only', async () => {
    const { guard } = await rig({ perUser: { daily: 1, monthly: null } });
    expect((await guard.check(null, 100)).ok).toBe(true);
  });

  it('spend of an earlier local day does not count against the daily cap, but does against the monthly', async () => {
    const { guard, spend } = await rig({ perUser: { daily: 100, monthly: 150 } });
    // 2026-11-19T15:00Z is 23:00 on 11-19 in Shanghai: yesterday.
    await spend('U1', 90, at('2026-11-19T15:00:00Z'));
    expect(await guard.check('U1', 60)).toMatchObject({
      ok: true,
      warnings: [{ scope: 'user', period: 'monthly', cap: 150, spent: 90 }],
    });
    expect(await guard.check('U1', 61)).toMatchObject({ ok: false, exceeded: { period: 'monthly' } });
  });

  it('reserved points of calls in flight count until released (once)', async () => {
    const { guard } = await rig({ perUser: { daily: 10, monthly: null } });
    const first = await guard.reserve('U1', 5);
    const second = await guard.reserve('U1', 5);
    expect([first.ok, second.ok]).toEqual([true, true]);
    expect(await guard.check('U1', 1)).toMatchObject({ ok: false, exceeded: { spent: 10 } });
    // A third reservation would pass the cap: refused, nothing reserved.
    expect(await guard.reserve('U1', 1)).toMatchObject({ ok: false, exceeded: { spent: 10 } });
    expect((await guard.check('U2', 10)).ok).toBe(true);
    await first.held.release();
    await first.held.release();
    expect((await guard.check('U1', 5)).ok).toBe(true);
    expect((await guard.check('U1', 6)).ok).toBe(false);
    await second.held.release();
    expect((await guard.check('U1', 10)).ok).toBe(true);
  });
});
