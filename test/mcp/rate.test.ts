/**
 * The MCP per-token request rate (mcp/rate.ts), one contract on both engines: in this process,
 * and in Redis (a real redis-server). Each token has its own count; past the rate a request is
 * refused with how long until its window ends; a new window counts from 0 again. Redis only: two
 * processes' counters on one Redis share the count; Redis unreachable, each counts for itself (a
 * bound still) and says so, and the shared count comes back with Redis.
 */
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTokenRate, type TokenRate } from '../../src/mcp/rate.js';
import { redisTokenRate } from '../../src/mcp/redis-rate.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const WINDOW_MS = 400;
let redis: RedisServer;
const made: TokenRate[] = [];
const warnings: string[] = [];
const logger = {
  warn: (...args: unknown[]) => void warnings.push(String(args[1])),
} as unknown as Pick<Logger, 'warn'>;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const r of made) await r.stop();
  await redis?.close();
});

let prefix = 0;
function inRedis(perWindow: number, keyPrefix = `t${++prefix}`): TokenRate {
  const rate = redisTokenRate({ url: redis.url, perWindow, logger, keyPrefix, windowMs: WINDOW_MS });
  made.push(rate);
  return rate;
}
const ENGINES: [string, (perWindow: number) => TokenRate][] = [
  ['in this process', (perWindow) => localTokenRate(perWindow, Date.now, WINDOW_MS)],
  ['redis', (perWindow) => inRedis(perWindow)],
];

async function takes(rate: TokenRate, token: string, n: number): Promise<boolean[]> {
  const out: boolean[] = [];
  for (let i = 0; i < n; i++) out.push((await rate.take(token)).ok);
  return out;
}

describe.each(ENGINES)('the MCP token rate (%s)', (_name, make) => {
  it('counts each token apart; past the rate it refuses with the time left; a new window starts over', async () => {
    const rate = make(3);
    expect(await takes(rate, 'a', 4)).toEqual([true, true, true, false]);
    const refused = await rate.take('a');
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
    }
    expect(await takes(rate, 'b', 3)).toEqual([true, true, true]);
    await new Promise((r) => setTimeout(r, WINDOW_MS + 50));
    expect(await takes(rate, 'a', 4)).toEqual([true, true, true, false]);
  });
});

describe('the MCP token rate in Redis, across processes', () => {
  it('two processes share one count: the rate holds in total', async () => {
    const one = inRedis(5, 'shared');
    const two = inRedis(5, 'shared');
    const oks: boolean[] = [];
    for (let i = 0; i < 10; i++) oks.push((await (i % 2 === 0 ? one : two).take('tok')).ok);
    expect(oks.filter(Boolean)).toHaveLength(5);
  });

  it('Redis unreachable: each process counts for itself and says so; with Redis back the count is shared again', async () => {
    const rate = inRedis(2, 'outage');
    expect((await rate.take('x')).ok).toBe(true);
    await redis.kill();
    try {
      expect(await takes(rate, 'y', 3)).toEqual([true, true, false]);
      expect(warnings.some((w) => w.includes('Redis unreachable'))).toBe(true);
    } finally {
      await redis.start();
    }
    // Once this process reaches Redis again, another one sees its count (a fresh key each try).
    const other = inRedis(2, 'outage');
    let attempt = 0;
    await expect
      .poll(
        async () => {
          const key = `z${++attempt}`;
          await takes(rate, key, 2);
          return (await other.take(key)).ok;
        },
        { timeout: 5000 },
      )
      .toBe(false);
  });
});
