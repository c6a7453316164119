/**
 * Spend control end to end below Slack (issue 4): createLookupService with the REAL plat client
 * against the REAL sandbox over loopback HTTP and an in-memory SQLite store. Every rule is proved
 * with the sandbox's own call and charge counters (CONVENTIONS.md item 10): who pays what, budgets
 * refused before the call and crossed mid-batch, cache hit and refresh, ten identical lookups
 * making one call, nothing run twice, access refusals making none.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeRefusal } from '../../src/blocks/words-of.js';
import type { PriceTable } from '../../src/config.js';
import { interruptGoneClaims } from '../../src/lookups/interrupted.js';
import {
  type Actor,
  type BudgetAlert,
  createLookupService,
  type LookupService,
  type Prepared,
  summarize,
} from '../../src/lookups/lookup-service.js';
import { parseOrdersCommand, parseWaybillCommand } from '../../src/lookups/parse/command-text.js';
import { budgetsSchema } from '../../src/lookups/settings.js';
import type { LookupOutcome, LookupRequest } from '../../src/lookups/types.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import type { PendingLookup, Store } from '../../src/store/store.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';
import { openTestStore } from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

const { items, links, shops, owners, wwids, orderCounts } = SANDBOX_FIXTURES;
const ADMIN = 'UADMIN';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** PLAT_PRICES as an operator would set them, equal to the sandbox's prices for the default editions. */
const PRICES: PriceTable = {
  platdybw: { '*': 5 },
  'get-shop-info': { '1': 10 },
  'get-shop-id': { '*': 2 },
  'paging-orders': { '1': 2 },
  platdzmd: { '1': 4 },
};

const shopInfo: LookupRequest = { kind: 'shop-info', url: links.firstMarketplace, shopType: '0' };
const shopId: LookupRequest = { kind: 'shop-id', wwid: wwids.known };
const itemBasic: LookupRequest = { kind: 'item', itemId: items.basic, withPrices: false };
const orders = (ownerId: string, page = 0): LookupRequest => ({
  kind: 'orders',
  ownerId,
  page,
  pageSize: 20,
  filters: {},
});
const allTime = () => ({ from: new Date(0), to: new Date(Date.now() + 2 * DAY) });

const actor = (userId: string, channelId = 'C1'): Actor => ({
  userId,
  channelId,
  teamId: 'T1',
  responseUrl: null,
});

let h: PlatHarness;
beforeAll(async () => {
  h = await startPlatHarness();
});
afterAll(async () => {
  await h?.close();
});

/** Plat calls that reached the sandbox, and the points it charged. */
const calls = () => h.sandbox.stats().calls;
const charged = () => h.sandbox.stats().charges.points;

interface Rig {
  store: Store;
  lookups: LookupService;
  alerts: BudgetAlert[];
  /** Every pending lookup the service stored. */
  created: PendingLookup[];
  /** Moves the clock of the service and the store. */
  advance(ms: number): void;
  now(): Date;
}

const opened: Store[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
});

async function rig(): Promise<Rig> {
  let offset = 0;
  // Real time (the client stamps ledger rows with it) plus what the test moved forward.
  const now = () => new Date(Date.now() + offset);
  const real = await openTestStore(':memory:', { now });
  opened.push(real);
  const created: PendingLookup[] = [];
  const store: Store = {
    ...real,
    pending: {
      ...real.pending,
      create: async (input) => {
        const pending = await real.pending.create(input);
        created.push(pending);
        return pending;
      },
    },
  };
  const alerts: BudgetAlert[] = [];
  const lookups = createLookupService({
    client: h.client,
    store,
    prices: PRICES,
    now,
    isAdmin: async (userId) => userId === ADMIN,
    onBudgetAlert: (alert) => alerts.push(alert),
  });
  return {
    store,
    lookups,
    alerts,
    created,
    advance: (ms) => {
      offset += ms;
    },
    now,
  };
}

function expectKind<K extends Prepared['kind']>(prepared: Prepared, kind: K): Extract<Prepared, { kind: K }> {
  if (prepared.kind !== kind)
    throw new Error(`expected ${kind}, got ${JSON.stringify(prepared).slice(0, 300)}`);
  return prepared as Extract<Prepared, { kind: K }>;
}

