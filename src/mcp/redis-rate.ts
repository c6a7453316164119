/**
 * The per-token request count (rate.ts) in Redis, shared by every replica on REDIS_URL: one key per
 * token, incremented and, on its first request, given the window as its TTL, in one script, so the
 * count and its window are never apart and Redis's clock alone times the window (replicas' clocks
 * do not matter). While Redis cannot be reached each replica counts in its own memory (still a
 * bound: the rate times the replicas), and says so in the log once a minute. Loaded only with
 * REDIS_URL.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { firstConnection, REDIS_CONNECTION, redisFailureReason } from '../plat/redis-connection.js';
import { localTokenRate, RATE_WINDOW_MS, type TokenRate } from './rate.js';

/** KEYS[1]: the token's count; ARGV[1]: the window (ms). Returns the count and the window's ms left. */
const TAKE = `
local used = redis.call('INCR', KEYS[1])
if used == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {used, left}
`;

const WARN_EVERY_MS = 60_000;

export function redisTokenRate(options: {
  url: string;
  perWindow: number;
  logger: Pick<Logger, 'warn'>;
  keyPrefix?: string;
  windowMs?: number;
  nowMs?: () => number;
}): TokenRate {
  const windowMs = options.windowMs ?? RATE_WINDOW_MS;
  const prefix = options.keyPrefix ?? 'platdesk';
  const nowMs = options.nowMs ?? Date.now;
  const redis = new Redis(options.url, REDIS_CONNECTION);
  // A failed command falls back to the local count; connection errors are not news by themselves.
  redis.on('error', () => undefined);
  const connected = firstConnection(redis, 2000);
  const fallback = localTokenRate(options.perWindow, nowMs, windowMs);
  let warnedAt = Number.NEGATIVE_INFINITY;
  return {
    async take(tokenId) {
      try {
        await connected;
        // The key names the token's id (a random id, not the token), never the token itself.
        const [used, left] = (await redis.eval(TAKE, 1, `${prefix}:mcp-rate:${tokenId}`, windowMs)) as [
          number,
          number,
        ];
        return used <= options.perWindow ? { ok: true } : { ok: false, retryAfterMs: Math.max(1, left) };
      } catch (error) {
        if (nowMs() - warnedAt >= WARN_EVERY_MS) {
          warnedAt = nowMs();
          options.logger.warn(
            { reason: redisFailureReason(error) },
            'MCP request rate: Redis unreachable, counting in this process only',
          );
        }
        return fallback.take(tokenId);
      }
    },
    async stop() {
      redis.disconnect();
    },
  };
}
