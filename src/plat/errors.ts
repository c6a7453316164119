/**
 * Every way a plat call can fail, one class per outcome, each with a stable `code`, the
 * operation and whether a retry may help. What a person reads (title and remedy) is looked up
 * by `code` in blocks/ (the catalog's `error.*`). Messages never hold the access token (see `redact`).
 */
import type { Operation } from './operations.js';

export type PlatErrorCode =
  | 'invalid_input'
  | 'parameter_error'
  | 'item_not_found'
  | 'upstream_timeout'
  | 'account_not_found'
  | 'system_error'
  | 'retry_later'
  | 'unsupported'
  | 'no_permission'
  | 'quota_exhausted'
  | 'shop_unauthorized'
  | 'shop_not_subscribed'
  | 'credential_invalid'
  | 'wrong_path'
  | 'unknown_code'
  | 'timeout'
  | 'connection_failed'
  | 'bad_response'
  | 'schema_mismatch'
  | 'busy'
  | 'unavailable'
  | 'budget_exceeded'
  | 'aborted'
  | 'claim_lost'
  | 'lock_lost'
  | 'out_of_service'
  | 'no_plat_account';

export interface PlatErrorOptions {
  operation: Operation | null;
  cause?: unknown;
  /** withholding_money reported on the error response, if any. */
  chargePoints?: number | null;
  /** Calls of the item quota the response took (0 or 1). */
  quotaCalls?: number;
  /**
   * The request reached the service (an answer came back, or it was sent and the answer never
   * came), so the service may have counted and charged it: the ledger gets a row for it.
   */
  reachedService?: boolean;
  /**
   * An envelope was read, so chargePoints and quotaCalls are what the service answered; when not
   * (a transport failure, a body that is not an envelope), quotaCalls is the call the item quota
   * may have taken, counted so the ledger overstates rather than loses it.
   */
  answered?: boolean;
}

/** What every attempt of one call cost together (retries included, DESIGN rule 2). */
export interface AttemptTotals {
  /** Sum of withholding_money over the attempts; null when none reported any. */
  chargePoints: number | null;
  quotaCalls: number;
  /** Attempts sent (1 + retries). */
  attempts: number;
  /**
   * A failure raised before its own attempt was sent (a retry stopped by the fence or the lock)
   * after earlier attempts were: what the last attempt sent showed (it reached the service, it
   * was answered), so the charge is not said to be nothing when it is not known.
   */
  lastSent?: { reachedService: boolean; answered: boolean };
}

export abstract class PlatError extends Error {
  abstract readonly code: PlatErrorCode;
  /** A retry of the same call may succeed (codes 101 and 202 only; spec §7). */
  readonly retryable: boolean = false;
  readonly operation: Operation | null;
  /**
   * What the call cost over all its attempts: first the failing response's own charge, then the
   * client's totals once it stops retrying (addAttemptTotals), so an answer states every charge.
   */
  chargePoints: number | null;
  quotaCalls: number;
  attempts = 1;
  /** See PlatErrorOptions.reachedService. */
  reachedService: boolean;
  /** See PlatErrorOptions.answered. */
  answered: boolean;

  constructor(message: string, options: PlatErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.operation = options.operation;
    this.chargePoints = options.chargePoints ?? null;
    this.quotaCalls = options.quotaCalls ?? 0;
    this.reachedService = options.reachedService ?? false;
    this.answered = options.answered ?? false;
  }

  /** Called by the client once, when the last attempt failed: the totals over every attempt. */
  setAttemptTotals(totals: AttemptTotals): void {
    this.chargePoints = totals.chargePoints;
    this.quotaCalls = totals.quotaCalls;
    this.attempts = totals.attempts;
    if (totals.lastSent) {
      this.reachedService = totals.lastSent.reachedService;
      this.answered = totals.lastSent.answered;
    }
  }
}

/** Input rejected before anything was sent: it cost nothing. */
export class PlatInputError extends PlatError {
  readonly code = 'invalid_input';
  readonly issues: string[];
  constructor(operation: Operation | null, issues: string[]) {
    super(`Invalid input for ${operation ?? 'plat call'}: ${issues.join('; ')}`, { operation });
    this.issues = issues;
  }
}

