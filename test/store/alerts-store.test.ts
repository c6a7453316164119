/**
 * The alert records: one check per (subscription, slot) held under a lease, an order alerted
 * once per subscription (recorded before the post, adopted by the check that takes over after a
 * crash), claim once, reminder once, a post interrupted by a crash never repeated.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AlertOrderFacts,
  type HeldLease,
  type Lease,
  POST_SETTLE_MS,
  type Store,
} from '../../src/store/store.js';
import { makeNewAlertSubscription } from '../helpers/domain-factories.js';
import { ENGINES, type EngineName, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const T0 = Date.parse('2026-11-20T02:00:00Z');
const MINUTE = 60_000;
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of databases.splice(0)) await d.dispose();
});
const databases: TestDatabase[] = [];
let engine: EngineName = 'sqlite';

async function setup() {
  const db = await testDatabase(engine);
  databases.push(db);
  clockAt = T0;
  const store = await db.open({ clock: { now: () => clockAt } });
  stores.push(store);
  const sub = await store.alerts.add(makeNewAlertSubscription());
  return { store, sub };
}
/** The stores' clock (the lease clock too: store-engines.ts), moved by lease() and held(). */
let clockAt = T0;
/** A lease of `owner` asked at `at`: the store stamps and judges leases by its own clock, set to `at`. */
const lease = (owner: string, at: number, ms = 10 * MINUTE): Lease => {
  clockAt = at;
  return { owner, ms };
};
const held = (owner: string, at: number, epoch: number): HeldLease => ({ ...lease(owner, at), epoch });
const order = (sn: string, hours: number): AlertOrderFacts => ({
  orderSn: sn,
  goodsName: 'tea',
  goodsCount: 1,
  amountFen: 12800,
  lastShipTime: new Date(T0 + hours * 60 * MINUTE),
});
const slot = { subscriptionId: 1, slotAt: new Date(T0), localDate: '2026-11-20' };

