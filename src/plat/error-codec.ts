/**
 * PlatError ⇄ JSON, for an error that must cross a process boundary (single flight across
 * replicas hands the leader's failure to followers in other processes): the same class, `code`,
 * operation, charge figures and the fields the renderers read come back. The `cause` is not kept
 * (it may be any foreign object); the message is kept as it was (PlatError messages are already
 * free of secrets, see `redact`).
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import {
  PlatAbortedError,
  PlatAccountNotFoundError,
  PlatBadResponseError,
  PlatBudgetError,
  PlatBusyError,
  PlatClaimLostError,
  PlatConnectionError,
  PlatCredentialError,
  type PlatError,
  type PlatErrorCode,
  type PlatErrorOptions,
  PlatInputError,
  PlatItemNotFoundError,
  PlatLockLostError,
  PlatNoAccountError,
  PlatNoPermissionError,
  PlatOutOfServiceError,
  PlatParameterError,
  PlatQuotaExhaustedError,
  PlatRetryLaterError,
  PlatSchemaError,
  PlatShopNotSubscribedError,
  PlatShopUnauthorizedError,
  PlatSystemError,
  PlatTimeoutError,
  PlatUnavailableError,
  PlatUnknownCodeError,
  PlatUnsupportedError,
  PlatUpstreamTimeoutError,
  PlatWrongPathError,
} from './errors.js';
import { OPERATIONS, type Operation } from './operations.js';

const operationSchema = lazySchema(() => z.enum(Object.keys(OPERATIONS) as [Operation, ...Operation[]]));

const platErrorJsonSchema = lazySchema(() =>
  z.object({
    code: z.string(),
    message: z.string(),
    operation: operationSchema.nullable(),
    chargePoints: z.number().nullable(),
    quotaCalls: z.number(),
    attempts: z.number(),
    reachedService: z.boolean(),
    answered: z.boolean(),
    apiCode: z.number().optional(),
    apiMessage: z.string().optional(),
    authUrl: z.string().nullable().optional(),
    issues: z.array(z.string()).optional(),
    timeoutMs: z.number().optional(),
    status: z.number().optional(),
    estimatedWaitMs: z.number().optional(),
    cap: z
      .object({
        scope: z.enum(['user', 'workspace']),
        period: z.enum(['daily', 'monthly']),
        cap: z.number(),
        spent: z.number(),
      })
      .optional(),
    wantedPoints: z.number().optional(),
    reason: z.enum(['clock_skew', 'schema_newer']).optional(),
  }),
);

export type PlatErrorJson = z.infer<typeof platErrorJsonSchema>;

export function platErrorToJson(error: PlatError): PlatErrorJson {
  const e = error as PlatError & Partial<Record<string, unknown>>;
  const pick = <K extends keyof PlatErrorJson>(key: K): Partial<PlatErrorJson> =>
    e[key] === undefined ? {} : { [key]: e[key] };
  return {
    code: error.code,
    message: error.message,
    operation: error.operation,
    chargePoints: error.chargePoints,
    quotaCalls: error.quotaCalls,
    attempts: error.attempts,
    reachedService: error.reachedService,
    answered: error.answered,
    ...pick('apiCode'),
    ...pick('apiMessage'),
    ...pick('authUrl'),
    ...pick('issues'),
    ...pick('timeoutMs'),
    ...pick('status'),
    ...pick('estimatedWaitMs'),
    ...pick('cap'),
    ...pick('wantedPoints'),
    ...pick('reason'),
  };
}

type Rebuild = (j: PlatErrorJson, options: PlatErrorOptions) => PlatError;

/** The operation an error class requires: every error of these kinds was raised for one. */
function operationOf(j: PlatErrorJson): Operation {
  if (j.operation === null) throw new TypeError(`a ${j.code} error without its operation`);
  return j.operation;
}

const api =
  (Class: new (apiCode: number, apiMessage: string, options: PlatErrorOptions) => PlatError): Rebuild =>
  (j, o) =>
    new Class(j.apiCode ?? 0, j.apiMessage ?? '', o);

/** One entry per code: a code added to PlatErrorCode without one here does not compile. */
const REBUILD: Record<PlatErrorCode, Rebuild> = {
  invalid_input: (j) => new PlatInputError(j.operation, j.issues ?? []),
  parameter_error: api(PlatParameterError),
  item_not_found: api(PlatItemNotFoundError),
  upstream_timeout: api(PlatUpstreamTimeoutError),
  account_not_found: api(PlatAccountNotFoundError),
  system_error: api(PlatSystemError),
  retry_later: api(PlatRetryLaterError),
  unsupported: api(PlatUnsupportedError),
  no_permission: api(PlatNoPermissionError),
  quota_exhausted: api(PlatQuotaExhaustedError),
  shop_unauthorized: (j, o) =>
    new PlatShopUnauthorizedError(j.apiCode ?? 0, j.apiMessage ?? '', j.authUrl ?? null, o),
  shop_not_subscribed: api(PlatShopNotSubscribedError),
  credential_invalid: api(PlatCredentialError),
  wrong_path: api(PlatWrongPathError),
  unknown_code: api(PlatUnknownCodeError),
  timeout: (j) => new PlatTimeoutError(operationOf(j), j.timeoutMs ?? 0, undefined, j.reachedService),
  connection_failed: (j, o) => new PlatConnectionError(j.message, o),
  bad_response: (j) => new PlatBadResponseError(operationOf(j), j.status ?? 0, ''),
  schema_mismatch: (j) =>
    new PlatSchemaError(operationOf(j), j.issues ?? [], j.chargePoints, j.quotaCalls, j.answered),
  busy: (j) => new PlatBusyError(j.operation, j.estimatedWaitMs ?? 0),
  unavailable: (j, o) => new PlatUnavailableError(j.message, o),
  budget_exceeded: (j) =>
    new PlatBudgetError(
      j.operation,
      j.cap ?? { scope: 'user', period: 'daily', cap: 0, spent: 0 },
      j.wantedPoints ?? 0,
    ),
  aborted: (j, o) => new PlatAbortedError(j.message, o),
  claim_lost: (j, o) => new PlatClaimLostError(j.message, o),
  lock_lost: (j, o) => new PlatLockLostError(j.message, o),
  out_of_service: (j, o) => new PlatOutOfServiceError(j.message, j.reason ?? 'clock_skew', o),
  no_plat_account: (j) => new PlatNoAccountError(j.operation),
};

/** Every PlatError code (the table above holds one of each). */
export const PLAT_ERROR_CODES = Object.keys(REBUILD) as PlatErrorCode[];

function isPlatErrorCode(code: string): code is PlatErrorCode {
  return Object.hasOwn(REBUILD, code);
}

/** The error platErrorToJson described; throws a TypeError on anything else. */
export function platErrorFromJson(json: unknown): PlatError {
  const j = platErrorJsonSchema.parse(json);
  if (!isPlatErrorCode(j.code)) throw new TypeError(`unknown plat error code ${j.code}`);
  const options: PlatErrorOptions = {
    operation: j.operation,
    chargePoints: j.chargePoints,
    quotaCalls: j.quotaCalls,
    reachedService: j.reachedService,
    answered: j.answered,
  };
  const error = REBUILD[j.code](j, options);
  // Constructors word their own message from their arguments; the original is the one to keep.
  error.message = j.message;
  error.setAttemptTotals({ chargePoints: j.chargePoints, quotaCalls: j.quotaCalls, attempts: j.attempts });
  return error;
}
