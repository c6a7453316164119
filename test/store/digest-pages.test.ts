/**
 * Digest page records and fenced run leases (issue 19 points 1 and 2), on both engines: a page is
 * recorded with its charge in one transaction and only under the holder's epoch; every claim of
 * a run (new, takeover, retry, approval) bumps the epoch, so a holder whose lease was claimed
 * again records, renews and moves nothing any more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { digestPageChargeKey } from '../../src/store/digest-pages.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import type { Lease, NewDigestPage, NewDigestRun, Store } from '../../src/store/store.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-20T01:00:00Z');
/** The stores' clock (the lease clock too: store-engines.ts), moved by lease(). */
let clockAt = T0;
/** A lease of `owner` asked at `at`: the store stamps and judges leases by its own clock, set to `at`. */
const lease = (owner: string, at: number, ms = MINUTE): Lease => {
  clockAt = at;
  return { owner, ms };
};
const runInput = (subscriptionId: number): NewDigestRun => ({
  subscriptionId,
  localDate: '2026-11-20',
  windowStart: new Date(T0 - 72 * 60 * MINUTE),
  windowEnd: new Date(T0),
  requestedBy: null,
});
const page = (window: number, n: number, totalPages: number, points = 2): NewDigestPage => ({
  window,
  page: n,
  totalPages,
  ordersJson: JSON.stringify([{ sn: `w${window}p${n}` }]),
  orderCount: 1,
  points,
});

const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

