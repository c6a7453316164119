/**
 * The plat client: one typed function per operation (spec §1). Each call validates its input
 * (invalid input costs nothing), waits for the shared limiter, sends through the one HTTP path,
 * reports every call that reached the service (the ledger), maps error codes to typed errors,
 * and retries 101/202 as new limiter jobs.
 */
import type { Logger } from 'pino';
import { errorForCode, NO_ANSWER_CODE, takesQuotaCall } from './codes.js';
import {
  isPlatApiError,
  isPlatError,
  PlatAbortedError,
  type PlatErrorCode,
  PlatInputError,
  PlatSchemaError,
} from './errors.js';
import type { PlatHttp, RequestParams } from './http.js';
import {
  type ItemInput,
  itemInput,
  type OrdersInput,
  ordersFilterIssues,
  ordersInput,
  type ShopIdInput,
  type ShopInfoInput,
  shopIdInput,
  shopInfoInput,
  validate,
  type WaybillInfoInput,
  type WaybillPrintInput,
  waybillInfoInput,
  waybillPrintInput,
} from './inputs.js';
import type { Limiter, Priority, QueueTicket } from './limiter.js';
import { OPERATIONS, type Operation } from './operations.js';
import {
  chargeIn,
  envelopeSchema,
  issueLines,
  itemPricesSchema,
  itemSchema,
  ordersPageSchema,
  shopIdFrom,
  shopInfoSchema,
  waybillInfoDataSchema,
  waybillPrintDataSchema,
} from './schemas.js';
import type {
  ChargeEvent,
  ChargeListener,
  Item,
  ItemPrices,
  OrdersPage,
  PlatResult,
  ShopIdLookup,
  ShopInfo,
  WaybillInfoRecord,
  WaybillPrintRecord,
} from './types.js';

