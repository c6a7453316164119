import type { Redis } from 'ioredis';
/**
 * What every Redis client of platdesk shares (the limiter, single flight): connection settings
 * that fail fast instead of queueing, and a short reason for a failure that names no address.
 */
/**
 * Fail at once while disconnected instead of queueing (a queued limiter grant could arrive stale,
 * a queued lock could be taken after its asker gave up); reconnect within half a second.
 */
export const REDIS_CONNECTION = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 2000,
  commandTimeout: 2000,
  retryStrategy: (attempt: number) => Math.min(100 * attempt, 500),
} as const;

/**
 * Resolves once a new client's first connection is ready, or after `ms`: a first command sent
 * before would be refused as "not connected" (no offline queue) while Redis is fine. What happens
 * after `ms` is the command's to report.
 */
export function firstConnection(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}

/** redisFailureReason of a command refused because the connection is down. */
export const NOT_CONNECTED = 'not connected';

/**
 * Why Redis failed, short and without addresses (it reaches /healthz, which may be public): the
 * socket error code (ECONNREFUSED, ETIMEDOUT…) when there is one, else the message's first 80
 * characters with IP addresses and ports left out.
 */
export function redisFailureReason(error: unknown): string {
  if (error instanceof Error && error.message.startsWith("Stream isn't writeable")) return NOT_CONNECTED;
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\[?[0-9a-f:.]*\d[0-9a-f:.]*\]?:\d+/gi, '[address]').slice(0, 80);
}