describe.each(ENGINES)('alert store on %s', (name) => {
  beforeEach(() => {
    engine = name;
  });

  it('one holder per slot; a crashed check is taken over and posts the orders it had recorded, once', async () => {
    const { store } = await setup();
    const a = await store.alerts.claimCheck(slot, lease('a', T0));
    expect(a.claimed).toBe(true);
    expect((await store.alerts.claimCheck(slot, lease('b', T0 + MINUTE))).claimed).toBe(false);
    const checkId = a.check.id;
    expect(
      await store.alerts.recordPending(checkId, held('a', T0, a.check.epoch), [
        order('s1', 2),
        order('s2', 1),
      ]),
    ).toHaveLength(2);

    // 'a' dies before posting; once its lease has run out 'b' takes the same check over.
    const b = await store.alerts.claimCheck(slot, lease('b', T0 + 11 * MINUTE));
    expect(b).toMatchObject({ claimed: true, how: 'takeover' });
    // 'a' cannot record any more, and the takeover bumped the epoch: even the same owner name
    // under the old epoch is refused.
    expect(b.claimed && b.check.epoch).toBe(a.check.epoch + 1);
    const bEpoch = b.claimed ? b.check.epoch : -1;
    expect(
      await store.alerts.recordPending(checkId, held('a', T0 + 11 * MINUTE, a.check.epoch), []),
    ).toBeNull();
    expect(
      await store.alerts.recordPending(checkId, held('b', T0 + 11 * MINUTE, a.check.epoch), []),
    ).toBeNull();
    // 'b' fetches the same orders plus a new one: all three are its to post, most urgent first.
    const pending = await store.alerts.recordPending(checkId, held('b', T0 + 11 * MINUTE, bEpoch), [
      order('s1', 2),
      order('s2', 1),
      order('s3', 3),
    ]);
    expect(pending?.map((o) => o.orderSn)).toEqual(['s2', 's1', 's3']);
    expect(await store.alerts.markPosting(checkId, held('b', T0 + 11 * MINUTE, bEpoch))).toBe(true);
    expect(
      await store.alerts.markPosted(
        checkId,
        { owner: 'b', epoch: bEpoch },
        '111.222',
        new Date(T0 + 12 * MINUTE),
      ),
    ).toBe(true);
    expect((await store.alerts.ordersOfMessage(1, '111.222')).map((o) => [o.orderSn, o.state])).toEqual([
      ['s2', 'alerted'],
      ['s1', 'alerted'],
      ['s3', 'alerted'],
    ]);

    // The next slot's check: an order recorded before is never pending again.
    const next = await store.alerts.claimCheck(
      { ...slot, slotAt: new Date(T0 + 60 * MINUTE) },
      lease('a', T0 + 60 * MINUTE),
    );
    expect(next.claimed).toBe(true);
    expect(
      await store.alerts.recordPending(next.check.id, held('a', T0 + 60 * MINUTE, next.check.epoch), [
        order('s1', 2),
      ]),
    ).toEqual([]);
  });

  it('a crash while posting: unknown after the lease, its history check due after the grace; a later check leaves its orders alone', async () => {
    const { store } = await setup();
    const a = await store.alerts.claimCheck(slot, lease('a', T0));
    await store.alerts.recordPending(a.check.id, held('a', T0, a.check.epoch), [order('s1', 2)]);
    expect(await store.alerts.markPosting(a.check.id, held('a', T0, a.check.epoch))).toBe(true);
    // Lease expired (T0 + 10 min), grace not yet run: unknown, nobody holds it.
    expect(await store.alerts.claimCheck(slot, lease('b', T0 + 10 * MINUTE))).toMatchObject({
      claimed: false,
    });
    const unknown = await store.alerts.check(a.check.id);
    expect(unknown).toMatchObject({ state: 'unknown', leaseOwner: null });
    expect(unknown?.nextAttemptAt?.getTime()).toBe(T0 + 10 * MINUTE + POST_SETTLE_MS);
    expect((await store.alerts.openChecks()).map((c) => c.id)).toEqual([a.check.id]);
    // The next slot's check does not adopt the order of a check whose post is in doubt.
    const next = await store.alerts.claimCheck(
      { ...slot, slotAt: new Date(T0 + 60 * MINUTE) },
      lease('c', T0 + 60 * MINUTE),
    );
    expect(
      await store.alerts.recordPending(next.check.id, held('c', T0 + 60 * MINUTE, next.check.epoch), [
        order('s1', 2),
      ]),
    ).toEqual([]);
    expect((await store.alerts.order(1, 's1'))?.checkId).toBe(a.check.id);
    // Its history check: exactly one claimer, in 'posting'.
    const verify = await store.alerts.claimCheck(slot, lease('b', T0 + 61 * MINUTE));
    expect(verify).toMatchObject({ claimed: true, how: 'verify', check: { state: 'posting', attempts: 2 } });
    expect((await store.alerts.claimCheck(slot, lease('d', T0 + 61 * MINUTE))).claimed).toBe(false);
    // The history cannot be read: given up, and its orders are never posted again.
    expect(
      await store.alerts.markUnknown(
        a.check.id,
        { owner: 'b', epoch: verify.claimed ? verify.check.epoch : -1 },
        {
          error: 'history unreadable',
          checkAt: null,
          now: new Date(T0 + 61 * MINUTE),
        },
      ),
    ).toBe(true);
    expect((await store.alerts.order(1, 's1'))?.state).toBe('unknown');
    expect(await store.alerts.check(a.check.id)).toMatchObject({ state: 'unknown', nextAttemptAt: null });
    expect((await store.alerts.openChecks()).map((c) => c.id)).toEqual([next.check.id]);
  });

  it('claim once (the claimer again is fine), handled only by the claimer, shipped once, reminded once', async () => {
    const { store } = await setup();
    const a = await store.alerts.claimCheck(slot, lease('a', T0));
    await store.alerts.recordPending(a.check.id, held('a', T0, a.check.epoch), [
      order('s1', 2),
      order('s2', 3),
    ]);
    await store.alerts.markPosting(a.check.id, held('a', T0, a.check.epoch));
    await store.alerts.markPosted(a.check.id, { owner: 'a', epoch: a.check.epoch }, '1.1', new Date(T0));
    const at = new Date(T0 + MINUTE);
    expect(await store.alerts.claimOrder(1, 's1', 'U1', at)).toMatchObject({ ok: true });
    expect(await store.alerts.claimOrder(1, 's1', 'U1', at)).toMatchObject({ ok: true });
    expect(await store.alerts.claimOrder(1, 's1', 'U2', at)).toMatchObject({
      ok: false,
      reason: 'taken',
      order: { claimedBy: 'U1' },
    });
    expect(await store.alerts.handleOrder(1, 's1', 'U2', at)).toMatchObject({ ok: false, reason: 'taken' });
    expect(await store.alerts.handleOrder(1, 's1', 'U1', at)).toMatchObject({
      ok: true,
      order: { state: 'handled' },
    });
    expect(await store.alerts.claimOrder(1, 's1', 'U2', at)).toMatchObject({ ok: false, reason: 'done' });
    expect(await store.alerts.claimOrder(1, 'nope', 'U2', at)).toMatchObject({
      ok: false,
      reason: 'not_found',
    });
    expect(await store.alerts.markReminded(1, 's2', at)).toBe(true);
    expect(await store.alerts.markReminded(1, 's2', at)).toBe(false);
    expect(await store.alerts.markShipped(1, 's2', at)).toBe(true);
    expect(await store.alerts.markShipped(1, 's2', at)).toBe(false);
  });

  it('housekeeping prunes orders past their deadline and the checks nothing points at; a check reads only orders still due', async () => {
    const { store } = await setup();
    const a = await store.alerts.claimCheck(slot, lease('a', T0));
    await store.alerts.recordPending(a.check.id, held('a', T0, a.check.epoch), [
      order('old', -200),
      order('due', 2),
    ]);
    expect((await store.alerts.orders(1, ['pending'], new Date(T0))).map((o) => o.orderSn)).toEqual(['due']);
    expect((await store.alerts.orders(1, ['pending'])).map((o) => o.orderSn)).toEqual(['old', 'due']);
    const b = await store.alerts.claimCheck({ ...slot, slotAt: new Date(T0 + 60 * MINUTE) }, lease('a', T0));
    await store.alerts.markPosting(b.check.id, held('a', T0, b.check.epoch));
    await store.alerts.markPosted(b.check.id, { owner: 'a', epoch: b.check.epoch }, null, new Date(T0));
    // 'old' is gone; check b (no orders, not running) too; check a keeps 'due'.
    expect(await store.alerts.prune(new Date(T0 + 1))).toBe(2);
    expect(await store.alerts.order(1, 'old')).toBeNull();
    expect(await store.alerts.check(a.check.id)).not.toBeNull();
    expect(await store.alerts.check(b.check.id)).toBeNull();
  });

  it('spend per local day, cap approval and the admins asked once a day', async () => {
    const { store } = await setup();
    const a = await store.alerts.claimCheck(slot, lease('a', T0));
    await store.alerts.addCharge(a.check.id, 2, 1);
    await store.alerts.addCharge(a.check.id, 2, 1);
    expect(await store.alerts.spentOn(1, '2026-11-20')).toBe(4);
    expect(await store.alerts.spentOn(1, '2026-11-21')).toBe(0);
    expect(await store.alerts.markAsked(1, '2026-11-20', new Date(T0))).toBe(true);
    expect(await store.alerts.markAsked(1, '2026-11-20', new Date(T0))).toBe(false);
    expect(await store.alerts.approvedOn(1, '2026-11-20')).toBeNull();
    await store.alerts.approveDay(1, '2026-11-20', 'UADMIN', new Date(T0));
    expect(await store.alerts.approvedOn(1, '2026-11-20')).toBe('UADMIN');
    expect(await store.audit.list(10, { action: 'alert.approve' })).toHaveLength(1);
  });
});
