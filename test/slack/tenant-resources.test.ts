/**
 * Per-workspace resources stay bounded (issue 39 point 3), through the real Bolt app in
 * distributed mode on PostgreSQL and Redis: 24 workspaces, each its own plat account's client,
 * confirm lookups at once. The database connections they use are the store's one pool (at most
 * DATABASE_POOL_MAX, however many workspaces), and what they leave in Redis is the limiter's one
 * key set (the same names as with one workspace: no per-workspace or per-account key) and keys
 * that expire on their own (each single flight's result, with a TTL). Plat clients per account
 * are let go when idle: test/lookups/plat-clients-idle.test.ts.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { createLimiterKeys, type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const TENANTS = Array.from({ length: 24 }, (_, i) => `T0RES${String(i).padStart(2, '0')}`);
const POOL_MAX = 4;
const itemId = SANDBOX_FIXTURES.items.basic;
const range = { from: new Date(0), to: new Date(8.64e15) };
const LIMITER = '{platdesk:limiter}';

let h: PlatdeskHarness | null = null;
let redis: RedisServer | null = null;
afterEach(async () => {
  await h?.close();
  await redis?.close();
  h = null;
  redis = null;
});

describe('per-workspace resources (PostgreSQL + Redis)', () => {
  it('24 workspaces confirming at once: database connections within the one pool, the limiter’s one key set in Redis, every other key expiring', async () => {
    redis = await startRedisServer();
    // A key set made ahead: the first grant does not wait out a new key set's fence.
    await createLimiterKeys(redis.url);
    // Each workspace spends from an account of its own (its own token: its own plat client).
    const tokens = TENANTS.map((t) => `plat-${t}`);
    h = await startPlatdeskHarness({
      engine: 'postgres',
      env: { REDIS_URL: redis.url, DATABASE_POOL_MAX: String(POOL_MAX) },
      sandboxTokens: tokens,
      installations: async (tenant) =>
        TENANTS.includes(tenant) ? { botToken: `xoxb-${tenant}`, botUserId: 'UBOT', botId: 'BBOT' } : null,
      platAccounts: (baseUrl) => ({
        accountFor: async (tenant) =>
          TENANTS.includes(tenant) ? { baseUrl, token: `plat-${tenant}` } : null,
      }),
    });
    const harness = h;
    await harness.platdesk.limiter.ready();
    const inspect = new Redis(redis.url);
    const db = new pg.Client({ connectionString: harness.platdesk.store.location });
    await db.connect();
    try {
      // The store's pool: the database's sessions named 'platdesk' (the lock's are 'platdesk lock (…)').
      const pooled = async () => {
        const { rows } = await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = 'platdesk'`,
        );
        return Number(rows[0]?.n ?? 0);
      };
      const first = TENANTS[0] ?? '';
      const { confirmation } = await harness.ask('/item', itemId, { teamId: first });
      await harness.confirm(confirmation, { teamId: first });
      const limiterKeys = async () => (await inspect.keys(`${LIMITER}*`)).sort();
      const withOne = await limiterKeys();
      expect(withOne.length).toBeGreaterThan(0);

      let most = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          most = Math.max(most, await pooled());
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      const rest = TENANTS.slice(1);
      const asked = await Promise.all(rest.map((t) => harness.ask('/item', itemId, { teamId: t })));
      const answered = await Promise.all(
        asked.map(({ confirmation: c }, i) => harness.confirm(c, { teamId: rest[i] ?? first })),
      ).finally(() => {
        sampling = false;
      });
      await sampler;
      for (const { answer } of answered) expect(textOf(answer)).toContain(itemId);
      await harness.settle(300);
      // One call and one ledger row per workspace, each on its own account.
      expect(harness.sandbox.stats().callsByOperation.platiteminfo).toBe(TENANTS.length);
      for (const t of TENANTS)
        expect(await harness.platdesk.store.forTenant(t).ledger.list(range)).toHaveLength(1);
      for (const token of tokens) expect(harness.sandbox.stats().callsByToken[token]).toBe(1);

      // The pool, not the workspaces, bounds the connections.
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(POOL_MAX);
      expect(await pooled()).toBeLessThanOrEqual(POOL_MAX);
      // Redis: the limiter's key set is the same as with one workspace; everything else expires.
      expect(await limiterKeys()).toEqual(withOne);
      const others = (await inspect.keys('*')).filter((k) => !k.startsWith(LIMITER));
      expect(others.length).toBeGreaterThan(0);
      for (const key of others) expect(await inspect.pttl(key), key).toBeGreaterThan(0);
    } finally {
      inspect.disconnect();
      await db.end();
    }
  });
});
