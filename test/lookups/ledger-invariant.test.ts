/**
 * The ledger invariant (issue 10 points 1-2): every call that reached the service is one ledger
 * row. Every operation is driven through the real lookup service, the real plat client, the real
 * sandbox over loopback and a real SQLite store: success, not found, each error code of spec §7
 * (retried ones included, some carrying withholding_money), and answers that cannot be read (a hang
 * past the deadline, an HTML error page, a truncated body). After every single lookup the ledger,
 * operation by operation, equals what the sandbox counted: rows = calls that arrived, points =
 * points withheld, quota calls = item-quota calls taken (plus one for each item call whose answer
 * could not be read: it may have taken one, and the ledger overstates rather than loses a call).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLookupService, type LookupService, summarize } from '../../src/lookups/lookup-service.js';
import type { LookupRequest } from '../../src/lookups/types.js';
import { NO_ANSWER_CODE } from '../../src/plat/codes.js';
import { OPERATION_NAMES, type Operation } from '../../src/plat/operations.js';
import { SANDBOX_FIXTURES as F, type FaultRule } from '../../src/sandbox/index.js';
import type { Store } from '../../src/store/store.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';
import { openTestStore } from '../helpers/store-engines.js';

const USER = 'U1234';

/** One successful and one "not found" lookup per operation (each fixture's own not-found case). */
const REQUESTS: Record<Operation, { ok: LookupRequest; notFound: LookupRequest }> = {
  platiteminfo: {
    ok: { kind: 'item', itemId: F.items.basic, withPrices: false },
    notFound: { kind: 'item', itemId: F.items.missing, withPrices: false },
  },
  platiteminfoprice: {
    ok: { kind: 'item-prices', itemId: F.items.tea },
    notFound: { kind: 'item-prices', itemId: F.items.missing },
  },
  'get-shop-info': {
    ok: { kind: 'shop-info', url: F.links.firstMarketplace, shopType: '0' },
    notFound: { kind: 'shop-info', url: F.links.unknownItem, shopType: '0' },
  },
  'get-shop-id': {
    ok: { kind: 'shop-id', wwid: F.wwids.known },
    notFound: { kind: 'shop-id', wwid: F.wwids.unknown },
  },
  platdybw: {
    ok: {
      kind: 'waybill-print',
      shopId: F.shops.clothing,
      waybills: [{ waybillCode: F.waybills.ok[0], carrier: 'SF' }],
    },
    notFound: {
      kind: 'waybill-print',
      shopId: F.shops.clothing,
      waybills: [{ waybillCode: F.waybills.failing, carrier: 'YTO' }],
    },
  },
  platdzmd: {
    ok: {
      kind: 'waybill-info',
      ownerId: F.owners.busy,
      waybills: [{ waybillCode: F.waybills.ok[2], carrier: 'ZTO' }],
    },
    notFound: {
      kind: 'waybill-info',
      ownerId: F.owners.unauthorized,
      waybills: [{ waybillCode: F.waybills.ok[2], carrier: 'ZTO' }],
    },
  },
  'paging-orders': {
    ok: { kind: 'orders', ownerId: F.owners.busy, page: 0, pageSize: 20, filters: {} },
    notFound: { kind: 'orders', ownerId: F.owners.unauthorized, page: 0, pageSize: 20, filters: {} },
  },
};

/**
 * The error answers of spec §7 (and notes.md's codes seen in the wild), as the sandbox's faults.
 * 101 and 202 are retried by the client (3 attempts); `charged` ones report withholding_money.
 */
const ERROR_CASES: { name: string; faults: (operation: Operation, quota: boolean) => FaultRule[] }[] = [
  ...(['hang', 'http500', 'malformed'] as const).map((kind) => ({
    name: `no readable answer (${kind})`,
    faults: (operation: Operation): FaultRule[] => [{ kind, count: 1, operations: [operation] }],
  })),
  ...[100, 101, 103, 200, 202, 203, 302, 303, 401, 404, 614].map((code) => ({
    name: `code ${code}`,
    faults: (operation: Operation): FaultRule[] => [
      { kind: 'code', code, count: 3, operations: [operation] },
    ],
  })),
  {
    name: 'code 204 no permission',
    faults: (operation) => [{ kind: 'code', code: 204, count: 1, operations: [operation] }],
  },
  {
    name: 'code 204 not enough calls left',
    faults: (operation) => [
      { kind: 'code', code: 204, msg: 'Not enough calls left', count: 1, operations: [operation] },
    ],
  },
  {
    name: 'code 101 charged on every attempt',
    // Item answers never report withholding_money (spec §4.2, §4.3): only balance operations do.
    faults: (operation, quota) => [
      {
        kind: 'code',
        code: 101,
        count: 3,
        operations: [operation],
        ...(quota ? {} : { data: { withholding_money: 3 } }),
      },
    ],
  },
  {
    name: 'code 202 charged, then success',
    faults: (operation, quota) => [
      {
        kind: 'code',
        code: 202,
        count: 1,
        operations: [operation],
        ...(quota ? {} : { data: { withholding_money: 4 } }),
      },
    ],
  },
  {
    name: 'code 103 charged',
    faults: (operation, quota) => [
      {
        kind: 'code',
        code: 103,
        count: 1,
        operations: [operation],
        ...(quota ? {} : { data: { withholding_money: 2 } }),
      },
    ],
  },
];

let h: PlatHarness;
let store: Store;
let lookups: LookupService;
const from = new Date(0);
const to = new Date(Date.now() + 86_400_000);

