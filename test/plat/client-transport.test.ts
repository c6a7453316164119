/**
 * The HTTP path: what goes on the wire (spec §4, §5), transport failures as typed errors (notes.md:
 * non-JSON or no answer is a transport error), the token kept out of every error, and the shared
 * limiter holding spec §8's 10 calls per second at the sandbox.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { errorRemedy } from '../../src/blocks/errors.js';
import { NO_ANSWER_CODE } from '../../src/plat/codes.js';
import {
  PlatAbortedError,
  PlatBadResponseError,
  PlatConnectionError,
  type PlatError,
  PlatSchemaError,
  PlatTimeoutError,
} from '../../src/plat/errors.js';
import { OPERATIONS, type Operation } from '../../src/plat/operations.js';
import { SANDBOX_FIXTURES as F } from '../../src/sandbox/index.js';
import {
  type CannedAnswer,
  type CapturedRequest,
  createClientRig,
  deadPort,
  envelope,
  everythingSaidBy,
  type PlatClientRig,
  type PlatHarness,
  type PlatHarnessOptions,
  platErrorOf,
  startCannedRig,
  startPlatHarness,
} from '../helpers/plat-harness.js';
import { en } from '../helpers/words.js';

/** Distinctive, so that any appearance in an error is a leak and not a coincidence. */
const TOKEN = 'PLATSECRET-7f3a9c2e1b5d';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function harness(options: PlatHarnessOptions = {}): Promise<PlatHarness> {
  const h = await startPlatHarness({ sandbox: { token: TOKEN }, ...options });
  closers.push(h.close);
  return h;
}

async function canned(...args: Parameters<typeof startCannedRig>) {
  const rig = await startCannedRig(args[0], { token: TOKEN, ...args[1] });
  closers.push(rig.close);
  return rig;
}

function expectNoToken(error: PlatError): void {
  const said = everythingSaidBy(error);
  expect(said).not.toContain(TOKEN);
  // Not even a part of it (a cut-off excerpt).
  expect(said).not.toContain('PLATSECRET');
  expect(String(error) + error.stack).not.toContain(TOKEN);
}

