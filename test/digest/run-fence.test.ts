/**
 * The fence of a held run (src/digest/run-fence.ts): renewal by a timer under the claim's epoch,
 * a local deadline after which no call may start (read from the clock, so a process that was
 * paused past it stops even before its timers run), and the loss of the run to another claim.
 * With it, the plat client withdraws a queued call and sends nothing once the fence is down.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { createRunFence, RunLeaseLostError } from '../../src/digest/run-fence.js';
import { PlatAbortedError } from '../../src/plat/errors.js';
import type { ChargeEvent } from '../../src/plat/types.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import type { HeldLease } from '../../src/store/store.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';

/** A clock whose time and timers move only by hand; `pause` moves time without running timers. */
function handClock(start: number) {
  let now = start;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let id = 0;
  const clock: Clock = {
    now: () => now,
    setTimeout(fn, ms) {
      id += 1;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
  };
  return {
    clock,
    /** Time passes while the process is stopped: no timer runs. */
    pause(ms: number) {
      now += ms;
    },
    /** Runs every due timer in time order, letting renewals settle in between. */
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = [...timers.entries()].sort((a, b) => a[1].at - b[1].at)[0];
        if (!next || next[1].at > end) break;
        timers.delete(next[0]);
        now = Math.max(now, next[1].at);
        next[1].fn();
        for (let i = 0; i < 5; i++) await Promise.resolve();
      }
      now = end;
    },
  };
}

const T0 = Date.parse('2026-11-20T01:00:00Z');
const holder = { owner: 'replica-a', epoch: 3 };

function fenceWith(clock: Clock, renew: (lease: HeldLease) => Promise<boolean>) {
  return createRunFence({
    runId: 7,
    holder,
    expiresAt: T0 + 25_000,
    skewBudgetMs: 0,
    leaseMs: 25_000,
    renewEveryMs: 3_000,
    callSpanMs: 16_000,
    clock,
    renew,
  });
}

describe('run fence', () => {
  it('renews on a timer under the claim epoch and moves its deadline with each renewal', async () => {
    const time = handClock(T0);
    const leases: HeldLease[] = [];
    const fence = fenceWith(time.clock, async (lease) => {
      leases.push(lease);
      return true;
    });
    expect(fence.deadline()).toBe(T0 + 9_000);
    await time.advance(3_000);
    expect(leases).toHaveLength(1);
    expect(leases[0]).toMatchObject({ owner: 'replica-a', epoch: 3, ms: 25_000 });
    expect(fence.deadline()).toBe(T0 + 3_000 + 9_000);
    await time.advance(30_000);
    expect(leases).toHaveLength(11);
    expect(() => fence.check()).not.toThrow();
    expect(fence.signal.aborted).toBe(false);
    fence.stop();
  });

  it("a fresh claim's first deadline takes the skew budget off the lease the database stamped; a renewal's counts from when this process asked for it", async () => {
    const time = handClock(T0);
    // The store answers the renewal a second after it was asked (a slow round trip).
    const fence = createRunFence({
      runId: 7,
      holder,
      expiresAt: T0 + 25_000,
      skewBudgetMs: 500,
      leaseMs: 25_000,
      renewEveryMs: 3_000,
      callSpanMs: 16_000,
      clock: time.clock,
      renew: async () => {
        time.pause(1_000);
        return true;
      },
    });
    // The stored expiry is in the database's clock, which may be 500 ms behind this process's.
    expect(fence.deadline()).toBe(T0 + 25_000 - 500 - 16_000);
    await time.advance(3_000);
    // Stamped by the database once it ran, after it was asked: the lease lasts at least this long.
    expect(fence.deadline()).toBe(T0 + 3_000 + 25_000 - 16_000);
    fence.stop();
  });

  it('a renewal that finds the run claimed again (another epoch) takes the fence down: the signal aborts, check throws', async () => {
    const time = handClock(T0);
    const fence = fenceWith(time.clock, async () => false);
    await time.advance(3_000);
    expect(fence.signal.aborted).toBe(true);
    expect(() => fence.check()).toThrow(RunLeaseLostError);
    expect((fence.signal.reason as RunLeaseLostError).reason).toBe('taken');
  });

  it('a store that does not answer: renewals keep trying, and past the local deadline no call may start', async () => {
    const time = handClock(T0);
    const fence = fenceWith(time.clock, async () => {
      throw new Error('store unreachable');
    });
    await time.advance(8_999);
    expect(() => fence.check()).not.toThrow();
    await time.advance(1);
    expect(fence.signal.aborted).toBe(true);
    expect((fence.signal.reason as RunLeaseLostError).reason).toBe('deadline');
  });

  it('a process paused past its deadline (no timer has run yet) starts no call: check reads the clock', async () => {
    const time = handClock(T0);
    const fence = fenceWith(time.clock, async () => true);
    time.pause(40_000);
    expect(fence.signal.aborted).toBe(false);
    expect(() => fence.check()).toThrow(RunLeaseLostError);
    expect(fence.signal.aborted).toBe(true);
  });
});

describe('a fenced plat call', () => {
  let plat: PlatHarness | null = null;
  afterEach(async () => {
    await plat?.close();
    plat = null;
  });
  const page = { ownerId: SANDBOX_FIXTURES.owners.busy, edition: 1 as const, page: 0, pageSize: 100 };

  it('waiting in the limiter when the fence goes down: withdrawn, never sent, no charge', async () => {
    plat = await startPlatHarness({ limiter: { maxCalls: 1, windowMs: 1000 } });
    plat.sandbox.setFaults([{ kind: 'latency', ms: 400, operations: ['paging-orders'], count: 1 }]);
    const first = plat.client.orders(page, { priority: 'bulk' });
    const controller = new AbortController();
    const charges: ChargeEvent[] = [];
    const queued = plat.client.orders(page, {
      priority: 'bulk',
      fence: { signal: controller.signal, check: () => controller.signal.throwIfAborted() },
      onCharge: (e) => charges.push(e),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort(new Error('lease lost'));
    await expect(queued).rejects.toBeInstanceOf(PlatAbortedError);
    await first;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(plat.sandbox.stats().callsByOperation['paging-orders']).toBe(1);
    expect(charges).toHaveLength(0);
  });

  it('granted after the fence went down (check throws at the start): nothing is sent, no ledger row', async () => {
    plat = await startPlatHarness({ limiter: { maxCalls: 10 } });
    const charges: ChargeEvent[] = [];
    const call = plat.client.orders(page, {
      priority: 'bulk',
      fence: {
        signal: new AbortController().signal,
        check: () => {
          throw new Error('past the local deadline');
        },
      },
      onCharge: (e) => charges.push(e),
    });
    await expect(call).rejects.toBeInstanceOf(PlatAbortedError);
    expect(plat.sandbox.stats().callsByOperation['paging-orders']).toBe(0);
    expect(charges).toHaveLength(0);
  });
});
