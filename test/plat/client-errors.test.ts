/**
 * Failures the client must turn into typed errors: invalid input (nothing sent), every envelope
 * code of spec §7 and notes.md (through sandbox faults and the sandbox's real refusals), and the
 * retry rule (101 and 202 only, at most 2 retries, each a new limiter job).
 */

import { afterEach, describe, expect, it } from 'vitest';
import { errorRemedy } from '../../src/blocks/errors.js';
import type { PlatClient } from '../../src/plat/client.js';
import { NO_ANSWER_CODE } from '../../src/plat/codes.js';
import {
  PlatAccountNotFoundError,
  type PlatApiError,
  PlatCredentialError,
  type PlatErrorCode,
  PlatInputError,
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
} from '../../src/plat/errors.js';
import type { Operation } from '../../src/plat/operations.js';
import {
  CODE_MESSAGES,
  SANDBOX_FIXTURES as F,
  ITEM_NOT_FOUND,
  NOT_ENOUGH_CALLS,
} from '../../src/sandbox/index.js';
import {
  type PlatHarness,
  type PlatHarnessOptions,
  platErrorOf,
  startPlatHarness,
} from '../helpers/plat-harness.js';
import { en } from '../helpers/words.js';

const HOUR = 3_600_000;

let h: PlatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(options: PlatHarnessOptions = {}): Promise<PlatHarness> {
  h = await startPlatHarness(options);
  return h;
}

/** One valid call per operation, for tables that try every operation. */
const VALID_CALL: Record<Operation, (c: PlatClient) => Promise<unknown>> = {
  platdybw: (c) =>
    c.waybillPrintData({ shopId: F.shops.clothing, waybills: [{ waybillCode: F.waybills.ok[0] }] }),
  platiteminfo: (c) => c.itemInfo({ itemId: F.items.basic }),
  platiteminfoprice: (c) => c.itemPrices({ itemId: F.items.basic }),
  'get-shop-info': (c) => c.shopInfo({ url: F.links.firstMarketplace }),
  'get-shop-id': (c) => c.shopId({ wwid: F.wwids.known }),
  platdzmd: (c) =>
    c.waybillInfo({ ownerId: F.owners.busy, waybills: [{ waybillCode: F.waybills.ok[0], wpCode: 'SF' }] }),
  'paging-orders': (c) => c.orders({ ownerId: F.owners.busy, pageSize: 5 }),
};

