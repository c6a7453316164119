/**
 * The plat side of the composition root (src/main.ts): the one rate limiter, the single flight of
 * identical lookups, and the per-account plat clients behind them, with their metrics. PostgreSQL,
 * Redis and undici code is loaded only when configured or first used.
 */
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { lookupOutcomeCodec } from './lookups/outcome-codec.js';
import {
  createPlatClients,
  operatorAccounts,
  type PlatAccount,
  type PlatAccounts,
  type PlatClients,
  type PlatClientsDeps,
  storedPlatAccounts,
} from './lookups/plat-accounts.js';
import { createLocalSingleFlight, type SingleFlight } from './lookups/single-flight.js';
import type { LookupOutcome } from './lookups/types.js';
import type { Metrics } from './metrics.js';
import { createPlatClient, type RetryPolicy } from './plat/client.js';
import type { HttpTimeouts } from './plat/http.js';
import {
  type EarlierCall,
  type Limiter,
  type LimiterOptions,
  resolveLimiterOptions,
  restingAtStart,
} from './plat/limiter.js';
import { createLocalLimiter } from './plat/local-limiter.js';
import type { Store } from './store/store.js';

const PLAT_BUCKETS_MS = [25, 50, 100, 250, 500, 1000, 2500, 5000, 15000];

/**
 * The calls written ahead lately, as the store knows them (store/sent-calls.ts recent), for a
 * limiter starting: which of them may still arrive (plat/limiter.ts restingAtStart). The plat
 * layer knows no store (DESIGN.md layers): main hands this in.
 */
export interface EarlierCalls {
  /** Every tenant's calls written ahead within the last `withinMs`, by the database's clock. */
  read(withinMs: number): Promise<EarlierCall[]>;
  /**
   * How far the clock that stamped answers (a replica's) may be from the database's: 0 on SQLite
   * (one process), the skew budget on PostgreSQL.
   */
  skewMs: number;
}

/**
 * The in-process engine's slots at start: those of calls an earlier life of this process sent
 * that may still arrive (issue 33 finding 13). If they cannot be read, every slot rests for as
 * long as any such call could (the safe side: a restart is slowed, never over the rate).
 */
async function slotsAtStart(
  earlier: EarlierCalls,
  bounds: { spanMs: number; gapMs: number; maxCalls: number },
  logger: Logger,
): Promise<number[]> {
  try {
    const calls = await earlier.read(bounds.spanMs + bounds.gapMs + earlier.skewMs);
    return restingAtStart(calls, { ...bounds, skewMs: earlier.skewMs });
  } catch (err) {
    logger.warn({ err }, 'calls written ahead not read at start: every limiter slot rests as if just used');
    return Array.from({ length: bounds.maxCalls }, () => bounds.spanMs + bounds.gapMs);
  }
}

/** The plat rate limiter: shared through Redis with REDIS_URL, else in this process. */
export async function createLimiter(
  config: Config,
  deadlineMs: number,
  metrics: Metrics,
  logger: Logger,
  earlier?: EarlierCalls,
): Promise<Limiter> {
  const options: LimiterOptions = {
    maxCalls: config.plat.rateLimit.maxCalls,
    windowMs: config.plat.rateLimit.windowMs,
    maxQueued: config.plat.rateLimit.maxQueued,
    onStarted: ({ priority, waitedMs }) => {
      metrics.inc('platdesk_limiter_started_total', 'Plat calls started by the limiter', { priority });
      metrics.inc(
        'platdesk_limiter_wait_ms_total',
        'Milliseconds plat calls waited in the limiter',
        { priority },
        waitedMs,
      );
    },
  };
  const limiter = config.redisUrl
    ? (await import('./plat/redis-limiter.js')).createRedisLimiter({
        ...options,
        url: config.redisUrl,
        deadlineMs,
        // A fenced key set (lost, or a fresh Redis) ends once no call written ahead can still
        // arrive (issue 33 finding 17).
        ...(earlier
          ? {
              earlierCalls: () => {
                const { spanMs, gapMs } = spanOf(options, deadlineMs);
                return earlier.read(spanMs + gapMs + earlier.skewMs);
              },
              answerSkewMs: earlier.skewMs,
            }
          : {}),
        logger: logger.child({ component: 'limiter' }),
        onWait: (reason) =>
          metrics.inc('platdesk_limiter_redis_waits_total', 'Times a plat call waited for Redis, by reason', {
            reason,
          }),
      })
    : createLocalLimiter({
        ...options,
        ...(earlier ? { restingMs: await slotsAtStart(earlier, spanOf(options, deadlineMs), logger) } : {}),
      });
  metrics.gauge('platdesk_limiter_queued', 'Plat calls waiting in the limiter', () => {
    const q = limiter.stats().queued;
    return q.interactive + q.bulk;
  });
  return limiter;
}