describe('transport failures', () => {
  it('a call that never answers fails with PlatTimeoutError at the deadline, not retried', async () => {
    const h = await harness({ timeouts: { deadlineMs: 300 } });
    h.sandbox.setFaults([{ kind: 'hang' }]);
    const started = performance.now();
    const error = await platErrorOf(h.client.shopInfo({ url: F.links.firstMarketplace }));
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(PlatTimeoutError);
    expect(error).toMatchObject({ code: 'timeout', operation: 'get-shop-info', timeoutMs: 300 });
    expect(errorRemedy(en, error)).toBeTruthy();
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(2_000);
    expect(h.sandbox.stats().calls).toBe(1);
    expect(error.reachedService).toBe(true);
    expect(h.charges).toEqual([
      expect.objectContaining({ operation: 'get-shop-info', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 }),
    ]);
    expectNoToken(error);
  });

  it("undici's headers timeout is a PlatTimeoutError too", async () => {
    const h = await harness({ timeouts: { headersMs: 200, deadlineMs: 5_000 } });
    h.sandbox.setFaults([{ kind: 'hang' }]);
    const error = await platErrorOf(h.client.itemInfo({ itemId: F.items.basic }));
    expect(error).toBeInstanceOf(PlatTimeoutError);
    expect(error).toMatchObject({ operation: 'platiteminfo', timeoutMs: 200, reachedService: true });
    // An item call whose answer never came may have taken a quota call: recorded as one.
    expect(error.quotaCalls).toBe(1);
    expect(h.charges).toEqual([
      expect.objectContaining({ operation: 'platiteminfo', code: NO_ANSWER_CODE, points: 0, quotaCalls: 1 }),
    ]);
  });

  it('cancelling a call in flight rejects with PlatAbortedError', async () => {
    const h = await harness();
    h.sandbox.setFaults([{ kind: 'hang' }]);
    const controller = new AbortController();
    const pending = platErrorOf(h.client.shopId({ wwid: F.wwids.known }, { signal: controller.signal }));
    // In flight: aborted once the sandbox has the request (a fixed delay raced the first call's
    // loading of undici on a loaded machine).
    while (h.sandbox.stats().calls < 1) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(PlatAbortedError);
    expect(error.operation).toBe('get-shop-id');
    // It had reached the service: recorded as a call whose answer never came, and told so.
    expect(h.sandbox.stats().calls).toBe(1);
    expect(error.reachedService).toBe(true);
    expect(errorRemedy(en, error)).toMatch(/may still have counted the call/);
    expect(h.charges).toEqual([
      expect.objectContaining({ operation: 'get-shop-id', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 }),
    ]);
  });

  it('cancelling a call still queued in the limiter sends nothing and records nothing', async () => {
    const h = await harness({ limiter: { maxCalls: 1, windowMs: 60_000, interactiveReserve: 0 } });
    await h.client.shopId({ wwid: F.wwids.known });
    const controller = new AbortController();
    const pending = platErrorOf(h.client.shopId({ wwid: F.wwids.known }, { signal: controller.signal }));
    // In flight: aborted once the sandbox has the request (a fixed delay raced the first call's
    // loading of undici on a loaded machine).
    while (h.sandbox.stats().calls < 1) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(PlatAbortedError);
    expect(error.reachedService).toBe(false);
    expect(errorRemedy(en, error)).toMatch(/nothing was charged/);
    expect(h.sandbox.stats().calls).toBe(1);
    expect(h.charges).toEqual([expect.objectContaining({ operation: 'get-shop-id', code: 0 })]);
  });

  it('connection refused is a PlatConnectionError', async () => {
    const rig = createClientRig({ baseUrl: `http://127.0.0.1:${await deadPort()}`, token: TOKEN });
    closers.push(rig.close);
    const error = await platErrorOf(rig.client.shopId({ wwid: F.wwids.known }));
    expect(error).toBeInstanceOf(PlatConnectionError);
    expect(error).toMatchObject({ code: 'connection_failed', operation: 'get-shop-id' });
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(errorRemedy(en, error)).toMatch(/PLAT_BASE_URL/);
    // Nothing was sent, so nothing is recorded.
    expect(error.reachedService).toBe(false);
    expect(rig.charges).toEqual([]);
    expectNoToken(error);
  });

  it('HTTP 500 with an HTML page is a PlatBadResponseError', async () => {
    const h = await harness();
    h.sandbox.setFaults([{ kind: 'http500' }]);
    const error = await platErrorOf(
      h.client.waybillInfo({
        ownerId: F.owners.busy,
        waybills: [{ waybillCode: F.waybills.ok[0], wpCode: 'SF' }],
      }),
    );
    expect(error).toBeInstanceOf(PlatBadResponseError);
    expect(error).toMatchObject({ code: 'bad_response', operation: 'platdzmd', status: 500 });
    expect(error.message).toContain('500 Internal Server Error');
    expect(h.charges).toEqual([
      expect.objectContaining({ operation: 'platdzmd', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 }),
    ]);
    expect(h.sandbox.stats()).toMatchObject({ calls: 1, charges: { count: 0 } });
    expectNoToken(error);
  });

  it('a truncated JSON body is a PlatBadResponseError', async () => {
    const h = await harness();
    h.sandbox.setFaults([{ kind: 'malformed' }]);
    const error = await platErrorOf(h.client.orders({ ownerId: F.owners.busy }));
    expect(error).toBeInstanceOf(PlatBadResponseError);
    expect(error).toMatchObject({ operation: 'paging-orders', status: 200 });
    // The call reached the service and its answer could not be read: one event, code -1, 0 points.
    expect(h.charges).toEqual([
      expect.objectContaining({ operation: 'paging-orders', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 }),
    ]);
    expect(h.sandbox.stats()).toMatchObject({ calls: 1, charges: { count: 0 } });
    expectNoToken(error);
  });

  it('JSON of the wrong shape is a PlatSchemaError naming the operation and the field', async () => {
    const rig = await canned({ code: 0, data: { shopName: 5 } });
    const error = await platErrorOf(rig.client.shopInfo({ url: F.links.firstMarketplace }));
    expect(error).toBeInstanceOf(PlatSchemaError);
    expect(error).toMatchObject({ code: 'schema_mismatch', operation: 'get-shop-info' });
    expect(error.message).toContain('get-shop-info');
    expect((error as PlatSchemaError).issues.join('\n')).toMatch(/shopName/);
    expect(errorRemedy(en, error)).toBeTruthy();
    expectNoToken(error);
  });

  it('an envelope without a code is a PlatSchemaError, and a charged wrong shape reports its charge', async () => {
    const noCode = await canned({ msg: 'hello', data: {} });
    const first = await platErrorOf(noCode.client.shopId({ wwid: 'x' }));
    expect(first).toMatchObject({ code: 'schema_mismatch', operation: 'get-shop-id' });
    // Not an envelope: an answer that could not be read, recorded as such.
    expect(noCode.charges).toEqual([
      expect.objectContaining({ operation: 'get-shop-id', code: NO_ANSWER_CODE, points: 0, quotaCalls: 0 }),
    ]);

    const charged = await canned(envelope({ modules: 'nope', withholding_money: 5 }));
    const second = await platErrorOf(
      charged.client.waybillPrintData({ shopId: '1', waybills: [{ waybillCode: 'SF1234567890123' }] }),
    );
    expect(second).toMatchObject({ code: 'schema_mismatch', operation: 'platdybw', chargePoints: 5 });
    expect(charged.charges).toEqual([expect.objectContaining({ operation: 'platdybw', points: 5, code: 0 })]);
  });
});

