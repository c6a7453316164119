/**
 * The Store contract (src/store/store.ts), once, run against both engines (CONVENTIONS 13):
 * SQLite and PostgreSQL, each on a fresh database (test/helpers/store-engines.ts; the PostgreSQL
 * server is started by the run's globalSetup). Engine-only cases sit at the end.
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { LookupRequest, Quote } from '../../src/lookups/types.js';
import { openStore } from '../../src/store/engine.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import {
  forPostgres,
  MIGRATIONS,
  type Migration,
  migrate,
  StoreSchemaTooNewError,
} from '../../src/store/migrations.js';
import type { Schema } from '../../src/store/schema.js';
import {
  type CapLimit,
  type Lease,
  type NewDigestRun,
  type NewLedgerEntry,
  type NewPendingLookup,
  POST_SETTLE_MS,
  type Store,
} from '../../src/store/store.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import { ENGINES, type EngineName, type TestDatabase, testDatabase } from '../helpers/store-engines.js';
import { type ClaimRaceInput, type ClaimRaceResults, runContender } from './claim-race.js';
import type { ClaimRaceMessage } from './claim-race-worker.js';

const T0 = Date.parse('2025-03-01T09:00:00.000Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** A clock that moves only when told to. */
function manualClock(start = T0) {
  let t = start;
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
    set(ms: number) {
      t = ms;
    },
  };
}

const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

/** A fresh database of `engine` (disposed after the test). */
async function freshDatabase(engine: EngineName): Promise<TestDatabase> {
  const db = await testDatabase(engine);
  databases.push(db);
  return db;
}

const ordersRequest: LookupRequest = {
  kind: 'orders',
  ownerId: 'S100',
  page: 1,
  pageSize: 20,
  filters: { startTime: new Date('2025-02-28T00:00:00.000Z'), remarkTag: 2 },
};

const ordersQuote: Quote = {
  lines: [
    {
      operation: 'paging-orders',
      edition: 1,
      calls: 1,
      unit: 'points',
      configuredPoints: 10,
      lastSeenPoints: null,
    },
  ],
  totalPoints: 10,
  quotaCalls: 0,
};

function newPending(overrides: Partial<NewPendingLookup> = {}): NewPendingLookup {
  return {
    userId: 'U1234',
    channelId: 'C1234',
    teamId: 'T1234',
    request: ordersRequest,
    quote: ordersQuote,
    summary: 'Orders of shop S100, page 1',
    responseUrl: 'https://hooks.slack.test/actions/1',
    ttlMs: 5 * MINUTE,
    ...overrides,
  };
}

let charges = 0;
function entry(overrides: Partial<NewLedgerEntry> = {}): NewLedgerEntry {
  return ledgerEntry({
    chargeId: `test-charge-${++charges}`,
    at: new Date(T0),
    operation: 'platdybw',
    ...overrides,
  });
}

const DT0 = Date.parse('2026-11-20T01:00:00Z');
const fixedClock = { now: () => new Date(DT0) };
/** A test clock of Dates as the store's Clock (epoch ms). */
/** This process in claim records (store.ts ClaimHolder). */
const HOLDER = { instanceId: 'instance-a', leaseMs: 30_000 };
/** An interrupt of a claim whose lease has run out (no grace asked). */
const LAPSED = { leaseOverForMs: 0 } as const;
const clockOf = (c: { now: () => Date }) => ({ clock: { now: () => c.now().getTime() } });
/**
 * A lease of `owner` asked at `at`: the store's clock, the lease clock here (store-engines.ts), is
 * set to it first, since the store stamps and judges leases by that clock alone.
 */
const leaseAt = (
  clock: ReturnType<typeof manualClock>,
  owner: string,
  at: number,
  ms = 10 * MINUTE,
): Lease => {
  clock.set(at);
  return { owner, ms };
};
const runInput = (subscriptionId: number, localDate = '2026-11-20'): NewDigestRun => ({
  subscriptionId,
  localDate,
  windowStart: new Date(DT0 - 24 * 60 * MINUTE),
  windowEnd: new Date(DT0),
  requestedBy: null,
});
function subscribe(store: Store) {
  return store.digests.add({
    ownerId: '2200001002',
    shopLabel: 'tea',
    channelId: 'C1234',
    localTime: '09:00',
    timeZone: 'Asia/Shanghai',
    createdBy: 'UADMIN',
  });
}

/** A workspace daily cap over [T0 - 1 h, T0 + 23 h). */
/** T0 is 2025-03-01 17:00 in the default budget zone (Asia/Shanghai). */
const workspaceCap = (cap: number): CapLimit => ({
  scope: 'workspace',
  subject: '*',
  period: 'daily',
  key: '2025-03-01',
  cap,
});
const userCap = (cap: number, userId = 'U1'): CapLimit => ({
  ...workspaceCap(cap),
  scope: 'user',
  subject: userId,
});

