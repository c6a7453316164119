/**
 * One wake loop per replica for the digests and alerts of every workspace (issue 39). Each
 * tenant's schedulers keep their rules (slots, time zones, fenced leases, retries) but no timer of
 * their own: after each plan they hand their next due time to `driven(tenant)`, which writes it to
 * the store (store/schedule-wakes.ts). This loop sleeps until the earliest due time of any tenant
 * (at most `maxSleepMs`, so what another replica planned is seen within it), takes the rows due
 * through their index as its workers free up (each row to one replica), and wakes each of those
 * tenants' scheduler, building its parts for it (tenant-services.ts `using`). Claims are the
 * schedulers' own: a run another replica claimed first is left to it.
 *
 * The same loop is the replica's stranded-runs sweep (digest/stranded.ts, issue 33 finding 12):
 * it reads the open runs of every workspace (digest runs of any kind and day, "Run now" too, and
 * ship-by alert checks; running, posting, or failed or unknown with a retry or history check due)
 * and wakes at the earliest deadline among them that this process does not run itself. A run due
 * is claimed in the store first, under this replica's run owner and the fenced lease of every
 * run, and only then handed to its workspace's scheduler (`takeOver`), whose parts are built for
 * it: a workspace whose run another replica claimed first gets no parts here. So a run whose
 * holder died is taken over within a lease by whichever replica is alive, whether or not it has
 * that workspace's parts, and no workspace needs a timer of its own.
 *
 * At idle a replica reads the store a few times per `maxSleepMs`, however many workspaces exist;
 * a start builds no workspace's parts.
 */

import {
  claimStrandedCheck,
  claimStrandedRun,
  nextStranded,
  type StrandedClaim,
  type StrandedRuns,
  sweepStranded,
} from './digest/stranded.js';
import type { DigestClock } from './digest/types.js';
import { createWakeLoop, type DrivenBy, type WakeLoop } from './digest/wake-loop.js';
import type { Logger } from './logger.js';
import type { AlertCheck, DigestRun, Lease, Store, WakeKind } from './store/store.js';

/**
 * Workspaces woken at once (each a few store round trips: its parts, its claims, its plan; the
 * runs themselves go on afterwards, as bulk store work: store/bulk-work.ts).
 */
export const WAKE_CONCURRENCY = 16;
/**
 * A due row a replica took for its wake-up is left to it this long (store `takeDue`): of several
 * replicas looking at once, one wakes the tenant and builds its parts; if it dies first, another
 * wakes it this much later. The plan after the wake-up replaces it long before.
 */
export const WAKE_TAKEN_MS = 30_000;
/** How often subscriptions with no due time (an older build's) are adopted after the start. */
export const ADOPT_EVERY_MS = 60 * 60_000;

/** An open run of some workspace, as the replica's sweep reads it: which scheduler it belongs to. */
export type OpenRun = (DigestRun & { schedule: 'digest' }) | (AlertCheck & { schedule: 'alert' });

/** The workspaces' schedulers, as the one loop reaches them (tenant-services.ts builds their parts). */
export interface ScheduledTenants {
  /**
   * Wakes one tenant's scheduler of `kind` (claims what is due, plans, hands its next due time
   * back through `driven`); `seen` is the due time found. Rejects when the tenant cannot be served.
   */
  wake(tenant: string, kind: WakeKind, seen: number): Promise<void>;
  /**
   * Hands a run this replica claimed (under `lease.owner`) to its tenant's scheduler of its kind,
   * which starts it. Rejects when the tenant cannot be served.
   */
  takeOver(run: OpenRun, how: StrandedClaim): Promise<void>;
  /** Whether this process runs that run now (its lease is renewed here: nothing to claim). */
  inFlight(run: OpenRun): boolean;
}

export interface ScheduleDriver {
  /** Where a tenant's digest and alert schedulers hand their next due time (digest/wake-loop.ts driven). */
  driven(tenant: string): Record<WakeKind, DrivenBy>;
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
  store: Pick<Store, 'scheduleWakes' | 'forTenant'> & {
    tenants: Pick<Store['tenants'], 'openDigestRuns' | 'openAlertChecks'>;
  };
  clock: DigestClock;
  /** Longest sleep between two looks at the store (default a minute). */
  maxSleepMs?: number;
  /**
   * What a stranded run is claimed with: this replica's run owner (every scheduler of its
   * workspaces runs under it) and the lease of every run (digest/run-fence.ts).
   */
  lease: Lease;
  tenants: ScheduledTenants;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
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

