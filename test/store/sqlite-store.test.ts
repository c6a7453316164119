import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LookupRequest, Quote } from '../../src/lookups/types.js';
import { MIGRATIONS, migrate, StoreSchemaTooNewError } from '../../src/store/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { NewLedgerEntry, NewPendingLookup, Store } from '../../src/store/store.js';
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
  };
}

const tempRoot = mkdtempSync(join(tmpdir(), 'platdesk-store-'));
let fileCount = 0;
/** A fresh path in a directory that does not exist yet (openSqliteStore must create it). */
const tempPath = (): string => join(tempRoot, `run-${++fileCount}`, 'nested', 'platdesk.sqlite');

const opened: Store[] = [];
function open(path: string, clock: { now: () => Date } = manualClock()): Store {
  const store = openSqliteStore(path, { now: clock.now });
  opened.push(store);
  return store;
}

afterEach(() => {
  for (const store of opened.splice(0)) store.close();
});
afterAll(() => {
  rmSync(tempRoot, { recursive: true, force: true });
});

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

function entry(overrides: Partial<NewLedgerEntry> = {}): NewLedgerEntry {
  return {
    at: new Date(T0),
    userId: 'U1',
    channelId: 'C1',
    operation: 'platdybw',
    edition: 1,
    points: 10,
    quotaCalls: 0,
    code: 0,
    outcome: 'ok',
    requestId: null,
    correlationId: null,
    pendingId: null,
    source: 'interactive',
    ...overrides,
  };
}

const HOLDER = { instanceId: 'host-a/100/instance-a', leaseMs: 30_000 };
const OTHER = { instanceId: 'host-b/200/instance-b', leaseMs: 30_000 };

