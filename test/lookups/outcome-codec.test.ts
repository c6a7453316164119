/**
 * The JSON codecs single flight across replicas relies on: every kind of lookup outcome, made by
 * the real client against the sandbox, comes back from its text exactly (Dates as Dates, a failed
 * batch's PlatError as the same class with the same figures); every PlatError code round-trips.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executeLookup } from '../../src/lookups/execute.js';
import {
  decodeFailure,
  decodeOutcome,
  encodeFailure,
  encodeOutcome,
  FOREIGN_FAILURE,
  withoutCharge,
} from '../../src/lookups/outcome-codec.js';
import type { LookupOutcome, LookupRequest } from '../../src/lookups/types.js';
import { PLAT_ERROR_CODES, platErrorFromJson, platErrorToJson } from '../../src/plat/error-codec.js';
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
} from '../../src/plat/errors.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';

const { items, links, shops, owners, wwids, waybills } = SANDBOX_FIXTURES;

let h: PlatHarness;
beforeAll(async () => {
  h = await startPlatHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
});

const run = (request: LookupRequest) => executeLookup(h.client, request, { priority: 'interactive' });

/** Equal field by field, and every PlatError of the same class with the same figures. */
function expectSame(decoded: LookupOutcome, original: LookupOutcome): void {
  expect(decoded).toStrictEqual(original);
  if ('failedBatches' in original && 'failedBatches' in decoded) {
    expect(decoded.failedBatches).toHaveLength(original.failedBatches.length);
    original.failedBatches.forEach((f, i) => {
      const e = decoded.failedBatches[i]?.error;
      expect(e?.constructor).toBe(f.error.constructor);
      expect(e && platErrorToJson(e)).toEqual(platErrorToJson(f.error));
    });
  }
}

describe('lookup outcomes round-trip through JSON exactly', () => {
  const manyWaybills = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      waybillCode: `SF${String(1234567890123 + i)}`,
      carrier: 'SF',
    }));

  it.each<[string, LookupRequest]>([
    ['item with prices', { kind: 'item', itemId: items.basic, withPrices: true }],
    ['item prices', { kind: 'item-prices', itemId: items.withVideo }],
    ['shop info', { kind: 'shop-info', url: links.firstMarketplace, shopType: '0' }],
    ['shop id, found', { kind: 'shop-id', wwid: wwids.known }],
    ['shop id, not found', { kind: 'shop-id', wwid: wwids.unknown }],
    [
      'waybill print',
      {
        kind: 'waybill-print',
        shopId: shops.clothing,
        waybills: [...waybills.ok, waybills.failing].map((w) => ({ waybillCode: w, carrier: null })),
      },
    ],
    ['waybill info', { kind: 'waybill-info', ownerId: owners.busy, waybills: manyWaybills(3) }],
    [
      'orders with date filters',
      {
        kind: 'orders',
        ownerId: owners.busy,
        page: 0,
        pageSize: 50,
        filters: {
          startTime: new Date(Date.now() - 23 * 3600_000),
          endTime: new Date(Date.now()),
          remarkTag: 1,
        },
      },
    ],
    ['orders without filters', { kind: 'orders', ownerId: owners.small, page: 0, pageSize: 20, filters: {} }],
  ])('%s', async (_name, request) => {
    const outcome = await run(request);
    if (outcome.kind === 'orders') {
      // The dates are really there to lose: orders with both times, filters with Dates.
      expect(outcome.page.orders.some((o) => o.confirmTime instanceof Date)).toBe(true);
    }
    expectSame(decodeOutcome(encodeOutcome(outcome)), outcome);
  });

  it('a waybill lookup with a batch that failed as a whole keeps its error class and figures', async () => {
    // 25 numbers: two batches; the first answers 302 (shop not authorized), the second succeeds.
    h.sandbox.setFaults([{ kind: 'code', code: 302, count: 1, operations: ['platdzmd'] }]);
    const outcome = await run({ kind: 'waybill-info', ownerId: owners.busy, waybills: manyWaybills(25) });
    if (outcome.kind !== 'waybill-info') throw new Error(outcome.kind);
    expect(outcome.failedBatches).toHaveLength(1);
    expect(outcome.failedBatches[0]?.error).toBeInstanceOf(PlatShopUnauthorizedError);
    const decoded = decodeOutcome(encodeOutcome(outcome));
    expectSame(decoded, outcome);
    if (decoded.kind !== 'waybill-info') throw new Error(decoded.kind);
    expect(decoded.failedBatches[0]?.error).toBeInstanceOf(PlatShopUnauthorizedError);
  });

  it('refuses a record of another version instead of guessing', () => {
    expect(() => decodeOutcome(JSON.stringify({ v: 99, outcome: {} }))).toThrow(/version/);
    expect(() => decodeFailure(JSON.stringify({ v: 99, error: null }))).toThrow(/version/);
  });
});

