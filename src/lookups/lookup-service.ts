/**
 * The one path every entry point takes (slash command, shortcut, unfurl, button): check access,
 * answer from the cache when it can, quote the charge and check the budgets, store the pending
 * lookup, claim it once on Confirm, run it (identical lookups in flight share one call), and
 * write every call that reached the service to the ledger. Confirmation is server-side and
 * single-use (DESIGN rule 2).
 */

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { DEFAULT_PRICE_CEILING, type PriceTable } from '../config.js';
import { currentCorrelationId } from '../correlation.js';
import { sendMarks } from '../digest/sent-calls.js';
import { currentInstance } from '../instance.js';
import type { CallOptions, PlatClient } from '../plat/client.js';
import { PlatBudgetError, PlatClaimLostError, PlatNoAccountError } from '../plat/errors.js';
import { OPERATIONS, type Operation } from '../plat/operations.js';
import type { ChargeEvent } from '../plat/types.js';
import { POINTS_EPSILON } from '../store/budgets.js';
import { type ChargeRecorder, chargeIdOf, createChargeRecorder, ledgerEntryFor } from '../store/ledger.js';
import type { ClaimFailure, ClaimHolder, LedgerSource, SentCall, Store } from '../store/store.js';
import { type AccessDeps, checkAccess, checkStepAccess, type Refusal, type StepNarrowing } from './access.js';
import {
  type BudgetCheck,
  type BudgetGuard,
  type CapFigure,
  createBudgetGuard,
  periodStarts,
} from './budgets.js';
import { createLookupCache, type LookupCache, requestKey } from './cache.js';
import { executeLookup } from './execute.js';
import { CLAIM_LEASE_MS } from './interrupted.js';
import { createOrderCounts, pagesOf } from './order-counts.js';
import { withoutCharge } from './outcome-codec.js';
import { configuredPrice, mergePrices, plannedCalls, quote } from './quote.js';
import { type Caps, type SpendSettings, spendSettings } from './settings.js';
import {
  createLocalSingleFlight,
  type Flight,
  SharedFlightFailure,
  type SingleFlight,
} from './single-flight.js';
import { WORKFLOW_USER_PREFIX } from './steps.js';
import type { LookupOutcome, LookupRequest, Pending, Quote } from './types.js';

/** Keys of budget alerts in the store's alerts sent: prefix, the local day (ISO), '|', the cap. */
export const BUDGET_ALERT_PREFIX = 'budget|';

/** DESIGN rule 2 / issue: a confirmation expires after 10 minutes. */
export const CONFIRM_TTL_MS = 10 * 60 * 1000;

export interface Actor {
  userId: string;
  channelId: string | null;
  teamId: string | null;
  /** Slack's response_url, kept with the pending lookup so the answer can replace the confirmation. */
  responseUrl: string | null;
}

export type Prepared =
  /** Show the confirmation; the button carries pending.id. `warnings`: caps at 80 % or more. */
  | { kind: 'confirm'; pending: Pending; quote: Quote; warnings: CapFigure[] }
  /** The user chose to skip confirmations under a threshold and this quote is under it: already claimed. */
  | { kind: 'auto'; pending: Pending; quote: Quote; warnings: CapFigure[] }
  /** Answered from the cache: no call, no charge. `refresh` is a pending lookup that bypasses it. */
  | { kind: 'cached'; outcome: LookupOutcome; ageMs: number; refresh: Pending; refreshQuote: Quote }
  /** Not allowed, or over a cap: nothing stored, nothing called. */
  | { kind: 'refused'; refusal: Refusal };

export type Claimed =
  | { ok: true; pending: Pending }
  | { ok: false; reason: ClaimFailure; pending: Pending | null };

/** A Workflow Builder step's run (lookups/steps.ts): its ledger names and its approved caps. */
export interface StepCharge {
  workflowExecutionId: string;
  /** The step's callback id: its counter scope 'step'. */
  stepId: string;
  /** What an admin approved for this step; reserved together with the workspace's caps. */
  caps: Caps;
}