export interface RetryPolicy {
  /** Retries after the first attempt, for codes 101 and 202 only (spec §7). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Injectable so tests run in milliseconds. */
  sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 4_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The longest a call can take from its first attempt's start to its last attempt's end: every
 * attempt up to its deadline, and the longest backoff before each retry (delays are jittered up
 * to 1.25×). A claim is marked interrupted only once this has passed after its lease ran out
 * (lookups/interrupted.ts), so a cut-off holder's call in flight is over by then.
 */
export function longestCallMs(deadlineMs: number, retry: Partial<RetryPolicy> = {}): number {
  const policy = { ...DEFAULT_RETRY, ...retry };
  return (policy.maxRetries + 1) * deadlineMs + policy.maxRetries * policy.maxDelayMs * 1.25;
}

export interface PlatClientOptions {
  http: PlatHttp;
  limiter: Limiter;
  /** Edition (vvtype) per operation; the spec's default where not set. */
  editions?: Partial<Record<Operation, number>>;
  /**
   * Called for every call that reached the service, charged or not (a ledger row each): every
   * answer, with its withholding_money and item quota call, and every call sent whose answer never
   * came (NO_ANSWER_CODE).
   */
  onCharge?: ChargeListener;
  retry?: Partial<RetryPolicy>;
  logger?: Pick<Logger, 'debug' | 'warn'>;
  /** Called once per attempt that was sent (metrics): its outcome is 'ok' or the error's code. */
  onAttempt?: (info: AttemptInfo) => void;
}

export interface AttemptInfo {
  operation: Operation;
  outcome: 'ok' | PlatErrorCode;
  /** The envelope code when one was read. */
  apiCode: number | null;
  ms: number;
}

/**
 * A lease the caller must still hold for a call to start (a digest run's, DESIGN rule 8): its
 * signal withdraws the call while it waits in the limiter, and `check` is asked just before each
 * attempt is sent. A call already sent runs to its end (its answer, and its charge, still come).
 */
export interface CallFence {
  readonly signal: AbortSignal;
  /** Throws when no call may start now (the lease is lost, or its local deadline has passed). */
  check(): void;
}

export interface CallOptions {
  /** Interactive lookups go ahead of bulk work (digests). Default interactive. */
  priority?: Priority;
  /** Aborts the call while queued and in flight (shutdown). */
  signal?: AbortSignal;
  /** Stops the call before it is sent, never once sent. */
  fence?: CallFence;
  /** Carried from the Slack request into logs and charge events. */
  correlationId?: string;
  /**
   * The channel the call is made for, when the caller is not a confirmed lookup (a digest or an
   * alert check posting there): the caps of that channel apply to it (lookups/budgets.ts). The
   * client itself ignores it.
   */
  channelId?: string | null;
  /** Per-call charge listener (the ledger, with the user's context), besides the global one. */
  onCharge?: ChargeListener;
  onQueued?: (ticket: QueueTicket) => void;
  /**
   * Asked before each retry is sent (`retry`: 1 for the first): false ends the call with the
   * last attempt's error instead (a budget that cannot cover another charged attempt).
   */
  beforeRetry?: (retry: number) => Promise<boolean>;
  /**
   * Called once the attempt holds its limiter slot, just before it is sent (each retry too; the
   * limiter's `prepare`, so up to its lead before the slot opens): a rejection (a PlatError such
   * as PlatClaimLostError) stops it unsent. The holder of a
   * confirmed lookup re-checks its claim here (DESIGN rule 8); a leased run (digest, alert check)
   * writes the attempt's charge id ahead (digest/sent-calls.ts), so a call whose answer its
   * holder never read is still known. `attempt` is the attempt's number (0 first), as in its
   * ChargeEvent.
   */
  beforeSend?: (operation: Operation, attempt: number) => Promise<void>;
  /**
   * The attempt announced to beforeSend was not sent after all (the fence was down), or surely
   * never reached the service (no connection made): no ledger row will come for it.
   */
  notSent?: (attempt: number) => void;
  /**
   * The attempt's request was written to the connection: from now on it may reach the service
   * whatever happens to this process (the write ahead is marked sent: digest/sent-calls.ts).
   * Called synchronously from undici's write path: it must return at once and never throw.
   */
  sent?: (attempt: number) => void;
}

export interface PlatClient {
  /** platdybw: waybill print data, at most 20 waybills (spec §4.1). */
  waybillPrintData(
    input: WaybillPrintInput,
    options?: CallOptions,
  ): Promise<PlatResult<WaybillPrintRecord[]>>;
  /** platiteminfo: item details; charged one call of the quota even when the item does not exist. */
  itemInfo(input: ItemInput, options?: CallOptions): Promise<PlatResult<Item>>;
  /** platiteminfoprice: item prices. */
  itemPrices(input: ItemInput, options?: CallOptions): Promise<PlatResult<ItemPrices>>;
  /** get-shop-info: shop of an item link. */
  shopInfo(input: ShopInfoInput, options?: CallOptions): Promise<PlatResult<ShopInfo>>;
  /** get-shop-id: shop id of a messaging account; "shop does not exist" is `found: false`. */
  shopId(input: ShopIdInput, options?: CallOptions): Promise<PlatResult<ShopIdLookup>>;
  /** platdzmd: waybill information (spec §4.6). */
  waybillInfo(input: WaybillInfoInput, options?: CallOptions): Promise<PlatResult<WaybillInfoRecord[]>>;
  /** paging-orders: one page of sold orders (spec §4.7). */
  orders(input: OrdersInput, options?: CallOptions): Promise<PlatResult<OrdersPage>>;
  /** The edition this client sends for an operation (null: the operation has none). */
  editionFor(operation: Operation): number | null;
}

type Decoded<T> = { data: T; requestId?: string | null };

/** Failures raised before a request went out: they are no attempt. */
const NOT_SENT_CODES: ReadonlySet<PlatErrorCode> = new Set([
  'invalid_input',
  'busy',
  // Raised by the limiter only (Redis unreachable, a preparation that outlasted its slots).
  'unavailable',
  'aborted',
  'budget_exceeded',
  'claim_lost',
  'lock_lost',
  'out_of_service',
]);

/** What withdraws a queued call: the caller's signal and its fence's, either. */
function queueSignal(call: CallOptions): AbortSignal | undefined {
  if (call.signal && call.fence) return AbortSignal.any([call.signal, call.fence.signal]);
  return call.signal ?? call.fence?.signal;
}

export function createPlatClient(options: PlatClientOptions): PlatClient {
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const { http, limiter, logger } = options;

  function editionFor(operation: Operation): number | null {
    return options.editions?.[operation] ?? OPERATIONS[operation].defaultEdition;
  }

  function resolveEdition(operation: Operation, requested: number | undefined): number | null {
    const edition = requested ?? editionFor(operation);
    const allowed: Readonly<Record<number, string>> = OPERATIONS[operation].editions;
    if (edition !== null && !(edition in allowed))
      throw new PlatInputError(operation, [
        `edition ${edition} does not exist for ${operation} (allowed: ${Object.keys(allowed).join(', ')})`,
      ]);
    return edition;
  }

  /** One attempt: send, read the envelope, report the charge, map the code, decode. */
  async function attempt<T>(
    operation: Operation,
    edition: number | null,
    params: RequestParams | Record<string, unknown>,
    decode: (data: unknown, message: string) => Decoded<T>,
    call: CallOptions,
    attemptNo: number,
    /** Tells the limiter the answer's headers are in (its slot rests from then). */
    onAnswered: () => void,
  ): Promise<PlatResult<T>> {
    const started = performance.now();
    /** Every call that reached the service is reported, charged or not: one ledger row each. */
    const report = (code: number, points: number, quotaCalls: number, requestId: string | null) => {
      const event: ChargeEvent = {
        operation,
        edition,
        points,
        quotaCalls,
        code,
        requestId,
        correlationId: call.correlationId ?? null,
        attempt: attemptNo,
        at: new Date(),
      };
      options.onCharge?.(event);
      call.onCharge?.(event);
    };
    if (call.fence) {
      try {
        call.fence.check();
      } catch (error) {
        // Not sent: no attempt, no ledger row.
        call.notSent?.(attemptNo);
        throw new PlatAbortedError(`${operation} not sent: the caller's lease is lost`, {
          operation,
          cause: error,
        });
      }
    }
    let body: unknown;
    try {
      const { sent } = call;
      ({ body } = await http.send({
        operation,
        params,
        signal: call.signal,
        onAnswered,
        ...(sent
          ? {
              onSent: () => {
                try {
                  sent(attemptNo);
                } catch (error) {
                  // A mark not written leaves the call "may not have been sent": never a reason
                  // to abort a request already written.
                  logger?.warn({ err: error, operation }, 'sent mark failed');
                }
              },
            }
          : {}),
      }));
    } catch (error) {
      if (!(isPlatError(error) && error.reachedService)) call.notSent?.(attemptNo);
      // No readable answer (timeout, connection, not JSON): still one line, with the request's id.
      logger?.debug(
        {
          operation,
          edition,
          error: isPlatError(error) ? error.code : 'unknown',
          ms: Math.round(performance.now() - started),
          correlationId: call.correlationId,
        },
        'plat call',
      );
      if (isPlatError(error) && error.reachedService) {
        // Sent, but what it cost is unknown: a row with no points, and the item quota call it may
        // have taken (overstate the quota rather than lose a call).
        const quotaCalls = takesQuotaCall(operation, NO_ANSWER_CODE, '') ? 1 : 0;
        report(NO_ANSWER_CODE, 0, quotaCalls, null);
        error.quotaCalls = quotaCalls;
      }
      throw error;
    }
    const envelope = envelopeSchema.safeParse(body);
    if (!envelope.success) {
      const quotaCalls = takesQuotaCall(operation, NO_ANSWER_CODE, '') ? 1 : 0;
      report(NO_ANSWER_CODE, 0, quotaCalls, null);
      throw new PlatSchemaError(operation, issueLines(envelope.error), null, quotaCalls, false);
    }
    const { code, msg, msec, time } = envelope.data;
    // spec §4.2 sample: platiteminfo puts the item at the top level instead of in data.
    const data = envelope.data.data ?? (operation === 'platiteminfo' ? body : undefined);
    const chargePoints = chargeIn(data) ?? chargeIn(body) ?? firstOrderCharge(operation, data);
    // spec §8: item answers report no withholding_money; the charge is one call of the quota.
    const quotaCalls = takesQuotaCall(operation, code, msg) ? 1 : 0;
    logger?.debug(
      {
        operation,
        edition,
        code,
        ms: Math.round(performance.now() - started),
        chargePoints,
        quotaCalls,
        correlationId: call.correlationId,
      },
      'plat call',
    );
    report(code, chargePoints ?? 0, quotaCalls, requestIdIn(data));
    if (code !== 0) throw errorForCode(operation, code, msg, data, chargePoints, quotaCalls);
    let decoded: Decoded<T>;
    try {
      decoded = decode(data, msg);
    } catch (error) {
      const issues =
        error instanceof Error && 'issues' in error ? issueLines(error as never) : [String(error)];
      throw new PlatSchemaError(operation, issues, chargePoints, quotaCalls);
    }
    return {
      operation,
      edition,
      data: decoded.data,
      chargePoints,
      pricePoints: chargePoints,
      quotaCalls,
      attempts: 1,
      message: msg,
      requestId: decoded.requestId ?? requestIdIn(data),
      serverMs: msec,
      serverTime: time,
    };
  }

  /** Reports each sent attempt's outcome and duration to onAttempt. */
  async function observed<T>(operation: Operation, run: () => Promise<T>): Promise<T> {
    if (!options.onAttempt) return run();
    const started = performance.now();
    const report = (outcome: AttemptInfo['outcome'], apiCode: number | null) =>
      options.onAttempt?.({ operation, outcome, apiCode, ms: performance.now() - started });
    try {
      const result = await run();
      report('ok', 0);
      return result;
    } catch (error) {
      report(isPlatError(error) ? error.code : 'bad_response', isPlatApiError(error) ? error.apiCode : null);
      throw error;
    }
  }

  /**
   * Through the limiter; 101/202 are retried with backoff as new limiter jobs (notes.md). The
   * result (or the error) carries what every attempt cost together, so the answer states it all.
   */
  async function call<T>(
    operation: Operation,
    edition: number | null,
    params: RequestParams | Record<string, unknown>,
    decode: (data: unknown, message: string) => Decoded<T>,
    call: CallOptions = {},
  ): Promise<PlatResult<T>> {
    let points: number | null = null;
    let quotaCalls = 0;
    /** What the newest attempt that was sent showed (for a retry then stopped unsent). */
    let lastSent: { reachedService: boolean; answered: boolean } | undefined;
    const add = (charged: { chargePoints: number | null; quotaCalls: number }) => {
      if (charged.chargePoints !== null) points = (points ?? 0) + charged.chargePoints;
      quotaCalls += charged.quotaCalls;
    };
    const withdraw = queueSignal(call);
    // Before any slot is asked for: a grant's send must follow it within the limiter's bound.
    await http.warm?.();
    for (let n = 0; ; n++) {
      /** This attempt was announced to beforeSend (its charge id may be written ahead). */
      let announced = false;
      let withdrawn = false;
      const attemptCall: CallOptions = {
        ...call,
        // Once per attempt: the fence and the limiter may both find it unsent.
        notSent: (attemptNo) => {
          if (withdrawn) return;
          withdrawn = true;
          call.notSent?.(attemptNo);
        },
      };
      try {
        const { beforeSend } = call;
        const result = await limiter.schedule(
          (progress) =>
            observed(operation, () =>
              attempt(operation, edition, params, decode, attemptCall, n, progress.answered),
            ),
          {
            priority: call.priority ?? 'interactive',
            operation,
            ...(withdraw ? { signal: withdraw } : {}),
            ...(call.onQueued ? { onQueued: call.onQueued } : {}),
            // Runs while the slot's last moments of rest pass (limiter.ts), not after them; again
            // on a later grant when its preparation outlasted one.
            ...(beforeSend
              ? {
                  prepare: () => {
                    announced = true;
                    return beforeSend(operation, n);
                  },
                }
              : {}),
          },
        );
        add(result);
        return { ...result, chargePoints: points, quotaCalls, attempts: n + 1 };
      } catch (error) {
        if (!isPlatError(error)) throw error;
        // Nothing sent (busy, aborted in the queue) is no attempt, but earlier attempts still count.
        const notSent = NOT_SENT_CODES.has(error.code);
        // Announced, then refused before its send (its preparation outlasted its slots, the
        // limiter stopped, the lock was lost): what was written ahead for it is withdrawn.
        if (notSent && announced) attemptCall.notSent?.(n);
        const sent = n + (notSent ? 0 : 1);
        add(error);
        if (!notSent) lastSent = { reachedService: error.reachedService, answered: error.answered };
        if (
          !error.retryable ||
          n >= retry.maxRetries ||
          call.signal?.aborted ||
          call.fence?.signal.aborted ||
          (call.beforeRetry && !(await call.beforeRetry(n + 1)))
        ) {
          error.setAttemptTotals({
            chargePoints: points,
            quotaCalls,
            attempts: sent,
            ...(notSent && lastSent ? { lastSent } : {}),
          });
          throw error;
        }
        const delay = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** n) * (0.75 + Math.random() * 0.5);
        logger?.warn(
          { operation, code: error.code, retry: n + 1, delayMs: Math.round(delay) },
          'plat call retried',
        );
        await retry.sleep(delay);
      }
    }
  }

