/**
 * The limiter refuses while its gate is closed (issue 20 pt 4: no call while the database lock is
 * not held): at once when scheduled, and as it would start a job queued before the gate closed.
 */
import { describe, expect, it } from 'vitest';
import { PlatLockLostError, PlatOutOfServiceError } from '../../src/plat/errors.js';
import { type GateClosed, gatedLimiter } from '../../src/plat/gated-limiter.js';
import { createLocalLimiter } from '../../src/plat/local-limiter.js';

describe('gated limiter', () => {
  it('refuses new and queued jobs while closed, with nothing run; runs them again once open', async () => {
    let closed: GateClosed | null = null;
    const limiter = gatedLimiter(
      createLocalLimiter({ maxCalls: 1, windowMs: 10, safetyMarginMs: 0 }),
      () => closed,
    );
    const ran: string[] = [];
    let release: () => void = () => undefined;
    const first = limiter.schedule(
      () =>
        new Promise<void>((resolve) => {
          ran.push('first');
          release = resolve;
        }),
      { operation: 'platiteminfo' },
    );
    // Queued behind the first (one slot), then the gate closes before it starts.
    const queued = limiter.schedule(async () => void ran.push('queued'), { operation: 'get-shop-info' });
    await new Promise((r) => setTimeout(r, 5));
    closed = { kind: 'lock_lost', why: 'this process does not hold its database lock' };
    const refusedNow = limiter.schedule(async () => void ran.push('new'), { operation: 'paging-orders' });
    await expect(refusedNow).rejects.toBeInstanceOf(PlatLockLostError);
    release();
    await first;
    const error = await queued.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PlatLockLostError);
    expect(error).toMatchObject({ code: 'lock_lost', operation: 'get-shop-info', reachedService: false });
    expect(ran).toEqual(['first']);

    closed = null;
    await limiter.schedule(async () => void ran.push('after'));
    expect(ran).toEqual(['first', 'after']);
    await limiter.stop();
  });

  it('an out-of-service gate (clock skew, a newer schema) refuses with its reason, nothing run', async () => {
    let closed: GateClosed | null = {
      kind: 'out_of_service',
      reason: 'clock_skew',
      why: 'clock 2000 ms off',
    };
    const limiter = gatedLimiter(
      createLocalLimiter({ maxCalls: 1, windowMs: 10, safetyMarginMs: 0 }),
      () => closed,
    );
    const ran: string[] = [];
    const error = await limiter
      .schedule(async () => void ran.push('x'), { operation: 'platdybw' })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(PlatOutOfServiceError);
    expect(error).toMatchObject({
      code: 'out_of_service',
      reason: 'clock_skew',
      operation: 'platdybw',
      reachedService: false,
    });
    closed = null;
    await limiter.schedule(async () => void ran.push('y'));
    expect(ran).toEqual(['y']);
    await limiter.stop();
  });
});
