/**
 * The faults: what the world does to the app's processes during a schedule, drawn from the seed
 * (fast-check arbitraries) and applied from OUTSIDE the processes (world.ts pulls the levers):
 * signals, cut connections, a locked table, a restarted Redis, a moved clock, Slack and the plat
 * API answering badly. Nothing here reaches into the app.
 */
import fc from 'fast-check';
import type { SlackFault } from '../test/helpers/slack-api-server.js';
import type { Topology } from './schedule.js';
import type { World } from './world.js';

export type FaultKind =
  /** kill -9, restarted after 1–5 s. */
  | 'kill'
  /** kill -9 and restarted at once (within a second: the in-process limiter's slots). */
  | 'fast-restart'
  /** SIGSTOP for 1–6 s, then SIGCONT. */
  | 'pause'
  /** SIGSTOP past a lease (digest runs 22 s, lookup claims 30 s), then SIGCONT. */
  | 'pause-long'
  /** One replica's store connections cut (TCP proxy) for 2–12 s. */
  | 'store-cut'
  /** One replica's next COMMIT commits, its answer is lost with the connection. */
  | 'commit-cut'
  /** A table locked from another connection past the store's query timeout. */
  | 'table-lock'
  /** Redis killed and restarted, with or without its keys. */
  | 'redis-restart'
  /** One replica's Redis connections cut for 2–8 s. */
  | 'redis-cut'
  /** One replica's wall clock moved (libfaketime), for the rest of the run. */
  | 'clock'
  /** Slack accepts a post and then: the connection is cut, a 500, or no answer at all. */
  | 'slack-post'
  /** conversations.history (and replies) rate-limited. */
  | 'slack-history'
  /** The plat API's front answers HTTP 500 (the call never reached the service). */
  | 'plat-5xx'
  /** The plat API answers (and charges), then the connection is cut. */
  | 'plat-cut'
  /** The plat API answers (and charges), the answer never comes: the app times out. */
  | 'plat-timeout'
  /** The plat API answers code 101 or 202 ("retry"). */
  | 'plat-code';

const COMMON: readonly FaultKind[] = [
  'kill',
  'fast-restart',
  'pause',
  'pause-long',
  'table-lock',
  'clock',
  'slack-post',
  'slack-history',
  'plat-5xx',
  'plat-cut',
  'plat-timeout',
  'plat-code',
];
const PG_ONLY: readonly FaultKind[] = ['store-cut', 'commit-cut', 'redis-restart', 'redis-cut'];
export const FAULT_KINDS: readonly FaultKind[] = [...COMMON, ...PG_ONLY];

export function faultKindsOf(topology: Topology): FaultKind[] {
  return topology === 'pg' ? [...FAULT_KINDS] : [...COMMON];
}

export const LOCKED_TABLES = [
  'ledger',
  'spend_counters',
  'budget_reservations',
  'pending_lookups',
  'sent_calls',
  'digest_runs',
  'alert_checks',
] as const;

export type FaultEvent =
  | { kind: 'kill' | 'fast-restart'; at: number; replica: number; restartAfterMs: number }
  | { kind: 'pause' | 'pause-long'; at: number; replica: number; durationMs: number }
  | { kind: 'store-cut' | 'redis-cut'; at: number; replica: number; durationMs: number }
  | { kind: 'commit-cut'; at: number; replica: number }
  | { kind: 'table-lock'; at: number; table: (typeof LOCKED_TABLES)[number]; durationMs: number }
  | { kind: 'redis-restart'; at: number; keepData: boolean; durationMs: number }
  | { kind: 'clock'; at: number; replica: number; offsetS: number }
  | {
      kind: 'slack-post';
      at: number;
      method: 'chat.postMessage' | 'chat.update' | 'response_url';
      fault: SlackFault;
      times: number;
    }
  | {
      kind: 'slack-history';
      at: number;
      method: 'conversations.history' | 'conversations.replies';
      times: number;
      retryAfterS: number;
    }
  | { kind: 'plat-5xx' | 'plat-cut' | 'plat-timeout'; at: number; count: number; replica: number | null }
  | { kind: 'plat-code'; at: number; code: 101 | 202; count: number };

