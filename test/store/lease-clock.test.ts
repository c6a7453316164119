/**
 * One clock for leases (DESIGN rule 9, issue 33 pt 3), on PostgreSQL in real time: replicas whose
 * own clocks disagree by minutes share one database, and every lease and fence (digest runs,
 * lookup claims, periodic turns) is stamped and judged by the database's clock, so none of them
 * takes over another's live lease, and a holder whose clock fell behind (a host resumed after a
 * suspend) never finds a lapsed lease fresh. (SQLite has one process, so one clock: the contract
 * suites cover it with the fake clock.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewDigestRun, Store } from '../../src/store/store.js';
import { type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let db: TestDatabase;
/** Process clocks 5 minutes behind and 5 minutes ahead of this machine's (and the database's). */
let behind: Store;
let ahead: Store;
beforeAll(async () => {
  db = await testDatabase('postgres');
  const skewed = (ms: number) => ({ clock: { now: () => Date.now() + ms }, leaseClock: 'database' as const });
  behind = await db.open(skewed(-5 * MINUTE));
  ahead = await db.open(skewed(5 * MINUTE));
});
afterAll(async () => {
  await db?.dispose();
});

let dates = 0;
/** A digest run input on a date no other test uses. */
async function runInput(store: Store): Promise<NewDigestRun> {
  const sub = await store.digests.add({
    ownerId: '2200001002',
    shopLabel: `tea-${++dates}`,
    channelId: 'C1234',
    localTime: '09:00',
    timeZone: 'Asia/Shanghai',
    createdBy: 'UADMIN',
  });
  return {
    subscriptionId: sub.id,
    localDate: '2026-11-20',
    windowStart: new Date(Date.now() - 24 * 60 * MINUTE),
    windowEnd: new Date(),
    requestedBy: null,
  };
}

async function claimedLookup(store: Store, instanceId: string, leaseMs: number) {
  const created = await store.pending.create({
    userId: 'U1234',
    channelId: 'C1234',
    teamId: 'T1234',
    request: { kind: 'item', itemId: '680000000001', withPrices: false },
    quote: {},
    summary: 'item',
    responseUrl: null,
    ttlMs: 15 * MINUTE,
  });
  const holder = { instanceId, leaseMs };
  const claimed = await store.pending.claim(created.id, 'U1234', holder);
  if (!claimed.ok) throw new Error(claimed.reason);
  return { holder, pending: claimed.pending };
}

describe('one clock for leases on PostgreSQL', () => {
  it("a run held by a replica whose clock runs behind is not taken over by one whose clock runs ahead while the lease lasts in the database's time", async () => {
    const input = await runInput(behind);
    const first = await behind.digests.claimScheduled(input, { owner: 'behind', ms: 2_000 });
    if (!first.claimed) throw new Error('not claimed');
    // Stamped by the database's clock, not the holder's 5 minutes behind.
    expect(Math.abs((first.run.leaseExpiresAt?.getTime() ?? 0) - (Date.now() + 2_000))).toBeLessThan(1_000);
    expect(await ahead.digests.claimScheduled(input, { owner: 'ahead', ms: 2_000 })).toMatchObject({
      claimed: false,
    });
    // The holder keeps it while it renews in time…
    expect(
      await behind.digests.renew(first.run.id, { owner: 'behind', epoch: first.run.epoch, ms: 2_000 }),
    ).toBe(true);
    expect(await ahead.digests.claimScheduled(input, { owner: 'ahead', ms: 2_000 })).toMatchObject({
      claimed: false,
    });
    // …and once it lapsed in the database's time the other takes it, and the holder, late, is out.
    await sleep(2_300);
    expect(await ahead.digests.claimScheduled(input, { owner: 'ahead', ms: 2_000 })).toMatchObject({
      claimed: true,
      how: 'takeover',
    });
    expect(
      await behind.digests.renew(first.run.id, { owner: 'behind', epoch: first.run.epoch, ms: 2_000 }),
    ).toBe(false);
  });

  it('a holder whose clock fell minutes behind (a host resumed after a suspend) finds its lapsed claim lapsed: no fence, no renewal', async () => {
    // Claimed while this holder's clock was right…
    const right = await db.open({ clock: { now: () => Date.now() }, leaseClock: 'database' });
    const { holder, pending } = await claimedLookup(right, 'resumed-host/1/-/-/a', 500);
    // …then the host slept; the lease ran out in the database's time, the holder's clock is 10 min behind.
    await sleep(700);
    const resumed = await db.open({ clock: { now: () => Date.now() - 10 * MINUTE }, leaseClock: 'database' });
    expect(await resumed.pending.fence(pending.id, holder, pending.claimEpoch)).toBe(false);
    expect(await resumed.pending.renewClaims(holder)).toBe(0);
    expect((await resumed.pending.get(pending.id))?.callsSent).toBe(0);
  });

  it("a lookup claim held by a replica whose clock runs behind is interrupted by one ahead only once its lease ran out in the database's time", async () => {
    const { holder, pending } = await claimedLookup(behind, 'behind-host/1/-/-/b', 1_500);
    const grounds = { leaseOverForMs: 0 };
    expect(
      await ahead.pending.interrupt(pending.id, holder.instanceId, pending.claimEpoch, grounds),
    ).toBeNull();
    expect(await behind.pending.fence(pending.id, holder, pending.claimEpoch)).toBe(true);
    await sleep(1_800);
    expect(
      await ahead.pending.interrupt(pending.id, holder.instanceId, pending.claimEpoch, grounds),
    ).toMatchObject({ state: 'interrupted', callsSent: 1 });
  });

  it('a periodic turn taken by a replica whose clock runs behind is not taken again by one ahead within its period', async () => {
    expect(await behind.turns.take('lease-clock-test', 'behind', MINUTE)).toBe(true);
    expect(await ahead.turns.take('lease-clock-test', 'ahead', MINUTE)).toBe(false);
    expect(await behind.turns.take('lease-clock-test', 'behind', MINUTE)).toBe(false);
  });
});