describe.each(ENGINES)('digest pages and run epochs on %s', (engine) => {
  async function setup(): Promise<{ store: Store; subscriptionId: number }> {
    const db = await testDatabase(engine);
    databases.push(db);
    clockAt = T0;
    const store = await db.open({ clock: { now: () => clockAt } });
    const sub = await store.digests.add({
      ownerId: '2200001002',
      shopLabel: 'tea',
      channelId: 'C1234',
      localTime: '09:00',
      timeZone: 'Asia/Shanghai',
      createdBy: 'UADMIN',
    });
    return { store, subscriptionId: sub.id };
  }

  it('the schema has the digest pages migration, appended after the shipped ones', async () => {
    const index = MIGRATIONS.findIndex((m) => m.sql.includes('CREATE TABLE digest_pages'));
    expect(index).toBeGreaterThanOrEqual(6);
  });

  it('a page is recorded with its charge in one transaction, under the holder epoch only', async () => {
    const { store, subscriptionId } = await setup();
    const claim = await store.digests.claimScheduled(runInput(subscriptionId), lease('a', T0));
    if (!claim.claimed) throw new Error('not claimed');
    const run = claim.run;
    expect(run.epoch).toBe(1);
    const a = { owner: 'a', epoch: run.epoch };

    expect(await store.digestPages.record(run.id, a, page(0, 0, 2, 2))).toBe(true);
    expect(await store.digestPages.record(run.id, a, page(0, 1, 2, 3))).toBe(true);
    // A wrong epoch (an older claim of the same owner) or another owner: nothing written.
    expect(await store.digestPages.record(run.id, { owner: 'a', epoch: 0 }, page(1, 0, 1))).toBe(false);
    expect(await store.digestPages.record(run.id, { owner: 'b', epoch: 1 }, page(1, 0, 1))).toBe(false);

    const after = await store.digests.run(run.id);
    expect(after).toMatchObject({ chargedPoints: 5, calls: 2 });
    const pages = await store.digestPages.list(run.id);
    expect(pages.map((p) => [p.window, p.page, p.totalPages, p.points, p.attempt, p.epoch])).toEqual([
      [0, 0, 2, 2, 1, 1],
      [0, 1, 2, 3, 1, 1],
    ]);
    expect(pages.map((p) => p.chargeKey)).toEqual([
      digestPageChargeKey(run.id, 0, 0),
      digestPageChargeKey(run.id, 0, 1),
    ]);
    // The same page twice is refused and rolls its charge back with it.
    await expect(store.digestPages.record(run.id, a, page(0, 1, 2, 3))).rejects.toThrow();
    expect(await store.digests.run(run.id)).toMatchObject({ chargedPoints: 5, calls: 2 });
  });

  it('a takeover bumps the epoch: the old holder can no longer record, renew, park or fail the run; the new one goes on', async () => {
    const { store, subscriptionId } = await setup();
    const first = await store.digests.claimScheduled(runInput(subscriptionId), lease('a', T0));
    if (!first.claimed) throw new Error('not claimed');
    const a = { owner: 'a', epoch: first.run.epoch };
    expect(await store.digestPages.record(first.run.id, a, page(0, 0, 3))).toBe(true);
    expect(await store.digests.renew(first.run.id, { ...lease('a', T0 + 30_000), ...a })).toBe(true);

    // Its lease runs out; 'a' itself claims it again (a new epoch, the same owner name).
    const again = await store.digests.claimScheduled(runInput(subscriptionId), lease('a', T0 + 2 * MINUTE));
    expect(again).toMatchObject({ claimed: true, how: 'takeover', run: { epoch: a.epoch + 1 } });
    const stale = a;
    const now = T0 + 2 * MINUTE;
    expect(await store.digestPages.record(first.run.id, stale, page(0, 1, 3))).toBe(false);
    expect(await store.digests.renew(first.run.id, { ...lease('a', now), ...stale })).toBe(false);
    expect(await store.digests.awaitApproval(first.run.id, stale, 10, new Date(now))).toBe(false);
    expect(
      await store.digests.markFailed(first.run.id, stale, {
        error: 'x',
        nextAttemptAt: null,
        now: new Date(now),
      }),
    ).toBe(false);
    expect(await store.digests.release(first.run.id, stale, new Date(now))).toBe(false);

    const fresh = { owner: 'a', epoch: a.epoch + 1 };
    expect(await store.digestPages.record(first.run.id, fresh, page(0, 1, 3))).toBe(true);
    const pages = await store.digestPages.list(first.run.id);
    expect(pages.map((p) => [p.page, p.attempt, p.epoch])).toEqual([
      [0, 1, 1],
      [1, 2, 2],
    ]);
    expect(await store.digests.run(first.run.id)).toMatchObject({ calls: 2, chargedPoints: 4, attempts: 2 });
  });

  it('parking for approval keeps the pages; the approval is a new epoch that records after them', async () => {
    const { store, subscriptionId } = await setup();
    const first = await store.digests.claimScheduled(runInput(subscriptionId), lease('a', T0));
    if (!first.claimed) throw new Error('not claimed');
    const a = { owner: 'a', epoch: first.run.epoch };
    await store.digestPages.record(first.run.id, a, page(0, 0, 4));
    await store.digestPages.record(first.run.id, a, page(0, 1, 4));
    expect(await store.digests.awaitApproval(first.run.id, a, 8, new Date(T0))).toBe(true);
    // Parked: nobody holds it, nothing is recorded.
    expect(await store.digestPages.record(first.run.id, a, page(0, 2, 4))).toBe(false);
    const approved = await store.digests.claimApproved(first.run.id, lease('b', T0), 'UADMIN');
    expect(approved?.epoch).toBe(a.epoch + 1);
    const b = { owner: 'b', epoch: a.epoch + 1 };
    expect(await store.digestPages.record(first.run.id, b, page(0, 2, 4))).toBe(true);
    expect((await store.digestPages.list(first.run.id)).map((p) => p.page)).toEqual([0, 1, 2]);
    expect(await store.digests.run(first.run.id)).toMatchObject({ calls: 3, chargedPoints: 6 });
  });

  it('a retry of a failed run is a new epoch; manual and new runs start at epoch 1', async () => {
    const { store, subscriptionId } = await setup();
    const first = await store.digests.claimScheduled(runInput(subscriptionId), lease('a', T0));
    if (!first.claimed) throw new Error('not claimed');
    const a = { owner: 'a', epoch: first.run.epoch };
    await store.digests.markFailed(first.run.id, a, {
      error: 'x',
      nextAttemptAt: new Date(T0 + MINUTE),
      now: new Date(T0),
    });
    const retry = await store.digests.claimScheduled(runInput(subscriptionId), lease('b', T0 + MINUTE));
    expect(retry).toMatchObject({ claimed: true, how: 'retry', run: { epoch: 2 } });
    const manual = await store.digests.createManual(runInput(subscriptionId), lease('c', T0));
    expect(manual?.epoch).toBe(1);
  });
});
