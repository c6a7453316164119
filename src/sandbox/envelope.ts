/**
 * What a handler answers, and how it is written on the wire. Every answer is HTTP 200 JSON with
 * the envelope of spec §2.1 ({code, msg, msec, time, data}); the one exception is platiteminfo,
 * whose sample puts the item fields at the top level beside code/msg/msec/time (spec §2.1 note).
 */

export type Reply =
  | { code: number; msg: string; data: unknown }
  | { code: number; msg: string; topLevel: Record<string, unknown> };

/** Default msg per code, as worded in spec §7 (and notes.md for the codes seen in the wild). */
export const CODE_MESSAGES: Readonly<Record<number, string>> = {
  0: 'success',
  100: 'Request parameter error',
  101: 'Request timed out, retry',
  103: 'Messaging account does not exist',
  200: 'System error, contact support',
  202: 'System error, retry later',
  203: 'The interface is not supported at present',
  // spec §7 gives 204 two meanings; a fault defaults to the permission one, the account
  // running dry answers NOT_ENOUGH_CALLS (notes.md: tell them apart by msg).
  204: 'No permission on this interface',
  302: 'Shop not authorized',
  303: 'The shop has not subscribed to the app',
  401: 'Credential invalid',
  404: 'Request path or method wrong',
  501: 'Order does not exist',
  614: 'Order does not exist',
};

export const NOT_ENOUGH_CALLS = 'Not enough calls left';
/** The item operations' not-found answer (code 100; spec §4.2 does not show it). */
export const ITEM_NOT_FOUND = '商品不存在 (item does not exist)';

export function messageFor(code: number): string {
  return CODE_MESSAGES[code] ?? `Error ${code}`;
}

export function ok(data: Record<string, unknown>, msg = CODE_MESSAGES[0] ?? 'success'): Reply {
  return { code: 0, msg, data };
}

/** An error answer: not charged unless the handler adds withholding_money itself. */
export function fail(code: number, msg: string = messageFor(code), data: unknown = {}): Reply {
  return { code, msg, data };
}

/** code 100 with the reason after the spec's wording, so a developer sees what was wrong. */
export function paramError(reason: string): Reply {
  return fail(100, `${messageFor(100)}: ${reason}`);
}

/** Serializes a reply with the envelope's msec (execution time, small int) and time (13-digit ms). */
export function serializeReply(reply: Reply, msec: number, time: number): string {
  const head = { code: reply.code, msg: reply.msg, msec, time };
  return JSON.stringify('topLevel' in reply ? { ...head, ...reply.topLevel } : { ...head, data: reply.data });
}