describe('invalid input makes no call and throws PlatInputError', () => {
  const waybills = (n: number) => Array.from({ length: n }, (_, i) => ({ waybillCode: `SF${1e12 + i}` }));
  const now = Date.now();
  const cases: [string, Operation, (c: PlatClient) => Promise<unknown>, RegExp][] = [
    ['item id that is not digits', 'platiteminfo', (c) => c.itemInfo({ itemId: '68000abc4501' }), /digits/],
    [
      'item id that is not digits (prices)',
      'platiteminfoprice',
      (c) => c.itemPrices({ itemId: '12 34' }),
      /digits/,
    ],
    [
      '21 waybills for platdybw',
      'platdybw',
      (c) => c.waybillPrintData({ shopId: F.shops.clothing, waybills: waybills(21) }),
      /at most 20/,
    ],
    [
      '21 waybills for platdzmd',
      'platdzmd',
      (c) =>
        c.waybillInfo({
          ownerId: F.owners.busy,
          waybills: waybills(21).map((w) => ({ ...w, wpCode: 'SF' })),
        }),
      /at most 20/,
    ],
    [
      'no waybill at all',
      'platdybw',
      (c) => c.waybillPrintData({ shopId: F.shops.clothing, waybills: [] }),
      /at least one/,
    ],
    [
      'pageSize 101',
      'paging-orders',
      (c) => c.orders({ ownerId: F.owners.busy, pageSize: 101 }),
      /at most 100/,
    ],
    ['page -1', 'paging-orders', (c) => c.orders({ ownerId: F.owners.busy, page: -1 }), /0 or more/],
    [
      'missing shopId',
      'platdybw',
      (c) =>
        c.waybillPrintData({ waybills: waybills(1) } as unknown as Parameters<
          PlatClient['waybillPrintData']
        >[0]),
      /./,
    ],
    [
      'vvtype 2 for platdybw',
      'platdybw',
      (c) => c.waybillPrintData({ shopId: F.shops.clothing, edition: 2 as 1, waybills: waybills(1) }),
      /./,
    ],
    [
      'order filters with edition 2 (basic)',
      'paging-orders',
      (c) => c.orders({ ownerId: F.owners.busy, edition: 2, remark: '加急' }),
      /enhanced edition only/,
    ],
    [
      'a 25-hour window',
      'paging-orders',
      (c) =>
        c.orders({ ownerId: F.owners.busy, startTime: new Date(now - 25 * HOUR), endTime: new Date(now) }),
      /longer than 24 hours/,
    ],
    [
      'end before start',
      'paging-orders',
      (c) => c.orders({ ownerId: F.owners.busy, startTime: new Date(now), endTime: new Date(now - HOUR) }),
      /before the start/,
    ],
    [
      'a link that is not a link',
      'get-shop-info',
      (c) => c.shopInfo({ url: 'item.taobao.com/x' }),
      /full http/,
    ],
    ['an empty account id', 'get-shop-id', (c) => c.shopId({ wwid: '  ' }), /required/],
    ['flag 6', 'paging-orders', (c) => c.orders({ ownerId: F.owners.busy, remarkTag: 6 }), /1 to 5/],
  ];

  it.each(cases)('%s', async (_name, operation, call, issue) => {
    const { client, sandbox, charges, limiter } = await harness();
    const error = await platErrorOf(call(client));
    expect(error).toBeInstanceOf(PlatInputError);
    expect(error).toMatchObject({ code: 'invalid_input', operation });
    expect((error as PlatInputError).issues.join('; ')).toMatch(issue);
    expect(errorRemedy(en, error)).toMatch(/nothing was charged/);
    expect(sandbox.stats().calls).toBe(0);
    expect(limiter.stats().started).toBe(0);
    expect(charges).toEqual([]);
  });

  it('a configured edition the operation does not have is refused before sending', async () => {
    const { client, sandbox } = await harness({ editions: { platdybw: 2 } });
    const error = await platErrorOf(VALID_CALL.platdybw(client));
    expect(error).toBeInstanceOf(PlatInputError);
    expect(error.message).toMatch(/edition 2 does not exist for platdybw/);
    expect(sandbox.stats().calls).toBe(0);
  });
});