// ---- errors reported by the API in the envelope (spec §7) ---------------------------------

/** An envelope whose code is not 0. `apiCode` and `apiMessage` are kept as received. */
export abstract class PlatApiError extends PlatError {
  readonly apiCode: number;
  readonly apiMessage: string;
  constructor(apiCode: number, apiMessage: string, options: PlatErrorOptions) {
    super(`${options.operation ?? 'plat'} answered code ${apiCode}: ${apiMessage}`, {
      ...options,
      reachedService: true,
      answered: true,
    });
    this.apiCode = apiCode;
    this.apiMessage = apiMessage;
  }
}

export class PlatParameterError extends PlatApiError {
  readonly code = 'parameter_error';
}
/**
 * Code 100 with the service's "item does not exist" on an item operation: an answer, not a
 * parameter error, and it took one call of the item quota (spec §4.2, §4.3, §8).
 */
export class PlatItemNotFoundError extends PlatApiError {
  readonly code = 'item_not_found';
}
export class PlatUpstreamTimeoutError extends PlatApiError {
  readonly code = 'upstream_timeout';
  override readonly retryable = true;
}
export class PlatAccountNotFoundError extends PlatApiError {
  readonly code = 'account_not_found';
}
export class PlatSystemError extends PlatApiError {
  readonly code = 'system_error';
}
export class PlatRetryLaterError extends PlatApiError {
  readonly code = 'retry_later';
  override readonly retryable = true;
}
export class PlatUnsupportedError extends PlatApiError {
  readonly code = 'unsupported';
}
export class PlatNoPermissionError extends PlatApiError {
  readonly code = 'no_permission';
}
export class PlatQuotaExhaustedError extends PlatApiError {
  readonly code = 'quota_exhausted';
}
export class PlatShopUnauthorizedError extends PlatApiError {
  readonly code = 'shop_unauthorized';
  /** The authorization link returned with code 302, when there is one. */
  readonly authUrl: string | null;
  constructor(apiCode: number, apiMessage: string, authUrl: string | null, options: PlatErrorOptions) {
    super(apiCode, apiMessage, options);
    this.authUrl = authUrl;
  }
}
export class PlatShopNotSubscribedError extends PlatApiError {
  readonly code = 'shop_not_subscribed';
}
export class PlatCredentialError extends PlatApiError {
  readonly code = 'credential_invalid';
}
export class PlatWrongPathError extends PlatApiError {
  readonly code = 'wrong_path';
}
export class PlatUnknownCodeError extends PlatApiError {
  readonly code = 'unknown_code';
}

// ---- transport and local failures ---------------------------------------------------------

export class PlatTimeoutError extends PlatError {
  readonly code = 'timeout';
  readonly timeoutMs: number;
  constructor(operation: Operation, timeoutMs: number, cause?: unknown, reachedService = true) {
    super(`${operation} did not answer within ${timeoutMs} ms`, { operation, cause, reachedService });
    this.timeoutMs = timeoutMs;
  }
}
export class PlatConnectionError extends PlatError {
  readonly code = 'connection_failed';
}
/** HTTP answered, but not with JSON. */
export class PlatBadResponseError extends PlatError {
  readonly code = 'bad_response';
  readonly status: number;
  constructor(operation: Operation, status: number, detail: string, cause?: unknown) {
    super(`${operation} answered HTTP ${status} with a body that is not JSON: ${detail}`, {
      operation,
      cause,
      reachedService: true,
    });
    this.status = status;
  }
}
/** JSON that does not match what the operation returns (beyond the documented quirks). */
export class PlatSchemaError extends PlatError {
  readonly code = 'schema_mismatch';
  readonly issues: string[];
  /** `answered`: false when the body was not even an envelope (see PlatErrorOptions.answered). */
  constructor(
    operation: Operation,
    issues: string[],
    chargePoints: number | null,
    quotaCalls = 0,
    answered = true,
  ) {
    super(`${operation} answered in an unexpected shape: ${issues.join('; ')}`, {
      operation,
      chargePoints,
      quotaCalls,
      reachedService: true,
      answered,
    });
    this.issues = issues;
  }
}
/** The shared limiter's queue is full: refused at once, nothing sent. */
export class PlatBusyError extends PlatError {
  readonly code = 'busy';
  readonly estimatedWaitMs: number;
  constructor(operation: Operation | null, estimatedWaitMs: number) {
    super(`The plat call queue is full (about ${Math.ceil(estimatedWaitMs / 1000)} s of work waiting)`, {
      operation,
    });
    this.estimatedWaitMs = estimatedWaitMs;
  }
}
/**
 * The shared rate limiter (Redis) cannot be reached, so no slot can be granted: nothing was sent.
 * Sending anyway could exceed the API's limit together with the other replicas.
 */
