/**
 * Slack's read allowance (read-budget.ts) in Redis, for replicas that share REDIS_URL: one key per
 * workspace and method, set with NX and the allowance's period as its TTL, so of any number of
 * replicas asking at once exactly one gets the request; the others learn when the key expires.
 * Redis keeps the time (its TTL), so replicas' clocks do not matter. Loaded only with REDIS_URL.
 */
import { Redis } from 'ioredis';
import { REDIS_CONNECTION } from '../plat/redis-connection.js';
import { LIMITED_READ_PERIOD_MS, type ReadBudgets, readKey } from './read-budget.js';

/** How long a command is tried again while Redis is unreachable, and how often (as single flight's). */
const UNAVAILABLE_AFTER_MS = 2_000;
const RETRY_MS = 100;

export function redisReadBudgets(options: {
  url: string;
  keyPrefix?: string;
  periodMs?: number;
}): ReadBudgets {
  const periodMs = options.periodMs ?? LIMITED_READ_PERIOD_MS;
  const prefix = options.keyPrefix ?? 'platdesk';
  const redis = new Redis(options.url, REDIS_CONNECTION);
  // A failed command rejects (the history check is then put off); connection errors are not news.
  redis.on('error', () => undefined);
  /** Commands fail at once while disconnected (REDIS_CONNECTION): tried again for a moment, as at start. */
  async function retried<T>(command: () => Promise<T>): Promise<T> {
    const end = Date.now() + UNAVAILABLE_AFTER_MS;
    for (;;) {
      try {
        return await command();
      } catch (error) {
        if (Date.now() >= end) throw error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }
  return {
    forTenant: (tenant) => ({
      async take(method) {
        // The key names the workspace id (not secret) and the method; its TTL is the allowance.
        const key = `${prefix}:${readKey(tenant, method)}`;
        if ((await retried(() => redis.set(key, '1', 'PX', periodMs, 'NX'))) === 'OK') return 0;
        const left = await retried(() => redis.pttl(key));
        return left > 0 ? left : 1;
      },
    }),
    async stop() {
      redis.disconnect();
    },
  };
}
