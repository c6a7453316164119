/**
 * The store's side of posting a leased run once (issue 33 findings 4, 5, 10 and 12), on both
 * engines: a run in 'posting' never moves to 'failed' by markFailed (only Slack's sure refusal,
 * markRefused, fails it); a holder stamps its post attempt under its epoch, and a holder whose
 * run was claimed again cannot (it must not post); an unclear post keeps where its history check
 * stopped; and every open run of any kind and any day is listed and can be claimed by id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { POST_SETTLE_MS } from '../../src/digest/posted-once.js';
import type { Lease, NewDigestRun, Store } from '../../src/store/store.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const MINUTE = 60_000;
const DT0 = Date.parse('2026-11-20T01:00:00Z');
/** The store's clock, which stamps and judges leases (one lease clock, DESIGN rule 9). */
let t = DT0;
/** A lease of `owner` taken at `at`: the store's clock moves there first. */
const lease = (owner: string, at: number, ms = 10 * MINUTE): Lease => {
  t = at;
  return { owner, ms };
};
const runInput = (subscriptionId: number, localDate = '2026-11-20'): NewDigestRun => ({
  subscriptionId,
  localDate,
  windowStart: new Date(DT0 - 24 * 60 * MINUTE),
  windowEnd: new Date(DT0),
  requestedBy: null,
});

let db: TestDatabase | null = null;
afterEach(async () => {
  await db?.dispose();
  db = null;
});