/** Prepare → Confirm (claim) → run, as the user's Confirm click does. */
async function confirmAndRun(
  r: Rig,
  request: LookupRequest,
  who: Actor,
): Promise<LookupOutcome & { shared?: boolean }> {
  const { pending } = expectKind(await r.lookups.prepare(request, who, summarize(request)), 'confirm');
  const claimed = await r.lookups.claim(pending.id, who.userId);
  if (!claimed.ok) throw new Error(`claim failed: ${claimed.reason}`);
  return r.lookups.run(claimed.pending);
}

beforeEach(async () => {
  h.sandbox.reset();
});

describe('who pays what', () => {
  it("two users each confirm their own lookups: each user's ledger rows equal the sandbox's charges", async () => {
    const r = await rig();
    const u1 = actor('U1');
    const u2 = actor('U2', 'C2');

    const before1 = charged();
    const a = await confirmAndRun(r, shopInfo, u1);
    const b = await confirmAndRun(r, orders(owners.busy), u1);
    const spent1 = charged() - before1;
    const before2 = charged();
    const c = await confirmAndRun(r, shopId, u2);
    const d = await confirmAndRun(
      r,
      {
        kind: 'waybill-info',
        ownerId: owners.busy,
        waybills: [{ waybillCode: 'SF1234567890123', carrier: 'SF' }],
      },
      u2,
    );
    const spent2 = charged() - before2;

    expect(calls()).toBe(4);
    expect(spent1).toBe(10 + 2);
    expect(spent2).toBe(2 + 4);
    expect([a, b, c, d].map((o) => o.chargedPoints)).toEqual([10, 2, 2, 4]);

    const rows1 = await r.store.ledger.list({ ...allTime(), userId: 'U1' });
    const rows2 = await r.store.ledger.list({ ...allTime(), userId: 'U2' });
    expect(rows1.map((row) => row.operation).sort()).toEqual(['get-shop-info', 'paging-orders']);
    expect(rows2.map((row) => row.operation).sort()).toEqual(['get-shop-id', 'platdzmd']);
    expect((await r.store.ledger.totals({ ...allTime(), userId: 'U1' })).points).toBe(spent1);
    expect((await r.store.ledger.totals({ ...allTime(), userId: 'U2' })).points).toBe(spent2);
    expect(
      rows1.every((row) => row.channelId === 'C1' && row.outcome === 'ok' && row.source === 'interactive'),
    ).toBe(true);
    expect(rows2.every((row) => row.channelId === 'C2')).toBe(true);

    // The whole ledger is the sandbox's record: a row per call that arrived, the points withheld
    // (all four calls were answered and charged here).
    const stats = h.sandbox.stats();
    expect(stats.calls).toBe(4);
    expect(await r.store.ledger.totals(allTime())).toMatchObject({
      points: stats.charges.points,
      calls: stats.calls,
    });
    expect(stats.charges.count).toBe(stats.calls);
  });

  it("one user cannot confirm another's lookup: no call", async () => {
    const r = await rig();
    const { pending } = expectKind(await r.lookups.prepare(shopInfo, actor('U1'), 'x'), 'confirm');
    expect(await r.lookups.claim(pending.id, 'U2')).toMatchObject({ ok: false, reason: 'not_yours' });
    expect(calls()).toBe(0);
  });
});