describe('envelope codes become typed errors', () => {
  interface CodeCase {
    code: number;
    msg?: string;
    operation: Operation;
    expected: PlatErrorCode;
    type: abstract new (...args: never[]) => PlatApiError;
  }
  const cases: CodeCase[] = [
    { code: 100, operation: 'get-shop-info', expected: 'parameter_error', type: PlatParameterError },
    { code: 101, operation: 'platdzmd', expected: 'upstream_timeout', type: PlatUpstreamTimeoutError },
    { code: 103, operation: 'get-shop-id', expected: 'account_not_found', type: PlatAccountNotFoundError },
    { code: 200, operation: 'paging-orders', expected: 'system_error', type: PlatSystemError },
    { code: 202, operation: 'get-shop-info', expected: 'retry_later', type: PlatRetryLaterError },
    { code: 203, operation: 'platdybw', expected: 'unsupported', type: PlatUnsupportedError },
    {
      code: 204,
      msg: 'No permission on this interface',
      operation: 'platiteminfo',
      expected: 'no_permission',
      type: PlatNoPermissionError,
    },
    {
      code: 204,
      msg: NOT_ENOUGH_CALLS,
      operation: 'platiteminfoprice',
      expected: 'quota_exhausted',
      type: PlatQuotaExhaustedError,
    },
    {
      code: 204,
      msg: '调用次数不足，请充值',
      operation: 'get-shop-id',
      expected: 'quota_exhausted',
      type: PlatQuotaExhaustedError,
    },
    { code: 302, operation: 'paging-orders', expected: 'shop_unauthorized', type: PlatShopUnauthorizedError },
    { code: 303, operation: 'platdzmd', expected: 'shop_not_subscribed', type: PlatShopNotSubscribedError },
    { code: 401, operation: 'get-shop-id', expected: 'credential_invalid', type: PlatCredentialError },
    { code: 404, operation: 'get-shop-info', expected: 'wrong_path', type: PlatWrongPathError },
    { code: 614, operation: 'paging-orders', expected: 'unknown_code', type: PlatUnknownCodeError },
    {
      code: 501,
      msg: '订单不存在',
      operation: 'paging-orders',
      expected: 'unknown_code',
      type: PlatUnknownCodeError,
    },
  ];

  it.each(cases)('$code $msg on $operation → $expected', async ({ code, msg, operation, expected, type }) => {
    const { client, sandbox, charges } = await harness();
    sandbox.setFaults([{ kind: 'code', code, ...(msg === undefined ? {} : { msg }) }]);
    const error = await platErrorOf(VALID_CALL[operation](client));
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ code: expected, operation, apiCode: code });
    expect((error as PlatApiError).apiMessage).toBe(msg ?? CODE_MESSAGES[code]);
    expect(error.message).toContain(String(code));
    expect(errorRemedy(en, error).trim().length).toBeGreaterThan(10);
    // Injected codes withhold nothing at the sandbox, and none of these takes an item quota call
    // (the item cases are refusals before any query), but the call reached the service: one
    // ledger event of 0 points per attempt (101 and 202 are tried 3 times), with the code answered.
    const attempts = code === 101 || code === 202 ? 3 : 1;
    expect(charges).toEqual(
      Array.from({ length: attempts }, () =>
        expect.objectContaining({ operation, code, points: 0, quotaCalls: 0, correlationId: null }),
      ),
    );
    expect(sandbox.stats()).toMatchObject({
      calls: attempts,
      charges: { count: 0, points: 0 },
      itemCallsCharged: 0,
    });
    expect(error.chargePoints).toBeNull();
  });

  it('the unknown code keeps its msg', async () => {
    const { client, sandbox } = await harness();
    sandbox.setFaults([{ kind: 'code', code: 614, msg: 'Order 240601-1 does not exist' }]);
    const error = await platErrorOf(client.orders({ ownerId: F.owners.busy }));
    expect(error).toBeInstanceOf(PlatUnknownCodeError);
    expect((error as PlatUnknownCodeError).apiMessage).toBe('Order 240601-1 does not exist');
    expect(error.message).toContain('Order 240601-1 does not exist');
  });

  it('302 from an unauthorized shop carries the authorization link from data.url', async () => {
    const { client, sandbox } = await harness();
    const dybw = await platErrorOf(
      client.waybillPrintData({
        shopId: F.shops.unauthorized,
        waybills: [{ waybillCode: F.waybills.ok[0] }],
      }),
    );
    expect(dybw).toBeInstanceOf(PlatShopUnauthorizedError);
    expect((dybw as PlatShopUnauthorizedError).authUrl).toBe(F.authUrlFor(F.shops.unauthorized));
    expect(errorRemedy(en, dybw)).toMatch(/authorization link/);

    const dzmd = await platErrorOf(
      client.waybillInfo({
        ownerId: F.owners.unauthorized,
        waybills: [{ waybillCode: F.waybills.ok[0], wpCode: 'SF' }],
      }),
    );
    expect((dzmd as PlatShopUnauthorizedError).authUrl).toBe(F.authUrlFor(F.owners.unauthorized));

    const orders = await platErrorOf(client.orders({ ownerId: F.owners.unauthorized }));
    expect(orders).toMatchObject({ code: 'shop_unauthorized', operation: 'paging-orders' });
    expect((orders as PlatShopUnauthorizedError).authUrl).toBe(F.authUrlFor(F.owners.unauthorized));

    // A 302 without a link still has a remedy.
    sandbox.setFaults([{ kind: 'code', code: 302, data: {} }]);
    const bare = await platErrorOf(client.orders({ ownerId: F.owners.busy }));
    expect((bare as PlatShopUnauthorizedError).authUrl).toBeNull();
    expect(errorRemedy(en, bare)).toMatch(/official site/);
    expect(sandbox.stats().charges.count).toBe(0);
  });

  it('204 "not enough calls" when the real balance or item quota runs out', async () => {
    const { client, sandbox, charges } = await harness();
    sandbox.setBalance(0);
    const balance = await platErrorOf(client.shopInfo({ url: F.links.firstMarketplace }));
    expect(balance).toBeInstanceOf(PlatQuotaExhaustedError);
    expect(balance).toMatchObject({ apiCode: 204, apiMessage: NOT_ENOUGH_CALLS, operation: 'get-shop-info' });
    expect(errorRemedy(en, balance)).toMatch(/recharge/);

    sandbox.setBalance(1_000);
    sandbox.setItemQuota(0);
    const quota = await platErrorOf(client.itemInfo({ itemId: F.items.basic }));
    expect(quota).toMatchObject({ code: 'quota_exhausted', operation: 'platiteminfo', quotaCalls: 0 });
    // Both calls reached the service and are recorded, neither charged anything.
    expect(charges).toEqual([
      expect.objectContaining({ operation: 'get-shop-info', code: 204, points: 0, quotaCalls: 0 }),
      expect.objectContaining({ operation: 'platiteminfo', code: 204, points: 0, quotaCalls: 0 }),
    ]);
    expect(sandbox.stats()).toMatchObject({ calls: 2, charges: { count: 0 }, itemCallsCharged: 0 });
  });

  it('401 with a wrong token', async () => {
    const { client, sandbox } = await harness({ token: 'not-the-sandbox-token' });
    const error = await platErrorOf(client.shopId({ wwid: F.wwids.known }));
    expect(error).toBeInstanceOf(PlatCredentialError);
    expect(error).toMatchObject({ code: 'credential_invalid', operation: 'get-shop-id', apiCode: 401 });
    expect(errorRemedy(en, error)).toMatch(/PLAT_TOKEN/);
    expect(sandbox.stats()).toMatchObject({ calls: 1, unauthorized: 1 });
  });

  it('404 from a wrong base path', async () => {
    const { client, sandbox } = await harness({ basePath: '/wrong' });
    const error = await platErrorOf(client.itemInfo({ itemId: F.items.basic }));
    expect(error).toBeInstanceOf(PlatWrongPathError);
    expect(error).toMatchObject({ operation: 'platiteminfo', apiCode: 404 });
    expect(errorRemedy(en, error)).toMatch(/PLAT_BASE_URL/);
    expect(sandbox.stats().calls).toBe(1);
  });

  it('a missing item is item_not_found, not a parameter error, and costs one call of the quota', async () => {
    const { client, sandbox, charges } = await harness();
    for (const lookUp of [client.itemInfo, client.itemPrices]) {
      const error = await platErrorOf(lookUp({ itemId: F.items.missing }));
      expect(error).toBeInstanceOf(PlatItemNotFoundError);
      expect(error).not.toBeInstanceOf(PlatParameterError);
      expect(error).toMatchObject({ code: 'item_not_found', apiMessage: ITEM_NOT_FOUND, quotaCalls: 1 });
    }
    expect(charges).toEqual([
      expect.objectContaining({ operation: 'platiteminfo', code: 100, points: 0, quotaCalls: 1 }),
      expect.objectContaining({ operation: 'platiteminfoprice', code: 100, points: 0, quotaCalls: 1 }),
    ]);
    expect(sandbox.stats().itemCallsCharged).toBe(2);
  });

  it('code 100 without "does not exist" on an item operation stays a parameter error, no quota call', async () => {
    const { client, sandbox, charges } = await harness();
    sandbox.setFaults([{ kind: 'code', code: 100, msg: 'Request parameter error: itemId', count: 1 }]);
    const error = await platErrorOf(client.itemInfo({ itemId: F.items.basic }));
    expect(error).toBeInstanceOf(PlatParameterError);
    expect(error.quotaCalls).toBe(0);
    // Recorded as a call that reached the service, with no quota call and no points.
    expect(charges).toEqual([
      expect.objectContaining({ operation: 'platiteminfo', code: 100, points: 0, quotaCalls: 0 }),
    ]);
    expect(sandbox.stats()).toMatchObject({ calls: 1, itemCallsCharged: 0 });
  });
});