describe.each([
  ['memory', () => ':memory:'],
  ['file', tempPath],
])('SqliteStore (%s)', (_name, pathFor) => {
  describe('pending lookups', () => {
    it('creates, reads back (dates in the request revived) and claims', () => {
      const clock = manualClock();
      const store = open(pathFor(), clock);
      const created = store.pending.create(newPending());
      expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.state).toBe('pending');
      expect(created.expiresAt.getTime()).toBe(T0 + 5 * MINUTE);

      const got = store.pending.get<LookupRequest, Quote>(created.id);
      expect(got).toEqual(created);
      expect(got?.request).toEqual(ordersRequest);
      const filters = got?.request.kind === 'orders' ? got.request.filters : undefined;
      expect(filters?.startTime).toBeInstanceOf(Date);
      expect(store.pending.get('missing')).toBeNull();

      clock.advance(1000);
      const claimed = store.pending.claim(created.id, 'U1234', HOLDER);
      expect(claimed.ok).toBe(true);
      expect(claimed.pending?.state).toBe('running');
      expect(claimed.pending?.stateChangedAt.getTime()).toBe(T0 + 1000);
    });

    it('a second claim gets already_used, with the row to answer from', () => {
      const store = open(pathFor());
      const { id } = store.pending.create(newPending());
      expect(store.pending.claim(id, 'U1234', HOLDER).ok).toBe(true);
      const again = store.pending.claim(id, 'U1234', HOLDER);
      expect(again).toMatchObject({ ok: false, reason: 'already_used', pending: { id, state: 'running' } });

      expect(store.pending.finish(id, 'done', '{"text":"3 orders"}')).toBe(true);
      const afterDone = store.pending.claim(id, 'U1234', HOLDER);
      expect(afterDone).toMatchObject({ ok: false, reason: 'already_used' });
      expect(afterDone.pending?.resultJson).toBe('{"text":"3 orders"}');
    });

    it('another user gets not_yours, and the owner can still claim', () => {
      const store = open(pathFor());
      const { id } = store.pending.create(newPending());
      expect(store.pending.claim(id, 'U9999', HOLDER)).toMatchObject({ ok: false, reason: 'not_yours' });
      expect(store.pending.cancel(id, 'U9999')).toMatchObject({ ok: false, reason: 'not_yours' });
      expect(store.pending.claim(id, 'U1234', HOLDER).ok).toBe(true);
    });

    it('unknown ids are not_found', () => {
      const store = open(pathFor());
      expect(store.pending.claim('nope', 'U1234', HOLDER)).toEqual({
        ok: false,
        reason: 'not_found',
        pending: null,
      });
      expect(store.pending.cancel('nope', 'U1234')).toEqual({
        ok: false,
        reason: 'not_found',
        pending: null,
      });
    });

    it('expires at expiresAt: a claim then gets expired', () => {
      const clock = manualClock();
      const store = open(pathFor(), clock);
      const { id } = store.pending.create(newPending({ ttlMs: MINUTE }));
      clock.advance(MINUTE - 1);
      const live = store.pending.create(newPending({ ttlMs: MINUTE }));
      clock.advance(1);
      expect(store.pending.claim(id, 'U1234', HOLDER)).toMatchObject({
        ok: false,
        reason: 'expired',
        pending: { id },
      });
      expect(store.pending.get(id)?.state).toBe('pending');
      expect(store.pending.claim(live.id, 'U1234', HOLDER).ok).toBe(true);
    });

    it('cancel, then claim → cancelled; cancel twice → cancelled', () => {
      const store = open(pathFor());
      const { id } = store.pending.create(newPending());
      expect(store.pending.cancel(id, 'U1234')).toMatchObject({ ok: true, pending: { state: 'cancelled' } });
      expect(store.pending.claim(id, 'U1234', HOLDER)).toMatchObject({ ok: false, reason: 'cancelled' });
      expect(store.pending.cancel(id, 'U1234')).toMatchObject({ ok: false, reason: 'cancelled' });
    });

    it('finish moves only running rows and keeps the result', () => {
      const clock = manualClock();
      const store = open(pathFor(), clock);
      const { id } = store.pending.create(newPending());
      expect(store.pending.finish(id, 'done', '{}')).toBe(false);
      store.pending.claim(id, 'U1234', HOLDER);
      clock.advance(2000);
      expect(store.pending.finish(id, 'failed', '{"error":"balance_low"}')).toBe(true);
      expect(store.pending.get(id)).toMatchObject({
        state: 'failed',
        resultJson: '{"error":"balance_low"}',
        stateChangedAt: new Date(T0 + 2000),
      });
      expect(store.pending.finish(id, 'done', null)).toBe(false);
      expect(store.pending.finish('missing', 'done', null)).toBe(false);
    });

    it("a claim carries its holder and lease; renewClaims extends only that holder's running claims", () => {
      const clock = manualClock();
      const store = open(pathFor(), clock);
      const mine = store.pending.create(newPending({ ttlMs: DAY }));
      const theirs = store.pending.create(newPending({ ttlMs: DAY }));
      const done = store.pending.create(newPending({ ttlMs: DAY }));
      store.pending.create(newPending({ ttlMs: DAY })); // never claimed
      expect(store.pending.claim(mine.id, 'U1234', HOLDER)).toMatchObject({
        ok: true,
        pending: { claimedBy: HOLDER.instanceId, leaseExpiresAt: new Date(T0 + HOLDER.leaseMs) },
      });
      store.pending.claim(theirs.id, 'U1234', OTHER);
      store.pending.claim(done.id, 'U1234', HOLDER);
      store.pending.finish(done.id, 'done', null);
      clock.advance(MINUTE);
      expect(store.pending.renewClaims(HOLDER)).toBe(1);
      expect(store.pending.get(mine.id)?.leaseExpiresAt).toEqual(new Date(T0 + MINUTE + HOLDER.leaseMs));
      expect(store.pending.get(theirs.id)?.leaseExpiresAt).toEqual(new Date(T0 + OTHER.leaseMs));
      expect(
        store.pending
          .runningClaims()
          .map((p) => p.id)
          .sort(),
      ).toEqual([mine.id, theirs.id].sort());
    });

    it('interrupt moves a running claim of that holder once; a click then gets interrupted', () => {
      const clock = manualClock();
      const store = open(pathFor(), clock);
      const { id } = store.pending.create(newPending({ ttlMs: DAY }));
      store.pending.claim(id, 'U1234', OTHER);
      // Held by OTHER: an interrupt naming another holder changes nothing.
      expect(store.pending.interrupt(id, HOLDER.instanceId)).toBeNull();
      clock.advance(1000);
      expect(store.pending.interrupt(id, OTHER.instanceId)).toMatchObject({
        id,
        state: 'interrupted',
        stateChangedAt: new Date(T0 + 1000),
      });
      expect(store.pending.interrupt(id, OTHER.instanceId)).toBeNull();
      expect(store.pending.runningClaims()).toEqual([]);
      // The holder coming back cannot finish it, and no click runs it again.
      expect(store.pending.finish(id, 'done', null)).toBe(false);
      expect(store.pending.claim(id, 'U1234', HOLDER)).toMatchObject({ ok: false, reason: 'interrupted' });
      expect(store.pending.cancel(id, 'U1234')).toMatchObject({ ok: false, reason: 'interrupted' });
    });

    it('prune deletes old finished and expired rows, never a live one', () => {
      const clock = manualClock();
      const store = open(pathFor(), clock);
      const finished = store.pending.create(newPending());
      store.pending.claim(finished.id, 'U1234', HOLDER);
      store.pending.finish(finished.id, 'done', null);
      const expired = store.pending.create(newPending());
      const longLived = store.pending.create(newPending({ ttlMs: 30 * DAY }));
      clock.advance(8 * DAY);
      const recent = store.pending.create(newPending());

      expect(store.pending.prune(new Date(T0 + DAY))).toBe(2);
      expect(store.pending.get(finished.id)).toBeNull();
      expect(store.pending.get(expired.id)).toBeNull();
      expect(store.pending.get(longLived.id)).not.toBeNull();
      expect(store.pending.get(recent.id)).not.toBeNull();
    });
  });

  describe('ledger', () => {
    const day1 = T0; // 2025-03-01
    const day2 = T0 + DAY; // 2025-03-02

    function seeded(): Store {
      const store = open(pathFor());
      store.ledger.record(entry({ at: new Date(day1), userId: 'U1', points: 10 }));
      store.ledger.record(entry({ at: new Date(day1 + 1), userId: 'U2', channelId: 'C2', points: 20 }));
      store.ledger.record(
        entry({
          at: new Date(day1 + 2),
          userId: 'U1',
          operation: 'platiteminfo',
          edition: null,
          points: 0,
          quotaCalls: 1,
        }),
      );
      store.ledger.record(
        entry({
          at: new Date(day2),
          userId: null,
          channelId: 'C3',
          operation: 'paging-orders',
          points: 5,
          source: 'digest',
        }),
      );
      store.ledger.record(
        entry({ at: new Date(day2 + 1), userId: 'U1', points: 7, code: 201, outcome: 'error' }),
      );
      return store;
    }

    it('records entries with ids and lists them newest first', () => {
      const store = seeded();
      const all = store.ledger.list({ from: new Date(day1), to: new Date(day2 + DAY) });
      expect(all.map((e) => e.at.getTime())).toEqual([day2 + 1, day2, day1 + 2, day1 + 1, day1]);
      expect(all[1]).toMatchObject({
        userId: null,
        operation: 'paging-orders',
        source: 'digest',
        edition: 1,
      });
      expect(new Set(all.map((e) => e.id)).size).toBe(5);

      const u1 = store.ledger.list({
        from: new Date(day1),
        to: new Date(day2 + DAY),
        userId: 'U1',
        limit: 2,
      });
      expect(u1.map((e) => e.at.getTime())).toEqual([day2 + 1, day1 + 2]);
      // [from, to): to is exclusive
      expect(store.ledger.list({ from: new Date(day1), to: new Date(day1 + 1) })).toHaveLength(1);
    });

    it('record returns the entry as stored', () => {
      const store = open(pathFor());
      const recorded = store.ledger.record(
        entry({ requestId: 'r-1', correlationId: 'c-1', pendingId: 'p-1' }),
      );
      const [listed] = store.ledger.list({ from: new Date(T0), to: new Date(T0 + 1) });
      expect(listed).toEqual(recorded);
    });

    it('lastCharge: newest successful charge per operation and edition, null edition too', () => {
      const store = open(pathFor());
      expect(store.ledger.lastCharge('platdybw', 1)).toBeNull();
      store.ledger.record(entry({ operation: 'platdybw', edition: 1, points: 10 }));
      store.ledger.record(entry({ operation: 'platdybw', edition: 3, points: 30 }));
      store.ledger.record(entry({ operation: 'platdybw', edition: 1, points: 12 }));
      store.ledger.record(
        entry({ operation: 'platdybw', edition: 1, points: 99, code: 301, outcome: 'error' }),
      );
      store.ledger.record(entry({ operation: 'get-shop-id', edition: null, points: 2.5 }));
      // A success that reported no withholding_money (0 points) and an unread answer (code -1)
      // are rows too, but neither is a price.
      store.ledger.record(entry({ operation: 'platdybw', edition: 1, points: 0 }));
      store.ledger.record(
        entry({ operation: 'platdybw', edition: 1, points: 0, code: -1, outcome: 'error' }),
      );

      expect(store.ledger.lastCharge('platdybw', 1)).toBe(12);
      expect(store.ledger.lastCharge('platdybw', 3)).toBe(30);
      expect(store.ledger.lastCharge('platdybw', 2)).toBeNull();
      expect(store.ledger.lastCharge('platdybw', null)).toBeNull();
      expect(store.ledger.lastCharge('get-shop-id', null)).toBe(2.5);
      expect(store.ledger.lastCharge('get-shop-id', 1)).toBeNull();
    });

    it('totals over a range, by user and by channel', () => {
      const store = seeded();
      const range = { from: new Date(day1), to: new Date(day2 + DAY) };
      expect(store.ledger.totals(range)).toEqual({ points: 42, quotaCalls: 1, calls: 5 });
      expect(store.ledger.totals({ ...range, userId: 'U1' })).toEqual({
        points: 17,
        quotaCalls: 1,
        calls: 3,
      });
      expect(store.ledger.totals({ ...range, channelId: 'C2' })).toEqual({
        points: 20,
        quotaCalls: 0,
        calls: 1,
      });
      expect(store.ledger.totals({ ...range, userId: 'U1', channelId: 'C2' })).toEqual({
        points: 0,
        quotaCalls: 0,
        calls: 0,
      });
      expect(store.ledger.totals({ from: new Date(day2), to: new Date(day2 + DAY) })).toEqual({
        points: 12,
        quotaCalls: 0,
        calls: 2,
      });
    });

    it('groupTotals by user and operation', () => {
      const store = seeded();
      const range = { from: new Date(day1), to: new Date(day2 + DAY) };
      expect(store.ledger.groupTotals('user', range)).toEqual([
        { key: 'U2', points: 20, quotaCalls: 0, calls: 1 },
        { key: 'U1', points: 17, quotaCalls: 1, calls: 3 },
        { key: null, points: 5, quotaCalls: 0, calls: 1 },
      ]);
      expect(store.ledger.groupTotals('operation', range)).toEqual([
        { key: 'platdybw', points: 37, quotaCalls: 0, calls: 3 },
        { key: 'paging-orders', points: 5, quotaCalls: 0, calls: 1 },
        { key: 'platiteminfo', points: 0, quotaCalls: 1, calls: 1 },
      ]);
    });

    it('iterate streams entries oldest first', () => {
      const store = seeded();
      const iterator = store.ledger.iterate({ from: new Date(day1 + 1), to: new Date(day2 + 1) });
      const first = iterator.next();
      expect(first.done).toBe(false);
      expect(first.value?.at.getTime()).toBe(day1 + 1);
      const rest = [...iterator];
      expect(rest.map((e) => e.at.getTime())).toEqual([day1 + 2, day2]);
      // The connection is free again once the iterator is exhausted.
      expect(store.ledger.totals({ from: new Date(day1), to: new Date(day2 + DAY) }).calls).toBe(5);
    });
  });

  describe('preferences, settings and audit', () => {
    it('confirm threshold defaults to null (always ask), can be set and cleared', () => {
      const store = open(pathFor());
      expect(store.prefs.getConfirmThreshold('U1')).toBeNull();
      store.prefs.setConfirmThreshold('U1', 50);
      expect(store.prefs.getConfirmThreshold('U1')).toBe(50);
      expect(store.prefs.getConfirmThreshold('U2')).toBeNull();
      store.prefs.setConfirmThreshold('U1', 0);
      expect(store.prefs.getConfirmThreshold('U1')).toBe(0);
      store.prefs.setConfirmThreshold('U1', null);
      expect(store.prefs.getConfirmThreshold('U1')).toBeNull();
      expect(() => store.prefs.setConfirmThreshold('U1', -1)).toThrow(RangeError);
      expect(() => store.prefs.setConfirmThreshold('U1', Number.NaN)).toThrow(RangeError);
    });

    it('settings set/get/delete, each change audited with its actor', () => {
      const clock = manualClock();
      const store = open(pathFor(), clock);
      expect(store.settings.get('admins')).toBeNull();
      store.settings.set('admins', ['U1', 'U2'], 'U1');
      clock.advance(1000);
      store.settings.set('budget', { dailyPoints: 500, since: new Date(T0) }, 'U2');
      expect(store.settings.get<string[]>('admins')).toEqual(['U1', 'U2']);
      expect(store.settings.get('budget')).toEqual({ dailyPoints: 500, since: new Date(T0) });
      clock.advance(1000);
      expect(store.settings.delete('admins', 'U2')).toBe(true);
      expect(store.settings.delete('admins', 'U2')).toBe(false);
      expect(store.settings.get('admins')).toBeNull();
      expect(() => store.settings.set('bad', undefined, 'U1')).toThrow(TypeError);

      expect(store.audit.list(10)).toEqual([
        { at: new Date(T0 + 2000), actorId: 'U2', action: 'settings.delete', detail: 'admins' },
        {
          at: new Date(T0 + 1000),
          actorId: 'U2',
          action: 'settings.set',
          detail: `budget = {"dailyPoints":500,"since":{"$date":${T0}}}`,
        },
        { at: new Date(T0), actorId: 'U1', action: 'settings.set', detail: 'admins = ["U1","U2"]' },
      ]);
      expect(store.audit.list(1)).toHaveLength(1);
      store.audit.record({ actorId: 'U3', action: 'access.grant', detail: 'U4 may spend' });
      expect(store.audit.list(1)[0]).toMatchObject({ actorId: 'U3', action: 'access.grant' });
    });

    it('transaction commits together or rolls back together', () => {
      const store = open(pathFor());
      expect(() =>
        store.transaction(() => {
          store.settings.set('a', 1, 'U1');
          store.prefs.setConfirmThreshold('U1', 10);
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(store.settings.get('a')).toBeNull();
      expect(store.prefs.getConfirmThreshold('U1')).toBeNull();
      expect(store.audit.list(10)).toEqual([]);

      const result = store.transaction(() => {
        store.settings.set('a', 1, 'U1');
        return 'done';
      });
      expect(result).toBe('done');
      expect(store.settings.get('a')).toBe(1);

      expect(() => store.transaction(async () => store.settings.set('b', 2, 'U1'))).toThrow(TypeError);
      expect(store.settings.get('b')).toBeNull();
    });
  });
});

describe('SqliteStore on a file', () => {
  it('creates the parent directory and uses WAL', () => {
    const path = tempPath();
    open(path);
    expect(existsSync(path)).toBe(true);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('keeps everything across a restart, and claims stay single-use', () => {
    const path = tempPath();
    const first = open(path);
    const pending = first.pending.create(newPending());
    const claimed = first.pending.create(newPending());
    first.pending.claim(claimed.id, 'U1234', HOLDER);
    first.ledger.record(entry({ points: 15 }));
    first.prefs.setConfirmThreshold('U1', 25);
    first.settings.set('admins', ['U1'], 'U0');
    first.close();

    const second = open(path);
    expect(second.pending.get(pending.id)).toEqual(pending);
    expect(second.pending.claim(claimed.id, 'U1234', HOLDER)).toMatchObject({
      ok: false,
      reason: 'already_used',
    });
    expect(second.pending.claim(pending.id, 'U1234', HOLDER).ok).toBe(true);
    expect(second.ledger.lastCharge('platdybw', 1)).toBe(15);
    expect(second.prefs.getConfirmThreshold('U1')).toBe(25);
    expect(second.settings.get('admins')).toEqual(['U1']);
    expect(second.audit.list(5)).toMatchObject([{ actorId: 'U0', action: 'settings.set' }]);
  });

  it('migrations run once: user_version holds on reopen, and a newer schema is refused', () => {
    const path = tempPath();
    open(path).close();
    open(path).close();
    const db = new Database(path);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(migrate(db)).toBe(MIGRATIONS.length);
      const tables = db
        .prepare<[], { name: string }>(
          "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all()
        .map((r) => r.name);
      // The first migration's tables (later migrations add their own: digests, unfurls…).
      expect(tables).toEqual(
        expect.arrayContaining(['audit_log', 'ledger', 'pending_lookups', 'settings', 'user_prefs']),
      );
      db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    } finally {
      db.close();
    }
    expect(() => openSqliteStore(path)).toThrow(StoreSchemaTooNewError);
  });

  it('migration 4 keeps every confirmation; one left running by an older build has no holder', () => {
    const path = tempPath();
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    migrate(db, MIGRATIONS.slice(0, 3));
    db.prepare(
      `INSERT INTO pending_lookups (id, user_id, request_json, quote_json, summary, created_at, expires_at,
         state, state_changed_at) VALUES ('old', 'U1234', '{}', '{}', 'item 1', ?, ?, 'running', ?)`,
    ).run(T0, T0 + MINUTE, T0);
    db.close();
    const store = open(path);
    expect(store.pending.get('old')).toMatchObject({
      state: 'running',
      claimedBy: null,
      leaseExpiresAt: null,
    });
    expect(store.pending.interrupt('old', null)).toMatchObject({ state: 'interrupted', summary: 'item 1' });
  });

  it('applies only the migrations not yet run', () => {
    const db = new Database(':memory:');
    try {
      expect(migrate(db, ['CREATE TABLE a (x INTEGER) STRICT'])).toBe(1);
      expect(migrate(db, ['CREATE TABLE a (x INTEGER) STRICT', 'CREATE TABLE b (y INTEGER) STRICT'])).toBe(2);
      // A failed migration rolls back with its version.
      expect(() =>
        migrate(db, ['', '', 'CREATE TABLE c (z INTEGER) STRICT; SELECT nope FROM missing']),
      ).toThrow();
      expect(db.pragma('user_version', { simple: true })).toBe(2);
      expect(db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'c'").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it('two connections claiming the same confirmation: exactly one wins', () => {
    const path = tempPath();
    const a = open(path);
    const b = open(path);
    for (let i = 0; i < 20; i++) {
      const { id } = (i % 2 ? a : b).pending.create(newPending());
      const results =
        i % 2
          ? [a, b].map((s) => s.pending.claim(id, 'U1234', HOLDER))
          : [b, a].map((s) => s.pending.claim(id, 'U1234', HOLDER));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.find((r) => !r.ok)).toMatchObject({ reason: 'already_used' });
    }
  });

  it('claims racing from two threads: exactly one wins each time', async () => {
    const path = tempPath();
    // The worker uses the real clock, so this store must too (or the rows would be expired).
    const store = open(path, { now: () => new Date() });
    const ids = Array.from({ length: 20 }, () => store.pending.create(newPending()).id);
    const input: ClaimRaceInput = {
      path,
      ids,
      userId: 'U1234',
      contenders: 2,
      arrivals: new Int32Array(new SharedArrayBuffer(4)),
    };
    const results = await raceAgainstWorker(open(path, { now: () => new Date() }), input);
    ids.forEach((id, i) => {
      expect(
        results.filter((r) => r.wins[i]),
        `claims of ${id} that won`,
      ).toHaveLength(1);
      expect(results.filter((r) => r.reasons[i] === 'already_used')).toHaveLength(1);
      expect(store.pending.get(id)?.state).toBe('running');
    });
  });
});

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
    const ours = runContender(store, input);
    return [ours, await theirs];
  } finally {
    await worker.terminate();
  }
}