describe('budgets', () => {
  it('a per-user daily cap below the quote is refused before the call, with the figures', async () => {
    const r = await rig();
    await r.lookups.settings.setBudgets(budgetsSchema.parse({ perUser: { daily: 5 } }), ADMIN);
    const refused = expectKind(await r.lookups.prepare(shopInfo, actor('U1'), 'x'), 'refused');
    expect(refused.refusal).toEqual({
      reason: 'budget',
      wanted: 10,
      quoted: 10,
      cap: { scope: 'user', period: 'daily', cap: 5, spent: 0 },
      quotaCalls: 0,
      points: true,
    });
    expect(describeRefusal(en, refused.refusal)).toBe(
      'This lookup (about 10 points) would exceed your daily cap: 0 of 5 points used, by 5 points (¥0.05).',
    );
    expect(r.created).toEqual([]);
    expect(calls()).toBe(0);
    // A cheaper lookup still fits.
    expectKind(await r.lookups.prepare(shopId, actor('U1'), 'x'), 'confirm');
  });

  it('admins are alerted once per day per cap, and again the next day', async () => {
    const r = await rig();
    await r.lookups.settings.setBudgets(budgetsSchema.parse({ perUser: { daily: 5 } }), ADMIN);
    await r.lookups.prepare(shopInfo, actor('U1'), 'x');
    await r.lookups.prepare(shopInfo, actor('U1'), 'x');
    expect(r.alerts).toEqual([
      { figure: { scope: 'user', period: 'daily', cap: 5, spent: 0 }, userId: 'U1', refused: true },
    ]);
    // Another user's cap is another cap.
    await r.lookups.prepare(shopInfo, actor('U2'), 'x');
    expect(r.alerts.map((a) => a.userId)).toEqual(['U1', 'U2']);
    r.advance(DAY);
    await r.lookups.prepare(shopInfo, actor('U1'), 'x');
    expect(r.alerts.map((a) => a.userId)).toEqual(['U1', 'U2', 'U1']);
    expect(calls()).toBe(0);
  });

  it('at 80 % of a cap the confirmation carries a warning; the alert comes once', async () => {
    const r = await rig();
    await r.lookups.settings.setBudgets(budgetsSchema.parse({ users: { U1: { daily: 12 } } }), ADMIN);
    const first = expectKind(await r.lookups.prepare(shopInfo, actor('U1'), 'x'), 'confirm');
    expect(first.warnings).toEqual([{ scope: 'user', period: 'daily', cap: 12, spent: 0 }]);
    const second = expectKind(await r.lookups.prepare(shopInfo, actor('U1'), 'x'), 'confirm');
    expect(second.warnings).toHaveLength(1);
    expect(r.alerts).toEqual([
      { figure: { scope: 'user', period: 'daily', cap: 12, spent: 0 }, userId: 'U1', refused: false },
    ]);
    // Confirmed, it runs (10 of 12): the next one is refused before its call.
    const claimed = await r.lookups.claim(first.pending.id, 'U1');
    if (!claimed.ok) throw new Error(claimed.reason);
    await r.lookups.run(claimed.pending);
    expect(calls()).toBe(1);
    const otherShop: LookupRequest = { kind: 'shop-info', url: links.brandedStore, shopType: '0' };
    const refused = expectKind(await r.lookups.prepare(otherShop, actor('U1'), 'x'), 'refused');
    expect(describeRefusal(en, refused.refusal)).toContain('10 of 12 points used');
    expect(calls()).toBe(1);
  });

  it('a cap crossed mid-batch: 45 waybills, room for 2 calls → exactly 2 calls, the third batch refused', async () => {
    const r = await rig();
    await r.lookups.settings.setBudgets(budgetsSchema.parse({ workspace: { daily: 20 } }), ADMIN);
    const codes = Array.from({ length: 45 }, (_, i) => `YT${1_000_000_000_000 + i}`);
    const parsed = parseWaybillCommand(`${codes.join(' ')} shop:${shops.clothing}`);
    if (parsed.kind !== 'request') throw new Error(JSON.stringify(parsed));

    // U1 asks while 0 of 20 is spent: 3 calls × 5 = 15 fits, and U1 confirms.
    const u1 = expectKind(await r.lookups.prepare(parsed.request, actor('U1'), 'x'), 'confirm');
    expect(u1.quote).toMatchObject({ totalPoints: 15, lines: [{ operation: 'platdybw', calls: 3 }] });
    const claimed = await r.lookups.claim(u1.pending.id, 'U1');
    if (!claimed.ok) throw new Error(claimed.reason);
    // Meanwhile U2 spends 10: 10 of 20 left, room for exactly 2 calls of 5.
    await confirmAndRun(r, shopInfo, actor('U2'));
    const before = { calls: calls(), points: charged() };

    const outcome = await r.lookups.run(claimed.pending);
    if (outcome.kind !== 'waybill-print') throw new Error(outcome.kind);
    expect(calls() - before.calls).toBe(2);
    expect(h.sandbox.stats().callsByOperation.platdybw).toBe(2);
    expect(outcome.records).toHaveLength(40);
    expect(outcome.failedBatches).toHaveLength(1);
    expect(outcome.failedBatches[0]?.waybillCodes).toEqual(codes.slice(40));
    expect(outcome.failedBatches[0]?.error.code).toBe('budget_exceeded');
    expect(outcome.failedBatches[0]?.error).toMatchObject({ cap: { scope: 'workspace', period: 'daily' } });
    expect(outcome.chargedPoints).toBe(10);

    const mine = await r.store.ledger.list({ ...allTime(), userId: 'U1' });
    expect(mine).toHaveLength(2);
    expect(mine.reduce((sum, row) => sum + row.points, 0)).toBe(charged() - before.points);
    expect((await r.store.ledger.totals(allTime())).points).toBe(charged());
    expect(charged()).toBe(20);
    // The workspace cap today: one alert when it reached 80 % (10 spent + 5 in flight), one when it
    // first refused a call (the third batch).
    expect(r.alerts).toHaveLength(2);
    expect(r.alerts[0]).toEqual({
      figure: { scope: 'workspace', period: 'daily', cap: 20, spent: 15 },
      userId: 'U1',
      refused: false,
    });
    expect(r.alerts[1]).toMatchObject({
      figure: { scope: 'workspace', period: 'daily', cap: 20 },
      refused: true,
    });
    expect((await r.store.pending.get(u1.pending.id))?.state).toBe('done');

    // The cap is reached: the next lookup is refused before its call.
    expectKind(await r.lookups.prepare(shopId, actor('U3'), 'x'), 'refused');
    expect(calls() - before.calls).toBe(2);
  });
});