describe.each(ENGINES)('Store contract on %s', (engine) => {
  /** A store on a fresh database. */
  const open = async (clock: { now: () => Date } = manualClock()): Promise<Store> =>
    (await freshDatabase(engine)).open(clockOf(clock));

  describe('pending lookups', () => {
    it('creates, reads back (dates in the request revived) and claims', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const created = await store.pending.create(newPending());
      expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.state).toBe('pending');
      expect(created.expiresAt.getTime()).toBe(T0 + 5 * MINUTE);

      const got = await store.pending.get<LookupRequest, Quote>(created.id);
      expect(got).toEqual(created);
      expect(got?.request).toEqual(ordersRequest);
      const filters = got?.request.kind === 'orders' ? got.request.filters : undefined;
      expect(filters?.startTime).toBeInstanceOf(Date);
      expect(await store.pending.get('missing')).toBeNull();

      clock.advance(1000);
      const claimed = await store.pending.claim(created.id, 'U1234', HOLDER);
      expect(claimed.ok).toBe(true);
      expect(claimed.pending?.state).toBe('running');
      expect(claimed.pending?.stateChangedAt.getTime()).toBe(T0 + 1000);
    });

    it('a second claim gets already_used, with the row to answer from', async () => {
      const store = await open();
      const { id } = await store.pending.create(newPending());
      expect((await store.pending.claim(id, 'U1234', HOLDER)).ok).toBe(true);
      const again = await store.pending.claim(id, 'U1234', HOLDER);
      expect(again).toMatchObject({ ok: false, reason: 'already_used', pending: { id, state: 'running' } });

      expect(await store.pending.finish(id, 'done', '{"text":"3 orders"}')).toBe(true);
      const afterDone = await store.pending.claim(id, 'U1234', HOLDER);
      expect(afterDone).toMatchObject({ ok: false, reason: 'already_used' });
      expect(afterDone.pending?.resultJson).toBe('{"text":"3 orders"}');
    });

    it('another user gets not_yours, and the owner can still claim', async () => {
      const store = await open();
      const { id } = await store.pending.create(newPending());
      expect(await store.pending.claim(id, 'U9999', HOLDER)).toMatchObject({
        ok: false,
        reason: 'not_yours',
      });
      expect(await store.pending.cancel(id, 'U9999')).toMatchObject({ ok: false, reason: 'not_yours' });
      expect((await store.pending.claim(id, 'U1234', HOLDER)).ok).toBe(true);
    });

    it('unknown ids are not_found', async () => {
      const store = await open();
      expect(await store.pending.claim('nope', 'U1234', HOLDER)).toEqual({
        ok: false,
        reason: 'not_found',
        pending: null,
      });
      expect(await store.pending.cancel('nope', 'U1234')).toEqual({
        ok: false,
        reason: 'not_found',
        pending: null,
      });
    });

    it('expires at expiresAt: a claim then gets expired', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const { id } = await store.pending.create(newPending({ ttlMs: MINUTE }));
      clock.advance(MINUTE - 1);
      const live = await store.pending.create(newPending({ ttlMs: MINUTE }));
      clock.advance(1);
      expect(await store.pending.claim(id, 'U1234', HOLDER)).toMatchObject({
        ok: false,
        reason: 'expired',
        pending: { id },
      });
      expect((await store.pending.get(id))?.state).toBe('pending');
      expect((await store.pending.claim(live.id, 'U1234', HOLDER)).ok).toBe(true);
    });

    it('cancel, then claim → cancelled; cancel twice → cancelled', async () => {
      const store = await open();
      const { id } = await store.pending.create(newPending());
      expect(await store.pending.cancel(id, 'U1234')).toMatchObject({
        ok: true,
        pending: { state: 'cancelled' },
      });
      expect(await store.pending.claim(id, 'U1234', HOLDER)).toMatchObject({
        ok: false,
        reason: 'cancelled',
      });
      expect(await store.pending.cancel(id, 'U1234')).toMatchObject({ ok: false, reason: 'cancelled' });
    });

    it("withdraw: a claim none of whose calls was sent is cancelled (and its fence then fails); one that sent a call, another's, or an unclaimed row is not; the plan id is kept", async () => {
      const store = await open();
      const a = await store.pending.create(newPending({ planId: 'plan-1' }));
      expect(a.planId).toBe('plan-1');
      expect((await store.pending.get(a.id))?.planId).toBe('plan-1');
      expect((await store.pending.create(newPending())).planId).toBeNull();
      // Not claimed: nothing to withdraw (cancel is for that).
      expect(await store.pending.withdraw(a.id, 'U1234')).toBe(false);
      const claimed = await store.pending.claim(a.id, 'U1234', HOLDER);
      if (!claimed.ok) throw new Error('not claimed');
      expect(await store.pending.withdraw(a.id, 'U9999')).toBe(false);
      expect(await store.pending.withdraw(a.id, 'U1234')).toBe(true);
      expect((await store.pending.get(a.id))?.state).toBe('cancelled');
      expect(await store.pending.fence(a.id, HOLDER, claimed.pending.claimEpoch)).toBe(false);
      expect(await store.pending.withdraw(a.id, 'U1234')).toBe(false);

      const b = await store.pending.create(newPending());
      const held = await store.pending.claim(b.id, 'U1234', HOLDER);
      if (!held.ok) throw new Error('not claimed');
      expect(await store.pending.fence(b.id, HOLDER, held.pending.claimEpoch)).toBe(true);
      expect(await store.pending.withdraw(b.id, 'U1234')).toBe(false);
      expect((await store.pending.get(b.id))?.state).toBe('running');
    });

    it('finish moves only running rows and keeps the result', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const { id } = await store.pending.create(newPending());
      expect(await store.pending.finish(id, 'done', '{}')).toBe(false);
      await store.pending.claim(id, 'U1234', HOLDER);
      clock.advance(2000);
      expect(await store.pending.finish(id, 'failed', '{"error":"balance_low"}')).toBe(true);
      expect(await store.pending.get(id)).toMatchObject({
        state: 'failed',
        resultJson: '{"error":"balance_low"}',
        stateChangedAt: new Date(T0 + 2000),
      });
      expect(await store.pending.finish(id, 'done', null)).toBe(false);
      expect(await store.pending.finish('missing', 'done', null)).toBe(false);
    });

    it('claims carry their holder and lease; renewClaims extends them; interrupt happens once', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const older = await store.pending.create(newPending({ ttlMs: DAY }));
      const old = await store.pending.create(newPending({ ttlMs: DAY }));
      const done = await store.pending.create(newPending({ ttlMs: DAY }));
      await store.pending.create(newPending({ ttlMs: DAY })); // never claimed
      const other = { instanceId: 'instance-b', leaseMs: 10_000 };
      await store.pending.claim(older.id, 'U1234', HOLDER);
      clock.advance(10_000);
      const claimed = await store.pending.claim(old.id, 'U1234', other);
      expect(claimed.ok && claimed.pending.claimedBy).toBe('instance-b');
      expect(claimed.ok && claimed.pending.leaseExpiresAt?.getTime()).toBe(T0 + 10_000 + 10_000);
      await store.pending.claim(done.id, 'U1234', HOLDER);
      await store.pending.finish(done.id, 'done', null);

      const running = await store.pending.runningClaims();
      expect(running.map((p) => [p.id, p.claimedBy])).toEqual([
        [older.id, 'instance-a'],
        [old.id, 'instance-b'],
      ]);
      clock.advance(10_000);
      expect(await store.pending.renewClaims(HOLDER)).toBe(1);
      expect((await store.pending.get(older.id))?.leaseExpiresAt?.getTime()).toBe(T0 + 20_000 + 30_000);

      // Only while still running under the same holder: a stale decision changes nothing.
      expect(await store.pending.interrupt(old.id, 'instance-a', undefined, LAPSED)).toBeNull();
      const interrupted = await store.pending.interrupt(old.id, 'instance-b', undefined, LAPSED);
      expect(interrupted?.state).toBe('interrupted');
      expect(await store.pending.interrupt(old.id, 'instance-b', undefined, LAPSED)).toBeNull();
      const again = await store.pending.claim(old.id, 'U1234', HOLDER);
      expect(again).toMatchObject({ ok: false, reason: 'interrupted' });
      // A running claim is never pruned, however old.
      clock.advance(30 * DAY);
      await store.pending.prune(new Date(T0 + 20 * DAY));
      expect((await store.pending.get(older.id))?.state).toBe('running');
    });

    it("after an interrupt: not running, finish refused, cancel answers interrupted; renewClaims leaves another holder's lease alone", async () => {
      const clock = manualClock();
      const store = await open(clock);
      const other = { instanceId: 'instance-b', leaseMs: 10_000 };
      const theirs = await store.pending.create(newPending({ ttlMs: DAY }));
      const gone = await store.pending.create(newPending({ ttlMs: DAY }));
      await store.pending.claim(theirs.id, 'U1234', other);
      await store.pending.claim(gone.id, 'U1234', other);
      clock.advance(MINUTE);
      expect(await store.pending.renewClaims(HOLDER)).toBe(0);
      expect((await store.pending.get(theirs.id))?.leaseExpiresAt?.getTime()).toBe(T0 + 10_000);

      clock.advance(1000);
      expect(await store.pending.interrupt(gone.id, 'instance-b', undefined, LAPSED)).toMatchObject({
        id: gone.id,
        state: 'interrupted',
        stateChangedAt: new Date(T0 + MINUTE + 1000),
      });
      expect((await store.pending.runningClaims()).map((p) => p.id)).toEqual([theirs.id]);
      // The holder coming back cannot finish it, and nobody can cancel or run it again.
      expect(await store.pending.finish(gone.id, 'done', null)).toBe(false);
      expect(await store.pending.cancel(gone.id, 'U1234')).toMatchObject({
        ok: false,
        reason: 'interrupted',
      });
      expect(await store.pending.claim(gone.id, 'U1234', HOLDER)).toMatchObject({
        ok: false,
        reason: 'interrupted',
      });
    });

    it('interrupt: only a claim whose lease ran out at least the grace ago, unless its holder is certainly gone; renewClaims never revives a lease that ran out', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const other = { instanceId: 'instance-b', leaseMs: 10_000 };
      const { id } = await store.pending.create(newPending({ ttlMs: DAY }));
      const claimed = await store.pending.claim(id, 'U1234', other);
      if (!claimed.ok) throw new Error(claimed.reason);
      const epoch = claimed.pending.claimEpoch;
      // A sweeper that read the claim earlier and took it for lapsed (the holder has renewed since,
      // or its clock ran ahead) changes nothing while the lease is live.
      clock.advance(5_000);
      expect(await store.pending.interrupt(id, 'instance-b', epoch, LAPSED)).toBeNull();
      // Ran out 5 s ago, less than the grace asked for (the longest call): still not.
      clock.advance(10_000);
      expect(await store.pending.interrupt(id, 'instance-b', epoch, { leaseOverForMs: 6_000 })).toBeNull();
      // The holder coming back (a paused process) cannot revive it: no renewal, no fence.
      expect(await store.pending.renewClaims(other)).toBe(0);
      expect(await store.pending.fence(id, other, epoch)).toBe(false);
      expect((await store.pending.get(id))?.leaseExpiresAt?.getTime()).toBe(T0 + 10_000);
      clock.advance(1_000);
      expect(await store.pending.interrupt(id, 'instance-b', epoch, { leaseOverForMs: 6_000 })).toMatchObject(
        {
          state: 'interrupted',
        },
      );
      // A holder that is certainly gone (its process is known dead) needs no wait for its lease.
      const live = await store.pending.create(newPending({ ttlMs: DAY }));
      const held = await store.pending.claim(live.id, 'U1234', other);
      if (!held.ok) throw new Error(held.reason);
      expect(await store.pending.renewClaims(other)).toBe(1);
      expect(
        await store.pending.interrupt(live.id, 'instance-b', held.pending.claimEpoch, { holderGone: true }),
      ).toMatchObject({ state: 'interrupted' });
    });

    it('fence: only the holder of the claim as made (same epoch), inside its lease; it extends the lease and counts the call', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const other = { instanceId: 'instance-b', leaseMs: 10_000 };
      const { id } = await store.pending.create(newPending({ ttlMs: DAY }));
      // Not claimed yet: nobody may send.
      expect(await store.pending.fence(id, HOLDER, 1)).toBe(false);
      const claimed = await store.pending.claim(id, 'U1234', other);
      if (!claimed.ok) throw new Error(claimed.reason);
      expect(claimed.pending).toMatchObject({ claimEpoch: 1, callsSent: 0 });
      const epoch = claimed.pending.claimEpoch;
      // Another holder, or this holder naming another epoch, is refused.
      expect(await store.pending.fence(id, HOLDER, epoch)).toBe(false);
      expect(await store.pending.fence(id, other, epoch + 1)).toBe(false);
      clock.advance(9_000);
      expect(await store.pending.fence(id, other, epoch)).toBe(true);
      expect(await store.pending.get(id)).toMatchObject({
        callsSent: 1,
        leaseExpiresAt: new Date(T0 + 9_000 + 10_000),
      });
      // Its lease ran out (no renewal, no fence): the holder may no longer send, even unmarked.
      clock.advance(10_000);
      expect(await store.pending.fence(id, other, epoch)).toBe(false);
      expect((await store.pending.get(id))?.callsSent).toBe(1);
      // Interrupted (by the claim as read): never again, and the count of sent calls is kept.
      expect(await store.pending.interrupt(id, 'instance-b', epoch + 1, LAPSED)).toBeNull();
      expect(await store.pending.interrupt(id, 'instance-b', epoch, LAPSED)).toMatchObject({
        state: 'interrupted',
        callsSent: 1,
        claimEpoch: epoch,
      });
      clock.advance(-15_000);
      expect(await store.pending.fence(id, other, epoch)).toBe(false);
    });

    it('ledger chargesOf: the sums of one lookup only', async () => {
      const store = await open();
      expect(await store.ledger.chargesOf('p-1')).toEqual({ points: 0, quotaCalls: 0, calls: 0 });
      await store.ledger.record(entry({ pendingId: 'p-1', points: 5 }));
      await store.ledger.record(entry({ pendingId: 'p-1', points: 2.5, quotaCalls: 1 }));
      await store.ledger.record(entry({ pendingId: 'p-2', points: 7 }));
      await store.ledger.record(entry({ pendingId: null, points: 9 }));
      expect(await store.ledger.chargesOf('p-1')).toEqual({ points: 7.5, quotaCalls: 1, calls: 2 });
      expect(await store.ledger.chargesOf('p-2')).toEqual({ points: 7, quotaCalls: 0, calls: 1 });
    });

    it('prune deletes old finished and expired rows, never a live one', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const finished = await store.pending.create(newPending());
      await store.pending.claim(finished.id, 'U1234', HOLDER);
      await store.pending.finish(finished.id, 'done', null);
      const expired = await store.pending.create(newPending());
      const longLived = await store.pending.create(newPending({ ttlMs: 30 * DAY }));
      clock.advance(8 * DAY);
      const recent = await store.pending.create(newPending());

      expect(await store.pending.prune(new Date(T0 + DAY))).toBe(2);
      expect(await store.pending.get(finished.id)).toBeNull();
      expect(await store.pending.get(expired.id)).toBeNull();
      expect(await store.pending.get(longLived.id)).not.toBeNull();
      expect(await store.pending.get(recent.id)).not.toBeNull();
    });
  });

  describe('ledger', () => {
    const day1 = T0; // 2025-03-01
    const day2 = T0 + DAY; // 2025-03-02

    async function seeded(): Promise<Store> {
      const store = await open();
      await store.ledger.record(entry({ at: new Date(day1), userId: 'U1', points: 10 }));
      await store.ledger.record(entry({ at: new Date(day1 + 1), userId: 'U2', channelId: 'C2', points: 20 }));
      await store.ledger.record(
        entry({
          at: new Date(day1 + 2),
          userId: 'U1',
          operation: 'platiteminfo',
          edition: null,
          points: 0,
          quotaCalls: 1,
        }),
      );
      await store.ledger.record(
        entry({
          at: new Date(day2),
          userId: null,
          channelId: 'C3',
          operation: 'paging-orders',
          points: 5,
          source: 'digest',
        }),
      );
      await store.ledger.record(
        entry({ at: new Date(day2 + 1), userId: 'U1', points: 7, code: 201, outcome: 'error' }),
      );
      return store;
    }

    it('records entries with ids and lists them newest first', async () => {
      const store = await seeded();
      const all = await store.ledger.list({ from: new Date(day1), to: new Date(day2 + DAY) });
      expect(all.map((e) => e.at.getTime())).toEqual([day2 + 1, day2, day1 + 2, day1 + 1, day1]);
      expect(all[1]).toMatchObject({
        userId: null,
        operation: 'paging-orders',
        source: 'digest',
        edition: 1,
      });
      expect(new Set(all.map((e) => e.id)).size).toBe(5);

      const u1 = await store.ledger.list({
        from: new Date(day1),
        to: new Date(day2 + DAY),
        userId: 'U1',
        limit: 2,
      });
      expect(u1.map((e) => e.at.getTime())).toEqual([day2 + 1, day1 + 2]);
      // [from, to): to is exclusive
      expect(await store.ledger.list({ from: new Date(day1), to: new Date(day1 + 1) })).toHaveLength(1);
    });

    it('record returns the entry as stored', async () => {
      const store = await open();
      const recorded = await store.ledger.record(
        entry({ requestId: 'r-1', correlationId: 'c-1', pendingId: 'p-1' }),
      );
      const [listed] = await store.ledger.list({ from: new Date(T0), to: new Date(T0 + 1) });
      expect(listed).toEqual(recorded);
    });

    it('lastCharge: newest successful charge per operation and edition, null edition too', async () => {
      const store = await open();
      expect(await store.ledger.lastCharge('platdybw', 1)).toBeNull();
      await store.ledger.record(entry({ operation: 'platdybw', edition: 1, points: 10 }));
      await store.ledger.record(entry({ operation: 'platdybw', edition: 3, points: 30 }));
      await store.ledger.record(entry({ operation: 'platdybw', edition: 1, points: 12 }));
      await store.ledger.record(
        entry({ operation: 'platdybw', edition: 1, points: 99, code: 301, outcome: 'error' }),
      );
      await store.ledger.record(entry({ operation: 'get-shop-id', edition: null, points: 2.5 }));

      expect(await store.ledger.lastCharge('platdybw', 1)).toBe(12);
      expect(await store.ledger.lastCharge('platdybw', 3)).toBe(30);
      expect(await store.ledger.lastCharge('platdybw', 2)).toBeNull();
      expect(await store.ledger.lastCharge('platdybw', null)).toBeNull();
      expect(await store.ledger.lastCharge('get-shop-id', null)).toBe(2.5);
      expect(await store.ledger.lastCharge('get-shop-id', 1)).toBeNull();
    });

    it('largestCharge: the most any call of an operation and edition was charged, error answers too', async () => {
      const store = await open();
      expect(await store.ledger.largestCharge('platdybw', 1)).toBeNull();
      await store.ledger.record(entry({ operation: 'platdybw', edition: 1, points: 0, code: -1 }));
      expect(await store.ledger.largestCharge('platdybw', 1)).toBeNull();
      await store.ledger.record(entry({ operation: 'platdybw', edition: 1, points: 10 }));
      await store.ledger.record(
        entry({ operation: 'platdybw', edition: 1, points: 25, code: 202, outcome: 'error' }),
      );
      await store.ledger.record(entry({ operation: 'platdybw', edition: 1, points: 12 }));
      await store.ledger.record(entry({ operation: 'platdybw', edition: 3, points: 30 }));
      await store.ledger.record(entry({ operation: 'get-shop-id', edition: null, points: 2.5 }));

      expect(await store.ledger.largestCharge('platdybw', 1)).toBe(25);
      expect(await store.ledger.largestCharge('platdybw', 3)).toBe(30);
      expect(await store.ledger.largestCharge('platdybw', null)).toBeNull();
      expect(await store.ledger.largestCharge('get-shop-id', null)).toBe(2.5);
      expect(await store.ledger.largestCharge('get-shop-id', 1)).toBeNull();
      // Another workspace's charges are its own.
      expect(await store.forTenant('T-other').ledger.largestCharge('platdybw', 1)).toBeNull();
    });

    it('totals over a range, by user, by channel and by source', async () => {
      const store = await seeded();
      const range = { from: new Date(day1), to: new Date(day2 + DAY) };
      expect(await store.ledger.totals(range)).toEqual({ points: 42, quotaCalls: 1, calls: 5 });
      expect(await store.ledger.totals({ ...range, userId: 'U1' })).toEqual({
        points: 17,
        quotaCalls: 1,
        calls: 3,
      });
      expect(await store.ledger.totals({ ...range, channelId: 'C2' })).toEqual({
        points: 20,
        quotaCalls: 0,
        calls: 1,
      });
      expect(await store.ledger.totals({ ...range, userId: 'U1', channelId: 'C2' })).toEqual({
        points: 0,
        quotaCalls: 0,
        calls: 0,
      });
      expect(await store.ledger.totals({ from: new Date(day2), to: new Date(day2 + DAY) })).toEqual({
        points: 12,
        quotaCalls: 0,
        calls: 2,
      });
      // By source: what the digests (or the agent, issue 36) were charged.
      expect(await store.ledger.totals({ ...range, source: 'digest' })).toEqual({
        points: 5,
        quotaCalls: 0,
        calls: 1,
      });
      expect(await store.ledger.totals({ ...range, source: 'agent' })).toEqual({
        points: 0,
        quotaCalls: 0,
        calls: 0,
      });
    });

    it('groupTotals by user and operation', async () => {
      const store = await seeded();
      const range = { from: new Date(day1), to: new Date(day2 + DAY) };
      expect(await store.ledger.groupTotals('user', range)).toEqual([
        { key: 'U2', points: 20, quotaCalls: 0, calls: 1 },
        { key: 'U1', points: 17, quotaCalls: 1, calls: 3 },
        { key: null, points: 5, quotaCalls: 0, calls: 1 },
      ]);
      expect(await store.ledger.groupTotals('operation', range)).toEqual([
        { key: 'platdybw', points: 37, quotaCalls: 0, calls: 3 },
        { key: 'paging-orders', points: 5, quotaCalls: 0, calls: 1 },
        { key: 'platiteminfo', points: 0, quotaCalls: 1, calls: 1 },
      ]);
    });

    it('iterate reads entries oldest first, page by page, and the store stays usable meanwhile', async () => {
      const store = await seeded();
      const iterator = store.ledger.iterate({ from: new Date(day1 + 1), to: new Date(day2 + 1) });
      const first = await iterator.next();
      expect(first.done).toBe(false);
      expect(first.value?.at.getTime()).toBe(day1 + 1);
      // No connection is held between pages: the store answers while the iterator is open.
      expect((await store.ledger.totals({ from: new Date(day1), to: new Date(day2 + DAY) })).calls).toBe(5);
      const rest: number[] = [];
      for await (const e of iterator) rest.push(e.at.getTime());
      expect(rest).toEqual([day1 + 2, day2]);
    });

    it('iterate crosses page boundaries without losing or repeating a row (same instant too)', async () => {
      const store = await open();
      // 1,201 rows, many sharing one instant: the keyset (at, id) must order and page them exactly.
      for (let i = 0; i < 1201; i++)
        await store.ledger.record(entry({ at: new Date(T0 + Math.floor(i / 7)), points: i }));
      const seen: number[] = [];
      for await (const e of store.ledger.iterate({ from: new Date(T0), to: new Date(T0 + DAY) }))
        seen.push(e.points);
      expect(seen).toEqual(Array.from({ length: 1201 }, (_, i) => i));
    });
  });

  describe('preferences, settings and audit', () => {
    it('confirm threshold defaults to null (always ask), can be set and cleared', async () => {
      const store = await open();
      expect(await store.prefs.getConfirmThreshold('U1')).toBeNull();
      await store.prefs.setConfirmThreshold('U1', 50);
      expect(await store.prefs.getConfirmThreshold('U1')).toBe(50);
      expect(await store.prefs.getConfirmThreshold('U2')).toBeNull();
      await store.prefs.setConfirmThreshold('U1', 0);
      expect(await store.prefs.getConfirmThreshold('U1')).toBe(0);
      await store.prefs.setConfirmThreshold('U1', null);
      expect(await store.prefs.getConfirmThreshold('U1')).toBeNull();
      await expect(store.prefs.setConfirmThreshold('U1', -1)).rejects.toThrow(RangeError);
      await expect(store.prefs.setConfirmThreshold('U1', Number.NaN)).rejects.toThrow(RangeError);
    });

    it('settings set/get/delete, each change audited with its actor', async () => {
      const clock = manualClock();
      const store = await open(clock);
      expect(await store.settings.get('admins')).toBeNull();
      await store.settings.set('admins', ['U1', 'U2'], 'U1');
      clock.advance(1000);
      await store.settings.set('budget', { dailyPoints: 500, since: new Date(T0) }, 'U2');
      expect(await store.settings.get<string[]>('admins')).toEqual(['U1', 'U2']);
      expect(await store.settings.get('budget')).toEqual({ dailyPoints: 500, since: new Date(T0) });
      clock.advance(1000);
      expect(await store.settings.delete('admins', 'U2')).toBe(true);
      expect(await store.settings.delete('admins', 'U2')).toBe(false);
      expect(await store.settings.get('admins')).toBeNull();
      await expect(store.settings.set('bad', undefined, 'U1')).rejects.toThrow(TypeError);

      expect(await store.audit.list(10)).toEqual([
        { at: new Date(T0 + 2000), actorId: 'U2', action: 'settings.delete', detail: 'admins' },
        {
          at: new Date(T0 + 1000),
          actorId: 'U2',
          action: 'settings.set',
          detail: `budget = {"dailyPoints":500,"since":{"$date":${T0}}}`,
        },
        { at: new Date(T0), actorId: 'U1', action: 'settings.set', detail: 'admins = ["U1","U2"]' },
      ]);
      expect(await store.audit.list(1)).toHaveLength(1);
      await store.audit.record({ actorId: 'U3', action: 'access.grant', detail: 'U4 may spend' });
      expect((await store.audit.list(1))[0]).toMatchObject({ actorId: 'U3', action: 'access.grant' });
    });
  });

  // ---- digests (from the former digest-store suite) ------------------------------------------
  describe('digest subscriptions', () => {
    it('add, list, remove (soft, audited)', async () => {
      const store = await open(fixedClock);
      const a = await subscribe(store);
      const b = await subscribe(store);
      expect((await store.digests.list()).map((s) => s.id)).toEqual([a.id, b.id]);
      expect(await store.digests.remove(a.id, 'UADMIN')).toBe(true);
      expect(await store.digests.remove(a.id, 'UADMIN')).toBe(false);
      expect(await store.digests.get(a.id)).toBeNull();
      expect((await store.digests.list()).map((s) => s.id)).toEqual([b.id]);
      expect((await store.audit.list(10)).map((r) => r.action)).toEqual([
        'digest.remove',
        'digest.add',
        'digest.add',
      ]);
    });
  });

  describe('digest runs', () => {
    it('one scheduled run per local date; a live lease cannot be taken, an expired one can', async () => {
      const clock = manualClock(DT0);
      const store = await open(clock);
      const sub = await subscribe(store);
      const first = await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'a', DT0));
      expect(first).toMatchObject({ claimed: true, how: 'new' });
      expect(
        await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'b', DT0 + 9 * MINUTE)),
      ).toMatchObject({ claimed: false });
      // Manual runs do not count against the day.
      await store.digests.createManual(runInput(sub.id), leaseAt(clock, 'a', DT0));
      const takeover = await store.digests.claimScheduled(
        runInput(sub.id),
        leaseAt(clock, 'b', DT0 + 10 * MINUTE),
      );
      expect(takeover).toMatchObject({ claimed: true, how: 'takeover' });
      expect(takeover.run).toMatchObject({ leaseOwner: 'b', attempts: 2 });
      // The old holder can no longer renew, post or fail it.
      const id = takeover.run.id;
      const a = { owner: 'a', epoch: first.run.epoch };
      const b = { owner: 'b', epoch: takeover.run.epoch };
      expect(b.epoch).toBe(a.epoch + 1);
      expect(
        await store.digests.renew(id, { ...leaseAt(clock, 'a', DT0 + 11 * MINUTE), epoch: a.epoch }),
      ).toBe(false);
      expect(
        await store.digests.markPosting(
          id,
          { ...leaseAt(clock, 'a', DT0 + 11 * MINUTE), epoch: a.epoch },
          '{}',
        ),
      ).toBe(false);
      expect(
        await store.digests.markFailed(id, a, { error: 'x', nextAttemptAt: null, now: new Date(DT0) }),
      ).toBe(false);
      expect(
        await store.digests.markPosting(
          id,
          { ...leaseAt(clock, 'b', DT0 + 11 * MINUTE), epoch: b.epoch },
          '{"v":1}',
        ),
      ).toBe(true);
      expect(await store.digests.markPosted(id, b, '1700000000.000001', new Date(DT0 + 11 * MINUTE))).toBe(
        true,
      );
      expect(
        (await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'c', DT0 + 99 * MINUTE)))
          .claimed,
      ).toBe(false);
      expect((await store.digests.previousPosted(sub.id, '2026-11-21'))?.id).toBe(id);
      expect(await store.digests.previousPosted(sub.id, '2026-11-20')).toBeNull();
      // Another date is another run.
      expect(
        (await store.digests.claimScheduled(runInput(sub.id, '2026-11-21'), leaseAt(clock, 'c', DT0)))
          .claimed,
      ).toBe(true);
    });

    it('posted once: an unclear post is unknown until its history check, which one claimer takes in posting', async () => {
      const clock = manualClock(DT0);
      const store = await open(clock);
      const sub = await subscribe(store);
      const { run } = await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'a', DT0));
      expect(
        await store.digests.markPosting(run.id, { ...leaseAt(clock, 'a', DT0), epoch: run.epoch }, '{"v":1}'),
      ).toBe(true);
      // Only the holder records the unclear outcome.
      const unknown = { error: 'post outcome unknown', checkAt: new Date(DT0 + MINUTE), now: new Date(DT0) };
      expect(await store.digests.markUnknown(run.id, { owner: 'b', epoch: run.epoch }, unknown)).toBe(false);
      expect(await store.digests.markUnknown(run.id, { owner: 'a', epoch: run.epoch }, unknown)).toBe(true);
      expect(await store.digests.run(run.id)).toMatchObject({
        state: 'unknown',
        leaseOwner: null,
        summaryJson: '{"v":1}',
      });
      expect(
        (await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'b', DT0 + MINUTE - 1))).claimed,
      ).toBe(false);
      const verify = await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'b', DT0 + MINUTE));
      expect(verify).toMatchObject({
        claimed: true,
        how: 'verify',
        run: { state: 'posting', leaseOwner: 'b', attempts: 2 },
      });
      expect(
        (await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'c', DT0 + MINUTE))).claimed,
      ).toBe(false);
      const verifier = { owner: 'b', epoch: verify.claimed ? verify.run.epoch : -1 };
      expect(
        await store.digests.markPosted(run.id, verifier, '1795136400.000001', new Date(DT0 + MINUTE)),
      ).toBe(true);

      // A holder that stops while posting: unknown once its lease ends, checked POST_SETTLE_MS later.
      const other = await store.digests.claimScheduled(
        runInput(sub.id, '2026-11-21'),
        leaseAt(clock, 'a', DT0),
      );
      expect(
        await store.digests.markPosting(
          other.run.id,
          { ...leaseAt(clock, 'a', DT0), epoch: other.run.epoch },
          '{}',
        ),
      ).toBe(true);
      expect(
        (
          await store.digests.claimScheduled(
            runInput(sub.id, '2026-11-21'),
            leaseAt(clock, 'b', DT0 + 10 * MINUTE),
          )
        ).claimed,
      ).toBe(false);
      const left = await store.digests.run(other.run.id);
      expect(left).toMatchObject({ state: 'unknown', leaseOwner: null });
      expect(left?.nextAttemptAt?.getTime()).toBe(DT0 + 10 * MINUTE + POST_SETTLE_MS);
      expect(
        await store.digests.claimScheduled(
          runInput(sub.id, '2026-11-21'),
          leaseAt(clock, 'b', DT0 + 10 * MINUTE + POST_SETTLE_MS),
        ),
      ).toMatchObject({ claimed: true, how: 'verify' });
    });

    it('a failed run is claimed again only when its retry is due, and never once given up', async () => {
      const clock = manualClock(DT0);
      const store = await open(clock);
      const sub = await subscribe(store);
      const { run } = await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'a', DT0));
      const next = new Date(DT0 + 5 * MINUTE);
      expect(
        await store.digests.markFailed(
          run.id,
          { owner: 'a', epoch: run.epoch },
          {
            error: '302',
            nextAttemptAt: next,
            now: new Date(DT0),
          },
        ),
      ).toBe(true);
      expect(
        (await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'b', DT0 + 4 * MINUTE))).claimed,
      ).toBe(false);
      const retry = await store.digests.claimScheduled(
        runInput(sub.id),
        leaseAt(clock, 'b', DT0 + 5 * MINUTE),
      );
      expect(retry).toMatchObject({ claimed: true, how: 'retry' });
      expect(retry.run).toMatchObject({ attempts: 2, nextAttemptAt: null, lastError: '302' });
      expect(retry.run.epoch).toBe(run.epoch + 1);
      const b = { owner: 'b', epoch: retry.run.epoch };
      await store.digests.markFailed(run.id, b, { error: '302', nextAttemptAt: null, now: new Date(DT0) });
      expect(
        (await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'c', DT0 + 999 * MINUTE)))
          .claimed,
      ).toBe(false);
    });

    it('awaiting approval: one approval wins; release hands a run over at once', async () => {
      const clock = manualClock(DT0);
      const store = await open(clock);
      const sub = await subscribe(store);
      const { run } = await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'a', DT0));
      expect(
        await store.digests.awaitApproval(run.id, { owner: 'a', epoch: run.epoch }, 240, new Date(DT0)),
      ).toBe(true);
      const approved = await store.digests.claimApproved(run.id, leaseAt(clock, 'b', DT0), 'UADMIN');
      expect(approved).toMatchObject({
        state: 'running',
        requestedBy: 'UADMIN',
        estimatePoints: 240,
        epoch: run.epoch + 1,
      });
      expect(await store.digests.claimApproved(run.id, leaseAt(clock, 'c', DT0), 'UADMIN2')).toBeNull();
      expect(
        await store.digests.release(run.id, { owner: 'b', epoch: run.epoch }, new Date(DT0 + MINUTE)),
      ).toBe(false);
      expect(
        await store.digests.release(run.id, { owner: 'b', epoch: run.epoch + 1 }, new Date(DT0 + MINUTE)),
      ).toBe(true);
      expect(
        await store.digests.claimScheduled(runInput(sub.id), leaseAt(clock, 'c', DT0 + MINUTE)),
      ).toMatchObject({
        claimed: true,
        how: 'takeover',
      });
    });
  });

  // ---- events, unfurls, shortcut batches ------------------------------------------------------

  describe('events and unfurls', () => {
    it('firstSeen: an event id is new once; forgotten after keepMs', async () => {
      const clock = manualClock();
      const store = await open(clock);
      expect(await store.unfurls.firstSeen('Ev1', MINUTE)).toBe(true);
      expect(await store.unfurls.firstSeen('Ev1', MINUTE)).toBe(false);
      clock.advance(MINUTE + 1);
      expect(await store.unfurls.firstSeen('Ev2', MINUTE)).toBe(true);
      expect(await store.unfurls.firstSeen('Ev1', MINUTE)).toBe(true);
    });

    it('beginAuto: busy while one runs, capped per channel and day; abandon gives the slot back', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const input = {
        channelId: 'C1',
        itemId: '100',
        userId: 'U1',
        since: new Date(T0 - MINUTE),
        day: '2025-03-01',
        cap: 2,
      };
      const first = await store.unfurls.beginAuto(input);
      expect(first).toMatchObject({ started: true, used: 1, record: { state: 'running', auto: true } });
      expect(await store.unfurls.beginAuto(input)).toMatchObject({ started: false, reason: 'busy' });
      const second = await store.unfurls.beginAuto({ ...input, itemId: '200' });
      expect(second).toMatchObject({ started: true, used: 2 });
      expect(await store.unfurls.beginAuto({ ...input, itemId: '300' })).toEqual({
        started: false,
        reason: 'capped',
        used: 2,
      });
      if (!second.started) throw new Error('second lookup did not start');
      await store.unfurls.abandonAuto(second.record.id, input.day);
      expect(await store.unfurls.autoUsed('C1', input.day)).toBe(1);
      expect(await store.unfurls.recent('C1', '200', input.since)).toEqual([]);
      if (!first.started) throw new Error('first lookup did not start');
      await store.unfurls.finishAuto(first.record.id, 'done', '{"kind":"item"}', 'P1');
      expect(await store.unfurls.recent('C1', '100', input.since)).toMatchObject([
        { state: 'done', outcomeJson: '{"kind":"item"}', pendingId: 'P1' },
      ]);
      const offered = await store.unfurls.recordOffered({
        channelId: 'C1',
        itemId: '100',
        userId: 'U2',
        pendingId: 'P2',
      });
      expect(offered).toMatchObject({ state: 'offered', auto: false, pendingId: 'P2' });
      clock.advance(DAY);
      expect(await store.unfurls.prune(new Date(T0 + MINUTE))).toBe(3);
    });

    it('shortcut batches are claimed once, by their user, before expiry', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const input = {
        userId: 'U1',
        kind: 'items',
        channelId: 'C1',
        threadTs: '1.2',
        payloadJson: '{}',
        ttlMs: MINUTE,
      };
      const batch = await store.shortcutBatches.create(input);
      expect(await store.shortcutBatches.get(batch.id)).toEqual(batch);
      expect(await store.shortcutBatches.claim(batch.id, 'U2')).toMatchObject({
        ok: false,
        reason: 'not_yours',
      });
      expect(await store.shortcutBatches.claim(batch.id, 'U1')).toMatchObject({
        ok: true,
        batch: { state: 'used' },
      });
      expect(await store.shortcutBatches.claim(batch.id, 'U1')).toMatchObject({
        ok: false,
        reason: 'already_used',
      });
      const late = await store.shortcutBatches.create(input);
      clock.advance(MINUTE);
      expect(await store.shortcutBatches.claim(late.id, 'U1')).toMatchObject({
        ok: false,
        reason: 'expired',
      });
      expect(await store.shortcutBatches.claim('nope', 'U1')).toEqual({
        ok: false,
        reason: 'not_found',
        batch: null,
      });
    });

    it('used batches that named their process are listed until settled, and settled once', async () => {
      const clock = manualClock();
      const store = await open(clock);
      const input = {
        userId: 'U1',
        kind: 'agent',
        channelId: 'D1',
        threadTs: '1.2',
        payloadJson: '{}',
        ttlMs: MINUTE,
      };
      const confirmed = await store.shortcutBatches.create(input);
      const cancelled = await store.shortcutBatches.create(input);
      const unused = await store.shortcutBatches.create(input);
      const other = await store.shortcutBatches.create({ ...input, kind: 'items' });
      await store.shortcutBatches.claim(confirmed.id, 'U1', 'host:1:2');
      await store.shortcutBatches.claim(cancelled.id, 'U1');
      await store.shortcutBatches.claim(other.id, 'U1', 'host:1:2');
      const since = new Date(T0 - MINUTE);
      const listed = await store.shortcutBatches.unsettled('agent', since);
      expect(listed.map((l) => [l.tenantId, l.batch.id, l.batch.usedBy])).toEqual([
        [store.tenant, confirmed.id, 'host:1:2'],
      ]);
      expect(await store.shortcutBatches.unsettled('agent', new Date(T0 + MINUTE))).toEqual([]);
      expect(await store.shortcutBatches.settle(unused.id)).toBe(false);
      const both = await Promise.all([
        store.shortcutBatches.settle(confirmed.id),
        store.shortcutBatches.settle(confirmed.id),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect((await store.shortcutBatches.get(confirmed.id))?.settledAt).toEqual(new Date(T0));
      expect(await store.shortcutBatches.unsettled('agent', since)).toEqual([]);
    });
  });

  // ---- budgets, cache, alerts ----------------------------------------------------------------

  describe('budget reservations', () => {
    it('uses = ledger spend + live reservations; a reservation past a cap is refused', async () => {
      const clock = manualClock();
      const store = await open(clock);
      await store.ledger.record(entry({ at: new Date(T0), userId: 'U1', points: 30 }));
      await store.ledger.record(entry({ at: new Date(T0), userId: 'U2', points: 20 }));
      const caps = [workspaceCap(100), userCap(40)];
      expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([50, 30]);
      const r1 = await store.budgets.reserve({ userId: 'U1', points: 10, caps, ttlMs: MINUTE });
      expect(r1).toMatchObject({ ok: true });
      expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([60, 40]);
      expect(await store.budgets.reserve({ userId: 'U1', points: 1, caps, ttlMs: MINUTE })).toMatchObject({
        ok: false,
        exceeded: { scope: 'user', cap: 40, spent: 40 },
      });
      // Scheduled work counts against the workspace only.
      expect(
        await store.budgets.reserve({ userId: null, points: 40, caps: [workspaceCap(100)], ttlMs: MINUTE }),
      ).toMatchObject({ ok: true });
      if (!r1.ok) throw new Error('r1 refused');
      await store.budgets.release(r1.id);
      expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([90, 30]);
      // A reservation whose process died stops counting at its expiry: given back by prune (or
      // by the next read or reservation, which sweeps expired ones first).
      clock.advance(MINUTE);
      expect(await store.budgets.prune()).toBe(1);
      expect(await store.budgets.prune()).toBe(0);
      expect((await store.budgets.uses(caps)).map((u) => u.spent)).toEqual([50, 30]);
    });

    it('two stores (two pools) reserving against one cap at once never pass it together', async () => {
      const db = await freshDatabase(engine);
      const [a, b] = (await db.openMany(2)) as [Store, Store];
      const caps = [workspaceCap(100)];
      const attempts = Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? a : b).budgets.reserve({ userId: `U${i}`, points: 10, caps, ttlMs: 10 * MINUTE }),
      );
      const results = await Promise.all(attempts);
      expect(results.filter((r) => r.ok)).toHaveLength(10);
      expect((await a.budgets.uses(caps))[0]?.spent).toBe(100);
    });
  });

  describe('answer cache and alerts sent', () => {
    it('cache: get by key and age, overwrite, prune, clear', async () => {
      const clock = manualClock();
      const store = await open(clock);
      expect(await store.cache.get('k', new Date(0))).toBeNull();
      await store.cache.set('k', '{"a":1}');
      expect(await store.cache.get('k', new Date(T0))).toEqual({
        valueJson: '{"a":1}',
        storedAt: new Date(T0),
      });
      expect(await store.cache.get('k', new Date(T0 + 1))).toBeNull();
      clock.advance(1000);
      await store.cache.set('k', '{"a":2}');
      await store.cache.set('j', '{}');
      expect((await store.cache.get('k', new Date(T0 + 1)))?.valueJson).toBe('{"a":2}');
      expect(await store.cache.prune(new Date(T0 + 1001))).toBe(2);
      await store.cache.set('k', '{}');
      await store.cache.clear();
      expect(await store.cache.get('k', new Date(0))).toBeNull();
    });

    it('alerts: one claim per interval wins, even racing from two stores', async () => {
      const clock = manualClock();
      const db = await freshDatabase(engine);
      const [a, b] = (await db.openMany(2, clockOf(clock))) as [Store, Store];
      const first = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).alertsSent.claim('account:401', MINUTE)),
      );
      expect(first.filter(Boolean)).toHaveLength(1);
      clock.advance(MINUTE - 1);
      expect(await a.alertsSent.claim('account:401', MINUTE)).toBe(false);
      clock.advance(1);
      expect(await b.alertsSent.claim('account:401', MINUTE)).toBe(true);
      expect(await a.alertsSent.claim('budget|2025-03-01|x', Number.POSITIVE_INFINITY)).toBe(true);
      clock.advance(100 * DAY);
      expect(await a.alertsSent.claim('budget|2025-03-01|x', Number.POSITIVE_INFINITY)).toBe(false);
      expect((await a.alertsSent.recent('budget|', 10)).map((r) => r.key)).toEqual(['budget|2025-03-01|x']);
    });
  });

  // ---- concurrency across connections ---------------------------------------------------------

  describe('concurrent claims', () => {
    it('20 concurrent claims of one confirmation from separate connections: exactly one wins', async () => {
      const db = await freshDatabase(engine);
      const clock = { now: () => new Date() };
      const stores = await db.openMany(20, clockOf(clock));
      const [first] = stores;
      if (!first) throw new Error('no store');
      for (let round = 0; round < 5; round++) {
        const { id } = await first.pending.create(newPending());
        const results = await Promise.all(stores.map((s) => s.pending.claim(id, 'U1234', HOLDER)));
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect(results.filter((r) => !r.ok && r.reason === 'already_used')).toHaveLength(19);
      }
    });

    it('a withdrawal racing the call’s fence from separate connections: exactly one of them happens', async () => {
      const db = await freshDatabase(engine);
      const clock = { now: () => new Date() };
      const stores = await db.openMany(2, clockOf(clock));
      const [runner, stopper] = stores;
      if (!runner || !stopper) throw new Error('no store');
      for (let round = 0; round < 10; round++) {
        const { id } = await runner.pending.create(newPending());
        const claimed = await runner.pending.claim(id, 'U1234', HOLDER);
        if (!claimed.ok) throw new Error('not claimed');
        const [fenced, withdrawn] = await Promise.all([
          runner.pending.fence(id, HOLDER, claimed.pending.claimEpoch),
          stopper.pending.withdraw(id, 'U1234'),
        ]);
        expect([fenced, withdrawn].filter(Boolean)).toHaveLength(1);
        const row = await runner.pending.get(id);
        expect(row?.state).toBe(withdrawn ? 'cancelled' : 'running');
        expect(row?.callsSent).toBe(fenced ? 1 : 0);
      }
    });

    it('a digest run claimed by several stores at once is held by exactly one', async () => {
      const db = await freshDatabase(engine);
      const stores = await db.openMany(6, clockOf(fixedClock));
      const lease = (owner: string): Lease => ({ owner, ms: 10 * MINUTE });
      const [first] = stores;
      if (!first) throw new Error('no store');
      const sub = await subscribe(first);
      for (const date of ['2026-12-01', '2026-12-02', '2026-12-03']) {
        const claims = await Promise.all(
          stores.map((s, i) => s.digests.claimScheduled(runInput(sub.id, date), lease(`p${i}`))),
        );
        expect(claims.filter((c) => c.claimed)).toHaveLength(1);
        expect((await first.digests.scheduledRun(sub.id, date))?.attempts).toBe(1);
      }
    });
  });

  describe('a second store on the same database', () => {
    it('sees everything the first wrote, and claims stay single-use across them', async () => {
      const db = await freshDatabase(engine);
      const first = await db.open();
      const pending = await first.pending.create(newPending());
      const claimed = await first.pending.create(newPending());
      await first.pending.claim(claimed.id, 'U1234', HOLDER);
      await first.ledger.record(entry({ points: 15 }));
      await first.prefs.setConfirmThreshold('U1', 25);
      await first.settings.set('admins', ['U1'], 'U0');
      await first.close();

      const second = await db.open();
      expect(await second.pending.get(pending.id)).toEqual(pending);
      expect(await second.pending.claim(claimed.id, 'U1234', HOLDER)).toMatchObject({
        ok: false,
        reason: 'already_used',
      });
      expect((await second.pending.claim(pending.id, 'U1234', HOLDER)).ok).toBe(true);
      expect(await second.ledger.lastCharge('platdybw', 1)).toBe(15);
      expect(await second.prefs.getConfirmThreshold('U1')).toBe(25);
      expect(await second.settings.get('admins')).toEqual(['U1']);
      expect(await second.audit.list(5)).toMatchObject([{ actorId: 'U0', action: 'settings.set' }]);
    });

    it('is refused, clearly, when the schema is newer than this build', async () => {
      const db = await freshDatabase(engine);
      const store = await db.open();
      await bumpSchemaVersion(engine, db, store);
      await expect(db.open()).rejects.toThrow(StoreSchemaTooNewError);
      await expect(db.open()).rejects.toThrow(
        /schema is version \d+ but this build of platdesk knows only up to/,
      );
    });

    it('two stores opening a new database at once migrate it once', async () => {
      const db = await freshDatabase(engine);
      // PostgreSQL: truly at once, serialized by the advisory lock. SQLite: one after the other
      // (BEGIN IMMEDIATE serializes processes; see openMany on why not one thread).
      const stores =
        engine === 'postgres'
          ? await Promise.all(Array.from({ length: 4 }, () => db.open()))
          : await db.openMany(1);
      for (const s of stores) expect(await s.pending.get('x')).toBeNull();
      expect(await schemaVersion(engine, db, stores[0] as Store)).toBe(MIGRATIONS.length);
    });
  });
});