describe.each(ENGINES)('leased runs that post (%s)', (engine) => {
  async function open(): Promise<Store> {
    db = await testDatabase(engine);
    t = DT0;
    return db.open({ clock: { now: () => t } });
  }
  const subscribe = (store: Store) =>
    store.digests.add({
      ownerId: '2200001002',
      shopLabel: 'tea',
      channelId: 'C1234',
      localTime: '09:00',
      timeZone: 'Asia/Shanghai',
      createdBy: 'UADMIN',
    });

  it('posting never moves to failed through markFailed; markRefused fails it, and its retry posts without a check', async () => {
    const store = await open();
    const sub = await subscribe(store);
    const { run } = await store.digests.claimScheduled(runInput(sub.id), lease('a', DT0));
    const a = { owner: 'a', epoch: run.epoch };
    const failure = { error: 'x', nextAttemptAt: new Date(DT0 + 5 * MINUTE), now: new Date(DT0) };
    // While running, a failure is a failure.
    expect(await store.digests.markRefused(run.id, a, failure)).toBe(false);
    expect(await store.digests.markPosting(run.id, { ...lease('a', DT0), ...a }, '{"v":1}')).toBe(true);
    expect(await store.digests.markFailed(run.id, a, failure)).toBe(false);
    expect((await store.digests.run(run.id))?.state).toBe('posting');
    expect(await store.digests.markRefused(run.id, { owner: 'b', epoch: run.epoch }, failure)).toBe(false);
    expect(await store.digests.markRefused(run.id, a, failure)).toBe(true);
    expect(await store.digests.run(run.id)).toMatchObject({ state: 'failed', summaryJson: '{"v":1}' });
    expect(await store.digests.claimScheduled(runInput(sub.id), lease('b', DT0 + 5 * MINUTE))).toMatchObject({
      claimed: true,
      how: 'retry',
      run: { state: 'running' },
    });

    // The same rule on alert checks.
    const alert = await store.alerts.add({
      ownerId: '2200001004',
      shopLabel: 'snacks',
      channelId: 'C1234',
      withinHours: 6,
      everyMinutes: 60,
      hoursFrom: '00:00',
      hoursTo: '23:59',
      timeZone: 'Asia/Shanghai',
      capPoints: 100,
      createdBy: 'UADMIN',
    });
    const claim = await store.alerts.claimCheck(
      { subscriptionId: alert.id, slotAt: new Date(DT0), localDate: '2026-11-20' },
      lease('a', DT0),
    );
    const c = { owner: 'a', epoch: claim.check.epoch };
    expect(await store.alerts.markPosting(claim.check.id, { ...lease('a', DT0), ...c })).toBe(true);
    expect(await store.alerts.markFailed(claim.check.id, c, failure)).toBe(false);
    expect(await store.alerts.markRefused(claim.check.id, c, failure)).toBe(true);
    expect((await store.alerts.check(claim.check.id))?.state).toBe('failed');
  });

  it('a post attempt is stamped only by the holder of the run in posting; an unclear post keeps its check progress', async () => {
    const store = await open();
    const sub = await subscribe(store);
    const { run } = await store.digests.claimScheduled(runInput(sub.id), lease('a', DT0));
    const a = { owner: 'a', epoch: run.epoch };
    // Not yet posting: nothing to stamp.
    expect(await store.digests.markPostAttempt(run.id, a, new Date(DT0))).toBe(false);
    expect(await store.digests.markPosting(run.id, { ...lease('a', DT0), ...a }, '{}')).toBe(true);
    expect(await store.digests.markPostAttempt(run.id, a, new Date(DT0 + 1000))).toBe(true);
    expect((await store.digests.run(run.id))?.postAttemptAt?.getTime()).toBe(DT0 + 1000);
    const unknown = {
      error: 'put off',
      checkAt: new Date(DT0 + MINUTE),
      now: new Date(DT0 + 2000),
      checkProgress: '{"m":"history","c":"abc","n":1}',
    };
    expect(await store.digests.markUnknown(run.id, a, unknown)).toBe(true);
    expect(await store.digests.run(run.id)).toMatchObject({
      state: 'unknown',
      checkProgress: unknown.checkProgress,
      postAttemptAt: new Date(DT0 + 1000),
    });

    // The holder's lease ran out and another claimed the run: the old holder may not stamp (nor post).
    const verify = await store.digests.claimRun(run.id, lease('b', DT0 + MINUTE));
    expect(verify).toMatchObject({
      claimed: true,
      how: 'verify',
      run: { checkProgress: unknown.checkProgress },
    });
    expect(await store.digests.markPostAttempt(run.id, a, new Date(DT0 + MINUTE))).toBe(false);
    const b = { owner: 'b', epoch: verify.run.epoch };
    // A new attempt starts a new window: the progress of the old one is dropped.
    expect(await store.digests.markPostAttempt(run.id, b, new Date(DT0 + MINUTE))).toBe(true);
    expect((await store.digests.run(run.id))?.checkProgress).toBeNull();
    expect(await store.digests.markPosted(run.id, b, '1795136400.000001', new Date(DT0 + MINUTE))).toBe(true);
  });

  it('openRuns lists every open run of any kind and day; claimRun claims one by id as the schedulers would', async () => {
    const store = await open();
    const sub = await subscribe(store);
    const yesterday = await store.digests.claimScheduled(runInput(sub.id, '2026-11-19'), lease('a', DT0));
    const manual = await store.digests.createManual(runInput(sub.id), lease('a', DT0));
    if (!manual) throw new Error('no manual run');
    const posted = await store.digests.claimScheduled(runInput(sub.id), lease('a', DT0));
    const p = { owner: 'a', epoch: posted.run.epoch };
    await store.digests.markPosting(posted.run.id, { ...lease('a', DT0), ...p }, '{}');
    await store.digests.markPosted(posted.run.id, p, '1.1', new Date(DT0));
    expect((await store.digests.openRuns()).map((r) => r.id)).toEqual([yesterday.run.id, manual.id]);

    // A live lease is not taken; an expired one is, whatever the kind and the day.
    expect((await store.digests.claimRun(manual.id, lease('b', DT0 + MINUTE))).claimed).toBe(false);
    const takeover = await store.digests.claimRun(manual.id, lease('b', DT0 + 10 * MINUTE));
    expect(takeover).toMatchObject({ claimed: true, how: 'takeover', run: { kind: 'manual', attempts: 2 } });
    expect(takeover.run.epoch).toBe(manual.epoch + 1);
    const old = await store.digests.claimRun(yesterday.run.id, lease('b', DT0 + 10 * MINUTE));
    expect(old).toMatchObject({ claimed: true, how: 'takeover', run: { localDate: '2026-11-19' } });

    // A posting run whose holder stopped: unknown, its history check POST_SETTLE_MS after its lease.
    const m = { owner: 'b', epoch: takeover.run.epoch };
    await store.digests.markPosting(manual.id, { ...lease('b', DT0 + 10 * MINUTE), ...m }, '{}');
    expect((await store.digests.claimRun(manual.id, lease('c', DT0 + 20 * MINUTE))).claimed).toBe(false);
    const left = await store.digests.run(manual.id);
    expect(left).toMatchObject({ state: 'unknown' });
    expect(left?.nextAttemptAt?.getTime()).toBe(DT0 + 20 * MINUTE + POST_SETTLE_MS);
    expect(
      await store.digests.claimRun(manual.id, lease('c', DT0 + 20 * MINUTE + POST_SETTLE_MS)),
    ).toMatchObject({ claimed: true, how: 'verify', run: { state: 'posting' } });
  });
});