describe('the token never appears in an error', () => {
  it('not when a proxy page echoes it, even where the excerpt is cut', async () => {
    for (const at of [0, 30, 55, 60, 70]) {
      const rig = await canned({
        raw: `${'x'.repeat(at)}Bearer ${TOKEN} rejected by upstream proxy`,
        status: 502,
        contentType: 'text/plain',
      });
      const error = await platErrorOf(rig.client.shopId({ wwid: 'x' }));
      expect(error).toBeInstanceOf(PlatBadResponseError);
      expectNoToken(error);
    }
  });

  it('not when the service echoes it in msg', async () => {
    const rig = await canned({ code: 401, msg: `token ${TOKEN} is invalid`, data: {} });
    const error = await platErrorOf(rig.client.shopId({ wwid: 'x' }));
    expect(error).toMatchObject({ code: 'credential_invalid' });
    expectNoToken(error);
  });

  it('not with a wrong token, nor in any fault of the sandbox', async () => {
    const wrong = await harness({ token: TOKEN, sandbox: { token: 'the-right-one' } });
    expectNoToken(await platErrorOf(wrong.client.itemInfo({ itemId: F.items.basic })));

    const h = await harness({ timeouts: { deadlineMs: 200 } });
    for (const fault of [{ kind: 'hang' }, { kind: 'http500' }, { kind: 'malformed' }] as const) {
      h.sandbox.setFaults([fault]);
      expectNoToken(await platErrorOf(h.client.shopId({ wwid: F.wwids.known })));
    }
  });
});

