/**
 * Every answer reaches the charge listeners (spec §1 rule 3-4: every call is charged and reports
 * withholding_money), error responses and uncharged refusals included: one event per call that
 * reached the service. The events' points equal what the sandbox actually deducted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PlatParameterError } from '../../src/plat/errors.js';
import { OPERATIONS } from '../../src/plat/operations.js';
import type { ChargeEvent } from '../../src/plat/types.js';
import { DEFAULT_PRICES, SANDBOX_FIXTURES as F } from '../../src/sandbox/index.js';
import {
  type CannedServer,
  createClientRig,
  type PlatClientRig,
  type PlatHarness,
  platErrorOf,
  startCannedServer,
  startPlatHarness,
} from '../helpers/plat-harness.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function harness(): Promise<PlatHarness> {
  const h = await startPlatHarness();
  closers.push(h.close);
  return h;
}

/**
 * A pass-through proxy to the sandbox (the remote's stand-in) that empties get-shop-id's wwid on
 * the way, so that the sandbox itself answers code 100 and charges it (spec §4.5: get-shop-id is
 * charged in every case but a system error). The client cannot send an empty wwid itself.
 */
async function blankingProxy(sandboxUrl: string): Promise<{ server: CannedServer; rig: PlatClientRig }> {
  const server = await startCannedServer(async (request) => {
    const target = new URL(request.url, sandboxUrl);
    if (target.pathname === OPERATIONS['get-shop-id'].path) target.searchParams.set('wwid', '');
    const response = await fetch(target, {
      method: request.method,
      headers: {
        authorization: String(request.headers.authorization),
        ...(request.headers['content-type'] ? { 'content-type': request.headers['content-type'] } : {}),
      },
      ...(request.method === 'GET' ? {} : { body: new Uint8Array(request.body) }),
    });
    return { raw: await response.text(), status: response.status, contentType: 'application/json' };
  });
  const rig = createClientRig({ baseUrl: server.baseUrl });
  closers.push(server.close, rig.close);
  return { server, rig };
}

describe('charge events', () => {
  it('carry operation, edition, points, code and correlation id; per-call listeners get theirs', async () => {
    const h = await harness();
    const perCall: ChargeEvent[] = [];
    await h.client.shopInfo(
      { url: F.links.brandedStore, edition: 3 },
      { correlationId: 'req-42', onCharge: (e) => perCall.push(e) },
    );
    await h.client.orders({ ownerId: F.owners.small }, { correlationId: 'req-43' });
    await h.client.waybillPrintData({ shopId: F.shops.tea, waybills: [{ waybillCode: F.waybills.ok[2] }] });

    expect(h.charges).toEqual([
      {
        operation: 'get-shop-info',
        edition: 3,
        points: DEFAULT_PRICES['get-shop-info'][3],
        quotaCalls: 0,
        code: 0,
        requestId: null,
        correlationId: 'req-42',
        attempt: 0,
        at: expect.any(Date),
      },
      expect.objectContaining({
        operation: 'paging-orders',
        edition: 1,
        points: DEFAULT_PRICES['paging-orders'][1],
        correlationId: 'req-43',
      }),
      expect.objectContaining({
        operation: 'platdybw',
        edition: 1,
        points: DEFAULT_PRICES.platdybw[1],
        requestId: expect.stringMatching(/^sbx-/),
        correlationId: null,
      }),
    ]);
    expect(perCall).toEqual([h.charges[0]]);
  });

  it('an error response that reports withholding_money is charged: get-shop-id code 100', async () => {
    const h = await harness();
    const { rig } = await blankingProxy(h.sandboxUrl);
    const perCall: ChargeEvent[] = [];
    const error = await platErrorOf(
      rig.client.shopId(
        { wwid: F.wwids.known },
        { correlationId: 'req-9', onCharge: (e) => perCall.push(e) },
      ),
    );
    expect(error).toBeInstanceOf(PlatParameterError);
    expect(error.chargePoints).toBe(DEFAULT_PRICES['get-shop-id']);
    const event = {
      operation: 'get-shop-id',
      edition: null,
      points: DEFAULT_PRICES['get-shop-id'],
      code: 100,
      correlationId: 'req-9',
    };
    expect(rig.charges).toEqual([expect.objectContaining(event)]);
    expect(perCall).toEqual([expect.objectContaining(event)]);
    expect(h.sandbox.stats().charges).toMatchObject({ count: 1, points: DEFAULT_PRICES['get-shop-id'] });
  });

  it('one event per call that arrived, summing to exactly what the sandbox deducted, over every operation and outcome', async () => {
    const h = await harness();
    const { rig: proxied } = await blankingProxy(h.sandboxUrl);
    const c = h.client;
    const calls: Promise<unknown>[] = [
      c.waybillPrintData({
        shopId: F.shops.clothing,
        edition: 3,
        waybills: [{ waybillCode: F.waybills.failing }],
      }),
      c.itemInfo({ itemId: F.items.withVideo }),
      c.itemInfo({ itemId: F.items.missing }), // code 100, one call of the quota
      c.itemPrices({ itemId: F.items.tea }),
      c.shopInfo({ url: F.links.secondMarketplace, type: '2', edition: 2 }),
      c.shopId({ wwid: F.wwids.unknown }), // found: false, still charged
      c.waybillInfo({
        ownerId: F.owners.busy,
        edition: 2,
        waybills: [{ waybillCode: F.waybills.ok[3], wpCode: 'ZTO' }],
      }),
      c.orders({ ownerId: F.owners.busy, edition: 2, page: 1 }),
      c.orders({ ownerId: F.owners.unauthorized }), // 302: not charged
      proxied.client.shopId({ wwid: F.wwids.known }), // code 100, charged
    ];
    await Promise.allSettled(calls);

    const events = [...h.charges, ...proxied.charges];
    const stats = h.sandbox.stats();
    expect(events.reduce((sum, e) => sum + e.points, 0)).toBe(stats.charges.points);
    // Every call arrived and is an event; all but the 302 were charged (points or a quota call).
    expect(stats.calls).toBe(calls.length);
    expect(events).toHaveLength(stats.calls);
    expect(events.filter((e) => e.points > 0 || e.quotaCalls > 0)).toHaveLength(stats.charges.count);
    expect(stats.charges.count).toBe(calls.length - 1);
    expect(events.filter((e) => e.points === 0 && e.quotaCalls === 0)).toEqual([
      expect.objectContaining({ operation: 'paging-orders', code: 302, points: 0, quotaCalls: 0 }),
    ]);
    expect(events.reduce((sum, e) => sum + e.quotaCalls, 0)).toBe(stats.itemCallsCharged);
    expect(stats.charges.points).toBe(
      DEFAULT_PRICES.platdybw[3] +
        DEFAULT_PRICES['get-shop-info'][2] +
        2 * DEFAULT_PRICES['get-shop-id'] +
        DEFAULT_PRICES.platdzmd[2] +
        DEFAULT_PRICES['paging-orders'][2],
    );
    for (const operation of Object.keys(OPERATIONS) as (keyof typeof OPERATIONS)[]) {
      const mine = events.filter((e) => e.operation === operation);
      expect({ operation, count: mine.length, points: mine.reduce((s, e) => s + e.points, 0) }).toEqual({
        operation,
        count: stats.callsByOperation[operation],
        points: stats.charges.byOperation[operation].points,
      });
    }
  });
});
