/**
 * Envelope codes (spec §7, notes.md "codes seen in the wild") → error classes.
 */
import {
  PlatAccountNotFoundError,
  type PlatApiError,
  PlatCredentialError,
  PlatItemNotFoundError,
  PlatNoPermissionError,
  PlatParameterError,
  PlatQuotaExhaustedError,
  PlatRetryLaterError,
  PlatShopNotSubscribedError,
  PlatShopUnauthorizedError,
  PlatSystemError,
  PlatUnknownCodeError,
  PlatUnsupportedError,
  PlatUpstreamTimeoutError,
  PlatWrongPathError,
} from './errors.js';
import { OPERATIONS, type Operation } from './operations.js';

/**
 * spec §7 lists 204 twice: "no permission on this interface" and "not enough calls left".
 * They are told apart by msg (notes.md); the service's msg may be Chinese or English.
 */
const QUOTA_MSG = /not enough|insufficient|no calls? left|recharge|balance|次数不足|余额不足|不足|充值|欠费/i;

/** 302's authorization link: wherever it is, the first http(s) URL in data, else in msg. */
export function findAuthUrl(data: unknown, msg: string): string | null {
  const seen = new Set<unknown>();
  const walk = (v: unknown, depth: number): string | null => {
    if (typeof v === 'string') return /^https?:\/\/\S+$/i.test(v.trim()) ? v.trim() : null;
    if (!v || typeof v !== 'object' || depth > 4 || seen.has(v)) return null;
    seen.add(v);
    for (const child of Object.values(v)) {
      const found = walk(child, depth + 1);
      if (found) return found;
    }
    return null;
  };
  return walk(data, 0) ?? msg.match(/https?:\/\/[^\s"'<>]+/i)?.[0] ?? null;
}

/**
 * The ledger code of a call that reached the service but whose answer could not be read (a
 * timeout after sending, a cut connection, an HTTP error page): the service may have charged it,
 * so it is recorded, with no points (none were reported) and, for item operations, one quota call.
 */
export const NO_ANSWER_CODE = -1;

/** The service's msg for an item that does not exist (spec §4.2, §4.3 do not show it; seen in Chinese or English). */
const ITEM_NOT_FOUND_MSG = /不存在|does not exist|doesn't exist|not exist|not found|no such item/i;

/**
 * Codes by which the service refuses a call before querying anything, so no call of the item quota
 * is taken: no permission or no calls left (204), credential (401), path (404), interface not
 * supported (203). A parameter error (100) is one too, unless it says the item does not exist.
 */
const REFUSED_BEFORE_QUERY: ReadonlySet<number> = new Set([203, 204, 401, 404]);

/**
 * Whether an answer of an item operation took one call of the item quota. Item answers carry no
 * withholding_money (spec §2.4, §4.2, §4.3 samples); each query is one call "also when the item
 * does not exist" (§8), and every call is charged (§1 rule 3). The error table of the item
 * endpoints is not shown (§7), so any other code the service answered counts as a call: the
 * ledger may then overstate the quota, never understate it.
 */
export function takesQuotaCall(operation: Operation, code: number, msg: string): boolean {
  if (OPERATIONS[operation].charge !== 'quota') return false;
  if (code === 0) return true;
  if (code === 100) return ITEM_NOT_FOUND_MSG.test(msg);
  return !REFUSED_BEFORE_QUERY.has(code);
}

export function errorForCode(
  operation: Operation,
  code: number,
  msg: string,
  data: unknown,
  chargePoints: number | null,
  quotaCalls = 0,
): PlatApiError {
  const o = { operation, chargePoints, quotaCalls };
  switch (code) {
    case 100:
      return OPERATIONS[operation].charge === 'quota' && ITEM_NOT_FOUND_MSG.test(msg)
        ? new PlatItemNotFoundError(code, msg, o)
        : new PlatParameterError(code, msg, o);
    case 101:
      return new PlatUpstreamTimeoutError(code, msg, o);
    case 103:
      return new PlatAccountNotFoundError(code, msg, o);
    case 200:
      return new PlatSystemError(code, msg, o);
    case 202:
      return new PlatRetryLaterError(code, msg, o);
    case 203:
      return new PlatUnsupportedError(code, msg, o);
    case 204:
      return QUOTA_MSG.test(msg)
        ? new PlatQuotaExhaustedError(code, msg, o)
        : new PlatNoPermissionError(code, msg, o);
    case 302:
      return new PlatShopUnauthorizedError(code, msg, findAuthUrl(data, msg), o);
    case 303:
      return new PlatShopNotSubscribedError(code, msg, o);
    case 401:
      return new PlatCredentialError(code, msg, o);
    case 404:
      return new PlatWrongPathError(code, msg, o);
    default:
      return new PlatUnknownCodeError(code, msg, o);
  }
}