describe('the wire', () => {
  /** Minimal valid answers, so each call completes and its request can be inspected. */
  function answerFor(request: CapturedRequest): CannedAnswer {
    const operation = (Object.keys(OPERATIONS) as Operation[]).find((op) =>
      request.path.endsWith(OPERATIONS[op].path),
    );
    switch (operation) {
      case 'platdybw':
        return envelope({ modules: [], withholding_money: 5 });
      case 'platiteminfo':
        return envelope({ name: 'x' });
      case 'platiteminfoprice':
        return envelope({ jprice: '1.00' });
      case 'get-shop-info':
        return envelope({ shop_Id: 1, shopName: 'x' });
      case 'get-shop-id':
        return envelope({ shopid: '1' });
      case 'platdzmd':
        return envelope({ plat_waybill_query_by_waybillcode_response: { modules: [] } });
      case 'paging-orders':
        return envelope({ content: [], totalElements: 0 });
      default:
        return { code: 404, msg: 'no such path' };
    }
  }

  async function sent(
    call: (rig: PlatClientRig) => Promise<unknown>,
    editions?: Partial<Record<Operation, number>>,
  ) {
    const rig = await canned(answerFor, editions ? { editions } : {});
    await call(rig);
    expect(rig.server.requests).toHaveLength(1);
    const request = rig.server.requests[0] as CapturedRequest;
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    return request;
  }

  it('GET operations send their parameters as the query, with no body', async () => {
    const item = await sent((r) => r.client.itemInfo({ itemId: ' 680001234501 ' }));
    expect(item).toMatchObject({ method: 'GET', path: OPERATIONS.platiteminfo.path });
    expect(Object.fromEntries(item.query)).toEqual({ itemId: '680001234501' });
    expect(item.body.length).toBe(0);
    expect(item.headers['content-type']).toBeUndefined();

    const prices = await sent((r) => r.client.itemPrices({ itemId: '680001234501' }));
    expect(prices).toMatchObject({ method: 'GET', path: OPERATIONS.platiteminfoprice.path });

    const link = 'https://item.taobao.com/item.htm?id=680001234501&spm=a1z10.1&x=a b';
    const shop = await sent((r) => r.client.shopInfo({ url: link, type: '0' }));
    expect(shop.method).toBe('GET');
    expect(Object.fromEntries(shop.query)).toEqual({ url: link, type: '0', vvtype: '1' });

    const noType = await sent((r) => r.client.shopInfo({ url: link }), { 'get-shop-info': 3 });
    expect(Object.fromEntries(noType.query)).toEqual({ url: link, vvtype: '3' });

    const id = await sent((r) => r.client.shopId({ wwid: F.wwids.knownChinese }));
    expect(id.query.get('wwid')).toBe(F.wwids.knownChinese);
    expect(id.url).not.toContain(F.wwids.knownChinese); // percent-encoded on the wire
  });

  it('platdybw is JSON with vvtype as text and param_list always present', async () => {
    const request = await sent((r) =>
      r.client.waybillPrintData({
        shopId: F.shops.clothing,
        waybills: [
          { waybillCode: F.waybills.ok[0], cpCode: 'SF' },
          { waybillCode: F.waybills.ok[1], objectId: 'mine' },
        ],
      }),
    );
    expect(request).toMatchObject({ method: 'POST', path: OPERATIONS.platdybw.path });
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString())).toEqual({
      shop_id: F.shops.clothing,
      vvtype: '1',
      param_list: [
        { waybill_code: F.waybills.ok[0], object_id: '1', cp_code: 'SF' },
        { waybill_code: F.waybills.ok[1], object_id: 'mine' },
      ],
    });

    const standard = await sent(
      (r) => r.client.waybillPrintData({ shopId: '1', waybills: [{ waybillCode: F.waybills.ok[0] }] }),
      { platdybw: 3 },
    );
    expect(JSON.parse(standard.body.toString())).toMatchObject({
      vvtype: '3',
      param_list: [expect.any(Object)],
    });
  });

  it('platdzmd is JSON with owner_id, vvtype and every param_list field', async () => {
    const request = await sent((r) =>
      r.client.waybillInfo({
        ownerId: F.owners.busy,
        waybills: [{ waybillCode: F.waybills.ok[0], wpCode: 'SF' }],
      }),
    );
    expect(request).toMatchObject({ method: 'POST', path: OPERATIONS.platdzmd.path });
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString())).toEqual({
      owner_id: F.owners.busy,
      vvtype: 1,
      param_list: [{ object_id: '1', waybill_code: F.waybills.ok[0], wp_code: 'SF' }],
    });
  });

  it('paging-orders is a multipart form; times are UTC+8 wall-clock text', async () => {
    const startTime = new Date('2024-06-01T00:00:00Z');
    const endTime = new Date('2024-06-01T12:30:15Z');
    const request = await sent((r) =>
      r.client.orders({ ownerId: F.owners.busy, page: 2, pageSize: 50, startTime, endTime, remarkTag: 1 }),
    );
    expect(request).toMatchObject({ method: 'POST', path: OPERATIONS['paging-orders'].path });
    const contentType = String(request.headers['content-type']);
    expect(contentType).toMatch(/^multipart\/form-data; ?boundary=/);
    const form = await new Request('http://x.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(request.body),
    }).formData();
    expect(Object.fromEntries(form)).toEqual({
      owner_id: F.owners.busy,
      vvtype: '1',
      page: '2',
      pageSize: '50',
      start_time: '2024-06-01 08:00:00',
      end_time: '2024-06-01 20:30:15',
      remarkTag: '1',
    });

    const bare = await sent((r) => r.client.orders({ ownerId: F.owners.small }));
    const bareForm = await new Request('http://x.invalid/', {
      method: 'POST',
      headers: { 'content-type': String(bare.headers['content-type']) },
      body: new Uint8Array(bare.body),
    }).formData();
    expect(Object.fromEntries(bareForm)).toEqual({
      owner_id: F.owners.small,
      vvtype: '1',
      page: '0',
      pageSize: '100',
    });
  });

  it('a base URL with a path prefix keeps it', async () => {
    const rig = await canned(answerFor);
    const prefixed = createClientRig({ baseUrl: `${rig.baseUrl}/api/`, token: TOKEN });
    closers.push(prefixed.close);
    await prefixed.client.itemPrices({ itemId: '680001234501' });
    expect(rig.server.requests[0]?.path).toBe(`/api${OPERATIONS.platiteminfoprice.path}`);
  });
});

