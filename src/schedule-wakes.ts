/**
 * One wake loop per replica for the digests and alerts of every workspace (issue 39). Each
 * tenant's schedulers keep their rules (slots, time zones, fenced leases, retries, stranded runs)
 * but no timer of their own: after each plan they hand their next due time to `driven(tenant)`,
 * which writes it to the store (store/schedule-wakes.ts). This loop sleeps until the earliest due
 * time of any tenant (at most `maxSleepMs`, so what another replica planned is seen within it),
 * reads the rows due through their index, and wakes each of those tenants' scheduler, building
 * its parts for it (tenant-services.ts `using`). Claims are the schedulers' own: a run another
 * replica claimed first is left to it.
 *
 * At idle a replica reads the store about once per `maxSleepMs`, however many workspaces exist;
 * a start builds no workspace's parts.
 */

import type { DigestClock } from './digest/types.js';
import { createWakeLoop, type WakeLoop } from './digest/wake-loop.js';
import type { Logger } from './logger.js';
import type { Store, WakeKind } from './store/store.js';

/** Rows read per wake-up (more due than this: the next wake-up follows a second later). */
export const WAKE_BATCH = 200;
/** Tenants woken at once (each a few store round trips; the runs themselves go on afterwards). */
export const WAKE_CONCURRENCY = 8;

export interface ScheduleDriver {
  /** Where a tenant's digest and alert schedulers hand their next due time (digest/wake-loop.ts driven). */
  driven(tenant: string): Record<WakeKind, { schedule(at: number, seen: number | undefined): void }>;
}

export interface ScheduleWaker extends ScheduleDriver {
  start(): void;
  stop(): Promise<void>;
  /** Resolves when no look, wake-up or due-time write is under way (tests' fake clocks). */
  idle(): Promise<void>;
  /** Whether a look, a wake-up or a due-time write is under way. */
  busy(): boolean;
  /** When this replica looks next (ms), or null. */
  nextWakeAt(): number | null;
}

export interface ScheduleWakerOptions {
  store: Pick<Store, 'scheduleWakes'>;
  clock: DigestClock;
  /** Longest sleep between two looks at the store (default a minute). */
  maxSleepMs?: number;
  /**
   * Wakes one tenant's scheduler of `kind` (claims what is due, plans, hands its next due time
   * back through `driven`); `seen` is the due time found. Rejects when the tenant cannot be served.
   */
  wake(tenant: string, kind: WakeKind, seen: number): Promise<void>;
  logger: Pick<Logger, 'warn' | 'error'>;
}

export function createScheduleWaker(o: ScheduleWakerOptions): ScheduleWaker {
  const maxSleepMs = o.maxSleepMs ?? 60_000;
  const wakes = o.store.scheduleWakes;
  /** Due-time writes under way, so idle() waits for them. */
  const writes = new Set<Promise<void>>();
  let loop: WakeLoop | null = null;

  function write(tenant: string, kind: WakeKind, at: number, seen: number | undefined): void {
    const w = wakes
      .set(tenant, kind, at, seen)
      .then(() => {
        // Sooner than this replica's next look: look again (the plan reads the new row).
        const next = loop?.nextWakeAt() ?? null;
        if (loop?.running && (next === null || at < next)) loop.arm();
      })
      .catch((err: unknown) =>
        o.logger.error({ err, tenant, kind }, 'schedule due time not written: looked at again later'),
      )
      .finally(() => writes.delete(w));
    writes.add(w);
  }

  async function wakeDue(now: number): Promise<void> {
    const due = await wakes.due(now, WAKE_BATCH);
    let i = 0;
    const worker = async () => {
      for (let row = due[i++]; row !== undefined; row = due[i++]) {
        const { tenant, kind, at } = row;
        try {
          await o.wake(tenant, kind, at);
        } catch (err) {
          // Not served now (no installation, the store failing): looked at again later, not in a
          // busy loop; a tenant served again plans itself on its next wake-up.
          // Uninstalled (no Slack client): nothing to look at until its parts are built again,
          // which plans anew.
          const gone = (err as { code?: unknown }).code === 'tenant_unavailable';
          if (!gone) o.logger.warn({ err, tenant, kind }, 'scheduled work of a workspace not looked at');
          write(tenant, kind, gone ? Number.POSITIVE_INFINITY : now + maxSleepMs, at);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(WAKE_CONCURRENCY, due.length) }, worker));
    // The due times those wake-ups wrote, before the next look reads them.
    await Promise.allSettled([...writes]);
  }

  loop = createWakeLoop({
    clock: o.clock,
    maxSleepMs,
    plan: async () => (await wakes.next()) ?? Number.POSITIVE_INFINITY,
    wake: wakeDue,
    onError: (err) => o.logger.error({ err }, 'schedule wake loop could not read the store'),
  });
  const l = loop;

  return {
    driven: (tenant) => ({
      digest: { schedule: (at, seen) => write(tenant, 'digest', at, seen) },
      alert: { schedule: (at, seen) => write(tenant, 'alert', at, seen) },
    }),
    start() {
      l.start();
      // Subscriptions an older build added without a row are looked at too.
      const adopt = wakes
        .adoptMissing()
        .then((n) => {
          if (n > 0) l.arm();
        })
        .catch((err: unknown) => o.logger.error({ err }, 'schedules without a due time not adopted'))
        .finally(() => writes.delete(adopt));
      writes.add(adopt);
    },
    stop: async () => {
      await l.stop();
      await Promise.allSettled([...writes]);
    },
    async idle() {
      for (;;) {
        await l.idle();
        if (writes.size === 0 && !l.busy()) return;
        await Promise.allSettled([...writes]);
      }
    },
    busy: () => l.busy() || writes.size > 0,
    nextWakeAt: () => l.nextWakeAt(),
  };
}