  return {
    editionFor,

    async waybillPrintData(input, opts) {
      const v = validate('platdybw', waybillPrintInput, input);
      const edition = resolveEdition('platdybw', v.edition);
      const params = {
        shop_id: v.shopId,
        vvtype: String(edition), // spec §4.1: the example sends vvtype as text
        // notes.md: behaviour without param_list is undocumented, so it is always sent.
        param_list: v.waybills.map((w, i) => ({
          waybill_code: w.waybillCode,
          object_id: w.objectId ?? String(i + 1),
          ...(w.cpCode ? { cp_code: w.cpCode } : {}),
        })),
      };
      return call(
        'platdybw',
        edition,
        params,
        (data) => {
          const parsed = waybillPrintDataSchema.parse(data);
          return { data: parsed.records, requestId: parsed.requestId };
        },
        opts,
      );
    },

    async itemInfo(input, opts) {
      const v = validate('platiteminfo', itemInput, input);
      return call(
        'platiteminfo',
        null,
        { itemId: v.itemId },
        (data) => ({
          data: { itemId: v.itemId, ...itemSchema.parse(data) },
        }),
        opts,
      );
    },

    async itemPrices(input, opts) {
      const v = validate('platiteminfoprice', itemInput, input);
      return call(
        'platiteminfoprice',
        null,
        { itemId: v.itemId },
        (data) => ({
          data: { itemId: v.itemId, ...itemPricesSchema.parse(data) },
        }),
        opts,
      );
    },

    async shopInfo(input, opts) {
      const v = validate('get-shop-info', shopInfoInput, input);
      const edition = resolveEdition('get-shop-info', v.edition);
      const params = { url: v.url, type: v.type, vvtype: edition ?? undefined };
      return call('get-shop-info', edition, params, (data) => ({ data: shopInfoSchema.parse(data) }), opts);
    },

    async shopId(input, opts) {
      const v = validate('get-shop-id', shopIdInput, input);
      return call(
        'get-shop-id',
        null,
        { wwid: v.wwid },
        (data, message) => {
          const result = shopIdFrom(data, v.wwid, message);
          if (!result) throw new Error('data is not an object with shopid');
          return { data: result };
        },
        opts,
      );
    },

    async waybillInfo(input, opts) {
      const v = validate('platdzmd', waybillInfoInput, input);
      const edition = resolveEdition('platdzmd', v.edition);
      const params = {
        owner_id: v.ownerId,
        vvtype: edition ?? undefined,
        param_list: v.waybills.map((w, i) => ({
          object_id: w.objectId ?? String(i + 1),
          waybill_code: w.waybillCode,
          wp_code: w.wpCode,
        })),
      };
      return call('platdzmd', edition, params, (data) => ({ data: waybillInfoDataSchema.parse(data) }), opts);
    },

    async orders(input, opts) {
      const v = validate('paging-orders', ordersInput, input);
      const edition = resolveEdition('paging-orders', v.edition) ?? 1;
      const filterIssues = ordersFilterIssues(v, edition);
      if (filterIssues.length > 0) throw new PlatInputError('paging-orders', filterIssues);
      const params: RequestParams = {
        owner_id: v.ownerId,
        vvtype: edition,
        page: v.page, // spec §4.7: the first page is 0
        pageSize: v.pageSize,
        start_time: v.startTime ? shanghaiDateTime(v.startTime) : undefined,
        end_time: v.endTime ? shanghaiDateTime(v.endTime) : undefined,
        remark: v.remark,
        remarkTag: v.remarkTag,
        remarkTagName: v.remarkTagName,
      };
      return call(
        'paging-orders',
        edition,
        params,
        (data) => {
          const page = ordersPageSchema.parse(data);
          const pageSize = page.pageSize > 0 ? page.pageSize : v.pageSize;
          return {
            data: {
              ...page,
              pageSize,
              totalPages: Math.max(1, Math.ceil(page.totalElements / pageSize)),
            },
          };
        },
        opts,
      );
    },
  };
}

/**
 * The time filters' format is not documented (spec §4.7 says "string"). The platform behind
 * paging-orders is in China, so we send "YYYY-MM-DD HH:mm:ss" in China Standard Time (UTC+8,
 * no daylight saving); the sandbox also accepts 10- and 13-digit timestamps.
 */
export function shanghaiDateTime(date: Date): string {
  return new Date(date.getTime() + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

function requestIdIn(data: unknown): string | null {
  if (data && typeof data === 'object' && 'request_id' in data) {
    const id = (data as { request_id: unknown }).request_id;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
  }
  return null;
}

/**
 * spec §2.8 puts withholding_money on each order; when data has none of its own, the page's
 * charge is the first order's (the orders of one page repeat the page's charge).
 */
function firstOrderCharge(operation: Operation, data: unknown): number | null {
  if (operation !== 'paging-orders' || !data || typeof data !== 'object') return null;
  const content = (data as { content?: unknown }).content;
  return Array.isArray(content) && content.length > 0 ? chargeIn(content[0]) : null;
}