describe('cache', () => {
  it('a cached answer costs no call; Refresh makes exactly one; TTL 0 set by an admin turns it off', async () => {
    const r = await rig();
    const first = await confirmAndRun(r, itemBasic, actor('U1'));
    expect(first).toMatchObject({ kind: 'item', quotaCalls: 1 });
    expect(calls()).toBe(1);

    r.advance(5 * MINUTE);
    const cached = expectKind(await r.lookups.prepare(itemBasic, actor('U2'), 'x'), 'cached');
    expect(cached.ageMs).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(cached.ageMs).toBeLessThan(6 * MINUTE);
    expect(cached.outcome).toMatchObject({ kind: 'item', item: { itemId: items.basic } });
    expect(cached.refreshQuote).toMatchObject({ quotaCalls: 1 });
    expect(cached.refresh).toMatchObject({ userId: 'U2', state: 'pending' });
    expect(calls()).toBe(1);

    const claimed = await r.lookups.claim(cached.refresh.id, 'U2');
    if (!claimed.ok) throw new Error(claimed.reason);
    const refreshed = await r.lookups.run(claimed.pending);
    expect(refreshed).toMatchObject({ kind: 'item', quotaCalls: 1 });
    expect(refreshed.shared).toBeUndefined();
    expect(calls()).toBe(2);
    // The refreshed answer is the cached one now.
    expect(expectKind(await r.lookups.prepare(itemBasic, actor('U3'), 'x'), 'cached').ageMs).toBeLessThan(
      MINUTE,
    );

    await r.lookups.settings.setCacheTtl({ platiteminfo: 0 }, ADMIN);
    const uncached = expectKind(await r.lookups.prepare(itemBasic, actor('U1'), 'x'), 'confirm');
    const again = await r.lookups.claim(uncached.pending.id, 'U1');
    if (!again.ok) throw new Error(again.reason);
    await r.lookups.run(again.pending);
    expectKind(await r.lookups.prepare(itemBasic, actor('U1'), 'x'), 'confirm');
    expect(calls()).toBe(3);
    expect(h.sandbox.stats().itemCallsCharged).toBe(3);
    expect(await r.store.ledger.totals(allTime())).toMatchObject({ calls: 3, quotaCalls: 3, points: 0 });
  });

  it('orders are not cached by default; useCache: false skips the cache', async () => {
    const r = await rig();
    await confirmAndRun(r, orders(owners.small), actor('U1'));
    expectKind(await r.lookups.prepare(orders(owners.small), actor('U1'), 'x'), 'confirm');
    await confirmAndRun(r, shopId, actor('U1'));
    expectKind(await r.lookups.prepare(shopId, actor('U1'), 'x'), 'cached');
    expectKind(await r.lookups.prepare(shopId, actor('U1'), 'x', { useCache: false }), 'confirm');
    expect(calls()).toBe(2);
  });
});

