/**
 * LookupOutcome ⇄ JSON text, exactly: what single flight across replicas hands a follower in
 * another process must be what the leader got. Plain JSON loses two things an outcome holds, so
 * they are restored by their place in the type (never by guessing from a value's look, which
 * would turn an API text that reads like a date into a Date):
 * - Dates: an order's lastShipTime / confirmTime and the orders filters' startTime / endTime;
 * - PlatErrors: the failed batches of a waybill lookup (plat/error-codec.ts).
 * A failure of the whole lookup is encoded with `errorToJson` / `errorFromJson`.
 */
import { platErrorFromJson, platErrorToJson } from '../plat/error-codec.js';
import { isPlatError, type PlatError } from '../plat/errors.js';
import type { Order } from '../plat/types.js';
import type { FlightCodec } from './single-flight.js';
import type { LookupOutcome, OrderFilters } from './types.js';

/** Bumped when the encoding changes: replicas of two versions then never read each other's records. */
const VERSION = 1;

/** What a follower is told when the leader failed with something that is not a PlatError. */
export const FOREIGN_FAILURE = 'the identical lookup failed in another platdesk process';

type Failed = { waybillCodes: string[]; error: PlatError };

const date = (value: unknown): Date => {
  if (typeof value !== 'string') throw new TypeError('a date that is not ISO text');
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new TypeError(`not a date: ${value}`);
  return d;
};
const nullableDate = (value: unknown): Date | null => (value === null ? null : date(value));

function reviveFilters(filters: OrderFilters): OrderFilters {
  const out: OrderFilters = { ...filters };
  if (filters.startTime !== undefined) out.startTime = date(filters.startTime);
  if (filters.endTime !== undefined) out.endTime = date(filters.endTime);
  return out;
}

const reviveOrder = (order: Order): Order => ({
  ...order,
  lastShipTime: nullableDate(order.lastShipTime),
  confirmTime: nullableDate(order.confirmTime),
});

export function encodeOutcome(outcome: LookupOutcome): string {
  const body =
    outcome.kind === 'waybill-print' || outcome.kind === 'waybill-info'
      ? {
          ...outcome,
          failedBatches: outcome.failedBatches.map((f) => ({ ...f, error: platErrorToJson(f.error) })),
        }
      : outcome;
  return JSON.stringify({ v: VERSION, outcome: body });
}

export function decodeOutcome(text: string): LookupOutcome {
  const parsed = JSON.parse(text) as { v?: unknown; outcome?: LookupOutcome };
  if (parsed.v !== VERSION || typeof parsed.outcome !== 'object' || parsed.outcome === null)
    throw new TypeError(`not a lookup outcome record of version ${VERSION}`);
  const outcome = parsed.outcome;
  switch (outcome.kind) {
    case 'orders':
      return {
        ...outcome,
        filters: reviveFilters(outcome.filters),
        page: { ...outcome.page, orders: outcome.page.orders.map(reviveOrder) },
      };
    case 'waybill-print':
    case 'waybill-info':
      return {
        ...outcome,
        failedBatches: outcome.failedBatches.map(
          (f): Failed => ({ ...f, error: platErrorFromJson(f.error as unknown) }),
        ),
      };
    default:
      return outcome;
  }
}

export function encodeFailure(error: unknown): string {
  return JSON.stringify({ v: VERSION, error: isPlatError(error) ? platErrorToJson(error) : null });
}

/** The PlatError the leader failed with; any other failure comes back as a plain Error. */
export function decodeFailure(text: string): Error {
  const parsed = JSON.parse(text) as { v?: unknown; error?: unknown };
  if (parsed.v !== VERSION) throw new TypeError(`not a failure record of version ${VERSION}`);
  return parsed.error === null || parsed.error === undefined
    ? new Error(FOREIGN_FAILURE)
    : platErrorFromJson(parsed.error);
}

export const lookupOutcomeCodec: FlightCodec<LookupOutcome> = {
  encode: encodeOutcome,
  decode: decodeOutcome,
  encodeError: encodeFailure,
  decodeError: decodeFailure,
};

/**
 * The leader's failure as a follower's answer: a copy (the leader's own object is left as it is)
 * that states no charge, since the follower made no call; anything but a PlatError is kept.
 */
export function withoutCharge(error: unknown): unknown {
  if (!isPlatError(error)) return error;
  const copy = platErrorFromJson(platErrorToJson(error));
  copy.setAttemptTotals({ chargePoints: 0, quotaCalls: 0, attempts: 1 });
  return copy;
}
