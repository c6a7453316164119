/**
 * Answers kept for a while by operation (item details, prices, shop answers by default), so
 * the same question asked again costs nothing. Kept in the store (store/cache.ts), so an answer
 * paid for by one process is free on every other one, and a restart keeps it.
 */
import type { Operation } from '../plat/operations.js';
import { fromJson, toJson } from '../store/json.js';
import type { AnswerCache } from '../store/store.js';
import { plannedCalls } from './quote.js';
import type { LookupOutcome, LookupRequest } from './types.js';

export interface CachedOutcome {
  outcome: LookupOutcome;
  storedAt: number;
}

export interface LookupCache {
  get(request: LookupRequest): Promise<CachedOutcome | null>;
  set(request: LookupRequest, outcome: LookupOutcome): Promise<void>;
  clear(): Promise<void>;
}

/** One key per distinct question (dates as ISO text). */
export function requestKey(request: LookupRequest): string {
  return JSON.stringify(request, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : v));
}

/** The longest any answer is kept: older entries are pruned as new ones are written. */
const MAX_TTL_S_PRUNE = 24 * 3600;

export function createLookupCache(deps: {
  store: AnswerCache;
  ttlS: () => Promise<Record<Operation, number>>;
  now: () => Date;
}): LookupCache {
  /** A request is cached as long as its shortest-lived operation; 0 means not cached. */
  const ttlMsOf = async (request: LookupRequest) => {
    const ttl = await deps.ttlS();
    return Math.min(...plannedCalls(request).map((c) => ttl[c.operation])) * 1000;
  };
  let writes = 0;

  return {
    async get(request) {
      const ttlMs = await ttlMsOf(request);
      if (ttlMs <= 0) return null;
      const hit = await deps.store.get(requestKey(request), new Date(deps.now().getTime() - ttlMs + 1));
      if (!hit) return null;
      // Answers hold Dates (orders' times): the store's JSON keeps them.
      return { outcome: fromJson<LookupOutcome>(hit.valueJson), storedAt: hit.storedAt.getTime() };
    },
    async set(request, outcome) {
      if ((await ttlMsOf(request)) <= 0) return;
      await deps.store.set(requestKey(request), toJson(outcome));
      // Bounded: every 100th write drops what no TTL can still serve.
      if (++writes % 100 === 0)
        await deps.store.prune(
          new Date(
            deps.now().getTime() - Math.max(MAX_TTL_S_PRUNE, ...Object.values(await deps.ttlS())) * 1000,
          ),
        );
    },
    clear: () => deps.store.clear(),
  };
}