beforeAll(async () => {
  // A fast limiter: this test counts charges, not the rate (the limiter has its own tests).
  h = await startPlatHarness({ limiter: { maxCalls: 1_000, windowMs: 1_000, safetyMarginMs: 0 } });
  store = await openTestStore(':memory:');
  lookups = createLookupService({ client: h.client, store, prices: {} });
});
afterAll(async () => {
  store?.close();
  await h?.close();
});

/** Confirm and run as the Confirm button does; a failed lookup is an answer too. */
async function confirmAndRun(request: LookupRequest): Promise<void> {
  const prepared = await lookups.prepare(
    request,
    { userId: USER, channelId: 'C1234', teamId: 'T1234', responseUrl: null },
    summarize(request),
    { useCache: false, allowAuto: false },
  );
  if (prepared.kind !== 'confirm') throw new Error(`expected a confirmation, got ${prepared.kind}`);
  const claimed = await lookups.claim(prepared.pending.id, USER);
  if (!claimed.ok) throw new Error(`claim failed: ${claimed.reason}`);
  await lookups.run(claimed.pending).catch(() => undefined);
}

/**
 * Per operation: the ledger's rows, points and quota calls; the calls that arrived at the sandbox,
 * the points it withheld and the quota calls it took (with the unreadable answers' possible ones).
 */
async function books() {
  const rows = await store.ledger.list({ from, to });
  const stats = h.sandbox.stats();
  return OPERATION_NAMES.map((operation) => {
    const mine = rows.filter((r) => r.operation === operation);
    const charged = stats.charges.byOperation[operation];
    const quota = operation === 'platiteminfo' || operation === 'platiteminfoprice';
    const unreadable = mine.filter((r) => r.code === NO_ANSWER_CODE).length;
    return {
      operation,
      ledger: {
        rows: mine.length,
        points: mine.reduce((sum, r) => sum + r.points, 0),
        quotaCalls: mine.reduce((sum, r) => sum + r.quotaCalls, 0),
      },
      sandbox: {
        rows: stats.callsByOperation[operation],
        points: charged.points,
        // Item operations charge nothing but the quota: each charged call is one quota call.
        quotaCalls: quota ? charged.count + unreadable : 0,
      },
    };
  });
}

describe('ledger rows == calls that arrived at the sandbox, operation by operation', () => {
  for (const operation of OPERATION_NAMES) {
    const quota = operation === 'platiteminfo' || operation === 'platiteminfoprice';
    const cases: { name: string; request: LookupRequest; faults: FaultRule[] }[] = [
      { name: 'success', request: REQUESTS[operation].ok, faults: [] },
      { name: 'not found', request: REQUESTS[operation].notFound, faults: [] },
      ...ERROR_CASES.map((c) => ({
        name: c.name,
        request: REQUESTS[operation].ok,
        faults: c.faults(operation, quota),
      })),
    ];

    it(`${operation}: success, not found and every error code`, async () => {
      for (const c of cases) {
        h.sandbox.setFaults(c.faults);
        const reachedBefore = h.sandbox.stats().callsByOperation[operation];
        const rowsBefore = (await store.ledger.list({ from, to })).filter(
          (r) => r.operation === operation,
        ).length;
        await confirmAndRun(c.request);
        const stats = h.sandbox.stats();
        // The lookup reached the service (the case is not vacuous)…
        expect({ case: c.name, reached: stats.callsByOperation[operation] > reachedBefore }).toEqual({
          case: c.name,
          reached: true,
        });
        // …and the books agree for every operation after it.
        for (const line of await books())
          expect({ case: c.name, ...line }).toEqual({ case: c.name, ...line, ledger: line.sandbox });
        const rowsAdded =
          (await store.ledger.list({ from, to })).filter((r) => r.operation === operation).length -
          rowsBefore;
        // Item operations: success and "item does not exist" are each exactly one quota call (spec §8).
        if (quota && (c.name === 'success' || c.name === 'not found'))
          expect({ case: c.name, rowsAdded }).toEqual({ case: c.name, rowsAdded: 1 });
      }
      const rows = await store.ledger.list({ from, to });
      expect(h.sandbox.stats().itemCallsCharged).toBe(
        rows.filter((r) => r.code !== NO_ANSWER_CODE).reduce((sum, r) => sum + r.quotaCalls, 0),
      );
      // The three unreadable answers of this operation are each a row of their own.
      expect(rows.filter((r) => r.operation === operation && r.code === NO_ANSWER_CODE)).toHaveLength(3);
    });
  }

  it("issue 10's reproduction: three /item lookups and one prices lookup are four ledger rows", async () => {
    h.sandbox.setFaults([]);
    const before = (await store.ledger.list({ from, to })).length;
    const reached = h.sandbox.stats().callsByOperation;
    await confirmAndRun(REQUESTS.platiteminfo.ok);
    await confirmAndRun({ kind: 'item', itemId: F.items.withVideo, withPrices: false });
    await confirmAndRun(REQUESTS.platiteminfo.notFound);
    await confirmAndRun(REQUESTS.platiteminfoprice.ok);
    const after = h.sandbox.stats().callsByOperation;
    expect(
      after.platiteminfo - reached.platiteminfo + after.platiteminfoprice - reached.platiteminfoprice,
    ).toBe(4);
    const rows = await store.ledger.list({ from, to });
    const added = rows.slice(0, rows.length - before).reverse();
    expect(
      added.map((r) => ({ op: r.operation, points: r.points, quotaCalls: r.quotaCalls, code: r.code })),
    ).toEqual([
      { op: 'platiteminfo', points: 0, quotaCalls: 1, code: 0 },
      { op: 'platiteminfo', points: 0, quotaCalls: 1, code: 0 },
      { op: 'platiteminfo', points: 0, quotaCalls: 1, code: 100 },
      { op: 'platiteminfoprice', points: 0, quotaCalls: 1, code: 0 },
    ]);
  });
});
