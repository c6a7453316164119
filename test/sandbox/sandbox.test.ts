import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPERATIONS, type Operation } from '../../src/plat/operations.js';
import {
  createSandbox,
  SANDBOX_FIXTURES as F,
  ITEM_NOT_FOUND,
  NOT_ENOUGH_CALLS,
  type Sandbox,
  type SandboxOptions,
  SHOP_NOT_FOUND,
} from '../../src/sandbox/index.js';

const TOKEN = 'sandbox';
const HOUR = 3_600_000;

interface CallOptions {
  query?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  urlencoded?: Record<string, string>;
  token?: string | null;
  method?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: test helper returns parsed JSON of many shapes.
type Json = any;

function client(base: string) {
  async function raw(operation: Operation, options: CallOptions = {}): Promise<Response> {
    const spec = OPERATIONS[operation];
    const url = new URL(spec.path, base);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? TOKEN : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: RequestInit['body'];
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      const form = new FormData();
      for (const [key, value] of Object.entries(options.form)) form.set(key, value);
      body = form;
    } else if (options.urlencoded !== undefined) {
      body = new URLSearchParams(options.urlencoded);
    }
    return fetch(url, {
      method: options.method ?? spec.method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
  }
  async function call(operation: Operation, options: CallOptions = {}): Promise<Json> {
    const response = await raw(operation, options);
    expect(response.status).toBe(200);
    return response.json();
  }
  return { raw, call };
}

async function started(options: SandboxOptions = {}) {
  const sandbox = createSandbox(options);
  const base = await sandbox.listen(0);
  return { sandbox, base, ...client(base) };
}

function expectEnvelope(body: Json, code: number): void {
  expect(body.code).toBe(code);
  expect(typeof body.msg).toBe('string');
  expect(Number.isInteger(body.msec)).toBe(true);
  expect(String(body.time)).toMatch(/^\d{13}$/);
}

describe('plat API sandbox', () => {
  let sandbox: Sandbox;
  let base: string;
  let call: ReturnType<typeof client>['call'];
  let raw: ReturnType<typeof client>['raw'];

  beforeAll(async () => {
    ({ sandbox, base, call, raw } = await started());
  });
  afterAll(() => sandbox.close());
  beforeEach(() => sandbox.reset());

  describe('auth and routing', () => {
    it('answers 401 in an HTTP 200 JSON envelope without or with a wrong token, counted as calls', async () => {
      expectEnvelope(await call('get-shop-id', { query: { wwid: F.wwids.known }, token: null }), 401);
      const wrong = await call('get-shop-id', { query: { wwid: F.wwids.known }, token: 'nope' });
      expect(wrong).toMatchObject({ code: 401, msg: 'Credential invalid' });
      const stats = sandbox.stats();
      expect(stats).toMatchObject({ calls: 2, unauthorized: 2, charges: { count: 0 } });
      expect(stats.callsByOperation['get-shop-id']).toBe(0);
    });

    it('answers 404 for an unknown path or a wrong method', async () => {
      const unknown = await (
        await fetch(`${base}/papi/tool/erps/nothing`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json();
      expectEnvelope(unknown, 404);
      expect((await call('platdybw', { method: 'GET' })).code).toBe(404);
    });
  });

  describe('items (quota-charged)', () => {
    it('platiteminfo puts the item fields at the top level, with the joined-names SKU key', async () => {
      const body = await call('platiteminfo', { query: { itemId: F.items.basic } });
      expectEnvelope(body, 0);
      expect(body.data).toBeUndefined();
      expect(body).toMatchObject({
        shopId: F.shops.clothing,
        storeName: '小蜜蜂服饰',
        videoUrl: '',
      });
      // spec §2.4 / §4.2 sample: no withholding_money; the charge is one call of the quota (§8).
      expect(body).not.toHaveProperty('withholding_money');
      expect(body.product.cat.every((c: unknown) => typeof c === 'number')).toBe(true);
      expect(body.product.imageList[0]).toMatch(/^\/\//);
      expect(body.product.skus).toHaveLength(9);
      const sku = body.product.skus[0];
      expect(sku).toMatchObject({ jprice: '59.00', oprice: '99.00', '颜色分类,尺码': '白色,M' });
      expect(sku.propPath).toMatch(/^\d+:\d+;\d+:\d+$/);
      expect(body.skuBase.map((p: Json) => p.name)).toEqual(['颜色分类', '尺码']);
      expect(body.skuBase[1].values[0].image).toBe('');
      expect(Object.keys(body.props.groupProps[0])).toHaveLength(1);
      expect(sandbox.stats()).toMatchObject({ itemCallsCharged: 1, itemQuota: 99_999 });
    });

    it('serves the many-SKU, video and long-title items', async () => {
      const many = await call('platiteminfo', { query: { itemId: F.items.manySkus } });
      expect(many.product.skus.length).toBeGreaterThanOrEqual(30);
      expect((await call('platiteminfo', { query: { itemId: F.items.withVideo } })).videoUrl).toMatch(
        /^\/\/.+\.mp4$/,
      );
      expect((await call('platiteminfo', { query: { itemId: F.items.longTitle } })).name).toHaveLength(300);
    });

    it('a missing item answers code 100 and still takes one call of the quota (spec §4.2)', async () => {
      const body = await call('platiteminfo', { query: { itemId: F.items.missing } });
      expect(body).toMatchObject({ code: 100, msg: ITEM_NOT_FOUND, data: {} });
      expect(JSON.stringify(body)).not.toContain('withholding_money');
      expect(sandbox.stats().itemQuota).toBe(99_999);
      const noId = await call('platiteminfo');
      expect(noId.code).toBe(100);
      expect(sandbox.stats().itemQuota).toBe(99_999);
    });

    it('platiteminfoprice answers decimal text with two decimals', async () => {
      const body = await call('platiteminfoprice', { query: { itemId: F.items.basic } });
      // spec §4.3 / §2.5 sample: the three prices and nothing else (no withholding_money).
      expect(body.data).toEqual({ jprice: '59.00', oprice: '99.00', mprice: '89.00' });
    });

    it('answers 204 "Not enough calls left" when the item quota is used up', async () => {
      sandbox.setItemQuota(1);
      expect((await call('platiteminfoprice', { query: { itemId: F.items.basic } })).code).toBe(0);
      const refused = await call('platiteminfo', { query: { itemId: F.items.basic } });
      expect(refused).toMatchObject({ code: 204, msg: NOT_ENOUGH_CALLS });
      expect(sandbox.stats()).toMatchObject({ itemQuota: 0, itemCallsCharged: 1 });
    });
  });

  describe('shops', () => {
    it('get-shop-info answers shop_Id as an int and charges per edition', async () => {
      const basic = await call('get-shop-info', { query: { url: F.links.firstMarketplace } });
      expectEnvelope(basic, 0);
      expect(basic.data).toMatchObject({
        shop_Id: Number(F.shops.clothing),
        showShopLinkIcon: 'false',
        shopTextColor: '#ff5000',
        shopVersion: '',
        withholding_money: 10,
      });
      const enhanced = await call('get-shop-info', {
        query: { url: F.links.brandedStore, vvtype: '2', type: '1' },
      });
      expect(enhanced.data).toMatchObject({ shop_Id: Number(F.shops.tea), withholding_money: 20 });
      expect((await call('get-shop-info', { query: { url: F.links.secondMarketplace } })).code).toBe(0);
      expect(sandbox.stats().charges.byOperation['get-shop-info']).toEqual({ count: 3, points: 40 });
    });

    it('get-shop-info rejects a missing url, a bad edition and an unknown item without charging', async () => {
      expect((await call('get-shop-info')).code).toBe(100);
      expect(
        (await call('get-shop-info', { query: { url: F.links.firstMarketplace, vvtype: '4' } })).code,
      ).toBe(100);
      expect((await call('get-shop-info', { query: { url: F.links.unknownItem } })).code).toBe(100);
      expect(sandbox.stats().charges.count).toBe(0);
    });

    it('get-shop-id answers shopid as text, and charges for "shop does not exist" too (spec §4.5)', async () => {
      expect((await call('get-shop-id', { query: { wwid: F.wwids.known } })).data).toEqual({
        shopid: F.shops.clothing,
        withholding_money: 2,
      });
      expect((await call('get-shop-id', { query: { wwid: F.wwids.knownChinese } })).data.shopid).toBe(
        F.shops.tea,
      );
      const missing = await call('get-shop-id', { query: { wwid: F.wwids.unknown } });
      expect(missing).toMatchObject({ code: 0, msg: SHOP_NOT_FOUND, data: { withholding_money: 2 } });
      expect(missing.data).not.toHaveProperty('shopid');
      expect(sandbox.stats().charges.byOperation['get-shop-id']).toEqual({ count: 3, points: 6 });
    });
  });

  describe('waybills', () => {
    it('platdybw: modules is an object, print_data holds JSON, records fail alone', async () => {
      const body = await call('platdybw', {
        json: {
          shop_id: F.shops.clothing,
          vvtype: '1',
          param_list: [
            { object_id: 'a', waybill_code: F.waybills.ok[0], cp_code: 'SF' },
            { object_id: 'b', waybill_code: F.waybills.failing },
            { object_id: 'c', waybill_code: F.waybills.parentChild },
          ],
        },
      });
      expectEnvelope(body, 0);
      expect(body.data.withholding_money).toBe(5);
      expect(typeof body.data.request_id).toBe('string');
      const [ok, failed, child] = body.data.modules.waybill_cloud_print_with_result_desc_response;
      expect(ok).toMatchObject({
        object_id: 'a',
        success: true,
        waybill_cloud_print_response: { waybill_code: F.waybills.ok[0] },
      });
      expect(Object.keys(JSON.parse(ok.waybill_cloud_print_response.print_data)).sort()).toEqual([
        'encryptedData',
        'signature',
        'templateURL',
        'ver',
      ]);
      expect(failed).toMatchObject({ object_id: 'b', success: false, error_code: 'isv.waybill-not-exist' });
      expect(child.parent_waybill_code).toBe(F.waybills.parent);
    });

    it('platdybw validates vvtype and the 20-item limit, and prices the standard edition higher', async () => {
      const list = (n: number) =>
        Array.from({ length: n }, (_, i) => ({ object_id: String(i), waybill_code: F.waybills.ok[0] }));
      expect(
        (await call('platdybw', { json: { shop_id: F.shops.clothing, param_list: list(1) } })).code,
      ).toBe(100);
      expect(
        (await call('platdybw', { json: { shop_id: F.shops.clothing, vvtype: 2, param_list: list(1) } }))
          .code,
      ).toBe(100);
      expect(
        (await call('platdybw', { json: { shop_id: F.shops.clothing, vvtype: 1, param_list: list(21) } }))
          .code,
      ).toBe(100);
      const standard = await call('platdybw', {
        json: { shop_id: F.shops.clothing, vvtype: 3, param_list: list(20) },
      });
      expect(standard.data.withholding_money).toBe(8);
    });

    it('answers 302 with the authorization link for an unauthorized shop, without charging', async () => {
      const dybw = await call('platdybw', {
        json: { shop_id: F.shops.unauthorized, vvtype: '1', param_list: [{}] },
      });
      expect(dybw).toMatchObject({ code: 302, data: { url: F.authUrlFor(F.shops.unauthorized) } });
      const dzmd = await call('platdzmd', {
        json: {
          owner_id: F.owners.unauthorized,
          param_list: [{ object_id: '1', waybill_code: 'x', wp_code: 'SF' }],
        },
      });
      expect(dzmd).toMatchObject({ code: 302, data: { url: F.authUrlFor(F.owners.unauthorized) } });
      expect(sandbox.stats().charges.count).toBe(0);
    });

    it('platdzmd nests modules in plat_waybill_query_by_waybillcode_response', async () => {
      const body = await call('platdzmd', {
        json: {
          owner_id: F.owners.busy,
          param_list: [{ object_id: '7', waybill_code: F.waybills.ok[1], wp_code: 'YTO' }],
        },
      });
      expect(body.data.withholding_money).toBe(4);
      expect(
        body.data.plat_waybill_query_by_waybillcode_response.modules[0].waybill_cloud_print_response,
      ).toMatchObject({
        object_id: '7',
        waybill_code: F.waybills.ok[1],
        wp_code: 'YTO',
      });
      const missingWp = await call('platdzmd', {
        json: { owner_id: F.owners.busy, param_list: [{ object_id: '7', waybill_code: F.waybills.ok[1] }] },
      });
      expect(missingWp.code).toBe(100);
    });
  });

  describe('charges', () => {
    it('answers 204 "Not enough calls left" when the balance cannot cover the price', async () => {
      sandbox.setBalance(12);
      expect((await call('get-shop-info', { query: { url: F.links.firstMarketplace } })).code).toBe(0);
      const refused = await call('get-shop-info', { query: { url: F.links.firstMarketplace } });
      expect(refused).toMatchObject({ code: 204, msg: NOT_ENOUGH_CALLS });
      expect(refused.data).not.toHaveProperty('withholding_money');
      expect(sandbox.stats()).toMatchObject({ balancePoints: 2, charges: { count: 1, points: 10 } });
    });

    it('takes prices per operation or per edition', async () => {
      const priced = await started({ prices: { 'get-shop-info': 7, platdybw: { 3: 11 } } });
      try {
        expect(
          (await priced.call('get-shop-info', { query: { url: F.links.firstMarketplace, vvtype: '2' } })).data
            .withholding_money,
        ).toBe(7);
        const list = [{ object_id: '1', waybill_code: F.waybills.ok[0] }];
        const dybw = (vvtype: string) =>
          priced.call('platdybw', { json: { shop_id: F.shops.tea, vvtype, param_list: list } });
        expect((await dybw('3')).data.withholding_money).toBe(11);
        expect((await dybw('1')).data.withholding_money).toBe(5);
      } finally {
        await priced.sandbox.close();
      }
    });
  });

  describe('faults', () => {
    it('latency delays the answer', async () => {
      sandbox.setFaults([{ kind: 'latency', ms: 120 }]);
      const start = performance.now();
      expect((await call('get-shop-id', { query: { wwid: F.wwids.known } })).code).toBe(0);
      expect(performance.now() - start).toBeGreaterThanOrEqual(110);
    });

    it('http500 answers an HTML page and malformed a truncated body', async () => {
      sandbox.setFaults([{ kind: 'http500', operations: ['get-shop-id'] }, { kind: 'malformed' }]);
      const html = await raw('get-shop-id', { query: { wwid: F.wwids.known } });
      expect(html.status).toBe(500);
      expect(html.headers.get('content-type')).toMatch(/text\/html/);
      const truncated = await raw('get-shop-info', { query: { url: F.links.firstMarketplace } });
      expect(truncated.status).toBe(200);
      await expect(truncated.json()).rejects.toThrow();
      expect(sandbox.stats().charges.count).toBe(0);
    });

    it('a code fault with count hits the next N matching calls, uncharged, then is used up', async () => {
      sandbox.setFaults([{ kind: 'code', code: 202, count: 2, operations: ['get-shop-id'] }]);
      const query = { wwid: F.wwids.known };
      expect(await call('get-shop-id', { query })).toMatchObject({
        code: 202,
        msg: 'System error, retry later',
        data: {},
      });
      expect((await call('get-shop-info', { query: { url: F.links.firstMarketplace } })).code).toBe(0);
      expect((await call('get-shop-id', { query })).code).toBe(202);
      expect((await call('get-shop-id', { query })).code).toBe(0);
      expect(sandbox.stats().charges.byOperation['get-shop-id'].count).toBe(1);
    });

    it('a fault scoped to pages hits only those paging-orders pages; the others answer exactly as without faults', async () => {
      const form = (page: number) => ({
        form: { owner_id: F.owners.busy, page: String(page), pageSize: '100' },
      });
      const normal = await call('paging-orders', form(1));
      sandbox.reset();
      sandbox.setFaults([{ kind: 'http500', pages: [1], count: 2 }]);
      expect((await raw('paging-orders', form(1))).status).toBe(500);
      // Another page, another operation: untouched.
      const page0 = await call('paging-orders', form(0));
      expect(page0.code).toBe(0);
      expect((await call('get-shop-id', { query: { wwid: F.wwids.known } })).code).toBe(0);
      expect((await raw('paging-orders', form(1))).status).toBe(500);
      // Used up: page 1 answers as it did with no fault at all (time and msec aside).
      const after = await call('paging-orders', form(1));
      expect(after.data).toEqual(normal.data);
      expect(after.code).toBe(0);
      // The failed calls arrived and were counted, but nothing was charged for them.
      expect(sandbox.stats().callsByOperation['paging-orders']).toBe(4);
      expect(sandbox.stats().charges.byOperation['paging-orders'].count).toBe(2);
    });

    it('a 302 code fault carries a link by default', async () => {
      sandbox.setFaults([{ kind: 'code', code: 302 }]);
      expect((await call('get-shop-id', { query: { wwid: F.wwids.known } })).data.url).toMatch(/^https:\/\//);
    });
  });

  describe('orders', () => {
    it('pages through every order of the busy owner, newest first, from a multipart form', async () => {
      const seen: Json[] = [];
      for (let page = 0; ; page += 1) {
        const body = await call('paging-orders', {
          form: { owner_id: F.owners.busy, page: String(page), pageSize: '100' },
        });
        expectEnvelope(body, 0);
        expect(body.data).toMatchObject({
          page,
          pageSize: 100,
          totalElements: F.orderCounts.busy,
          withholding_money: 2,
        });
        seen.push(...body.data.content);
        if (body.data.content.length < 100) break;
      }
      expect(seen).toHaveLength(F.orderCounts.busy);
      expect(new Set(seen.map((o) => o.order_sn)).size).toBe(F.orderCounts.busy);
      const times = seen.map((o) => o.confirm_time);
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(Object.keys(seen[0]).sort()).toEqual(
        [
          'receiver_name',
          'receiver_phone',
          'province',
          'city',
          'town',
          'receiver_address',
          'order_sn',
          'goods_name',
          'goods_img',
          'goods_spec',
          'is_pre_sale',
          'last_ship_time',
          'confirm_time',
          'remark',
          'goods_count',
          'pay_amount',
          'order_status',
          'remark_tag',
          'remark_tag_name',
          'withholding_money',
        ].sort(),
      );
      expect(seen[0].receiver_name).toMatch(/^.\*\*$/);
      expect(seen[0].receiver_phone).toMatch(/^\d{3}\*{4}\d{4}$/);
      expect(seen.some((o) => ![1, 2, 3].includes(o.order_status))).toBe(true);
    });

    it('accepts urlencoded and JSON bodies, defaults to page 0 of 10', async () => {
      const form = await call('paging-orders', { urlencoded: { owner_id: F.owners.small, vvtype: '2' } });
      expect(form.data).toMatchObject({
        page: 0,
        pageSize: 10,
        totalElements: F.orderCounts.small,
        withholding_money: 1,
      });
      expect(form.data.content).toHaveLength(10);
      const json = await call('paging-orders', { json: { owner_id: F.owners.small, page: 1, pageSize: 15 } });
      expect(json.data.content).toHaveLength(F.orderCounts.small - 15);
    });

    it('rejects enhanced-only filters in the basic edition, an oversized page and an unauthorized owner', async () => {
      const basic = await call('paging-orders', {
        form: { owner_id: F.owners.busy, vvtype: '2', remark: 'x' },
      });
      expect(basic.code).toBe(100);
      expect(basic.msg).toContain('remark');
      expect((await call('paging-orders', { form: { owner_id: F.owners.busy, pageSize: '101' } })).code).toBe(
        100,
      );
      const denied = await call('paging-orders', { form: { owner_id: F.owners.unauthorized } });
      expect(denied).toMatchObject({ code: 302, data: { url: F.authUrlFor(F.owners.unauthorized) } });
      expect(sandbox.stats().charges.count).toBe(0);
    });
  });
});

describe('paging-orders time filter (fixed clock)', () => {
  // 2024-05-20 12:00:00 in Asia/Shanghai.
  const anchor = Date.UTC(2024, 4, 20, 4, 0, 0);
  let ctx: Awaited<ReturnType<typeof started>>;
  beforeAll(async () => {
    ctx = await started({ now: () => anchor });
  });
  afterAll(() => ctx.sandbox.close());

  async function allOrders(): Promise<Json[]> {
    const orders: Json[] = [];
    for (let page = 0; page < 4; page += 1) {
      const body = await ctx.call('paging-orders', {
        form: { owner_id: F.owners.busy, page: String(page), pageSize: '100' },
      });
      orders.push(...body.data.content);
    }
    return orders;
  }

  it('filters confirm_time on [start, end) in every accepted format, at most 24 h', async () => {
    const orders = await allOrders();
    expect(orders.every((o) => o.confirm_time < anchor && o.confirm_time >= anchor - F.orderSpanMs)).toBe(
      true,
    );
    const start = anchor - 24 * HOUR;
    const expected = orders.filter((o) => o.confirm_time >= start && o.confirm_time < anchor).length;
    expect(expected).toBeGreaterThan(50);

    const windows = [
      { start_time: String(start), end_time: String(anchor) },
      { start_time: String(start / 1000), end_time: String(anchor / 1000) },
      { start_time: '2024-05-19 12:00:00', end_time: '2024-05-20 12:00:00' },
    ];
    for (const window of windows) {
      const body = await ctx.call('paging-orders', {
        form: { owner_id: F.owners.busy, vvtype: '1', ...window },
      });
      expect(body.code).toBe(0);
      expect(body.data.totalElements).toBe(expected);
    }
    const tooLong = await ctx.call('paging-orders', {
      form: { owner_id: F.owners.busy, start_time: String(start - 1000), end_time: String(anchor) },
    });
    expect(tooLong.code).toBe(100);
    const badFormat = await ctx.call('paging-orders', {
      form: { owner_id: F.owners.busy, start_time: '2024/05/19', end_time: String(anchor) },
    });
    expect(badFormat.code).toBe(100);
  });
});

describe('rate accounting, debug endpoints and close', () => {
  it('counts 15 simultaneous calls as maxInWindow 15 with 5 violations', async () => {
    const { sandbox, call } = await started();
    try {
      await Promise.all(
        Array.from({ length: 15 }, () => call('get-shop-id', { query: { wwid: F.wwids.known } })),
      );
      expect(sandbox.stats()).toMatchObject({ calls: 15, maxInWindow: 15, violations: 5 });
    } finally {
      await sandbox.close();
    }
  });

  it('records each call’s arrival time in its rate clock, 401s included, until reset', async () => {
    let t = 1_000;
    const { sandbox, call } = await started({ now: () => t });
    try {
      await call('get-shop-id', { query: { wwid: F.wwids.known } });
      t = 1_250;
      await call('get-shop-id', { query: { wwid: F.wwids.known }, token: 'wrong' });
      t = 2_500;
      await call('get-shop-id', { query: { wwid: F.wwids.known } });
      expect(sandbox.arrivals()).toEqual([1_000, 1_250, 2_500]);
      expect(sandbox.stats().calls).toBe(sandbox.arrivals().length);
      // A copy: the caller cannot change what the sandbox recorded.
      sandbox.arrivals().pop();
      expect(sandbox.arrivals()).toHaveLength(3);
      sandbox.reset();
      expect(sandbox.arrivals()).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('serves stats, faults, balance and reset over HTTP without counting them', async () => {
    const { sandbox, base, call } = await started();
    const post = (path: string, body?: unknown) =>
      fetch(`${base}/__sandbox/${path}`, {
        method: 'POST',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    try {
      expect((await post('faults', { faults: [{ kind: 'code', code: 101, count: 1 }] })).status).toBe(200);
      expect((await post('faults', { faults: [{ kind: 'teapot' }] })).status).toBe(400);
      expect(await (await post('balance', { points: 3, itemQuota: 5 })).json()).toEqual({
        ok: true,
        balancePoints: 3,
        itemQuota: 5,
      });
      expect((await call('get-shop-id', { query: { wwid: F.wwids.known } })).code).toBe(101);
      expect((await call('get-shop-id', { query: { wwid: F.wwids.known } })).data.withholding_money).toBe(2);
      const stats = await (await fetch(`${base}/__sandbox/stats`)).json();
      expect(stats).toMatchObject({ calls: 2, balancePoints: 1, itemQuota: 5 });
      expect((await post('reset')).status).toBe(200);
      expect(sandbox.stats()).toMatchObject({ calls: 0, balancePoints: 1_000_000, itemQuota: 100_000 });
    } finally {
      await sandbox.close();
    }
  });

  it('close() ends a hung request promptly', async () => {
    const { sandbox, call } = await started();
    sandbox.setFaults([{ kind: 'hang' }]);
    const pending = call('get-shop-id', { query: { wwid: F.wwids.known } });
    pending.catch(() => undefined);
    while (sandbox.stats().calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const start = performance.now();
    await sandbox.close();
    expect(performance.now() - start).toBeLessThan(500);
    await expect(pending).rejects.toThrow();
  });
});