/**
 * The longest from a call's write ahead to its arrival (its send within the prepare deadline,
 * then the call deadline), a slot's rest after it, and the slots.
 */
function spanOf(options: LimiterOptions, deadlineMs: number) {
  const settings = resolveLimiterOptions(options);
  return {
    spanMs: settings.prepareDeadlineMs + deadlineMs,
    gapMs: settings.windowMs + settings.safetyMarginMs,
    maxCalls: settings.maxCalls,
  };
}

/** Identical lookups share one call: across every process with REDIS_URL, else in this one. */
export async function createSingleFlight(
  config: Config,
  metrics: Metrics,
  logger: Logger,
): Promise<SingleFlight<LookupOutcome>> {
  return config.redisUrl
    ? (await import('./lookups/redis-single-flight.js')).createRedisSingleFlight({
        url: config.redisUrl,
        codec: lookupOutcomeCodec,
        logger: logger.child({ component: 'single-flight' }),
        onUnavailable: () =>
          metrics.inc(
            'platdesk_single_flight_unavailable_total',
            'Lookups refused before any call because Redis (single flight) was unreachable',
          ),
      })
    : createLocalSingleFlight();
}

/**
 * Which plat account each tenant spends from: in distributed mode the one its admin connected
 * (else the operator's default, if any); otherwise the operator's for every tenant.
 */
export function platAccountsFor(
  config: Config,
  store: Store,
  operatorAccount: PlatAccount | null,
  logger: Logger,
): PlatAccounts {
  const distribution = config.slack.distribution;
  if (!distribution) return operatorAccounts(operatorAccount ?? { baseUrl: '', token: '' });
  const serves = distribution.defaultAccountFor;
  // Said once at start: whose lookups the operator pays for (issue 34 H3).
  if (operatorAccount && serves === 'all')
    logger.warn(
      'the operator plat account serves every installed workspace (PLATDESK_DEFAULT_ACCOUNT_FOR=*): anyone who installs platdesk spends from it',
    );
  else if (operatorAccount && serves.length > 0)
    logger.info({ serves }, 'the operator plat account serves these workspaces only');
  else if (operatorAccount)
    logger.info(
      'the operator plat account serves no workspace (PLATDESK_DEFAULT_ACCOUNT_FOR is unset): each connects its own',
    );
  else if (serves === 'all' || serves.length > 0)
    logger.warn(
      'PLATDESK_DEFAULT_ACCOUNT_FOR is set but there is no operator plat account (PLAT_BASE_URL, PLAT_TOKEN): it serves nobody',
    );
  return storedPlatAccounts(
    store.platAccounts,
    operatorAccount,
    logger,
    async (t) => {
      const installed = await store.installations.get(t);
      return installed ? { teamId: installed.teamId, enterpriseId: installed.enterpriseId } : null;
    },
    serves,
  );
}

export interface MeteredPlatClientsOptions {
  accounts: PlatAccounts;
  /** Where a workspace's own account may connect (plat/address-guard.ts). */
  guard: PlatClientsDeps['guard'];
  timeouts: HttpTimeouts;
  defaults: PlatClientsDeps['defaults'];
  /** One limiter for every tenant (lookups/plat-accounts.ts says why). */
  limiter: Limiter;
  retry?: Partial<RetryPolicy>;
  metrics: Metrics;
  logger: Logger;
}

/** Every tenant's plat client, each call and charge counted in the metrics. */
export function createMeteredPlatClients(o: MeteredPlatClientsOptions): PlatClients {
  const { metrics } = o;
  return createPlatClients({
    accounts: o.accounts,
    guard: o.guard,
    timeouts: o.timeouts,
    defaults: o.defaults,
    makeClient: (http, editions, onAccountAttempt) =>
      createPlatClient({
        http,
        limiter: o.limiter,
        editions,
        logger: o.logger,
        ...(o.retry ? { retry: o.retry } : {}),
        onAttempt: (attempt) => {
          const { operation, outcome, apiCode, ms } = attempt;
          onAccountAttempt?.(attempt);
          metrics.inc('platdesk_plat_calls_total', 'Plat calls sent, by operation and outcome', {
            operation,
            outcome,
            code: apiCode ?? 'none',
          });
          metrics.observe('platdesk_plat_call_ms', 'Plat call duration', PLAT_BUCKETS_MS, ms, { operation });
          if (outcome !== 'ok')
            metrics.inc('platdesk_errors_total', 'Errors by source and code', {
              source: 'plat',
              code: outcome,
            });
        },
        onCharge: (e) => {
          metrics.inc(
            'platdesk_plat_points_total',
            'Points withheld by the plat API',
            { operation: e.operation },
            e.points,
          );
        },
      }),
  });
}