export interface RunOptions {
  source?: LedgerSource;
  /**
   * A workflow step's run: every call reserves against the step's approved caps and the
   * workspace's (not the triggering person's own: the admin's approval stands for their consent),
   * and its ledger rows name the workflow and the step. Runs at bulk priority.
   */
  step?: StepCharge;
  correlationId?: string;
  /** What to keep with the finished lookup (e.g. the print data file for a later download). */
  resultJson?: (outcome: LookupOutcome) => string | null;
  /** What to keep with a failed lookup (a workflow step's reason, for its redelivery). */
  failureJson?: (error: unknown) => string | null;
}

export interface PrepareOptions {
  /** Claim at once when the quote is under the user's own threshold (default true). */
  allowAuto?: boolean;
  /** Answer from the cache when it holds this answer (default true). */
  useCache?: boolean;
  /**
   * A fixed id for the pending lookup (default: a fresh random one): an MCP tool call's, derived
   * from the call, so a retried call finds its first one's row instead of asking anew.
   */
  id?: string;
  /** How long its Confirm stays valid (default the service's confirmTtlMs). */
  ttlMs?: number;
  /** The agent's plan it is a step of (store PendingLookup.planId). */
  planId?: string;
}

/** A cap reached or crossed, once per day per cap (admins are told). */
export type BudgetAlert = { figure: CapFigure; userId: string | null; refused: boolean };

export interface LookupServiceOptions {
  client: PlatClient;
  /**
   * Rejects with PlatNoAccountError when the workspace has no plat account now (distributed mode,
   * lookups/plat-accounts.ts forTenant): a lookup is then refused before it is quoted or stored,
   * and a quote is not given (no Confirm is offered that could not be honoured). Default: always one.
   */
  ensureAccount?: () => Promise<void>;
  store: Store;
  /** This process in claim records (default: a fresh id with the default lease). */
  holder?: ClaimHolder;
  prices: PriceTable;
  /**
   * PLAT_PRICE_CEILING: the points a call holds against the caps while its price is not known
   * (no configured price, no charge seen). Default DEFAULT_PRICE_CEILING.
   */
  priceCeiling?: number;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  confirmTtlMs?: number;
  now?: () => Date;
  isAdmin?: (userId: string) => Promise<boolean>;
  isInGroup?: AccessDeps['isInGroup'];
  onBudgetAlert?: (alert: BudgetAlert) => void;
  /** Where charges go (default: a recorder over store.ledger). */
  charges?: ChargeRecorder;
  /** Identical lookups in flight share one call: in this process (default) or across replicas. */
  singleFlight?: SingleFlight<LookupOutcome>;
}

export interface LookupService {
  readonly settings: SpendSettings;
  /** Who this service claims as; its leases are renewed by the claim watch while it runs. */
  readonly holder: ClaimHolder;
  /** Rejects with PlatNoAccountError when the workspace has no plat account now (see options). */
  ensureAccount(): Promise<void>;
  /** What the request will cost; rejects with PlatNoAccountError when there is no plat account. */
  quote(request: LookupRequest): Promise<Quote>;
  /**
   * Checks `points` more against every cap that applies to this user now, reserving nothing: the
   * total of several lookups offered under one Confirm (the agent's plan, issue 36). Each call
   * still reserves its own points when it runs.
   */
  checkCaps(userId: string, points: number): Promise<BudgetCheck>;
  /** The cached answer of this request and its age, if the cache holds one (no call, no charge). */
  cached(request: LookupRequest): Promise<{ outcome: LookupOutcome; ageMs: number } | null>;
  /**
   * A workflow step's run under the access rules (access.ts checkStepAccess): the request with
   * its alias resolved, or why it is refused. Never calls, never stores.
   */
  checkStepAccess(
    request: LookupRequest,
    run: { userId: string | null; channelId: string | null },
    narrowing: StepNarrowing,
  ): ReturnType<typeof checkStepAccess>;
  /** Checks, quotes and stores the request; never calls the plat API. */
  prepare(request: LookupRequest, actor: Actor, summary: string, options?: PrepareOptions): Promise<Prepared>;
  /**
   * A follow-up of a lookup already allowed (the next page of orders): stored without the
   * access and cache steps, never auto-claimed; caps are still checked before each call.
   */
  prepareFollowUp(request: LookupRequest, actor: Actor, summary: string): Promise<Pending>;
  /** Confirm: single-use, only by the user who asked, only before expiry. */
  claim(pendingId: string, userId: string): Promise<Claimed>;
  cancel(pendingId: string, userId: string): Promise<Claimed>;
  /** A claimed lookup none of whose calls was sent, given up: cancelled (store PendingLookups.withdraw). */
  withdraw(pendingId: string, userId: string): Promise<boolean>;
  /**
   * Runs a claimed lookup; records every call that reached the service; marks it done or
   * failed. Rejects with PlatError. An identical lookup already in flight is shared: the follower is not charged.
   */
  run(pending: Pending, options?: RunOptions): Promise<LookupOutcome & { shared?: boolean }>;
  /**
   * Keeps drain() waiting for work that belongs to a confirmed lookup besides the run itself
   * (delivering its answer); returns the same promise.
   */
  hold<T>(work: Promise<T>): Promise<T>;
  /** How many lookups are running now (leaders and followers, and work held with hold()). */
  running(): number;
  /** Graceful shutdown: waits for the lookups already running (confirmed calls) to finish and be recorded. */
  drain(timeoutMs: number): Promise<{ drained: boolean; running: number }>;
  /** Charges kept because the ledger could not be written, written once the store answers. */
  readonly charges: ChargeRecorder;
  /**
   * The client scheduled work (digests, ship-by alerts) calls through: every call is checked
   * and reserved against the workspace's daily and monthly caps first, as a lookup's is (no user
   * cap applies: nobody asked), and refused with PlatBudgetError, before it is sent, when it
   * would pass one; admins hear of it once a day per cap, as of a refused lookup.
   */
  readonly scheduledClient: PlatClient;
}