/** The schema version as each engine stores it. */
async function schemaVersion(engine: EngineName, db: TestDatabase, _store: Store): Promise<number> {
  if (engine === 'sqlite') {
    const raw = new Database(db.options.path as string, { readonly: true });
    try {
      return raw.pragma('user_version', { simple: true }) as number;
    } finally {
      raw.close();
    }
  }
  const client = new pg.Client({ connectionString: db.options.url as string });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: number }>('SELECT version FROM platdesk_schema');
    return Number(rows[0]?.version);
  } finally {
    await client.end();
  }
}

async function bumpSchemaVersion(engine: EngineName, db: TestDatabase, store: Store): Promise<void> {
  await store.close();
  if (engine === 'sqlite') {
    const raw = new Database(db.options.path as string);
    try {
      raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
      // As a newer build's offline step records: builds that do not know it must stop writing.
      raw.prepare('UPDATE platdesk_rollout SET compatible_from = ?').run(MIGRATIONS.length + 1);
    } finally {
      raw.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: db.options.url as string });
  await client.connect();
  try {
    await client.query('UPDATE platdesk_schema SET version = $1', [MIGRATIONS.length + 1]);
    await client.query('UPDATE platdesk_rollout SET compatible_from = $1', [MIGRATIONS.length + 1]);
  } finally {
    await client.end();
  }
}

