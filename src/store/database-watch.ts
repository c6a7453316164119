/**
 * Whether this replica may take paid work, as far as its database can tell (DESIGN rule 9; issue
 * 33 pts 3 and 9): a small look at the database every few seconds (`Store.probe`: its clock and
 * its schema version, one round trip), and on PostgreSQL at once when a migration commits (the
 * database lock's session LISTENs to migrations.ts SCHEMA_CHANNEL).
 *
 * - **Clock.** Leases are stamped and judged by the database's clock, but a holder still counts
 *   its own time left on its own clock (digest/run-fence.ts), and other parts add the skew budget
 *   to their margins. So a replica whose clock is further from the database's than the budget
 *   (PLATDESK_CLOCK_SKEW_BUDGET_MS) refuses paid work. The skew is the database's time minus the
 *   middle of the round trip; a look whose round trip took longer than the budget says nothing.
 *   Between looks, a suspend (or a step of the wall clock) shows as the wall clock moving against
 *   this process's monotonic clock: paid work stops at once and waits for the next look. A host
 *   resumed after a suspend keeps a process clock minutes behind (it counts no suspended time),
 *   so that replica stays refused until it is restarted, which is what its /healthz says.
 * - **Schema.** A replica whose database was migrated past what its build knows, by a step older
 *   builds cannot live with (migrations.ts compatibleFrom), stops taking paid work and says why;
 *   one whose schema only grew (an 'online' step) carries on.
 *
 * Refused work is refused by the limiter's gate (plat/gated-limiter.ts): nothing is sent, and the
 * user reads why (blocks: error.remedy.out_of_service_*). /healthz and /metrics say it too.
 */
import { type Clock, realClock, unrefTimer } from '../clock.js';
import type { Store } from './store.js';

/** How often the database is looked at. */
export const DATABASE_WATCH_EVERY_MS = 5_000;

export type DatabaseRefusal =
  | {
      reason: 'clock_skew';
      /** The database's clock minus this process's (ms); null when a jump was seen, not measured. */
      skewMs: number | null;
      budgetMs: number;
      /** One line for the operator (/healthz, the log). */
      problem: string;
    }
  | { reason: 'schema_newer'; found: number; known: number; problem: string };

export interface DatabaseWatchState {
  /** The database's clock minus this process's at the last look that said something (ms). */
  skewMs: number | null;
  /** That look's round trip (ms). */
  roundTripMs: number | null;
  budgetMs: number;
  schema: { known: number; found: number | null; compatibleFrom: number | null };
  refusal: DatabaseRefusal | null;
}

export interface DatabaseWatch {
  /** Why paid work is refused now, or null. Cheap and synchronous: asked before every plat call. */
  refusal(): DatabaseRefusal | null;
  state(): DatabaseWatchState;
  /** One look now (the start-up's first, a migration's notice, a suspend just seen). */
  check(): Promise<void>;
  start(): void;
  stop(): void;
}

type LogFn = (obj: object, msg: string) => void;

export interface DatabaseWatchOptions {
  store: Pick<Store, 'probe' | 'schemaCompatibleFrom'>;
  /** The schema version this build knows (MIGRATIONS.length). */
  knownVersion: number;
  skewBudgetMs: number;
  /** This process's clock, the one its leases and margins are counted on; its timers too. */
  clock?: Clock;
  /** The wall clock and the monotonic clock, to see a suspend between looks (tests: their own). */
  wallNow?: () => number;
  monotonicNow?: () => number;
  everyMs?: number;
  logger: { info: LogFn; error: LogFn };
}

export function createDatabaseWatch(options: DatabaseWatchOptions): DatabaseWatch {
  const clock = options.clock ?? realClock;
  const wallNow = options.wallNow ?? Date.now;
  const monotonicNow = options.monotonicNow ?? (() => realClock.now());
  const budget = options.skewBudgetMs;
  const known = options.knownVersion;
  let skewMs: number | null = null;
  let roundTripMs: number | null = null;
  let found: number | null = null;
  let compatible: number | null = null;
  /** wall − monotonic at the last look: a move of it since is a suspend or a wall-clock step. */
  let anchor: number | null = null;
  let timer: unknown = null;
  let stopped = true;
  let looking: Promise<void> | null = null;
  let reported: DatabaseRefusal['reason'] | null = null;
  /** The anchor a jump was last seen against: one extra look per jump, not one per plat call. */
  let jumpLookedFor: number | null = null;

  const jumpedBy = (): number => (anchor === null ? 0 : wallNow() - monotonicNow() - anchor);

  function refusal(): DatabaseRefusal | null {
    if (found !== null && found > known && (compatible === null || compatible > known))
      return {
        reason: 'schema_newer',
        found,
        known,
        problem:
          `the database schema is version ${found}, migrated past this build (${known}) by a step older ` +
          `builds cannot run beside${compatible === null ? '' : ` (builds must know ${compatible})`}: ` +
          'this replica takes no paid work; replace it with the new build',
      };
    if (skewMs !== null && Math.abs(skewMs) > budget)
      return {
        reason: 'clock_skew',
        skewMs,
        budgetMs: budget,
        problem:
          `this replica's clock is ${Math.abs(skewMs)} ms ${skewMs > 0 ? 'behind' : 'ahead of'} the ` +
          `database's (budget ${budget} ms): it takes no paid work; correct the host's time ` +
          '(NTP) and restart the replica, whose clock was set at its start (a host resumed after a suspend stays behind)',
      };
    const jump = jumpedBy();
    if (Math.abs(jump) > budget) {
      // Looked at again now: a wall-clock step clears then, a suspend shows as skew.
      if (jumpLookedFor !== anchor && !stopped) {
        jumpLookedFor = anchor;
        void check();
      }
      return {
        reason: 'clock_skew',
        skewMs: null,
        budgetMs: budget,
        problem:
          `this host's wall clock moved ${Math.round(jump)} ms against this process's since the database ` +
          'was last asked (a suspend, or a clock step): no paid work until the database is asked again',
      };
    }
    return null;
  }

  function report(): void {
    const now = refusal();
    if ((now?.reason ?? null) === reported) return;
    if (now) options.logger.error({ refusal: now }, `paid work stopped: ${now.problem}`);
    else options.logger.info({ skewMs, schema: found }, 'paid work resumed: the database agrees again');
    reported = now?.reason ?? null;
  }

  async function look(): Promise<void> {
    const asked = clock.now();
    const { nowMs, schemaVersion } = await options.store.probe();
    const answered = clock.now();
    const trip = answered - asked;
    found = schemaVersion;
    compatible = schemaVersion > known ? await options.store.schemaCompatibleFrom() : null;
    // A look slower than the budget cannot tell a skew within it from one beyond it.
    if (trip <= budget) {
      roundTripMs = trip;
      skewMs = Math.round(nowMs - (asked + answered) / 2);
      anchor = wallNow() - monotonicNow();
    }
  }

  function check(): Promise<void> {
    looking ??= look()
      // The database not answering is /healthz's store check, and the next look tries again.
      .catch(() => undefined)
      .finally(() => {
        looking = null;
        report();
      });
    return looking;
  }

  function schedule(): void {
    if (stopped) return;
    timer = unrefTimer(
      clock.setTimeout(() => {
        void check().then(schedule);
      }, options.everyMs ?? DATABASE_WATCH_EVERY_MS),
    );
  }

  return {
    refusal,
    state: () => ({
      skewMs,
      roundTripMs,
      budgetMs: budget,
      schema: { known, found, compatibleFrom: compatible },
      refusal: refusal(),
    }),
    check,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    stop() {
      stopped = true;
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
    },
  };
}
