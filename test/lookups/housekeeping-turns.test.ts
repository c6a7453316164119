/**
 * Tables stay bounded, and one process does it (issue 19 point 5), on both engines: digest runs
 * a month old and admin alerts sent past their retention are pruned (a run still held is not);
 * and of two processes on one database (two stores, two pools on PostgreSQL) exactly one prunes
 * in each hour, however often both look.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALERTS_SENT_KEEP_MS,
  createHousekeeping,
  DIGEST_RUN_KEEP_MS,
  HOUSEKEEPING_EVERY_MS,
  type Housekeeping,
  pruneOldRows,
  SENT_CALL_SETTLE_AFTER_MS,
} from '../../src/lookups/housekeeping.js';
import type { SentCall, Store } from '../../src/store/store.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const START = Date.parse('2026-11-01T00:00:00Z');
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let db: TestDatabase | null = null;
afterEach(async () => {
  await db?.dispose();
  db = null;
});

describe.each(ENGINES)('housekeeping (%s store)', (engine) => {
  let t = START;
  const clock = { now: () => t };

  async function stores(n: number): Promise<Store[]> {
    t = START;
    db = await testDatabase(engine);
    return db.openMany(n, { clock });
  }

  function housekeeping(store: Store, holder: string): Housekeeping {
    return createHousekeeping({ store, now: () => new Date(t), logger: quiet, holder });
  }

  /** A scheduled run of `date` claimed now by `owner` for `leaseMs`. */
  async function claimRun(
    store: Store,
    subscriptionId: number,
    date: string,
    owner: string,
    leaseMs: number,
  ) {
    const claim = await store.digests.claimScheduled(
      {
        subscriptionId,
        localDate: date,
        windowStart: new Date(t - DAY),
        windowEnd: new Date(t),
        requestedBy: null,
      },
      { owner, ms: leaseMs },
    );
    expect(claim.claimed).toBe(true);
    return claim.run;
  }

  it('prunes digest runs past DIGEST_RUN_KEEP_MS and alerts sent past ALERTS_SENT_KEEP_MS; a held run stays', async () => {
    const [store] = await stores(1);
    if (!store) throw new Error('no store');
    const sub = await store.digests.add({
      ownerId: '2200001002',
      shopLabel: 'tea',
      channelId: 'C1234',
      localTime: '09:00',
      timeZone: 'Asia/Shanghai',
      createdBy: 'U0ADMIN',
    });
    // Day 0: a run posted, one left running by a crashed holder (lease expired long since), one
    // held by a live holder (a lease longer than the retention, so it is still held then).
    const posted = await claimRun(store, sub.id, '2026-11-01', 'a', MINUTE);
    const lease = { owner: 'a', epoch: posted.epoch, now: new Date(t), ms: MINUTE };
    expect(await store.digests.markPosting(posted.id, lease, '{}')).toBe(true);
    expect(
      await store.digests.markPosted(posted.id, { owner: 'a', epoch: posted.epoch }, '1.1', new Date(t)),
    ).toBe(true);
    const abandoned = await claimRun(store, sub.id, '2026-11-02', 'crashed', MINUTE);
    const held = await claimRun(store, sub.id, '2026-11-03', 'alive', 40 * DAY);
    expect(await store.alertsSent.claim('budget|2026-11-01|workspace:*:daily:refused', Infinity)).toBe(true);

    t = START + DIGEST_RUN_KEEP_MS - HOUR;
    const recent = await claimRun(store, sub.id, '2026-12-01', 'b', MINUTE);
    expect(await store.alertsSent.claim('account|401', HOUR)).toBe(true);

    // Not yet a month: nothing goes.
    const first = await housekeeping(store, 'p1').run();
    expect(first).toMatchObject({ digestRuns: 0, alertsSent: 0 });

    t = START + DIGEST_RUN_KEEP_MS + HOUR;
    const second = await housekeeping(store, 'p1').run();
    expect(second).toMatchObject({ digestRuns: 2 });
    expect(await store.digests.run(posted.id)).toBeNull();
    expect(await store.digests.run(abandoned.id)).toBeNull();
    expect(await store.digests.run(held.id)).not.toBeNull();
    expect(await store.digests.run(recent.id)).not.toBeNull();
    // The budget alert is a month old but inside its 35 days.
    expect(await store.alertsSent.recent('budget|', 10)).toHaveLength(1);

    t = START + ALERTS_SENT_KEEP_MS + HOUR;
    const third = await housekeeping(store, 'p1').run();
    expect(third).toMatchObject({ alertsSent: 1 });
    expect(await store.alertsSent.recent('budget|', 10)).toHaveLength(0);
    expect(await store.alertsSent.recent('account|', 10)).toHaveLength(1);
  });

  it('calls written ahead that nobody settled get their ledger row after SENT_CALL_SETTLE_AFTER_MS (sent: -1; not marked: -2), each in its tenant; recorded ones are forgotten after SENT_CALL_KEEP_MS; recent ones stay', async () => {
    const [store] = await stores(1);
    if (!store) throw new Error('no store');
    const call = (chargeId: string, ago: number, fields: Partial<SentCall> = {}): SentCall => ({
      chargeId,
      runKey: `lookup:${chargeId.split(':')[0]}`,
      epoch: 1,
      source: 'interactive',
      operation: 'platiteminfo',
      edition: null,
      channelId: 'C1',
      correlationId: null,
      attempt: 0,
      sentAt: new Date(t - ago),
      userId: 'U1',
      pendingId: chargeId.split(':')[0] ?? null,
      ...fields,
    });
    const other = store.forTenant('T-OTHER');
    // An orphan marked sent (a lookup finished elsewhere whose charge was lost), one never
    // marked (a digest run nobody takes up again), one in another tenant, one recent.
    await store.sentCalls.record(call('p-old:0:0', 2 * HOUR));
    await store.sentCalls.markSent('p-old:0:0');
    await store.sentCalls.record(
      call('digest:9:1:0:0', 2 * HOUR, {
        runKey: 'digest:9',
        source: 'digest',
        operation: 'paging-orders',
        userId: null,
        pendingId: null,
      }),
    );
    await other.sentCalls.record(call('p-other:0:0', 3 * HOUR));
    await other.sentCalls.markSent('p-other:0:0');
    await store.sentCalls.record(call('p-new:0:0', 5 * MINUTE));
    // Answered and recorded 20 minutes ago: forgotten.
    await store.sentCalls.record(call('p-done:0:0', 20 * MINUTE));
    await store.ledger.record({
      chargeId: 'p-done:0:0',
      at: new Date(t - 20 * MINUTE),
      userId: 'U1',
      channelId: 'C1',
      operation: 'platiteminfo',
      edition: null,
      points: 0,
      quotaCalls: 1,
      code: 0,
      outcome: 'ok',
      requestId: null,
      correlationId: null,
      pendingId: 'p-done',
      source: 'interactive',
    });

    const pruned = await pruneOldRows(store, new Date(t));
    // Settled, they have their ledger row and are old: forgotten in the same pass, with p-done.
    expect(pruned).toMatchObject({ sentCallsSettled: 3, sentCallsForgotten: 4 });
    const range = { from: new Date(t - DAY), to: new Date(t + DAY) };
    const rows = await store.ledger.list(range);
    expect(rows.map((r) => [r.chargeId, r.code, r.points, r.quotaCalls, r.userId, r.source]).sort()).toEqual([
      ['digest:9:1:0:0', -2, 0, 0, null, 'digest'],
      ['p-done:0:0', 0, 0, 1, 'U1', 'interactive'],
      ['p-old:0:0', -1, 0, 1, 'U1', 'interactive'],
    ]);
    expect((await other.ledger.list(range)).map((r) => [r.chargeId, r.code])).toEqual([['p-other:0:0', -1]]);
    // The recent one is left to whoever holds it; nothing is settled twice.
    expect(await store.sentCalls.unanswered('lookup:p-new', Number.MAX_SAFE_INTEGER)).toHaveLength(1);
    expect(await pruneOldRows(store, new Date(t))).toMatchObject({
      sentCallsSettled: 0,
      sentCallsForgotten: 0,
    });
    // The -2 row counts in no total.
    expect((await store.ledger.totals(range)).calls).toBe(2);
    // Once the recent one is over SENT_CALL_SETTLE_AFTER_MS old, it is settled in its turn.
    t += SENT_CALL_SETTLE_AFTER_MS;
    expect(await pruneOldRows(store, new Date(t))).toMatchObject({
      sentCallsSettled: 1,
      sentCallsForgotten: 1,
    });
  });

  it('two processes on one database: exactly one prunes each hour, however often both look', async () => {
    const [a, b] = await stores(2);
    if (!a || !b) throw new Error('no stores');
    const one = housekeeping(a, 'process-a');
    const two = housekeeping(b, 'process-b');
    const turns: string[] = [];
    // Six looks an hour each (every 10 min, as start() does), at the same instants, for 5 hours.
    for (let look = 0; look < 30; look++) {
      t = START + look * (HOUSEKEEPING_EVERY_MS / 6);
      const [x, y] = await Promise.all([one.run(), two.run()]);
      if (x) turns.push(`a@${(t - START) / MINUTE}`);
      if (y) turns.push(`b@${(t - START) / MINUTE}`);
    }
    // One turn at 0, 60, 120, 180 and 240 minutes, whoever took it.
    expect(turns.map((turn) => Number(turn.split('@')[1]))).toEqual([0, 60, 120, 180, 240]);
  });
});