/**
 * A short, language-free record of what a pending lookup is of ("item:6543210987+prices"), kept
 * with it for logs; what a person reads is worded from the request itself in blocks/.
 */
export function summarize(request: LookupRequest): string {
  switch (request.kind) {
    case 'item':
      return `item:${request.itemId}${request.withPrices ? '+prices' : ''}`;
    case 'item-prices':
      return `item-prices:${request.itemId}`;
    case 'shop-info':
      return `shop-info:${request.url}`;
    case 'shop-id':
      return `shop-id:${request.wwid}`;
    case 'waybill-print':
      return `waybill-print:${request.shopId}:${request.waybills.length}`;
    case 'waybill-info':
      return `waybill-info:${request.ownerId}:${request.waybills.length}`;
    case 'orders':
      return `orders:${request.ownerId}:${request.page + 1}:${request.pageSize}`;
  }
}

/** Lines whose price is not known yet: no PLAT_PRICES entry or App Home price, no charge seen. */
function unknownPriceLines(q: Quote): Quote['lines'] {
  return q.lines.filter(
    (l) => l.unit === 'points' && l.configuredPoints === null && l.lastSeenPoints === null,
  );
}

export function createLookupService(options: LookupServiceOptions): LookupService {
  const { client, store, logger } = options;
  const ttlMs = options.confirmTtlMs ?? CONFIRM_TTL_MS;
  const now = options.now ?? (() => new Date());
  const isAdmin = options.isAdmin ?? (async () => false);
  const holder = options.holder ?? { instanceId: currentInstance().id, leaseMs: CLAIM_LEASE_MS };
  const settings = spendSettings(store.settings);
  const guard: BudgetGuard = createBudgetGuard({
    reservations: store.budgets,
    budgets: settings.budgets,
    now,
  });
  const cache: LookupCache = createLookupCache({ store: store.cache, ttlS: settings.cacheTtlS, now });
  const orderCounts = createOrderCounts({ store: store.cache, now });
  const charges =
    options.charges ??
    createChargeRecorder({
      ledger: store.ledger,
      logger: options.logger ?? { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
  const flights = options.singleFlight ?? createLocalSingleFlight<LookupOutcome>();
  /** Every run in progress (leaders and followers), for drain(). */
  const running = new Set<Promise<unknown>>();
  const accessDeps: AccessDeps = {
    access: settings.access,
    shops: settings.shops,
    isAdmin,
    isInGroup: options.isInGroup ?? (async () => false),
  };

  /** PLAT_PRICES with the admins' overrides (read each time: a change applies to the next quote). */
  const prices = async () => mergePrices(options.prices, await settings.priceOverrides());
  function hold<T>(work: Promise<T>): Promise<T> {
    running.add(work);
    void work.then(
      () => running.delete(work),
      () => running.delete(work),
    );
    return work;
  }

  const ensureAccount = options.ensureAccount ?? (async () => undefined);
  const quoteOf = async (request: LookupRequest) => {
    await ensureAccount();
    // The last charge of each planned operation, read first: quote() itself stays pure.
    const seen = new Map<Operation, number | null>();
    for (const { operation } of plannedCalls(request))
      if (!seen.has(operation))
        seen.set(operation, await store.ledger.lastCharge(operation, client.editionFor(operation)));
    return quote(request, {
      prices: await prices(),
      lastCharge: (operation) => seen.get(operation) ?? null,
      editionFor: (operation) => client.editionFor(operation),
    });
  };

  const ceiling = options.priceCeiling ?? DEFAULT_PRICE_CEILING;
  /**
   * What one call holds against the caps before it is sent (issue 33 finding 7): the most it can
   * be expected to cost, never 0 for a call paid in points. That is its configured price or the
   * largest charge ever seen for its operation and edition, whichever is higher (a price that
   * varies, or rose, is held at its top), and the ceiling while neither is known. What its charge
   * does not use is given back once the charge is in the ledger.
   */
  const holdOfCall = async (operation: Operation, edition: number | null, configured: number | null) => {
    const largest = await store.ledger.largestCharge(operation, edition);
    return configured === null && largest === null ? ceiling : Math.max(configured ?? 0, largest ?? 0);
  };

  /** One call's hold, and what the quote says it costs (configured, else last seen; null: not known). */
  const holdFor = async (operation: Operation): Promise<{ points: number; quoted: number | null }> => {
    if (OPERATIONS[operation].charge === 'quota') return { points: 0, quoted: 0 };
    const edition = client.editionFor(operation);
    const configured = configuredPrice(await prices(), operation, edition);
    const points = await holdOfCall(operation, edition, configured);
    return { points, quoted: configured ?? (await store.ledger.lastCharge(operation, edition)) };
  };

  /** What a quoted request holds against the caps: every planned call's hold. */
  const holdOf = async (q: Quote) => {
    let points = 0;
    for (const line of q.lines)
      if (line.unit === 'points')
        points += (await holdOfCall(line.operation, line.edition, line.configuredPoints)) * line.calls;
    return points;
  };

  /**
   * Admins hear of each cap once per day: once when it reaches 80 %, once when it first refuses
   * a lookup (kept in the store, so a restart does not repeat it).
   */
  async function alertOnce(figure: CapFigure, userId: string | null, refused: boolean) {
    if (!options.onBudgetAlert) return;
    const day = periodStarts(now(), (await settings.budgets()).timezone).day.toISOString();
    const subject = figure.scope === 'user' ? userId : (figure.channelId ?? '*');
    const cap = `${figure.scope}:${subject}:${figure.period}:${refused ? 'refused' : 'warned'}`;
    const key = `${BUDGET_ALERT_PREFIX}${day}|${cap}`;
    // Once ever per key (the key holds the day): whichever process gets there first sends it.
    if (!(await store.alertsSent.claim(key, Number.POSITIVE_INFINITY))) return;
    options.onBudgetAlert({ figure, userId, refused });
  }

  async function budgetVerdict(check: BudgetCheck, userId: string | null) {
    for (const w of check.warnings) await alertOnce(w, userId, false);
    if (!check.ok) await alertOnce(check.exceeded, userId, true);
  }

  /**
   * The client of one run: a budget check and reservation around every call (caps hold
   * mid-batch), each charge written under an id fixed before its call (the lookup's id, the
   * call's place in the run, the attempt) and paid from the call's reservation. The reservation
   * covers the call's first attempt and grows before each retry (refused: no retry); it is given
   * back only once the call's charges are durably in the ledger, not while they are kept in memory.
   */
  function budgetedClient(pending: Pending | null, source: LedgerSource, step?: StepCharge): PlatClient {
    // Scheduled work (pending null: digests, alerts) is checked against the workspace caps; its
    // runner writes its own ledger rows (its own charge ids), so this client writes none.
    const userId = pending?.userId ?? null;
    // A workflow step: the workspace's caps and the step's approved ones; the person who
    // triggered it is recorded, not capped (the admin's approval is the consent).
    const capsUserId = step ? null : userId;
    const extraCaps = step ? [{ scope: 'step' as const, subject: step.stepId, caps: step.caps }] : [];
    // A workflow that passed no person: its pending row names the workflow; the ledger has no user.
    const ledgerUserId = step && userId?.startsWith(WORKFLOW_USER_PREFIX) ? null : userId;
    let calls = 0;
    const workflow = step ? { workflowExecutionId: step.workflowExecutionId, stepId: step.stepId } : null;
    /**
     * A confirmed lookup's hooks around each attempt of call `seq`: just before it is sent, its
     * claim is re-checked and its charge id written ahead, in one store write (claimHooks); then
     * marked sent, or withdrawn when it was not sent after all (digest/sent-calls.ts).
     */
    const claimHooks = (pending: Pending, seq: number, o: CallOptions | undefined): CallOptions => {
      const idOf = (attempt: number) => chargeIdOf(pending.id, seq, attempt);
      return {
        beforeSend: (operation, attempt) =>
          fence(pending, operation, {
            chargeId: idOf(attempt),
            runKey: `lookup:${pending.id}`,
            epoch: pending.claimEpoch,
            source,
            operation,
            edition: client.editionFor(operation),
            channelId: pending.channelId,
            correlationId: o?.correlationId ?? null,
            attempt,
            sentAt: now(),
            userId: ledgerUserId,
            pendingId: pending.id,
            workflowExecutionId: workflow?.workflowExecutionId ?? null,
            stepId: workflow?.stepId ?? null,
          }),
        ...sendMarks(store, idOf, logger),
      };
    };
    const wrap =
      <A, R>(operation: Operation, call: (input: A, o?: CallOptions) => Promise<R>) =>
      async (input: A, o?: CallOptions): Promise<R> => {
        const seq = calls++;
        // The channel whose counter the charge counts in: the lookup's, or a digest's or alert's.
        const channelId = pending ? pending.channelId : (o?.channelId ?? null);
        const hold = await holdFor(operation);
        // Checked and reserved in one store transaction: no other call, in this process or
        // another, can pass the same cap in between.
        const reservation = await guard.reserve(capsUserId, hold.points, { channelId, extra: extraCaps });
        await budgetVerdict(reservation, capsUserId);
        if (!reservation.ok)
          throw new PlatBudgetError(operation, reservation.exceeded, hold.points, hold.quoted);
        const { held, at: bookedAt } = reservation;
        const onCharge = (answered: ChargeEvent) => {
          // Booked in the day and month its call was reserved in (finding 8: one clock, the
          // reservation's), however late the answer came: the counters it is paid from are those.
          const event: ChargeEvent = { ...answered, at: bookedAt };
          if (event.points > hold.points + POINTS_EPSILON)
            // It is what the service took: recorded in full. The counters then show it, so
            // every later reservation is judged with it, and it is the largest charge seen.
            logger?.warn(
              { operation, edition: event.edition, heldPoints: hold.points, chargedPoints: event.points },
              'a charge exceeded what its call held: booked in full',
            );
          o?.onCharge?.(event);
          if (pending === null) return;
          // Never lost: kept and written later when the store cannot be written now.
          void charges.record(
            ledgerEntryFor(event, {
              chargeId: chargeIdOf(pending.id, seq, event.attempt),
              userId: ledgerUserId,
              channelId: pending.channelId,
              pendingId: pending.id,
              source,
              ...(workflow ? { workflow } : {}),
            }),
            { reservationId: held.id },
          );
        };
        try {
          return await call(input, {
            ...o,
            ...(pending ? claimHooks(pending, seq, o) : {}),
            onCharge,
            beforeRetry: () => held.extend(hold.points),
          });
        } finally {
          await charges.flush().catch(() => undefined);
          // Given back once the charges are written (now, or when the kept ones are); a release
          // that fails leaves a reservation that expires on its own (RESERVATION_TTL_MS).
          await charges
            .afterWritten(() => held.release())
            .catch((err: unknown) => logger?.warn({ err }, 'budget reservation not released'));
        }
      };
    return {
      editionFor: client.editionFor,
      waybillPrintData: wrap('platdybw', client.waybillPrintData),
      itemInfo: wrap('platiteminfo', client.itemInfo),
      itemPrices: wrap('platiteminfoprice', client.itemPrices),
      shopInfo: wrap('get-shop-info', client.shopInfo),
      shopId: wrap('get-shop-id', client.shopId),
      waybillInfo: wrap('platdzmd', client.waybillInfo),
      orders: wrap('paging-orders', client.orders),
    };
  }

  /**
   * Fenced (DESIGN rule 8): just before each call (retries too) the claim is re-checked and its
   * lease extended, and the call is written ahead, in one store write; a claim lost, or not
   * confirmed because the store did not answer, sends nothing.
   */
  async function fence(pending: Pending, operation: Operation, call: SentCall): Promise<void> {
    let held: boolean;
    try {
      held = await store.pending.fence(pending.id, holder, pending.claimEpoch, call);
    } catch (cause) {
      throw new PlatClaimLostError(`${operation} not sent: the claim could not be confirmed`, {
        operation,
        cause,
      });
    }
    if (!held) throw new PlatClaimLostError(`${operation} not sent: the claim was lost`, { operation });
  }

  const createPending = (
    request: LookupRequest,
    actor: Actor,
    summary: string,
    q: Quote,
    fixed: Pick<PrepareOptions, 'id' | 'ttlMs' | 'planId'> = {},
  ) =>
    store.pending.create({
      ...(fixed.id !== undefined ? { id: fixed.id } : {}),
      userId: actor.userId,
      channelId: actor.channelId,
      teamId: actor.teamId,
      request,
      quote: q,
      summary,
      responseUrl: actor.responseUrl,
      ttlMs: fixed.ttlMs ?? ttlMs,
      ...(fixed.planId !== undefined ? { planId: fixed.planId } : {}),
    });

  return {
    settings,
    holder,
    scheduledClient: budgetedClient(null, 'digest'),
    ensureAccount,
    quote: quoteOf,
    checkStepAccess: (request, run, narrowing) => checkStepAccess(accessDeps, request, run, narrowing),
    checkCaps: (userId, points) => guard.check(userId, points),
    async cached(request) {
      const hit = await cache.get(request);
      return hit ? { outcome: hit.outcome, ageMs: now().getTime() - hit.storedAt } : null;
    },

    async prepare(rawRequest, actor, summary, prepareOptions = {}) {
      try {
        await ensureAccount();
      } catch (error) {
        if (error instanceof PlatNoAccountError)
          return { kind: 'refused', refusal: { reason: 'no_plat_account' } };
        throw error;
      }
      const access = await checkAccess(accessDeps, rawRequest, actor);
      if (!access.ok) return { kind: 'refused', refusal: access.refusal };
      const request = access.request;
      // A typed page past the last one, when an earlier page told the count: refused, uncharged.
      if (request.kind === 'orders' && request.page > 0) {
        const known = await orderCounts.get(request.ownerId, request.filters);
        const pages = known ? pagesOf(known.total, request.pageSize) : Number.POSITIVE_INFINITY;
        if (known && request.page >= pages)
          return {
            kind: 'refused',
            refusal: {
              reason: 'page_past_last',
              page: request.page + 1,
              pages,
              total: known.total,
              pageSize: request.pageSize,
              ageMs: known.ageMs,
            },
          };
      }
      const q = await quoteOf(request);

      if (prepareOptions.useCache ?? true) {
        const hit = await cache.get(request);
        if (hit) {
          const refresh = await createPending(request, actor, summary, q, prepareOptions);
          return {
            kind: 'cached',
            outcome: hit.outcome,
            ageMs: now().getTime() - hit.storedAt,
            refresh,
            refreshQuote: q,
          };
        }
      }

      // Caps are never passed silently (issue 10): under an active cap a price not known yet
      // cannot be checked, so only an admin may run it (and so learn the price); others are told
      // what is left and how an admin sets the price.
      const unknown = unknownPriceLines(q);
      if (unknown.length > 0 && !(await isAdmin(actor.userId))) {
        const caps = await guard.figures(actor.userId, actor.channelId);
        if (caps.length > 0) {
          const operations = [...new Set(unknown.map((l) => l.operation))];
          return { kind: 'refused', refusal: { reason: 'price_unknown', operations, caps } };
        }
      }

      // Checked with what its calls will hold (finding 7), so a lookup confirmed now is not
      // refused at its reservation for a larger charge seen or an unknown price's ceiling.
      const check = await guard.check(actor.userId, await holdOf(q), actor.channelId);
      await budgetVerdict(check, actor.userId);
      if (!check.ok)
        return {
          kind: 'refused',
          refusal: {
            reason: 'budget',
            wanted: check.wanted,
            quoted: q.totalPoints,
            cap: check.exceeded,
            // Item lookups cost quota calls, not points: said in their own units (never "about 0 points").
            quotaCalls: q.quotaCalls,
            points: q.lines.some((l) => l.unit === 'points'),
          },
        };

      const pending = await createPending(request, actor, summary, q, prepareOptions);
      const threshold = await store.prefs.getConfirmThreshold(actor.userId);
      // Under the user's own threshold (default: always ask). Unknown prices always ask.
      if (
        (prepareOptions.allowAuto ?? true) &&
        threshold !== null &&
        q.totalPoints !== null &&
        q.totalPoints < threshold
      ) {
        // Stored (durably, awaited) before anything can call: DESIGN rule 2.
        const claimed = await store.pending.claim<LookupRequest, Quote>(pending.id, actor.userId, holder);
        if (claimed.ok) return { kind: 'auto', pending: claimed.pending, quote: q, warnings: check.warnings };
      }
      return { kind: 'confirm', pending, quote: q, warnings: check.warnings };
    },

    prepareFollowUp: async (request, actor, summary) =>
      createPending(request, actor, summary, await quoteOf(request)),
    claim: (pendingId, userId) => store.pending.claim<LookupRequest, Quote>(pendingId, userId, holder),
    cancel: (pendingId, userId) => store.pending.cancel<LookupRequest, Quote>(pendingId, userId),
    withdraw: (pendingId, userId) => store.pending.withdraw(pendingId, userId),

    run(pending, runOptions = {}) {
      return hold(runClaimed(pending, runOptions));
    },

    hold,
    charges,
    running: () => running.size,

    async drain(timeoutMs) {
      const count = running.size;
      if (count === 0) return { drained: true, running: 0 };
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const all = Promise.allSettled([...running]).then(() => true as const);
      const drained = await Promise.race([all, timeout]);
      clearTimeout(timer);
      return { drained, running: drained ? 0 : running.size };
    },
  };

  async function runClaimed(
    pending: Pending,
    runOptions: RunOptions,
  ): Promise<LookupOutcome & { shared?: boolean }> {
    const correlationId = runOptions.correlationId ?? currentCorrelationId() ?? randomUUID();
    // The ledger rows are written by the run's budgeted client (each under its charge id), whose
    // calls are fenced and written ahead (fence above).
    // A workflow step runs unattended: behind the people waiting on an answer (bulk priority).
    const callOptions: CallOptions = {
      priority: runOptions.step ? 'bulk' : 'interactive',
      correlationId,
    };
    let flight: Flight<LookupOutcome>;
    try {
      // Single flight: when the same question is being asked right now, its answer is shared, free.
      flight = await flights.run(requestKey(pending.request), () =>
        executeLookup(
          budgetedClient(pending, runOptions.source ?? 'interactive', runOptions.step),
          pending.request,
          callOptions,
        ),
      );
    } catch (error) {
      await store.pending
        .finish(pending.id, 'failed', runOptions.failureJson?.(error) ?? null)
        .catch(() => undefined);
      // A follower was charged nothing: its answer must not state the leader's charge.
      if (error instanceof SharedFlightFailure) throw withoutCharge(error.error);
      logger?.warn(
        { err: error, pendingId: pending.id, kind: pending.request.kind, correlationId },
        'lookup failed',
      );
      throw error;
    }
    const outcome = flight.value;
    if (outcome.kind === 'orders')
      await orderCounts
        .set(outcome.ownerId, outcome.filters, outcome.page.totalElements)
        .catch((err: unknown) => logger?.warn({ err }, 'order count not kept'));
    // The answer is given even if the store cannot mark the lookup done now: the row stays
    // 'running', which start-up reports as interrupted rather than re-running it.
    await store.pending
      .finish(pending.id, 'done', runOptions.resultJson?.(outcome) ?? null)
      .catch((err: unknown) => logger?.warn({ err, pendingId: pending.id }, 'lookup not marked done'));
    if (flight.shared)
      return {
        ...outcome,
        chargedPoints: 0,
        ...('quotaCalls' in outcome ? { quotaCalls: 0 } : {}),
        shared: true,
      };
    await cache
      .set(pending.request, outcome)
      .catch((err: unknown) => logger?.warn({ err }, 'answer not cached'));
    return outcome;
  }
}
