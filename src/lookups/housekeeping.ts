/**
 * Rows that only grow are pruned on a schedule (issue 10): confirmations (pager buttons'
 * included) that expired or finished long ago, Events API ids past the window in which Slack
 * retries, unfurl records, day counts and shortcut offers past their use, ship-by alert orders
 * and checks, digest runs (with the rows that belong to them) and admin alerts sent, each past
 * the retention stated below; and calls written ahead, settled when nobody else did
 * (SENT_CALL_SETTLE_AFTER_MS) and forgotten once their charge is in the ledger. A live confirmation, a running claim and a held run are never
 * removed (store.ts prune, pruneRuns).
 *
 * One process does it (issue 19 point 5): every process looks every `everyMs / 6`, and the one
 * that takes the turn in the store (store/turns.ts: at most one turn per `everyMs` across every
 * process on the database) prunes; the others do nothing until the next turn is due.
 */
import type { Logger } from 'pino';
import { placeholderFor } from '../digest/sent-calls.js';
import type { Store } from '../store/store.js';
import { reconcileOncePerDay, type SpendCheck } from './reconcile.js';
import { EVENT_MEMORY_MS, UNFURL_KEEP_MS } from './unfurls.js';

/**
 * A finished confirmation answers a repeated click and keeps a print data file for its Download
 * button; a week covers any click on a message still in view.
 */
export const CONFIRMATION_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
export const HOUSEKEEPING_EVERY_MS = 60 * 60 * 1000;
/**
 * Ship-by alert orders a week past their deadline (a Claim on so old a message is answered as no
 * longer known) and the checks no order points at.
 */
export const ALERT_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Digest runs (and their rows) a month old: the digest compares with the day before and the App
 * Home shows the last run; the ledger, not the run, is the record of what was charged.
 */
export const DIGEST_RUN_KEEP_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * Admin alerts sent, past a month and a few days: a once-ever key holds its day (a budget alert),
 * and the App Home lists the month's budget alerts.
 */
export const ALERTS_SENT_KEEP_MS = 35 * 24 * 60 * 60 * 1000;
/**
 * A call written ahead whose charge never reached the ledger and that nobody settled within this
 * (issue 33 finding 11: "orphans"): the next claim of its run settles it within a lease (22 s),
 * the sweep of interrupted lookups within a claim's lease and the longest call (under 2 minutes);
 * one still unsettled an hour later belongs to a run or lookup nobody will take up again, and
 * housekeeping writes its ledger row (digest/sent-calls.ts placeholderFor). A holder that was alive
 * after all and writes the real charge later upgrades that row (store/ledger.ts certaintyOf).
 */
export const SENT_CALL_SETTLE_AFTER_MS = 60 * 60 * 1000;
/**
 * Calls written ahead whose charge is in the ledger are kept this long, then forgotten: a limiter
 * starting reads the last few seconds of them (plat-wiring.ts); nothing reads them later.
 */
export const SENT_CALL_KEEP_MS = 10 * 60 * 1000;
/** Unsettled calls written per housekeeping pass (a backlog is worked off over passes). */
const SETTLE_BATCH = 500;
/** The name of housekeeping's turn in the store (store/turns.ts). */
export const HOUSEKEEPING_TURN = 'housekeeping';
/** How many looks for the turn each process takes per period: the turn is taken at most this late. */
const LOOKS_PER_TURN = 6;
/**
 * The reconciliation's tenants: counters of periods keyed from the month this long ago (the
 * periods compared reach back to yesterday's month, in any zone), and ledger rows this recent
 * (yesterday and today in any zone; a tenant that spent only earlier has counters).
 */
const SPENDERS_MONTHS_MS = 40 * 24 * 60 * 60 * 1000;
const SPENDERS_LEDGER_MS = 3 * 24 * 60 * 60 * 1000;

export interface Pruned {
  confirmations: number;
  events: number;
  unfurls: number;
  alerts: number;
  digestRuns: number;
  alertsSent: number;
  /** Calls written ahead that nobody settled: now in the ledger (code -1 or -2). */
  sentCallsSettled: number;
  /** Calls written ahead whose charge is in the ledger, forgotten. */
  sentCallsForgotten: number;
  /** The agent's thread memory (issue 36), kept as long as shortcut offers. */
  agentThreads: number;
}

/**
 * Every tenant's calls written ahead over SENT_CALL_SETTLE_AFTER_MS ago with no ledger row get
 * their row (each in its tenant), then those whose charge is in the ledger and that are older than
 * SENT_CALL_KEEP_MS are forgotten. Returns how many of each.
 */