describe('single-flight', () => {
  it.each([
    ['a cached operation', shopId, 2],
    ['an uncached operation', orders(owners.busy, 3), 2],
  ] as const)(
    'ten users confirming the same lookup at once (%s) make exactly one call',
    async (_name, request, price) => {
      const r = await rig();
      const users = Array.from({ length: 10 }, (_, i) => `U${i}`);
      const pendings: PendingLookup[] = [];
      for (const user of users) {
        const { pending } = expectKind(await r.lookups.prepare(request, actor(user), 'x'), 'confirm');
        pendings.push(pending);
      }
      const claimed = await Promise.all(
        pendings.map(async (p) => {
          const c = await r.lookups.claim(p.id, p.userId);
          if (!c.ok) throw new Error(c.reason);
          return c.pending;
        }),
      );

      const outcomes = await Promise.all(claimed.map((p) => r.lookups.run(p)));
      expect(calls()).toBe(1);
      expect(charged()).toBe(price);
      const leaders = outcomes.filter((o) => !o.shared);
      const followers = outcomes.filter((o) => o.shared === true);
      expect(leaders).toHaveLength(1);
      expect(leaders[0]?.chargedPoints).toBe(price);
      expect(followers).toHaveLength(9);
      for (const o of followers) expect(o.chargedPoints).toBe(0);

      const rows = await r.store.ledger.list(allTime());
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ userId: 'U0', pendingId: claimed[0]?.id, points: price });
      for (const p of claimed) expect((await r.store.pending.get(p.id))?.state).toBe('done');
    },
  );
});

describe('nothing twice', () => {
  it('claiming the same pending twice: the second is refused, one call', async () => {
    const r = await rig();
    const { pending } = expectKind(await r.lookups.prepare(orders(owners.busy), actor('U1'), 'x'), 'confirm');
    const first = await r.lookups.claim(pending.id, 'U1');
    const second = await r.lookups.claim(pending.id, 'U1');
    expect(first.ok).toBe(true);
    expect(second).toMatchObject({ ok: false, reason: 'already_used' });
    if (!first.ok) throw new Error(first.reason);
    await r.lookups.run(first.pending);
    expect(await r.lookups.claim(pending.id, 'U1')).toMatchObject({ ok: false, reason: 'already_used' });
    expect(await r.lookups.cancel(pending.id, 'U1')).toMatchObject({ ok: false, reason: 'already_used' });
    expect(calls()).toBe(1);
  });

  it('a lookup left running by a crash is interrupted once its holder is gone and never re-run', async () => {
    const r = await rig();
    const { pending } = expectKind(await r.lookups.prepare(shopInfo, actor('U1'), 'x'), 'confirm');
    expect((await r.lookups.claim(pending.id, 'U1')).ok).toBe(true);
    // The process dies here: claimed, never run. Its claim names it and holds a lease.
    const me = { id: 'other-host/1/-/-/restarted', host: 'other-host', pid: 1, pidNs: null, bootId: null };
    const longestCall = 5000;
    expect(await interruptGoneClaims(r.store, me, longestCall)).toEqual([]);
    // Its lease ran out, but a cut-off holder may still be in its last call: not yet.
    r.advance(r.lookups.holder.leaseMs + 1);
    expect(await interruptGoneClaims(r.store, me, longestCall)).toEqual([]);
    r.advance(longestCall);
    const interrupted = await interruptGoneClaims(r.store, me, longestCall);
    expect(interrupted.map((p) => [p.id, p.state, p.userId])).toEqual([[pending.id, 'interrupted', 'U1']]);
    expect(await interruptGoneClaims(r.store, me, longestCall)).toEqual([]);

    // After a restart (a new service over the same store) the Confirm button cannot run it again.
    const restarted = createLookupService({ client: h.client, store: r.store, prices: PRICES });
    expect(await restarted.claim(pending.id, 'U1')).toMatchObject({ ok: false, reason: 'interrupted' });
    expect(calls()).toBe(0);
    expect(await r.store.ledger.list(allTime())).toEqual([]);
  });

  it('an expired confirmation makes no call', async () => {
    const r = await rig();
    const { pending } = expectKind(await r.lookups.prepare(shopInfo, actor('U1'), 'x'), 'confirm');
    r.advance(11 * MINUTE);
    expect(await r.lookups.claim(pending.id, 'U1')).toMatchObject({ ok: false, reason: 'expired' });
    expect(calls()).toBe(0);
  });
});

