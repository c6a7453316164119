/** Answers shared by several handlers. */
import { fail, type Reply } from '../envelope.js';
import { authUrlFor } from '../fixtures.js';
import { isRecord, parseJson } from '../request-body.js';
import type { OperationRequest } from './context.js';

/**
 * spec §4.6, §5 rule 3, §7: code 302, "authorize by scanning a code at the returned link".
 * The link is data.url. Not charged: only code-0 answers are (get-shop-id aside, §4.5).
 */
export function shopUnauthorized(shopOrOwnerId: string): Reply {
  return fail(302, 'Shop not authorized', { url: authUrlFor(shopOrOwnerId) });
}

/** The JSON object body of platdybw and platdzmd (spec §4: POST bodies are JSON), or null. */
export function jsonObjectBody(request: OperationRequest): Record<string, unknown> | null {
  const parsed = parseJson(request.body);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : null;
}

export const NOT_A_JSON_OBJECT = 'the body must be a JSON object';
