/**
 * Envelope codes (spec §7, notes.md "codes seen in the wild") → error classes.
 */
import {
  PlatAccountNotFoundError,
  type PlatApiError,
  PlatCredentialError,
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
import type { Operation } from './operations.js';

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

export function errorForCode(
  operation: Operation,
  code: number,
  msg: string,
  data: unknown,
  chargePoints: number | null,
): PlatApiError {
  const o = { operation, chargePoints };
  switch (code) {
    case 100:
      return new PlatParameterError(code, msg, o);
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
