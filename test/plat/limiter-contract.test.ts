/**
 * The Limiter contract suite (./limiter-contract.ts) against both engines: the in-process one on
 * a fake clock, the Redis one against a real redis-server on a free loopback port.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Limiter } from '../../src/plat/limiter.js';
import { createLocalLimiter } from '../../src/plat/local-limiter.js';
import { createRedisLimiter } from '../../src/plat/redis-limiter.js';
import { createFakeClock } from '../helpers/fake-clock.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type EngineRig, limiterContract } from './limiter-contract.js';

limiterContract('in-process engine, fake clock', (): EngineRig => {
  const clock = createFakeClock(1_000_000);
  const limiters: Limiter[] = [];
  return {
    async create(options) {
      const limiter = createLocalLimiter({ ...options, clock });
      limiters.push(limiter);
      return limiter;
    },
    now: clock.now,
    setTimeout: (fn, ms) => void clock.setTimeout(fn, ms),
    async until(promise) {
      await clock.runAllAsync();
      return promise;
    },
    sleep: (ms) => clock.advanceAsync(ms),
    lateMs: 0,
    async cleanup() {
      await Promise.all(limiters.map((l) => l.stop()));
    },
  };
});

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});

limiterContract('Redis engine, real Redis', (): EngineRig => {
  const limiters: Limiter[] = [];
  // One key prefix per test: each starts on an empty key set, as a fresh deployment does.
  const keyPrefix = `test:${randomUUID()}`;
  return {
    async create(options) {
      const limiter = createRedisLimiter({
        ...options,
        url: redis.url,
        keyPrefix,
        deadlineMs: 300,
        heartbeatMs: 50,
      });
      limiters.push(limiter);
      await limiter.ready();
      return limiter;
    },
    now: () => performance.timeOrigin + performance.now(),
    setTimeout: (fn, ms) => void setTimeout(fn, ms),
    until: (promise) => promise,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    // Generous: the machine is shared; the lower bounds (never early) are the ones that matter.
    lateMs: 150,
    async cleanup() {
      await Promise.all(limiters.map((l) => l.stop()));
    },
  };
});