describe('access', () => {
  it('listed mode without the user: refused not_allowed, nothing stored, no call; admins and listed users pass', async () => {
    const r = await rig();
    await r.lookups.settings.setAccess({ mode: 'listed', users: ['U2'], groups: [], channels: [] }, ADMIN);
    const refused = expectKind(await r.lookups.prepare(shopInfo, actor('U1'), 'x'), 'refused');
    expect(refused.refusal.reason).toBe('not_allowed');
    expect(r.created).toEqual([]);
    expectKind(await r.lookups.prepare(shopInfo, actor('U2'), 'x'), 'confirm');
    expectKind(await r.lookups.prepare(shopInfo, actor(ADMIN), 'x'), 'confirm');
    expect(r.created).toHaveLength(2);
    expect(calls()).toBe(0);
  });

  it('a refused user is refused even when the answer is cached', async () => {
    const r = await rig();
    await confirmAndRun(r, shopId, actor('U1'));
    await r.lookups.settings.setAccess({ mode: 'listed', users: ['U2'], groups: [], channels: [] }, ADMIN);
    expectKind(await r.lookups.prepare(shopId, actor('U1'), 'x'), 'refused');
    expect(calls()).toBe(1);
  });

  it('a shop registered to C1, queried from C2: refused shop_channel, no call', async () => {
    const r = await rig();
    await r.lookups.settings.setShops(
      {
        shops: [{ alias: 'tea', ownerId: owners.small, shopId: shops.tea, channels: ['C1'] }],
        registeredOnly: false,
      },
      ADMIN,
    );
    for (const request of [orders('tea'), orders(owners.small)]) {
      const refused = expectKind(await r.lookups.prepare(request, actor('U1', 'C2'), 'x'), 'refused');
      expect(refused.refusal.reason).toBe('shop_channel');
    }
    expect(r.created).toEqual([]);
    expect(calls()).toBe(0);
  });

  it('/orders <alias> resolves to the owner id: one call, for the right owner', async () => {
    const r = await rig();
    await r.lookups.settings.setShops(
      {
        shops: [{ alias: 'tea', ownerId: owners.small, shopId: shops.tea, channels: ['C1'] }],
        registeredOnly: false,
      },
      ADMIN,
    );
    const parsed = parseOrdersCommand('tea', { edition: 1 });
    if (parsed.kind !== 'request') throw new Error(JSON.stringify(parsed));
    const { pending } = expectKind(
      await r.lookups.prepare(parsed.request, actor('U1', 'C1'), 'x'),
      'confirm',
    );
    expect(pending.request).toMatchObject({ kind: 'orders', ownerId: owners.small });
    const claimed = await r.lookups.claim(pending.id, 'U1');
    if (!claimed.ok) throw new Error(claimed.reason);
    const outcome = await r.lookups.run(claimed.pending);
    if (outcome.kind !== 'orders') throw new Error(outcome.kind);
    expect(calls()).toBe(1);
    expect(h.sandbox.stats().callsByOperation['paging-orders']).toBe(1);
    expect(outcome.ownerId).toBe(owners.small);
    // The sandbox's small owner has its own order count (the busy one has hundreds).
    expect(outcome.page.totalElements).toBe(orderCounts.small);
    expect(orderCounts.small).not.toBe(orderCounts.busy);
  });
});