export async function settleWrittenCalls(
  store: Store,
  now: Date,
): Promise<{ settled: number; forgotten: number }> {
  const unsettled = await store.sentCalls.unsettled(
    new Date(now.getTime() - SENT_CALL_SETTLE_AFTER_MS),
    SETTLE_BATCH,
  );
  for (const call of unsettled) await store.forTenant(call.tenantId).ledger.record(placeholderFor(call));
  const forgotten = await store.sentCalls.pruneRecorded(new Date(now.getTime() - SENT_CALL_KEEP_MS));
  return { settled: unsettled.length, forgotten };
}

export async function pruneOldRows(store: Store, now: Date): Promise<Pruned> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const pruned = {
    confirmations: await store.pending.prune(before(CONFIRMATION_KEEP_MS)),
    events: await store.unfurls.forgetEvents(before(EVENT_MEMORY_MS)),
    unfurls: await store.unfurls.prune(before(UNFURL_KEEP_MS)),
    alerts: await store.alerts.prune(before(ALERT_KEEP_MS)),
    digestRuns: await store.digests.pruneRuns(before(DIGEST_RUN_KEEP_MS)),
    alertsSent: await store.alertsSent.prune(before(ALERTS_SENT_KEEP_MS)),
    sentCallsSettled: 0,
    sentCallsForgotten: 0,
    agentThreads: await store.agent.prune(before(UNFURL_KEEP_MS)),
  };
  const calls = await settleWrittenCalls(store, now);
  pruned.sentCallsSettled = calls.settled;
  pruned.sentCallsForgotten = calls.forgotten;
  // Reservations whose process died mid-call.
  await store.budgets.prune();
  return pruned;
}

export interface Housekeeping {
  /**
   * Prunes now if this process takes the turn (also tried at start): what it pruned, or null
   * when another process has had the turn within the period (or the store failed).
   */
  run(): Promise<Pruned | null>;
  start(): void;
  stop(): void;
}

export function createHousekeeping(deps: {
  store: Store;
  now: () => Date;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** This process, as the turn's holder (for whoever reads the row). */
  holder: string;
  everyMs?: number;
  /** The nightly reconciliation found running totals that differ from the ledger (tell the admins). */
  /** A tenant's counters differ from its ledger (`tenant`: store/tenants.ts). */
  onSpendDifferences?: (check: SpendCheck, tenant: string) => void;
  /** Distributed mode: erases the data of tenants whose retention after uninstall has passed. */
  eraseDueTenants?: () => Promise<string[]>;
}): Housekeeping {
  const everyMs = deps.everyMs ?? HOUSEKEEPING_EVERY_MS;
  let timer: NodeJS.Timeout | undefined;
  const housekeeping: Housekeeping = {
    async run() {
      try {
        if (!(await deps.store.turns.take(HOUSEKEEPING_TURN, deps.holder, everyMs))) return null;
        const pruned = await pruneOldRows(deps.store, deps.now());
        if (Object.values(pruned).some((n) => n > 0)) deps.logger.info(pruned, 'old rows pruned');
        const erased = (await deps.eraseDueTenants?.()) ?? [];
        if (erased.length > 0) deps.logger.info({ tenants: erased }, 'data of uninstalled workspaces erased');
        // Once a local day per tenant that spent lately, whichever replica gets there first
        // (reconcile.ts): not every tenant installed (issue 39: work proportional to what is
        // active). The periods it compares reach back to yesterday's month at most.
        const now = deps.now().getTime();
        const tenants = new Set([
          deps.store.tenant,
          ...(await deps.store.tenants.spenders(
            new Date(now - SPENDERS_MONTHS_MS).toISOString().slice(0, 7),
            new Date(now - SPENDERS_LEDGER_MS),
          )),
        ]);
        for (const tenant of tenants) {
          const onSpend = deps.onSpendDifferences;
          await reconcileOncePerDay({
            store: deps.store.forTenant(tenant),
            now: deps.now(),
            logger: deps.logger,
            ...(onSpend ? { onDifferences: (check: SpendCheck) => onSpend(check, tenant) } : {}),
          });
        }
        return pruned;
      } catch (err) {
        // A store fault now is reported by /healthz; the next run tries again.
        deps.logger.error({ err }, 'pruning old rows failed');
        return null;
      }
    },
    start() {
      void housekeeping.run();
      timer ??= setInterval(() => void housekeeping.run(), everyMs / LOOKS_PER_TURN);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
  return housekeeping;
}
