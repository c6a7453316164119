/**
 * How many requests one MCP token may make (issue 37: "rate-limited per token"): MCP_RATE_PER_MINUTE
 * in a window of a minute that starts with the token's first request in it. A runaway or stolen
 * client is slowed to that, whichever replica its requests land on: with REDIS_URL every replica
 * counts in Redis (redis-rate.ts); a single process counts in memory (without Redis a second
 * process on the same database refuses to start, so there is no other replica to share with).
 * Money is not what this guards (each paid call still waits for its owner's Confirm, within the
 * caps): it bounds the load one token puts on platdesk and on its owner's DMs.
 */

export type RateTake = { ok: true } | { ok: false; retryAfterMs: number };

export interface TokenRate {
  /** Counts one request of the token; refused: how long until its window ends. */
  take(tokenId: string): Promise<RateTake>;
  stop(): Promise<void>;
}

export const RATE_WINDOW_MS = 60_000;

/** The count in this process (one replica, or Redis unreachable). */
export function localTokenRate(
  perWindow: number,
  nowMs: () => number,
  windowMs: number = RATE_WINDOW_MS,
): TokenRate {
  const windows = new Map<string, { endsAt: number; used: number }>();
  return {
    async take(tokenId) {
      const now = nowMs();
      let w = windows.get(tokenId);
      if (!w || w.endsAt <= now) {
        // Ended windows are dropped as they are met again; the map holds at most the live tokens.
        if (windows.size > 10_000) windows.clear();
        w = { endsAt: now + windowMs, used: 0 };
        windows.set(tokenId, w);
      }
      w.used += 1;
      return w.used <= perWindow ? { ok: true } : { ok: false, retryAfterMs: w.endsAt - now };
    },
    stop: async () => undefined,
  };
}
