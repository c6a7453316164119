/**
 * The database watch (src/store/database-watch.ts) on a clock moved by hand: the skew against the
 * database's clock and its budget, a look too slow to tell, a suspend seen between looks, and a
 * schema migrated past this build (by an online or an offline step). Then Store.probe on both
 * engines: one look at the database's clock and schema version.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { createDatabaseWatch } from '../../src/store/database-watch.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const T0 = Date.parse('2026-11-20T01:00:00Z');
const KNOWN = 20;

/** A hand clock (this process's), and the database as the watch sees it. */
function rig(options: { budget?: number } = {}) {
  let now = T0;
  /** The wall clock minus this process's monotonic one: moves on a suspend or a wall step. */
  let wallAhead = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let id = 0;
  const clock: Clock = {
    now: () => now,
    setTimeout(fn, ms) {
      id += 1;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
  };
  const database = {
    skewMs: 0,
    roundTripMs: 2,
    version: KNOWN,
    compatibleFrom: null as number | null,
    looks: 0,
  };
  const logs: { level: string; msg: string }[] = [];
  const watch = createDatabaseWatch({
    store: {
      async probe() {
        database.looks += 1;
        const asked = now;
        now += database.roundTripMs;
        return { nowMs: (asked + now) / 2 + database.skewMs, schemaVersion: database.version };
      },
      schemaCompatibleFrom: async () => database.compatibleFrom,
    },
    knownVersion: KNOWN,
    skewBudgetMs: options.budget ?? 500,
    clock,
    wallNow: () => now + wallAhead,
    monotonicNow: () => now,
    everyMs: 5_000,
    logger: {
      info: (_o, msg) => void logs.push({ level: 'info', msg }),
      error: (_o, msg) => void logs.push({ level: 'error', msg }),
    },
  });
  return {
    watch,
    database,
    logs,
    /** Time passes with the timers run (each look settled before the next). */
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = [...timers.entries()].sort((a, b) => a[1].at - b[1].at)[0];
        if (!next || next[1].at > end) break;
        timers.delete(next[0]);
        now = Math.max(now, next[1].at);
        next[1].fn();
        for (let i = 0; i < 10; i++) await Promise.resolve();
      }
      now = end;
    },
    /** The host slept `ms`: the wall clock moved on, this process's clock and timers did not. */
    suspend(ms: number) {
      wallAhead += ms;
    },
  };
}

describe('database watch', () => {
  it('a clock within the budget takes paid work; 2 s off refuses it, with the skew and the budget, logged once', async () => {
    const r = rig();
    r.database.skewMs = 400;
    await r.watch.check();
    expect(r.watch.refusal()).toBeNull();
    expect(r.watch.state()).toMatchObject({ skewMs: 400, roundTripMs: 2, budgetMs: 500 });
    r.watch.start();
    // The database's clock is 2 s behind this replica's: this one runs ahead.
    r.database.skewMs = -2_000;
    await r.advance(5_000);
    expect(r.watch.refusal()).toMatchObject({ reason: 'clock_skew', skewMs: -2_000, budgetMs: 500 });
    expect(r.watch.refusal()?.problem).toContain("this replica's clock is 2000 ms ahead of the database's");
    await r.advance(10_000);
    expect(r.logs.filter((l) => l.level === 'error')).toHaveLength(1);
    // Put right (the host's time corrected and the replica restarted): taken up again, and said.
    r.database.skewMs = 10;
    await r.advance(5_000);
    expect(r.watch.refusal()).toBeNull();
    expect(r.logs.at(-1)).toMatchObject({
      level: 'info',
      msg: 'paid work resumed: the database agrees again',
    });
    r.watch.stop();
  });

  it('a look whose round trip is longer than the budget tells nothing: the last skew measured stands', async () => {
    const r = rig();
    r.database.skewMs = 100;
    await r.watch.check();
    r.database.skewMs = 5_000;
    r.database.roundTripMs = 800;
    await r.watch.check();
    expect(r.watch.state()).toMatchObject({ skewMs: 100, roundTripMs: 2 });
    expect(r.watch.refusal()).toBeNull();
  });

  it('a suspend between looks stops paid work at once, before the next look; the look then shows the clock behind, and it stays refused', async () => {
    const r = rig();
    await r.watch.check();
    r.watch.start();
    const looks = r.database.looks;
    // Five minutes asleep: the wall clock (and the database's) moved on, this process's did not.
    r.suspend(5 * 60_000);
    r.database.skewMs = 5 * 60_000;
    expect(r.watch.refusal()).toMatchObject({ reason: 'clock_skew', skewMs: null });
    expect(r.watch.refusal()?.problem).toContain('a suspend, or a clock step');
    // Asked once more at once (not once per call).
    r.watch.refusal();
    await r.advance(0);
    expect(r.database.looks).toBe(looks + 1);
    expect(r.watch.refusal()).toMatchObject({ reason: 'clock_skew', skewMs: 5 * 60_000 });
    expect(r.watch.refusal()?.problem).toContain('behind the database');
    r.watch.stop();
  });

  it('a step of the wall clock alone (this process still agrees with the database) clears at the next look', async () => {
    const r = rig();
    await r.watch.check();
    r.watch.start();
    r.suspend(3_000);
    expect(r.watch.refusal()?.reason).toBe('clock_skew');
    await r.advance(0);
    expect(r.watch.refusal()).toBeNull();
    r.watch.stop();
  });

  it('a schema migrated past this build: an online step is lived with, an offline one (or one that recorded nothing) refuses paid work', async () => {
    const r = rig();
    r.database.version = KNOWN + 1;
    r.database.compatibleFrom = KNOWN - 3;
    await r.watch.check();
    expect(r.watch.refusal()).toBeNull();
    expect(r.watch.state().schema).toEqual({ known: KNOWN, found: KNOWN + 1, compatibleFrom: KNOWN - 3 });
    r.database.version = KNOWN + 2;
    r.database.compatibleFrom = KNOWN + 2;
    await r.watch.check();
    expect(r.watch.refusal()).toMatchObject({ reason: 'schema_newer', found: KNOWN + 2, known: KNOWN });
    expect(r.watch.refusal()?.problem).toContain('replace it with the new build');
    r.database.compatibleFrom = null;
    await r.watch.check();
    expect(r.watch.refusal()?.reason).toBe('schema_newer');
  });
});

const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

describe.each(ENGINES)('Store.probe on %s', (engine) => {
  it("reads the lease clock and the schema version in one look; PostgreSQL's clock is the database's, whatever this process's says", async () => {
    const db = await testDatabase(engine);
    databases.push(db);
    // This process's clock 10 minutes ahead.
    const ahead = 10 * 60_000;
    const store = await db.open({ clock: { now: () => Date.now() + ahead }, leaseClock: 'database' });
    const before = Date.now();
    const { nowMs, schemaVersion } = await store.probe();
    const after = Date.now();
    expect(schemaVersion).toBe(MIGRATIONS.length);
    // SQLite: the one process's clock; PostgreSQL: its own.
    const expected = engine === 'sqlite' ? ahead : 0;
    expect(nowMs).toBeGreaterThanOrEqual(before + expected - 5);
    expect(nowMs).toBeLessThanOrEqual(after + expected + 5);
    // Migrated by this build: it records that builds must know its last offline step.
    expect(await store.schemaCompatibleFrom()).toBe(
      MIGRATIONS.length - [...MIGRATIONS].reverse().findIndex((m) => m.rollout === 'offline'),
    );
  });
});
