/**
 * How platdesk stops (SIGTERM, a test's stop()): stop taking new work, let confirmed lookups
 * finish and be recorded, then close everything in the order that loses nothing. Past the drain
 * bound, calls still in flight are cut off and their lookups get a moment to record that.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { Logger } from './logger.js';
import type { PlatClients } from './lookups/plat-accounts.js';
import type { Limiter } from './plat/limiter.js';
import type { ChargeRecorder } from './store/ledger.js';
import type { SoleLock } from './store/sole-lock.js';
import type { Store } from './store/store.js';
import type { TenantServices } from './tenant-services.js';

/** Below Docker's default 10 s stop timeout, so the process exits on its own. */
export const DRAIN_TIMEOUT_MS = 8_000;
/** After cutting off calls past the drain bound: time for their lookups to record it and answer. */
export const CUT_OFF_GRACE_MS = 1_000;

/** Something that stops, with or without waiting. */
interface Stops {
  stop(): unknown;
}

export interface ShutdownParts {
  logger: Logger;
  /** Bolt's app: its receiver stops taking requests. */
  app: { stop(): Promise<unknown> };
  /** Socket Mode's health server (HTTP mode's server closes with the app). */
  healthServer: Server | null;
  /** The internal server of /metrics and /healthz's details (METRICS_PORT), closed last. */
  internalServer?: Server | null;
  tenants: TenantServices;
  /** The one wake loop of the schedules (schedule-wakes.ts). */
  wakes: { stop(): Promise<void> };
  drainTimeoutMs?: number;
  claims: Stops;
  housekeeping: Stops;
  limiter: Limiter;
  platClients: PlatClients;
  singleFlight: { stop(): Promise<void> };
  /** The workspaces' Slack read allowances (Redis's connection), when kept. */
  readBudgets?: { stop(): Promise<void> } | null;
  /** The MCP tokens' request counts (Redis's connection, when shared). */
  mcpRate?: { stop(): Promise<void> };
  sandbox: { close(): Promise<void> } | null;
  charges: Pick<ChargeRecorder, 'flush'>;
  store: Store;
  soleLock: SoleLock | null;
  /** The database watch's timer (store/database-watch.ts). */
  databaseWatch: Stops;
}

/** stop(): runs the shutdown once; later calls get the same promise. */
export function shutdownOnce(p: ShutdownParts): () => Promise<void> {
  let stopping: Promise<void> | null = null;
  return () => {
    stopping ??= shutdown(p);
    return stopping;
  };
}

async function shutdown(p: ShutdownParts): Promise<void> {
  const { logger, tenants } = p;
  logger.info('platdesk stopping');
  const healthClosed = p.healthServer?.listening ? once(p.healthServer, 'close') : Promise.resolve();
  await p.app.stop();
  await healthClosed;
  // No workspace is woken from now on, and no parts are evicted meanwhile.
  await p.wakes.stop();
  tenants.stop();
  const built = tenants.built();
  // A digest in flight gives its run up (released lease) so the next start takes it over.
  for (const { deps } of built) {
    await deps.digests?.scheduler.stop();
    await deps.digests?.alerts?.stop();
  }
  const drainMs = p.drainTimeoutMs ?? DRAIN_TIMEOUT_MS;
  const drains = await Promise.all(built.map((t) => t.lookups.drain(drainMs)));
  const drained = drains.every((d) => d.drained);
  const running = drains.reduce((n, d) => n + d.running, 0);
  if (!drained) logger.warn({ running }, 'lookups still running at shutdown');
  p.claims.stop();
  p.housekeeping.stop();
  p.databaseWatch.stop();
  // The digests are stopped: a chart still rendering is given up, its renderer ended (the
  // module is small and loaded here, not at start: a process that drew no chart has none).
  await (await import('./charts/render.js')).closeCharts();
  // Queued calls are refused now; the limiter lets go of Redis once its calls have settled.
  const limiterStopped = p.limiter.stop();
  // Past the bound, calls still in flight are cut off (pool.close() would wait for them): they
  // end as timeouts, and their lookups get a moment to record that and tell the user.
  await p.platClients.close({ force: !drained });
  if (!drained) await Promise.all(built.map((t) => t.lookups.drain(CUT_OFF_GRACE_MS)));
  await limiterStopped;
  await p.singleFlight.stop();
  await p.readBudgets?.stop();
  await p.mcpRate?.stop();
  await p.sandbox?.close();
  // Charges kept while the store was unreachable: one last try before closing.
  const kept = await p.charges.flush();
  for (const t of built) t.charges.stop();
  if (kept > 0) logger.error({ kept }, 'charges not written to the ledger at shutdown');
  await p.store.close();
  await p.soleLock?.release();
  // Last: /healthz there says what is down while the rest stops.
  if (p.internalServer?.listening) {
    const closed = once(p.internalServer, 'close');
    p.internalServer.close();
    p.internalServer.closeAllConnections();
    await closed;
  }
  logger.info({ drained }, 'platdesk stopped');
}