describe('retries', () => {
  it.each([101, 202])(
    'code %i once: retried, succeeds after 2 calls, each a new limiter job',
    async (code) => {
      const delays: number[] = [];
      const { client, sandbox, limiter, charges } = await harness({
        retry: { sleep: async (ms) => void delays.push(ms) },
      });
      sandbox.setFaults([{ kind: 'code', code, count: 1 }]);
      const result = await client.shopInfo({ url: F.links.firstMarketplace });
      expect(result.data.shopId).toBe(F.shops.clothing);
      expect(sandbox.stats().calls).toBe(2);
      expect(limiter.stats().started).toBe(2);
      expect(delays).toHaveLength(1);
      // Both attempts reached the service: the refused one (0 points) and the charged answer.
      expect(charges).toEqual([
        expect.objectContaining({ operation: 'get-shop-info', code, points: 0 }),
        expect.objectContaining({
          operation: 'get-shop-info',
          code: 0,
          points: sandbox.stats().charges.points,
        }),
      ]);
      expect(sandbox.stats().charges.count).toBe(1);
      expect(sandbox.stats().charges.points).toBeGreaterThan(0);
    },
  );

  it.each([101, 202])(
    'code %i that persists: fails after exactly 3 calls, with growing backoff',
    async (code) => {
      const delays: number[] = [];
      const { client, sandbox, limiter, charges } = await harness({
        retry: { sleep: async (ms) => void delays.push(ms), baseDelayMs: 100, maxDelayMs: 10_000 },
      });
      sandbox.setFaults([{ kind: 'code', code, count: 5 }]);
      const error = await platErrorOf(client.orders({ ownerId: F.owners.busy }));
      expect(error).toMatchObject({ apiCode: code, retryable: true, operation: 'paging-orders' });
      expect(sandbox.stats().calls).toBe(3);
      expect(limiter.stats().started).toBe(3);
      // Every attempt reached the service: three events, none charged.
      const attempt = expect.objectContaining({ operation: 'paging-orders', code, points: 0, quotaCalls: 0 });
      expect(charges).toEqual([attempt, attempt, attempt]);
      expect(delays).toHaveLength(2);
      // base × 2^n with ±25 % jitter: 75–125 ms, then 150–250 ms.
      expect(delays[0]).toBeGreaterThanOrEqual(75);
      expect(delays[0]).toBeLessThanOrEqual(125);
      expect(delays[1]).toBeGreaterThanOrEqual(150);
      expect(delays[1]).toBeLessThanOrEqual(250);
    },
  );

  it.each([
    [100, undefined],
    [200, undefined],
    [204, 'No permission on this interface'],
    [204, NOT_ENOUGH_CALLS],
    [302, undefined],
    [614, undefined],
  ])('code %i (%s) is never retried: exactly 1 call', async (code, msg) => {
    const { client, sandbox, charges } = await harness();
    sandbox.setFaults([{ kind: 'code', code, ...(msg === undefined ? {} : { msg }) }]);
    const error = await platErrorOf(client.shopInfo({ url: F.links.firstMarketplace }));
    expect(error).toMatchObject({ apiCode: code, retryable: false });
    expect(sandbox.stats().calls).toBe(1);
    expect(charges).toEqual([expect.objectContaining({ operation: 'get-shop-info', code, points: 0 })]);
  });

  it('a transport failure is not retried (the call may have been charged)', async () => {
    const { client, sandbox, charges } = await harness();
    sandbox.setFaults([{ kind: 'http500' }]);
    await platErrorOf(client.shopId({ wwid: F.wwids.known }));
    expect(sandbox.stats().calls).toBe(1);
    // Recorded once, as a call whose answer could not be read.
    expect(charges).toEqual([
      expect.objectContaining({ operation: 'get-shop-id', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 }),
    ]);
  });
});
