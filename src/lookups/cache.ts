/**
 * Answers kept for a while by operation (item details, prices, shop answers by default), so
 * the same question asked again costs nothing. In memory: a restart empties it, which only
 * costs a call. Bounded: the oldest entries go first.
 */
import type { Operation } from '../plat/operations.js';
import { plannedCalls } from './quote.js';
import type { LookupOutcome, LookupRequest } from './types.js';

export interface CachedOutcome {
  outcome: LookupOutcome;
  storedAt: number;
}

export interface LookupCache {
  get(request: LookupRequest): CachedOutcome | null;
  set(request: LookupRequest, outcome: LookupOutcome): void;
  clear(): void;
}

/** One key per distinct question (dates as ISO text). */
export function requestKey(request: LookupRequest): string {
  return JSON.stringify(request, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : v));
}

export function createLookupCache(deps: {
  ttlS: () => Record<Operation, number>;
  now: () => number;
  maxEntries?: number;
}): LookupCache {
  const entries = new Map<string, CachedOutcome>();
  const maxEntries = deps.maxEntries ?? 2000;

  /** A request is cached as long as its shortest-lived operation; 0 means not cached. */
  const ttlMsOf = (request: LookupRequest) => {
    const ttl = deps.ttlS();
    return Math.min(...plannedCalls(request).map((c) => ttl[c.operation])) * 1000;
  };

  return {
    get(request) {
      const ttlMs = ttlMsOf(request);
      if (ttlMs <= 0) return null;
      const key = requestKey(request);
      const hit = entries.get(key);
      if (!hit) return null;
      if (deps.now() - hit.storedAt >= ttlMs) {
        entries.delete(key);
        return null;
      }
      return hit;
    },
    set(request, outcome) {
      if (ttlMsOf(request) <= 0) return;
      const key = requestKey(request);
      entries.delete(key);
      entries.set(key, { outcome, storedAt: deps.now() });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    clear: () => entries.clear(),
  };
}
