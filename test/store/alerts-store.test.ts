/**
 * The alert records: one check per (subscription, slot) held under a lease, an order alerted
 * once per subscription (recorded before the post, adopted by the check that takes over after a
 * crash), claim once, reminder once, a post interrupted by a crash never repeated.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertOrderFacts } from '../../src/store/alerts.js';
import type { Lease } from '../../src/store/runs.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { makeNewAlertSubscription } from '../helpers/domain-factories.js';

const T0 = Date.parse('2026-11-20T02:00:00Z');
const MINUTE = 60_000;
const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function setup() {
  const store = openSqliteStore(':memory:', { now: () => new Date(T0) });
  stores.push(store);
  const sub = store.alerts.add(makeNewAlertSubscription());
  return { store, sub };
}
const lease = (owner: string, at: number, ms = 10 * MINUTE): Lease => ({ owner, now: new Date(at), ms });
const order = (sn: string, hours: number): AlertOrderFacts => ({
  orderSn: sn,
  goodsName: 'tea',
  goodsCount: 1,
  amountFen: 12800,
  lastShipTime: new Date(T0 + hours * 60 * MINUTE),
});
const slot = { subscriptionId: 1, slotAt: new Date(T0), localDate: '2026-11-20' };

describe('alert store', () => {
  it('one holder per slot; a crashed check is taken over and posts the orders it had recorded, once', () => {
    const { store } = setup();
    const a = store.alerts.claimCheck(slot, lease('a', T0));
    expect(a.claimed).toBe(true);
    expect(store.alerts.claimCheck(slot, lease('b', T0 + MINUTE)).claimed).toBe(false);
    const checkId = a.check.id;
    expect(
      store.alerts.recordPending(checkId, lease('a', T0), [order('s1', 2), order('s2', 1)]),
    ).toHaveLength(2);

    // 'a' dies before posting; once its lease has run out 'b' takes the same check over.
    const b = store.alerts.claimCheck(slot, lease('b', T0 + 11 * MINUTE));
    expect(b).toMatchObject({ claimed: true, how: 'takeover' });
    // 'a' cannot record any more.
    expect(store.alerts.recordPending(checkId, lease('a', T0 + 11 * MINUTE), [])).toBeNull();
    // 'b' fetches the same orders plus a new one: all three are its to post, most urgent first.
    const pending = store.alerts.recordPending(checkId, lease('b', T0 + 11 * MINUTE), [
      order('s1', 2),
      order('s2', 1),
      order('s3', 3),
    ]);
    expect(pending?.map((o) => o.orderSn)).toEqual(['s2', 's1', 's3']);
    expect(store.alerts.markPosting(checkId, lease('b', T0 + 11 * MINUTE))).toBe(true);
    expect(store.alerts.markPosted(checkId, 'b', '111.222', new Date(T0 + 12 * MINUTE))).toBe(true);
    expect(store.alerts.ordersOfMessage(1, '111.222').map((o) => [o.orderSn, o.state])).toEqual([
      ['s2', 'alerted'],
      ['s1', 'alerted'],
      ['s3', 'alerted'],
    ]);

    // The next slot's check: an order recorded before is never pending again.
    const next = store.alerts.claimCheck(
      { ...slot, slotAt: new Date(T0 + 60 * MINUTE) },
      lease('a', T0 + 60 * MINUTE),
    );
    expect(next.claimed).toBe(true);
    expect(store.alerts.recordPending(next.check.id, lease('a', T0 + 60 * MINUTE), [order('s1', 2)])).toEqual(
      [],
    );
  });

  it('a crash while posting: the check is marked unknown once and its orders are not posted again', () => {
    const { store } = setup();
    const a = store.alerts.claimCheck(slot, lease('a', T0));
    store.alerts.recordPending(a.check.id, lease('a', T0), [order('s1', 2)]);
    expect(store.alerts.markPosting(a.check.id, lease('a', T0))).toBe(true);
    const first = store.alerts.claimCheck(slot, lease('b', T0 + 11 * MINUTE));
    expect(first).toMatchObject({ claimed: false, orphaned: true });
    expect(store.alerts.claimCheck(slot, lease('c', T0 + 12 * MINUTE))).toMatchObject({ orphaned: false });
    expect(store.alerts.order(1, 's1')?.state).toBe('unknown');
    const next = store.alerts.claimCheck(
      { ...slot, slotAt: new Date(T0 + 60 * MINUTE) },
      lease('b', T0 + 60 * MINUTE),
    );
    expect(store.alerts.recordPending(next.check.id, lease('b', T0 + 60 * MINUTE), [order('s1', 2)])).toEqual(
      [],
    );
  });

  it('claim once (the claimer again is fine), handled only by the claimer, shipped once, reminded once', () => {
    const { store } = setup();
    const a = store.alerts.claimCheck(slot, lease('a', T0));
    store.alerts.recordPending(a.check.id, lease('a', T0), [order('s1', 2), order('s2', 3)]);
    store.alerts.markPosting(a.check.id, lease('a', T0));
    store.alerts.markPosted(a.check.id, 'a', '1.1', new Date(T0));
    const at = new Date(T0 + MINUTE);
    expect(store.alerts.claimOrder(1, 's1', 'U1', at)).toMatchObject({ ok: true });
    expect(store.alerts.claimOrder(1, 's1', 'U1', at)).toMatchObject({ ok: true });
    expect(store.alerts.claimOrder(1, 's1', 'U2', at)).toMatchObject({
      ok: false,
      reason: 'taken',
      order: { claimedBy: 'U1' },
    });
    expect(store.alerts.handleOrder(1, 's1', 'U2', at)).toMatchObject({ ok: false, reason: 'taken' });
    expect(store.alerts.handleOrder(1, 's1', 'U1', at)).toMatchObject({
      ok: true,
      order: { state: 'handled' },
    });
    expect(store.alerts.claimOrder(1, 's1', 'U2', at)).toMatchObject({ ok: false, reason: 'done' });
    expect(store.alerts.claimOrder(1, 'nope', 'U2', at)).toMatchObject({ ok: false, reason: 'not_found' });
    expect(store.alerts.markReminded(1, 's2', at)).toBe(true);
    expect(store.alerts.markReminded(1, 's2', at)).toBe(false);
    expect(store.alerts.markShipped(1, 's2', at)).toBe(true);
    expect(store.alerts.markShipped(1, 's2', at)).toBe(false);
  });

  it('housekeeping prunes orders past their deadline and the checks nothing points at; a check reads only orders still due', () => {
    const { store } = setup();
    const a = store.alerts.claimCheck(slot, lease('a', T0));
    store.alerts.recordPending(a.check.id, lease('a', T0), [order('old', -200), order('due', 2)]);
    expect(store.alerts.orders(1, ['pending'], new Date(T0)).map((o) => o.orderSn)).toEqual(['due']);
    expect(store.alerts.orders(1, ['pending']).map((o) => o.orderSn)).toEqual(['old', 'due']);
    const b = store.alerts.claimCheck({ ...slot, slotAt: new Date(T0 + 60 * MINUTE) }, lease('a', T0));
    store.alerts.markPosting(b.check.id, lease('a', T0));
    store.alerts.markPosted(b.check.id, 'a', null, new Date(T0));
    // 'old' is gone; check b (no orders, not running) too; check a keeps 'due'.
    expect(store.alerts.prune(new Date(T0 + 1))).toBe(2);
    expect(store.alerts.order(1, 'old')).toBeNull();
    expect(store.alerts.check(a.check.id)).not.toBeNull();
    expect(store.alerts.check(b.check.id)).toBeNull();
  });

  it('spend per local day, cap approval and the admins asked once a day', () => {
    const { store } = setup();
    const a = store.alerts.claimCheck(slot, lease('a', T0));
    store.alerts.addCharge(a.check.id, 2, 1);
    store.alerts.addCharge(a.check.id, 2, 1);
    expect(store.alerts.spentOn(1, '2026-11-20')).toBe(4);
    expect(store.alerts.spentOn(1, '2026-11-21')).toBe(0);
    expect(store.alerts.markAsked(1, '2026-11-20', new Date(T0))).toBe(true);
    expect(store.alerts.markAsked(1, '2026-11-20', new Date(T0))).toBe(false);
    expect(store.alerts.approvedOn(1, '2026-11-20')).toBeNull();
    store.alerts.approveDay(1, '2026-11-20', 'UADMIN', new Date(T0));
    expect(store.alerts.approvedOn(1, '2026-11-20')).toBe('UADMIN');
    expect(store.audit.list(10, { action: 'alert.approve' })).toHaveLength(1);
  });
});
