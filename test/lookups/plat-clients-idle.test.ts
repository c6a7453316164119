/**
 * Plat clients per account are made on demand and let go when idle (issue 39 point 3), against the
 * sandbox over loopback: an account unused past the idle bound is no longer kept, its next call
 * builds its client again and reaches the service once, and close() still ends every HTTP path.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPlatClients, type PlatClients } from '../../src/lookups/plat-accounts.js';
import { createPlatClient } from '../../src/plat/client.js';
import { createLocalLimiter } from '../../src/plat/local-limiter.js';
import { createSandbox, SANDBOX_FIXTURES } from '../../src/sandbox/index.js';

const sandbox = createSandbox({ token: 'acct-a', moreTokens: ['acct-b'] });
let clients: PlatClients | null = null;
afterEach(async () => {
  await clients?.close();
  clients = null;
  await sandbox.close();
});

describe('plat clients per account', () => {
  it('an account unused past the idle bound is let go; its next call builds it again and is sent once', async () => {
    const baseUrl = await sandbox.listen(0);
    let now = 1_000_000;
    const limiter = createLocalLimiter({ maxCalls: 10, windowMs: 1000 });
    let made = 0;
    clients = createPlatClients({
      accounts: { accountFor: async (t) => ({ baseUrl, token: t === 'A' ? 'acct-a' : 'acct-b' }) },
      // The operator's account (no observe): its pool is not guarded.
      guard: { allowLoopback: true },
      timeouts: {},
      defaults: { prices: {}, editions: {} },
      idleMs: 60_000,
      now: () => now,
      makeClient: (http, editions) => {
        made++;
        return createPlatClient({ http, limiter, editions });
      },
    });
    const item = { itemId: SANDBOX_FIXTURES.items.basic };
    const a = await clients.forTenant('A');
    const b = await clients.forTenant('B');
    await a.client.itemInfo(item);
    await b.client.itemInfo(item);
    expect(clients.kept()).toBe(2);
    expect(made).toBe(2);
    // A is used again after 40 s, B is not: past the bound only B is let go.
    now += 40_000;
    await a.client.itemInfo(item);
    now += 30_000;
    await a.client.itemInfo(item);
    expect(clients.kept()).toBe(1);
    // B's next call builds its client anew and reaches the service once.
    await b.client.itemInfo(item);
    expect(clients.kept()).toBe(2);
    expect(made).toBe(3);
    expect(sandbox.stats().callsByToken).toEqual({ 'acct-a': 3, 'acct-b': 2 });
    await limiter.stop();
  });
});