/** The store's query timeout is 10 s (PostgreSQL); SQLite waits 5 s for a lock. */
const LOCK_MS: Readonly<Record<Topology, { min: number; max: number }>> = {
  pg: { min: 10_500, max: 12_500 },
  sqlite: { min: 5_500, max: 7_000 },
};

export function faultArbitrary(
  kinds: readonly FaultKind[],
  replicas: number,
  spanMs: number,
  topology: Topology = replicas > 1 ? 'pg' : 'sqlite',
): fc.Arbitrary<FaultEvent> {
  const at = fc.integer({ min: 500, max: spanMs });
  const replica = fc.integer({ min: 0, max: replicas - 1 });
  const byKind: Record<FaultKind, fc.Arbitrary<FaultEvent>> = {
    kill: fc.record({
      kind: fc.constant('kill' as const),
      at,
      replica,
      restartAfterMs: fc.integer({ min: 1000, max: 5000 }),
    }),
    'fast-restart': fc.record({
      kind: fc.constant('fast-restart' as const),
      at,
      replica,
      restartAfterMs: fc.integer({ min: 0, max: 300 }),
    }),
    pause: fc.record({
      kind: fc.constant('pause' as const),
      at,
      replica,
      durationMs: fc.integer({ min: 1000, max: 6000 }),
    }),
    'pause-long': fc.record({
      kind: fc.constant('pause-long' as const),
      at,
      replica,
      durationMs: fc.integer({ min: 24_000, max: 33_000 }),
    }),
    'store-cut': fc.record({
      kind: fc.constant('store-cut' as const),
      at,
      replica,
      durationMs: fc.integer({ min: 2000, max: 12_000 }),
    }),
    'commit-cut': fc.record({ kind: fc.constant('commit-cut' as const), at, replica }),
    'table-lock': fc.record({
      kind: fc.constant('table-lock' as const),
      at,
      table: fc.constantFrom(...LOCKED_TABLES),
      durationMs: fc.integer(LOCK_MS[topology]),
    }),
    'redis-restart': fc.record({
      kind: fc.constant('redis-restart' as const),
      at,
      keepData: fc.boolean(),
      durationMs: fc.integer({ min: 500, max: 4000 }),
    }),
    'redis-cut': fc.record({
      kind: fc.constant('redis-cut' as const),
      at,
      replica,
      durationMs: fc.integer({ min: 2000, max: 8000 }),
    }),
    clock: fc.record({
      kind: fc.constant('clock' as const),
      at,
      replica,
      offsetS: fc.constantFrom(-120, -30, -5, -2, 2, 5, 30, 120),
    }),
    'slack-post': fc.record({
      kind: fc.constant('slack-post' as const),
      at,
      method: fc.constantFrom(
        'chat.postMessage' as const,
        'chat.postMessage' as const,
        'chat.update' as const,
        'response_url' as const,
      ),
      fault: fc.constantFrom<SlackFault>('accept-then-cut', 'store-then-500', 'timeout'),
      times: fc.integer({ min: 1, max: 3 }),
    }),
    'slack-history': fc.record({
      kind: fc.constant('slack-history' as const),
      at,
      method: fc.constantFrom('conversations.history' as const, 'conversations.replies' as const),
      times: fc.integer({ min: 1, max: 3 }),
      retryAfterS: fc.integer({ min: 1, max: 4 }),
    }),
    'plat-5xx': platFault('plat-5xx', at, replica),
    'plat-cut': platFault('plat-cut', at, replica),
    'plat-timeout': platFault('plat-timeout', at, replica),
    'plat-code': fc.record({
      kind: fc.constant('plat-code' as const),
      at,
      code: fc.constantFrom(101 as const, 202 as const),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  };
  // A pause past a lease makes a run long: drawn less often than the others.
  return fc.oneof(
    ...kinds.map((kind) => ({ weight: kind === 'pause-long' ? 1 : 3, arbitrary: byKind[kind] })),
  );
}

function platFault(
  kind: 'plat-5xx' | 'plat-cut' | 'plat-timeout',
  at: fc.Arbitrary<number>,
  replica: fc.Arbitrary<number>,
): fc.Arbitrary<FaultEvent> {
  return fc.record({
    kind: fc.constant(kind),
    at,
    count: fc.integer({ min: 1, max: 3 }),
    replica: fc.option(replica, { nil: null }),
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Applies one fault now; resolves when it is over (a pause resumed, a cut restored, a killed
 * process started again). `active()` is false once the world heals: Slack faults still queued
 * are then passed over.
 */
export async function applyFault(fault: FaultEvent, world: World, active: () => boolean): Promise<void> {
  const { kind } = fault;
  switch (fault.kind) {
    case 'kill':
    case 'fast-restart':
      world.record({ kind, replica: fault.replica, detail: `restart after ${fault.restartAfterMs} ms` });
      await world.kill(fault.replica);
      await sleep(fault.restartAfterMs);
      await world.respawn(fault.replica).catch(() => undefined);
      return;
    case 'pause':
    case 'pause-long': {
      world.record({ kind, replica: fault.replica, detail: `${fault.durationMs} ms` });
      const from = performance.now();
      world.pause(fault.replica);
      await sleep(fault.durationMs);
      world.resume(fault.replica);
      world.outages.push({ replica: fault.replica, from, to: performance.now() });
      return;
    }
    case 'store-cut': {
      world.record({ kind, replica: fault.replica, detail: `${fault.durationMs} ms` });
      const from = performance.now();
      await world.cutStore(fault.replica);
      await sleep(fault.durationMs);
      await world.restoreStore(fault.replica);
      world.outages.push({ replica: fault.replica, from, to: performance.now() });
      return;
    }
    case 'redis-cut':
      world.record({ kind, replica: fault.replica, detail: `${fault.durationMs} ms` });
      await world.cutRedis(fault.replica);
      await sleep(fault.durationMs);
      await world.restoreRedis(fault.replica);
      return;
    case 'commit-cut':
      world.record({ kind, replica: fault.replica });
      world.armCommitCut(fault.replica);
      return;
    case 'table-lock': {
      world.record({ kind, detail: `${fault.table} for ${fault.durationMs} ms` });
      const from = performance.now();
      await world.lockTable(fault.table, fault.durationMs);
      world.outages.push({ replica: null, from, to: from + fault.durationMs });
      return;
    }
    case 'redis-restart':
      world.record({
        kind,
        detail: `${fault.keepData ? 'with' : 'without'} its keys, down ${fault.durationMs} ms`,
      });
      await world.restartRedis(fault.keepData, fault.durationMs);
      return;
    case 'clock':
      world.record({
        kind,
        replica: fault.replica,
        detail: `${fault.offsetS > 0 ? '+' : ''}${fault.offsetS} s`,
      });
      world.setClock(fault.replica, fault.offsetS);
      return;
    case 'slack-post':
      world.record({ kind, detail: `${fault.method} ${fault.fault} ×${fault.times}` });
      world.fake.fault(fault.method, fault.fault, fault.times, active);
      return;
    case 'slack-history':
      world.record({
        kind,
        detail: `${fault.method} ratelimited ×${fault.times} (Retry-After ${fault.retryAfterS} s)`,
      });
      world.fake.failNext(fault.method, { error: 'ratelimited', retryAfter: fault.retryAfterS }, fault.times);
      return;
    case 'plat-5xx':
    case 'plat-cut':
    case 'plat-timeout': {
      const recorderKind = {
        'plat-5xx': 'refuse-500',
        'plat-cut': 'answer-then-cut',
        'plat-timeout': 'hold-answer',
      } as const;
      world.record({
        kind,
        ...(fault.replica !== null ? { replica: fault.replica } : {}),
        detail: `×${fault.count}`,
      });
      world.recorder.addFault({
        kind: recorderKind[fault.kind],
        count: fault.count,
        ...(fault.replica !== null ? { replica: fault.replica } : {}),
      });
      return;
    }
    case 'plat-code':
      world.record({ kind, detail: `code ${fault.code} ×${fault.count}` });
      world.sandbox.setFaults([{ kind: 'code', code: fault.code, count: fault.count }]);
      return;
  }
}