describe('the shared limiter at the sandbox', () => {
  /** The most of `times` inside any half-open window [t, t + spanMs). */
  const maxInAnyWindow = (times: number[], spanMs: number) =>
    Math.max(...times.map((from) => times.filter((t) => t >= from && t < from + spanMs).length));

  it('30 concurrent calls from a cold start: never more than 10 in any second at the sandbox, no violations', async () => {
    const starts: number[] = [];
    const h = await harness({ limiter: { onStarted: () => starts.push(performance.now()) } });
    const c = h.client;
    // Cold on purpose (new sockets, first-time code): a call holds its limiter slot until it settles
    // and the slot rests windowMs + margin after that, so however late the first burst's requests
    // arrive, the next burst cannot meet them inside one server second.
    const queued: number[] = [];
    const options = { onQueued: (t: { position: number }) => queued.push(t.position) };
    const calls = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? c.shopId({ wwid: F.wwids.known }, options)
        : i % 3 === 1
          ? c.itemPrices({ itemId: F.items.tea }, options)
          : c.orders({ ownerId: F.owners.small, pageSize: 1, page: i % 20 }, options),
    );
    const results = await Promise.allSettled(calls);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    // The limiter's side: two calls on one slot start at least windowMs + margin apart (the later
    // one a gap after the earlier one's answer, which came after its start).
    expect(starts).toHaveLength(30);
    expect(maxInAnyWindow(starts, 1_000)).toBe(10);
    expect(queued).toHaveLength(20);
    // ... and what the service sees.
    const stats = h.sandbox.stats();
    expect(stats.calls).toBe(30);
    expect(stats.maxInWindow).toBeLessThanOrEqual(10);
    expect(stats.violations).toBe(0);
    expect(h.limiter.stats()).toMatchObject({ started: 30, refused: 0 });
  });

  it('an offered 10 calls/s answered at once: little queueing (wait p99) and never more than 10 in any second at the sandbox', async () => {
    const waits: number[] = [];
    const h = await harness({ limiter: { onStarted: ({ waitedMs }) => waits.push(waitedMs) } });
    // Warm (sockets open, code compiled; the cold start has its test above), then a second's rest.
    await Promise.all(Array.from({ length: 10 }, () => h.client.shopId({ wwid: F.wwids.known })));
    await new Promise((r) => setTimeout(r, 1_100));
    waits.length = 0;
    const offered = 60;
    const t0 = performance.now();
    const calls: Promise<unknown>[] = [];
    // Every 100 ms from t0 (not from the previous timer, which would drift below 10/s).
    await new Promise<void>((done) => {
      let i = 0;
      const next = () => {
        calls.push(h.client.shopId({ wwid: F.wwids.known }));
        i += 1;
        if (i === offered) done();
        else setTimeout(next, Math.max(0, t0 + i * 100 - performance.now()));
      };
      next();
    });
    const results = await Promise.allSettled(calls);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(waits).toHaveLength(offered);
    const sorted = [...waits].sort((a, b) => a - b);
    const p99 = sorted[Math.ceil(0.99 * sorted.length) - 1] ?? Number.NaN;
    // A slot rests from its call's answer: the queue grows by the answer's latency (a few ms) per
    // second (resting from the settle + 10 ms, by 13+ ms a second).
    // On a quiet machine p99 is a few ms; on this 2-core machine at load 14–17 it measured
    // 85–130 ms (each window adds the time to the answer's headers, which load stretches). The
    // bound fails a limiter whose capacity is well below 10/s (a queue growing ≥ 50 ms a second);
    // the rule's exact arithmetic, and that resting from the settle would fail it, are checked on
    // a fake clock (limiter.test.ts).
    expect(p99).toBeLessThan(300);
    const stats = h.sandbox.stats();
    expect(stats.calls).toBe(10 + offered);
    expect(stats.maxInWindow).toBeLessThanOrEqual(10);
    expect(stats.violations).toBe(0);
  });
});