// ---- engine-only cases -------------------------------------------------------------------------

describe('SQLite engine', () => {
  it('creates the parent directory of DATABASE_PATH and uses WAL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-sqlite-dir-'));
    const path = join(dir, 'nested', 'deeper', 'platdesk.sqlite');
    try {
      const store = await openStore({ path });
      await store.close();
      expect(existsSync(path)).toBe(true);
      const raw = new Database(path, { readonly: true });
      try {
        expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        raw.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a database written by main's synchronous store (schema 5) opens and migrates forward without loss", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-sqlite-v5-'));
    const path = join(dir, 'platdesk.sqlite');
    try {
      // Built the way main's store built it: migrations 1-5 applied with db.exec and user_version.
      const raw = new Database(path);
      raw.pragma('journal_mode = WAL');
      for (const [i, { sql: ddl }] of MIGRATIONS.slice(0, 5).entries()) {
        raw.exec(ddl);
        raw.pragma(`user_version = ${i + 1}`);
      }
      raw
        .prepare(
          `INSERT INTO pending_lookups (id, user_id, request_json, quote_json, summary, created_at, expires_at,
             state, state_changed_at, claimed_by, lease_expires_at)
           VALUES ('old', 'U1234', '{"kind":"item"}', '{}', 'item 1', ?, ?, 'running', ?, 'gone-host', ?)`,
        )
        .run(T0, T0 + MINUTE, T0, T0 + 30_000);
      raw
        .prepare(
          `INSERT INTO ledger (at, user_id, channel_id, operation, edition, points, quota_calls, code, outcome,
             request_id, correlation_id, pending_id, source)
           VALUES (?, 'U1234', NULL, 'platdybw', 1, 12.5, 0, 0, 'ok', 'r1', NULL, 'old', 'interactive'),
                  (?, NULL, 'C1234', 'paging-orders', 1, 0, 0, -1, 'error', NULL, NULL, NULL, 'alert')`,
        )
        .run(T0, T0 + 1);
      raw
        .prepare(
          `INSERT INTO settings (key, value_json, updated_at, updated_by) VALUES ('locale.user.U1234', '"zh-CN"', ?, 'U1234')`,
        )
        .run(T0);
      raw
        .prepare(
          `INSERT INTO digest_subscriptions (owner_id, shop_label, channel_id, local_time, time_zone, created_by,
             created_at, times, days, layout, flags, statuses)
           VALUES ('owner-1', 'tea', 'C1234', '09:00', 'Asia/Shanghai', 'U1', ?, '09:00,17:30', '1,2,3', 'thread', '1', NULL)`,
        )
        .run(T0);
      raw
        .prepare(
          `INSERT INTO alert_subscriptions (owner_id, shop_label, channel_id, within_hours, every_minutes,
             hours_from, hours_to, time_zone, cap_points, created_by, created_at)
           VALUES ('owner-1', 'tea', 'C1234', 6, 30, '09:00', '18:00', 'Asia/Shanghai', 50, 'U1', ?)`,
        )
        .run(T0);
      expect(raw.pragma('user_version', { simple: true })).toBe(5);
      raw.close();

      const store = await openStore({ path, clock: { now: () => T0 + MINUTE } });
      try {
        const check = new Database(path, { readonly: true });
        expect(check.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
        check.close();
        expect(await store.pending.get('old')).toMatchObject({
          state: 'running',
          claimedBy: 'gone-host',
          leaseExpiresAt: new Date(T0 + 30_000),
          summary: 'item 1',
        });
        const ledger = await store.ledger.list({ from: new Date(T0), to: new Date(T0 + DAY) });
        expect(ledger.map((e) => [e.operation, e.points, e.code, e.source])).toEqual([
          ['paging-orders', 0, -1, 'alert'],
          ['platdybw', 12.5, 0, 'interactive'],
        ]);
        expect(await store.settings.get('locale.user.U1234')).toBe('zh-CN');
        expect(await store.digests.list()).toMatchObject([
          { ownerId: 'owner-1', times: ['09:00', '17:30'], days: [1, 2, 3], layout: 'thread', flags: [1] },
        ]);
        expect(await store.alerts.list()).toMatchObject([{ ownerId: 'owner-1', capPoints: 50 }]);
        // The tables of migration 6 work on the migrated file.
        expect(await store.alertsSent.claim('k', MINUTE)).toBe(true);
        expect((await store.pending.interrupt('old', 'gone-host', undefined, LAPSED))?.state).toBe(
          'interrupted',
        );
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('applies only the migrations not yet run; a failed one rolls back with its version', async () => {
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    try {
      const step = (ddl: string): Migration => ({ rollout: 'online', summary: ddl, sql: ddl });
      expect(await migrate(db, 'sqlite', [step('CREATE TABLE a (x INTEGER) STRICT')])).toBe(1);
      expect(
        await migrate(db, 'sqlite', [
          step('CREATE TABLE a (x INTEGER) STRICT'),
          step('CREATE TABLE b (y INTEGER) STRICT'),
        ]),
      ).toBe(2);
      await expect(
        migrate(db, 'sqlite', [
          step(''),
          step(''),
          step('CREATE TABLE c (z INTEGER) STRICT;\nSELECT nope FROM missing'),
        ]),
      ).rejects.toThrow();
      expect(await migrate(db, 'sqlite', [step(''), step('')])).toBe(2);
    } finally {
      await db.destroy();
    }
  });

  it('claims racing from two threads on one file: exactly one wins each time', async () => {
    const db = await freshDatabase('sqlite');
    const path = db.options.path as string;
    // The worker uses the real clock, so these stores must too (or the rows would be expired).
    const store = await db.open();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await store.pending.create(newPending())).id);
    const input: ClaimRaceInput = {
      path,
      ids,
      userId: 'U1234',
      contenders: 2,
      arrivals: new Int32Array(new SharedArrayBuffer(4)),
    };
    const results = await raceAgainstWorker(await db.open(), input);
    for (const [i, id] of ids.entries()) {
      expect(
        results.filter((r) => r.wins[i]),
        `claims of ${id} that won`,
      ).toHaveLength(1);
      expect(results.filter((r) => r.reasons[i] === 'already_used')).toHaveLength(1);
      expect((await store.pending.get(id))?.state).toBe('running');
    }
  });

  it('digest runs claimed from two threads on one file at once: exactly one wins each', async () => {
    const db = await freshDatabase('sqlite');
    const store = await db.open();
    const sub = await subscribe(store);
    const dates = Array.from({ length: 30 }, (_, i) => `2026-12-${String(i + 1).padStart(2, '0')}`);
    const input: ClaimRaceInput = {
      path: db.options.path as string,
      ids: dates,
      digestSubscriptionId: sub.id,
      userId: 'UADMIN',
      contenders: 2,
      arrivals: new Int32Array(new SharedArrayBuffer(4)),
    };
    const results = await raceAgainstWorker(await db.open(), input);
    for (const [i, date] of dates.entries()) {
      expect(
        results.filter((r) => r.wins[i]),
        `claims of ${date} that won`,
      ).toHaveLength(1);
      expect((await store.digests.scheduledRun(sub.id, date))?.attempts).toBe(1);
    }
  });

  it('a confirmation left running by a build before claim holders (schema 3) migrates with no holder and can be interrupted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-sqlite-v3-'));
    const path = join(dir, 'platdesk.sqlite');
    try {
      const raw = new Database(path);
      for (const [i, { sql: ddl }] of MIGRATIONS.slice(0, 3).entries()) {
        raw.exec(ddl);
        raw.pragma(`user_version = ${i + 1}`);
      }
      raw
        .prepare(
          `INSERT INTO pending_lookups (id, user_id, request_json, quote_json, summary, created_at, expires_at,
             state, state_changed_at) VALUES ('old', 'U1234', '{}', '{}', 'item 1', ?, ?, 'running', ?)`,
        )
        .run(T0, T0 + MINUTE, T0);
      raw.close();
      const store = await openStore({ path, clock: { now: () => T0 + MINUTE } });
      try {
        expect(await store.pending.get('old')).toMatchObject({
          state: 'running',
          claimedBy: null,
          leaseExpiresAt: null,
        });
        expect(await store.pending.interrupt('old', null, undefined, LAPSED)).toMatchObject({
          state: 'interrupted',
          summary: 'item 1',
        });
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('PostgreSQL engine', () => {
  it('translates the SQLite DDL: identity ids, BIGINT times, DOUBLE points, no STRICT', () => {
    const ddl = forPostgres(
      'CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, p REAL) STRICT;',
    );
    expect(ddl).toBe(
      'CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, at BIGINT NOT NULL, p DOUBLE PRECISION);',
    );
  });

  it('an unreachable server at start is one clear StoreUnavailableError, without the password', async () => {
    const port = await closedPort();
    const started = openStore({ url: `postgres://platdesk:s3cret@127.0.0.1:${port}/platdesk` });
    await expect(started).rejects.toThrow(StoreUnavailableError);
    await expect(started).rejects.toThrow(
      /PostgreSQL store at postgres:\/\/platdesk@127\.0\.0\.1:\d+\/platdesk is unreachable/,
    );
    await expect(started).rejects.not.toThrow(/s3cret/);
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Starts claim-race-worker.ts on a worker thread (through tsx, as vitest's transform does not
 * reach workers) and, once its connection is open, races it from this thread with `store`.
 */
async function raceAgainstWorker(store: Store, input: ClaimRaceInput): Promise<ClaimRaceResults[]> {
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const script = new URL('./claim-race-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script)}); });`;
  const worker = new Worker(bootstrap, { eval: true, workerData: input });
  try {
    let ready: () => void = () => {};
    const isReady = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const theirs = new Promise<ClaimRaceResults>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`claim worker exited with ${code} before answering`)));
      worker.on('message', (message: ClaimRaceMessage) => {
        if (message.type === 'ready') ready();
        else resolve({ wins: message.wins, reasons: message.reasons });
      });
    });
    await Promise.race([isReady, theirs]);
    const ours = await runContender(store, input);
    return [ours, await theirs];
  } finally {
    await worker.terminate();
  }
}
