/**
 * A separate platdesk process for the single-flight tests across replicas: its own lookup service,
 * store (SQLite in memory), plat client and Redis single flight (its own connections), against the
 * test's one sandbox. Forked with `--import tsx`, driven over IPC.
 *
 *   ready → the test sends { type: 'go', request, users } → every user prepares, confirms and runs
 *   the same lookup at once → 'done' with each user's result and this process's ledger rows.
 *
 * The rate limiter is the in-process one: what is under test here is single flight (the Redis
 * limiter has its own multi-process suite).
 */

import { createLookupService, summarize } from '../../src/lookups/lookup-service.js';
import { lookupOutcomeCodec } from '../../src/lookups/outcome-codec.js';
import { createRedisSingleFlight } from '../../src/lookups/redis-single-flight.js';
import type { LookupRequest } from '../../src/lookups/types.js';
import { createPlatClient } from '../../src/plat/client.js';
import { isPlatError } from '../../src/plat/errors.js';
import { createPlatHttp } from '../../src/plat/http.js';
import { createLocalLimiter } from '../../src/plat/local-limiter.js';
import { openStore } from '../../src/store/engine.js';

export interface LookupWorkerInput {
  redisUrl: string;
  keyPrefix: string;
  leaseMs: number;
  baseUrl: string;
  /** The plat call deadline (a test that kills a process mid-call keeps it long). */
  deadlineMs: number;
}

export interface WorkerResult {
  userId: string;
  ok: boolean;
  shared: boolean;
  chargedPoints: number | null;
  /** The answer, encoded as single flight hands it over (lookups/outcome-codec.ts). */
  outcome: string | null;
  /** The failure: its code and the charge the user is told. */
  error: { code: string; chargePoints: number | null } | null;
  at: number;
}

export interface LedgerRow {
  userId: string | null;
  operation: string;
  points: number;
  code: number;
}

export type LookupWorkerMessage =
  | { type: 'ready' }
  | { type: 'done'; results: WorkerResult[]; ledger: LedgerRow[] };

export interface LookupWorkerCommand {
  type: 'go';
  request: LookupRequest;
  users: string[];
}

const send = (message: LookupWorkerMessage) => process.send?.(message);
const input = JSON.parse(process.argv[2] ?? '{}') as LookupWorkerInput;

const store = await openStore({ path: ':memory:' });
const limiter = createLocalLimiter();
const http = createPlatHttp({
  baseUrl: input.baseUrl,
  token: 'sandbox',
  timeouts: { deadlineMs: input.deadlineMs },
});
const client = createPlatClient({ http, limiter, retry: { maxRetries: 0 } });
const singleFlight = createRedisSingleFlight({
  url: input.redisUrl,
  codec: lookupOutcomeCodec,
  keyPrefix: input.keyPrefix,
  leaseMs: input.leaseMs,
});
const lookups = createLookupService({ client, store, prices: {}, singleFlight });

async function lookUp(request: LookupRequest, userId: string): Promise<WorkerResult> {
  const actor = { userId, channelId: 'C1234', teamId: 'T1234', responseUrl: null };
  const prepared = await lookups.prepare(request, actor, summarize(request), { useCache: false });
  if (prepared.kind !== 'confirm') throw new Error(`expected a confirmation, got ${prepared.kind}`);
  const claimed = await lookups.claim(prepared.pending.id, userId);
  if (!claimed.ok) throw new Error(`claim refused: ${claimed.reason}`);
  try {
    const { shared, ...outcome } = await lookups.run(claimed.pending);
    return {
      userId,
      ok: true,
      shared: shared === true,
      chargedPoints: outcome.chargedPoints,
      outcome: lookupOutcomeCodec.encode(outcome),
      error: null,
      at: Date.now(),
    };
  } catch (error) {
    return {
      userId,
      ok: false,
      shared: false,
      chargedPoints: null,
      outcome: null,
      error: isPlatError(error)
        ? { code: error.code, chargePoints: error.chargePoints }
        : { code: String(error), chargePoints: null },
      at: Date.now(),
    };
  }
}

process.on('message', (command: LookupWorkerCommand) => {
  if (command.type !== 'go') return;
  void Promise.all(command.users.map((user) => lookUp(command.request, user))).then(async (results) => {
    const ledger = (
      await store.ledger.list({ from: new Date(0), to: new Date(Date.now() + 86_400_000) })
    ).map((row) => ({ userId: row.userId, operation: row.operation, points: row.points, code: row.code }));
    send({ type: 'done', results, ledger });
  });
});
send({ type: 'ready' });
