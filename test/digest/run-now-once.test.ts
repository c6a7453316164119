/**
 * Two "Run now" of one digest at once (found by the fault simulator, seed 1009: two
 * `/orders digest run` 51 ms apart bought the same pages twice and posted two digests). The run
 * is created under the digests lock only while no other run of the subscription is open, so the
 * second runs nothing and says so, on one process or two, on both engines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { ENGINES } from '../helpers/store-engines.js';
import { ADMIN, CHANNEL, type DigestRig, startDigestRig } from './digest-rig.js';

/** 08:00 in Shanghai on 2026-11-20; the digest is due at 09:00 (01:00Z). */
const START = Date.parse('2026-11-20T00:00:00Z');

let rig: DigestRig | null = null;
afterEach(async () => {
  await rig?.close();
  rig = null;
});

const digestsIn = (r: DigestRig) =>
  r.fake.messages(CHANNEL).filter((m) => m.metadata?.event_type === 'platdesk_digest');

describe.each(ENGINES)('"Run now" twice at once (%s)', (engine) => {
  it('one process: the second runs nothing, the pages are bought once, one digest is posted', async () => {
    rig = await startDigestRig({ start: START, engine });
    const sub = await rig.subscribe({ ownerId: SANDBOX_FIXTURES.owners.busy });
    rig.scheduler.start();
    const [a, b] = await Promise.all([
      rig.scheduler.runNow(sub.id, ADMIN),
      rig.scheduler.runNow(sub.id, ADMIN),
    ]);
    expect([a.kind, b.kind].sort()).toEqual(['already_handled', 'posted']);
    await rig.idle();
    expect(digestsIn(rig)).toHaveLength(1);
    // Every page the one run needed, once (a second run would have bought them all again).
    const run = await rig.store.digests.lastRun(sub.id);
    expect(run).toMatchObject({ kind: 'manual', state: 'posted' });
    expect(rig.pagesFetched()).toBeGreaterThan(0);
    expect(rig.pagesFetched()).toBe(run?.calls);
  });

  it('two processes: the second asked while the first still fetches runs nothing', async () => {
    rig = await startDigestRig({ start: START, engine });
    const sub = await rig.subscribe({ ownerId: SANDBOX_FIXTURES.owners.busy });
    const other = await rig.instance('other-process');
    rig.scheduler.start();
    other.scheduler.start();
    const [a, b] = await Promise.all([
      rig.scheduler.runNow(sub.id, ADMIN),
      other.scheduler.runNow(sub.id, ADMIN),
    ]);
    expect([a.kind, b.kind].sort()).toEqual(['already_handled', 'posted']);
    await rig.idle();
    expect(digestsIn(rig)).toHaveLength(1);
    const run = await rig.store.digests.lastRun(sub.id);
    expect(rig.pagesFetched()).toBeGreaterThan(0);
    expect(rig.pagesFetched()).toBe(run?.calls);
    // Once it is over, "Run now" runs again (the question about today's digest is the command's).
    expect((await rig.scheduler.runNow(sub.id, ADMIN)).kind).toBe('posted');
  });
});
