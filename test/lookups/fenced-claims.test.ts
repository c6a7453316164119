/**
 * Fenced lookups (issue 20 pt 3, DESIGN rule 8), on both store engines with the real plat client
 * against the sandbox: the holder of a confirmed lookup re-checks its claim just before every call
 * (retries included), so a holder whose claim was interrupted by another process, or who cannot
 * reach the store to confirm it, sends nothing more; and what an interrupted lookup's user is
 * told comes from the claim's sent calls and the ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interruptedTruth } from '../../src/lookups/interrupted.js';
import { createLookupService } from '../../src/lookups/lookup-service.js';
import type { LookupRequest, Pending } from '../../src/lookups/types.js';
import { PlatClaimLostError } from '../../src/plat/errors.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

/** A shop answer: kept in the answer cache by default. */
const shopInfo: LookupRequest = {
  kind: 'shop-info',
  url: SANDBOX_FIXTURES.links.firstMarketplace,
  shopType: '0',
};
const actor = { userId: 'U1', channelId: 'C1', teamId: 'T1', responseUrl: null };
const OTHER = 'another-host/77/cut-off';

let h: PlatHarness;
beforeAll(async () => {
  // Retries at once, so a 101 is retried while the test still holds the store's state.
  h = await startPlatHarness({ retry: { maxRetries: 2 } });
});
afterAll(async () => {
  await h?.close();
});
const calls = () => h.sandbox.stats().calls;

describe.each(ENGINES)('fenced claims (%s)', (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase(engine);
  });
  afterAll(async () => {
    await db?.dispose();
  });

  const claimed = async (service: ReturnType<typeof createLookupService>) => {
    const prepared = await service.prepare(shopInfo, actor, 'shop-info', { useCache: false });
    if (prepared.kind !== 'confirm') throw new Error(prepared.kind);
    const claim = await service.claim(prepared.pending.id, 'U1');
    if (!claim.ok) throw new Error(claim.reason);
    return claim.pending;
  };

  it('a claim interrupted elsewhere before the call: nothing is sent, and the user may be offered it again', async () => {
    const store = await db.open();
    const service = createLookupService({ client: h.client, store, prices: {} });
    const pending = await claimed(service);
    // Another process decided the holder was gone (its lease and the longest call had passed).
    expect(
      await store.pending.interrupt(pending.id, pending.claimedBy, pending.claimEpoch, { holderGone: true }),
    ).not.toBeNull();
    const before = calls();
    await expect(service.run(pending)).rejects.toBeInstanceOf(PlatClaimLostError);
    expect(calls()).toBe(before);
    const row = (await store.pending.get(pending.id)) as Pending;
    expect(row).toMatchObject({ state: 'interrupted', callsSent: 0 });
    expect(await interruptedTruth(store, row)).toEqual({ sent: false });
  });

  it('a retry after the claim was lost mid-call is not sent: one call at the sandbox; the truth says sent and charged', async () => {
    const store = await db.open();
    const service = createLookupService({ client: h.client, store, prices: {} });
    const pending = await claimed(service);
    const before = calls();
    // The first attempt is slow and answers 101 (retryable); meanwhile the claim is interrupted.
    h.sandbox.setFaults([
      { kind: 'latency', ms: 400, count: 1 },
      { kind: 'code', code: 101, count: 1 },
    ]);
    try {
      const run = service.run(pending);
      const settled = run.then(
        () => null,
        (e: unknown) => e,
      );
      while (calls() === before) await new Promise((r) => setTimeout(r, 10));
      expect(
        await store.pending.interrupt(pending.id, pending.claimedBy, pending.claimEpoch, {
          holderGone: true,
        }),
      ).not.toBeNull();
      const error = await settled;
      expect(error).toBeInstanceOf(PlatClaimLostError);
      // What the first attempt cost stays on the error: the answer states it.
      // and that it was sent and answered, so the answer never says "nothing was charged" unread.
      expect(error).toMatchObject({ attempts: 1, reachedService: true, answered: true });
    } finally {
      h.sandbox.setFaults([]);
    }
    await service.charges.flush();
    expect(calls()).toBe(before + 1);
    const row = (await store.pending.get(pending.id)) as Pending;
    expect(row).toMatchObject({ state: 'interrupted', callsSent: 1 });
    const truth = await interruptedTruth(store, row);
    expect(truth).toMatchObject({ sent: true, charged: { calls: 1 }, answer: null });
  });

  it('a store that does not answer once claimed: nothing is sent', async () => {
    const store = await db.open();
    const service = createLookupService({ client: h.client, store, prices: {} });
    const pending = await claimed(service);
    await store.close();
    const before = calls();
    await expect(service.run(pending)).rejects.toThrow();
    expect(calls()).toBe(before);
  });

  it('a charged lookup whose holder died: its charge and its kept answer are what the truth holds', async () => {
    const store = await db.open();
    const service = createLookupService({ client: h.client, store, prices: {} });
    // Claimed by a holder on another host, which sends its call (fence) and records its charge,
    // keeps the answer (the same question's answer, stored after it was asked), and dies before
    // it marks the row done.
    const holder = { instanceId: OTHER, leaseMs: 60_000 };
    const second = await claimed(createLookupService({ client: h.client, store, prices: {}, holder }));
    expect(await store.pending.fence(second.id, holder, second.claimEpoch)).toBe(true);
    const before = calls();
    await service.run(await claimed(service));
    expect(calls()).toBe(before + 1);
    await store.ledger.record(
      ledgerEntry({ chargeId: `${second.id}:0:0`, edition: null, points: 2, pendingId: second.id }),
    );
    const row = await store.pending.interrupt<LookupRequest, Pending['quote']>(
      second.id,
      OTHER,
      second.claimEpoch,
      { holderGone: true },
    );
    if (!row) throw new Error('not interrupted');
    const truth = await interruptedTruth(store, row);
    expect(truth).toMatchObject({ sent: true, charged: { points: 2, quotaCalls: 0, calls: 1 } });
    // The answer the first run kept for the same question, asked before it was stored.
    expect(truth.sent && truth.answer).toMatchObject({ kind: 'shop-info', chargedPoints: 2 });
  });
});