  /**
   * Tenants whose stranded runs could not be handed over (uninstalled, the store failing), and
   * until when this replica leaves them be (a look every maxSleepMs, not a busy loop).
   */
  const resting = new Map<string, number>();
  const rests = (tenant: string, now: number): boolean => {
    const until = resting.get(tenant);
    if (until !== undefined && until <= now) resting.delete(tenant);
    return until !== undefined && until > now;
  };
  /**
   * The earliest deadline of an open run the last plan saw, or Infinity; before the first plan
   * unknown (-Infinity: the first wake-up, at start, sweeps).
   */
  let strandedDue = Number.NEGATIVE_INFINITY;
  /**
   * Whether strandedDue is still what the store holds: false after a wake-up (runs were claimed,
   * or appeared since) and when a run of this process settles; a plan for a due time written
   * (most plans) then reads only the due times.
   */
  let strandedSeen = false;

  /** The open runs of every workspace (digest/stranded.ts), claimed here, run by their workspace's parts. */
  function strandedRuns(now: number): StrandedRuns<OpenRun> {
    return {
      async open() {
        const [runs, checks] = await Promise.all([
          o.store.tenants.openDigestRuns(),
          o.store.tenants.openAlertChecks(),
        ]);
        const open: OpenRun[] = [
          ...runs.map((run) => ({ ...run, schedule: 'digest' as const })),
          ...checks.map((check) => ({ ...check, schedule: 'alert' as const })),
        ];
        return open.filter((run) => !rests(run.tenantId, now));
      },
      inFlight: (run) => o.tenants.inFlight(run),
      async claim(run, lease) {
        const store = o.store.forTenant(run.tenantId);
        if (run.schedule === 'digest') {
          const claimed = await claimStrandedRun(store.digests, run, lease, o.logger);
          return claimed && { run: { ...claimed.run, schedule: 'digest' }, how: claimed.how };
        }
        const claimed = await claimStrandedCheck(store.alerts, run, lease, o.logger);
        return claimed && { run: { ...claimed.run, schedule: 'alert' }, how: claimed.how };
      },
      async start(run, how) {
        try {
          await o.tenants.takeOver(run, how);
        } catch (err) {
          // Not served here now (uninstalled: no Slack client; the store failing): the run is
          // given back at once for a replica that can, and this one looks again later.
          resting.set(run.tenantId, now + maxSleepMs);
          if ((err as { code?: unknown }).code !== 'tenant_unavailable')
            o.logger.warn({ err, tenant: run.tenantId, runId: run.id }, 'stranded run not taken over');
          const holder = { owner: o.lease.owner, epoch: run.epoch };
          const store = o.store.forTenant(run.tenantId);
          const at = new Date(o.clock.now());
          await (run.schedule === 'digest'
            ? store.digests.release(run.id, holder, at)
            : store.alerts.release(run.id, holder, at)
          ).catch((e: unknown) => o.logger.warn({ err: e, runId: run.id }, 'stranded run not given back'));
        }
      },
    };
  }

  /**
   * Subscriptions an older build added without a row (a rolling update) are looked at too: at
   * start, then every ADOPT_EVERY_MS (an older replica may add some after this one started).
   */
  let adoptedAt = Number.NEGATIVE_INFINITY;
  function adopt(): void {
    adoptedAt = o.clock.now();
    const adopting = wakes
      .adoptMissing()
      .then((n) => {
        if (n > 0) loop?.arm();
      })
      .catch((err: unknown) => o.logger.error({ err }, 'schedules without a due time not adopted'))
      .finally(() => writes.delete(adopting));
    writes.add(adopting);
  }