describe('PlatError ⇄ JSON', () => {
  const o = { operation: 'platdzmd' as const, chargePoints: 4, quotaCalls: 0 };
  const every: PlatError[] = [
    new PlatInputError('paging-orders', ['page size over 100']),
    new PlatParameterError(100, 'bad param', o),
    new PlatItemNotFoundError(100, 'item does not exist', { operation: 'platiteminfo', quotaCalls: 1 }),
    new PlatUpstreamTimeoutError(101, 'upstream timeout', o),
    new PlatAccountNotFoundError(201, 'no account', o),
    new PlatSystemError(500, 'system', o),
    new PlatRetryLaterError(202, 'later', o),
    new PlatUnsupportedError(203, 'unsupported', o),
    new PlatNoPermissionError(204, 'no permission', o),
    new PlatQuotaExhaustedError(204, 'quota', { operation: 'platiteminfo' }),
    new PlatShopUnauthorizedError(302, 'not authorized', 'https://auth.example/x?y=1&z=<2>', o),
    new PlatShopNotSubscribedError(303, 'not subscribed', o),
    new PlatCredentialError(401, 'token', o),
    new PlatWrongPathError(404, 'path', o),
    new PlatUnknownCodeError(777, 'what', o),
    new PlatTimeoutError('get-shop-info', 15_000, new Error('socket'), false),
    new PlatConnectionError('get-shop-id could not connect', {
      operation: 'get-shop-id',
      cause: new Error('x'),
    }),
    new PlatBadResponseError('platdybw', 502, '<html>'),
    new PlatSchemaError('paging-orders', ['orders: expected array'], 2, 0, false),
    new PlatBusyError('paging-orders', 4200),
    new PlatUnavailableError('not sent: Redis unreachable (ECONNREFUSED)', { operation: null }),
    new PlatBudgetError('get-shop-info', { scope: 'workspace', period: 'monthly', cap: 100, spent: 95 }, 10),
    new PlatAbortedError('cancelled', { operation: 'platdybw', reachedService: true }),
    new PlatClaimLostError('not sent: the claim was lost', { operation: 'get-shop-info' }),
    new PlatLockLostError('not sent: no database lock', { operation: 'paging-orders' }),
    new PlatOutOfServiceError('not sent: schema moved past this build', 'schema_newer', {
      operation: 'platdybw',
    }),
    new PlatNoAccountError('platiteminfo'),
  ];
  every[3]?.setAttemptTotals({ chargePoints: 9, quotaCalls: 0, attempts: 3 });

  it('covers every code', () => {
    expect(new Set(every.map((e) => e.code))).toEqual(new Set(PLAT_ERROR_CODES));
  });

  it.each(every.map((e) => [e.code, e] as const))('%s: same class, message and figures', (_code, error) => {
    const back = platErrorFromJson(JSON.parse(JSON.stringify(platErrorToJson(error))));
    expect(back.constructor).toBe(error.constructor);
    expect(back.message).toBe(error.message);
    expect(back.retryable).toBe(error.retryable);
    expect(platErrorToJson(back)).toEqual(platErrorToJson(error));
    // The failure record a follower in another process reads.
    const failure = decodeFailure(encodeFailure(error));
    expect(failure.constructor).toBe(error.constructor);
    expect(platErrorToJson(failure as PlatError)).toEqual(platErrorToJson(error));
  });

  it('anything but a PlatError is told as a failure elsewhere, without its message', () => {
    const failure = decodeFailure(encodeFailure(new TypeError('secret detail')));
    expect(failure.constructor).toBe(Error);
    expect(failure.message).toBe(FOREIGN_FAILURE);
  });

  it("a follower's copy of the leader's failure states no charge; the leader's is unchanged", () => {
    const leader = every[3] as PlatError;
    const copy = withoutCharge(leader) as PlatError;
    expect(copy).not.toBe(leader);
    expect(copy.constructor).toBe(leader.constructor);
    expect([copy.chargePoints, copy.quotaCalls, copy.attempts]).toEqual([0, 0, 1]);
    expect([leader.chargePoints, leader.quotaCalls, leader.attempts]).toEqual([9, 0, 3]);
    const other = new Error('x');
    expect(withoutCharge(other)).toBe(other);
  });
});