export class PlatUnavailableError extends PlatError {
  readonly code = 'unavailable';
}
/**
 * The workspace has no plat account (distributed mode: none connected by its admins and no
 * operator default): refused before anything is sent, so it cost nothing (issue 24).
 */
export class PlatNoAccountError extends PlatError {
  readonly code = 'no_plat_account';
  constructor(operation: Operation | null) {
    super('this workspace has no plat account', { operation });
  }
}

/**
 * A spending cap would be exceeded: refused before sending (raised by lookups/ through the
 * same error path as the plat call, so a batch reports it per batch like any other failure).
 */
export class PlatBudgetError extends PlatError {
  readonly code = 'budget_exceeded';
  /** The cap that would be exceeded, for the remedy's words. */
  readonly cap: BudgetCapFigure;
  /**
   * Points the call would have held against the caps (0 for an item call: it takes a quota call):
   * its price, or more when a larger charge was seen, or the ceiling when its price is not known.
   */
  readonly wantedPoints: number;
  /** What the call is quoted at per call (configured price or last charge seen); null: not known. */
  readonly quotedPoints: number | null;
  constructor(
    operation: Operation | null,
    cap: BudgetCapFigure,
    wantedPoints: number,
    quotedPoints: number | null = wantedPoints,
  ) {
    super(
      `${cap.scope} ${cap.period} cap: ${cap.spent} of ${cap.cap} points used; this call would hold ${wantedPoints} more`,
      { operation },
    );
    this.cap = cap;
    this.wantedPoints = wantedPoints;
    this.quotedPoints = quotedPoints;
  }
}

/** A cap as lookups/budgets.ts reports it (kept structural: plat/ knows nothing of lookups/). */
export interface BudgetCapFigure {
  scope: 'user' | 'workspace' | 'channel' | 'step';
  /** The channel of a channel cap. */
  channelId?: string;
  period: 'daily' | 'monthly';
  cap: number;
  spent: number;
}

export class PlatAbortedError extends PlatError {
  readonly code = 'aborted';
}
/**
 * Not sent: the caller's check just before the call said it may no longer call, because the
 * confirmed lookup's claim was lost (interrupted or taken over after its lease ran out) or could
 * not be confirmed (the store did not answer). DESIGN rule 8: a holder that lost its lease makes
 * no further call.
 */
export class PlatClaimLostError extends PlatError {
  readonly code = 'claim_lost';
}
/**
 * Not sent: this process does not hold its database lock now (store/sole-lock.ts), so another
 * process may be calling under the same rate limit; its limiter refuses until the lock is back.
 */
export class PlatLockLostError extends PlatError {
  readonly code = 'lock_lost';
}

/**
 * Why a replica takes no paid work while it runs (store/database-watch.ts): its clock is further
 * from its database's than the skew budget (DESIGN rule 9), or its database was migrated past
 * what its build knows by a step older builds cannot run beside.
 */
export type OutOfServiceReason = 'clock_skew' | 'schema_newer';

/** Not sent: this replica is out of service for paid work (OutOfServiceReason); another may answer. */
export class PlatOutOfServiceError extends PlatError {
  readonly code = 'out_of_service';
  readonly reason: OutOfServiceReason;
  constructor(message: string, reason: OutOfServiceReason, options: PlatErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

export function isPlatError(value: unknown): value is PlatError {
  return value instanceof PlatError;
}
export function isPlatApiError(value: unknown): value is PlatApiError {
  return value instanceof PlatApiError;
}

/** Replaces every occurrence of the secrets in a text, for error messages built from foreign text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}