  /**
   * The rows due by `now`, taken as this replica's workers free up: every idle worker's row in
   * one statement (at a burst, WAKE_CONCURRENCY at once), so replicas share a burst by how fast
   * each wakes, and no row costs a round trip to a replica that does not wake it. Undefined once
   * nothing is left due (or the store cannot be read: looked at again at the next wake-up).
   */
  function dueRows(
    now: number,
    taken: number,
  ): () => Promise<{ tenant: string; kind: WakeKind } | undefined> {
    const waiting: ((row: { tenant: string; kind: WakeKind } | undefined) => void)[] = [];
    let taking = false;
    let done = false;
    const takeSome = async () => {
      if (taking) return;
      taking = true;
      const take = (n: number, waitForLocked: boolean) =>
        wakes
          .takeDue(now, n, taken, { waitForLocked })
          .catch((err: unknown): { tenant: string; kind: WakeKind }[] => {
            o.logger.warn({ err }, 'scheduled work not taken: looked at again later');
            return [];
          });
      while (waiting.length > 0 && !done) {
        const asked = waiting.length;
        const rows = await take(asked, false);
        if (rows.length < asked) {
          // Rows written at that moment (another replica taking them, a plan's due time) were
          // skipped: once those writes end, what is still due is taken, not left a wake-up later.
          rows.push(...(await take(asked - rows.length, true)));
          if (rows.length < asked) done = true;
        }
        for (const row of rows) waiting.shift()?.(row);
      }
      if (done) for (const resolve of waiting.splice(0)) resolve(undefined);
      taking = false;
    };
    return () =>
      done
        ? Promise.resolve(undefined)
        : new Promise((resolve) => {
            waiting.push(resolve);
            void takeSome();
          });
  }

  async function wakeDue(now: number): Promise<void> {
    if (now - adoptedAt >= ADOPT_EVERY_MS) adopt();
    // Taken for this replica's wake-up until then; the plan after it replaces the row.
    const taken = now + WAKE_TAKEN_MS;
    const next = dueRows(now, taken);
    const worker = async () => {
      for (let row = await next(); row !== undefined; row = await next()) {
        const { tenant, kind } = row;
        try {
          await o.tenants.wake(tenant, kind, taken);
        } catch (err) {
          // Not served now (no installation, the store failing): looked at again later, not in a
          // busy loop; a tenant served again plans itself on its next wake-up.
          // Uninstalled (no Slack client): nothing to look at until its parts are built again,
          // which plans anew.
          const gone = (err as { code?: unknown }).code === 'tenant_unavailable';
          if (!gone) o.logger.warn({ err, tenant, kind }, 'scheduled work of a workspace not looked at');
          write(tenant, kind, gone ? Number.POSITIVE_INFINITY : now + maxSleepMs, taken);
        }
      }
    };
    await Promise.all(Array.from({ length: WAKE_CONCURRENCY }, worker));
    // Runs whose holders stopped, of any workspace; only when the last plan saw one due by now
    // (one that appeared since: the next plan, right after this wake-up).
    strandedSeen = false;
    if (strandedDue <= now) await sweepStranded(strandedRuns(now), now, () => o.lease, WAKE_CONCURRENCY);
    // The due times those wake-ups wrote, before the next look reads them.
    await Promise.allSettled([...writes]);
  }

  loop = createWakeLoop({
    clock: o.clock,
    maxSleepMs,
    plan: async (now) => {
      const looks = !strandedSeen;
      strandedSeen = true;
      const [next, stranded] = await Promise.all([
        wakes.next(),
        looks ? nextStranded(strandedRuns(now)) : strandedDue,
      ]).catch((err: unknown) => {
        if (looks) strandedSeen = false;
        throw err;
      });
      if (looks) strandedDue = stranded;
      return Math.min(next ?? Number.POSITIVE_INFINITY, stranded);
    },
    wake: wakeDue,
    onError: (err) => o.logger.error({ err }, 'schedule wake loop could not read the store'),
  });
  const l = loop;

  return {
    driven: (tenant) => {
      // A run that settled may have left a retry or a history check due: this loop's sweep
      // plans again (its next look would see it too, up to maxSleepMs later).
      const settled = () => {
        strandedSeen = false;
        if (l.running) l.arm();
      };
      return {
        digest: { schedule: (at, seen) => write(tenant, 'digest', at, seen), settled },
        alert: { schedule: (at, seen) => write(tenant, 'alert', at, seen), settled },
      };
    },
    start() {
      l.start();
      adopt();
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
