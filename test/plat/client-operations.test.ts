/**
 * The seven operations' happy paths: the real client against the real sandbox over loopback HTTP,
 * asserting the normalized domain values (spec §2, notes.md) rather than the wire shapes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, SANDBOX_FIXTURES as F, SHOP_NOT_FOUND } from '../../src/sandbox/index.js';
import { type PlatHarness, rawSandboxCall, startPlatHarness } from '../helpers/plat-harness.js';

const HOUR = 3_600_000;
const PRINT_DATA_KEYS = ['encryptedData', 'signature', 'templateURL', 'ver'];

let h: PlatHarness;
beforeEach(async () => {
  h = await startPlatHarness();
});
afterEach(() => h.close());

describe('platdybw: waybillPrintData', () => {
  it('normalizes modules-as-object records, parses print_data, keeps failing records and parents', async () => {
    const result = await h.client.waybillPrintData({
      shopId: F.shops.clothing,
      waybills: [
        { waybillCode: F.waybills.ok[0], cpCode: 'SF', objectId: 'first' },
        { waybillCode: F.waybills.failing },
        { waybillCode: F.waybills.parentChild, cpCode: 'DBKD' },
      ],
    });

    expect(result).toMatchObject({
      operation: 'platdybw',
      edition: 1,
      chargePoints: DEFAULT_PRICES.platdybw[1],
      message: 'success',
    });
    expect(result.requestId).toMatch(/^sbx-/);
    expect(result.serverTime).toBeInstanceOf(Date);
    expect(result.data).toHaveLength(3);
    const [ok, failing, child] = result.data;

    expect(ok).toMatchObject({ objectId: 'first', success: true, waybillCode: F.waybills.ok[0] });
    expect(ok?.errorCode).toBeNull();
    expect(Object.keys(ok?.printData ?? {}).sort()).toEqual(PRINT_DATA_KEYS);
    expect(ok?.printData?.templateURL).toMatch(/^https:\/\//);
    expect(ok?.printData?.encryptedData.length).toBeGreaterThan(0);
    expect(JSON.parse(ok?.printDataRaw ?? 'null')).toEqual(ok?.printData);

    // notes.md: one record fails on its own while the envelope says code 0.
    expect(failing).toMatchObject({
      objectId: '2',
      success: false,
      errorCode: 'isv.waybill-not-exist',
      printData: null,
      printDataRaw: null,
    });
    expect(failing?.errorMessage).toContain(F.waybills.failing);

    expect(child).toMatchObject({
      objectId: '3',
      success: true,
      waybillCode: F.waybills.parentChild,
      parentWaybillCode: F.waybills.parent,
    });
    expect(ok?.parentWaybillCode).toBeNull();
  });

  it('charges the standard edition at its own price', async () => {
    const result = await h.client.waybillPrintData({
      shopId: F.shops.tea,
      edition: 3,
      waybills: F.waybills.ok.map((waybillCode) => ({ waybillCode })),
    });
    expect(result.edition).toBe(3);
    expect(result.chargePoints).toBe(DEFAULT_PRICES.platdybw[3]);
    expect(result.data.map((r) => r.waybillCode)).toEqual(F.waybills.ok);
    expect(result.data.every((r) => r.success && r.printData !== null)).toBe(true);
  });
});

describe('platiteminfo: itemInfo', () => {
  it('reads the item from the top level: SKUs, https images, attributes, categories, no video', async () => {
    const result = await h.client.itemInfo({ itemId: F.items.basic });
    const item = result.data;
    // No withholding_money in item answers (spec §4.2): no points reported, one call of the quota.
    expect(result).toMatchObject({
      operation: 'platiteminfo',
      edition: null,
      chargePoints: null,
      quotaCalls: 1,
    });
    expect(item).toMatchObject({
      itemId: F.items.basic,
      title: '纯棉短袖T恤男夏季宽松圆领半袖上衣',
      shopId: F.shops.clothing,
      shopName: '小蜜蜂服饰',
      shopUrl: 'https://shop57301234.taobao.com',
      categoryIds: [16, 50000436],
      videoUrl: null,
    });
    expect(item.images).toHaveLength(4);
    expect(item.detailImages).toHaveLength(6);
    for (const url of [...item.images, ...item.detailImages]) expect(url).toMatch(/^https:\/\/[^/]/);

    expect(item.skus).toHaveLength(9);
    expect(item.skus[0]).toEqual({
      id: expect.any(String),
      propPath: expect.stringMatching(/^\d+:\d+;\d+:\d+$/),
      price: 59,
      originalPrice: 99,
      propNames: '颜色分类,尺码',
      propValues: '白色,M',
    });
    expect(item.skus.map((s) => s.propValues)).toContain('藏青色,XL');
    for (const sku of item.skus) expect(typeof sku.price).toBe('number');

    expect(item.skuProperties.map((p) => p.name)).toEqual(['颜色分类', '尺码']);
    expect(item.skuProperties[0]?.values[0]?.image).toMatch(/^https:\/\//);
    // Sizes have no picture: image '' becomes null.
    expect(item.skuProperties[1]?.values.map((v) => v.image)).toEqual([null, null, null]);

    expect(item.attributes).toEqual([
      { name: '品牌', value: '小蜜蜂' },
      { name: '材质成分', value: '棉100%' },
      { name: '袖长', value: '短袖' },
      { name: '适用季节', value: '夏季' },
    ]);
    expect(h.sandbox.stats()).toMatchObject({ itemCallsCharged: 1 });
  });

  it('makes the video address https and reads the one-property and many-SKU items', async () => {
    const video = await h.client.itemInfo({ itemId: F.items.withVideo });
    expect(video.data.videoUrl).toMatch(/^https:\/\/.+\.mp4$/);
    expect(video.data.skus).toHaveLength(4);
    expect(video.data.skus[0]?.propNames).not.toContain(',');

    const many = await h.client.itemInfo({ itemId: F.items.manySkus });
    expect(many.data.skus.length).toBeGreaterThanOrEqual(30);
    expect(new Set(many.data.skus.map((s) => s.id)).size).toBe(many.data.skus.length);

    const long = await h.client.itemInfo({ itemId: F.items.longTitle });
    expect(long.data.title).toHaveLength(300);
  });
});

describe('platiteminfoprice: itemPrices', () => {
  it('turns decimal text into numbers and keeps the text', async () => {
    const result = await h.client.itemPrices({ itemId: F.items.basic });
    expect(result.data).toEqual({
      itemId: F.items.basic,
      price: { value: 59, text: '59.00' },
      originalPrice: { value: 99, text: '99.00' },
      referencePrice: { value: 89, text: '89.00' },
    });
    expect(result).toMatchObject({ chargePoints: null, quotaCalls: 1, attempts: 1 });
    expect(h.sandbox.stats().itemCallsCharged).toBe(1);
  });
});

describe('get-shop-info: shopInfo', () => {
  it('turns shop_Id (int, capital I) into a string shopId and normalizes the rest', async () => {
    const result = await h.client.shopInfo({ url: F.links.firstMarketplace });
    expect(result).toMatchObject({
      operation: 'get-shop-info',
      edition: 1,
      chargePoints: DEFAULT_PRICES['get-shop-info'][1],
    });
    expect(result.data).toEqual({
      shopId: F.shops.clothing,
      name: '小蜜蜂服饰',
      url: 'https://shop57301234.taobao.com',
      firstMarketplaceUrl: 'https://shop57301234.taobao.com',
      iconUrl: `https://img.example.invalid/shop/${F.shops.clothing}.png`,
      showShopLinkIcon: false,
      card: expect.stringContaining('小蜜蜂服饰'),
      type: 'C',
      status: '1',
      version: null,
      textColor: '#ff5000',
    });
    expect(typeof result.data.shopId).toBe('string');
  });

  it('sends type and edition: the branded store at the enhanced price', async () => {
    const result = await h.client.shopInfo({ url: F.links.brandedStore, type: '1', edition: 2 });
    expect(result.data).toMatchObject({ shopId: F.shops.tea, name: '山间绿茶官方旗舰店', version: '3' });
    expect(result.chargePoints).toBe(DEFAULT_PRICES['get-shop-info'][2]);
  });
});

describe('get-shop-id: shopId', () => {
  it('reads the text shopid, also for a Chinese account id', async () => {
    const known = await h.client.shopId({ wwid: F.wwids.known });
    expect(known.data).toEqual({ found: true, wwid: F.wwids.known, shopId: F.shops.clothing });
    expect(known.chargePoints).toBe(DEFAULT_PRICES['get-shop-id']);
    const chinese = await h.client.shopId({ wwid: F.wwids.knownChinese });
    expect(chinese.data).toEqual({ found: true, wwid: F.wwids.knownChinese, shopId: F.shops.tea });
  });

  it('"shop does not exist" is found: false, not an error, and is still charged (spec §4.5)', async () => {
    const result = await h.client.shopId({ wwid: F.wwids.unknown });
    expect(result.data).toEqual({ found: false, wwid: F.wwids.unknown, message: SHOP_NOT_FOUND });
    expect(result.message).toBe(SHOP_NOT_FOUND);
    expect(result.chargePoints).toBe(DEFAULT_PRICES['get-shop-id']);
    expect(h.charges).toEqual([
      expect.objectContaining({ operation: 'get-shop-id', code: 0, points: DEFAULT_PRICES['get-shop-id'] }),
    ]);
    expect(h.sandbox.stats().charges.byOperation['get-shop-id']).toEqual({
      count: 1,
      points: DEFAULT_PRICES['get-shop-id'],
    });
  });
});

describe('platdzmd: waybillInfo', () => {
  it('flattens the modules into records and keeps the extra fields', async () => {
    const result = await h.client.waybillInfo({
      ownerId: F.owners.busy,
      waybills: [
        { waybillCode: F.waybills.ok[0], wpCode: 'SF' },
        { waybillCode: F.waybills.failing, wpCode: 'YTO', objectId: 'q-2' },
      ],
    });
    expect(result).toMatchObject({
      operation: 'platdzmd',
      edition: 1,
      chargePoints: DEFAULT_PRICES.platdzmd[1],
    });
    expect(result.data).toEqual([
      {
        objectId: '1',
        waybillCode: F.waybills.ok[0],
        extra: expect.objectContaining({ wp_code: 'SF', wp_name: '顺丰速运', logistics_status: 'SIGN' }),
      },
      {
        objectId: 'q-2',
        waybillCode: F.waybills.failing,
        extra: expect.objectContaining({ wp_code: 'YTO', logistics_status: 'NO_TRACE' }),
      },
    ]);
  });

  it('sends the professional edition at its price', async () => {
    const result = await h.client.waybillInfo({
      ownerId: F.owners.small,
      edition: 3,
      waybills: [{ waybillCode: F.waybills.ok[1], wpCode: 'YTO' }],
    });
    expect(result.chargePoints).toBe(DEFAULT_PRICES.platdzmd[3]);
  });
});

describe('paging-orders: orders', () => {
  it('pages 350 orders by 100 into 4 pages, with Dates and no receiver anywhere', async () => {
    const result = await h.client.orders({ ownerId: F.owners.busy });
    expect(result).toMatchObject({
      operation: 'paging-orders',
      edition: 1,
      chargePoints: DEFAULT_PRICES['paging-orders'][1],
    });
    expect(result.data).toMatchObject({ page: 0, pageSize: 100, totalElements: 350, totalPages: 4 });
    expect(result.data.orders).toHaveLength(100);

    const raw = await rawSandboxCall(h.sandboxUrl, 'paging-orders', {
      form: { owner_id: F.owners.busy, page: '0', pageSize: '100' },
    });
    const rawOrders = (raw.data as { content: Record<string, unknown>[] }).content;
    expect(rawOrders).toHaveLength(100);

    // Dates from the 13-digit timestamps, order by order.
    result.data.orders.forEach((order, i) => {
      const wire = rawOrders[i] ?? {};
      expect(order.orderSn).toBe(wire.order_sn);
      expect(order.confirmTime).toBeInstanceOf(Date);
      expect(order.confirmTime?.getTime()).toBe(wire.confirm_time);
      expect(order.lastShipTime?.getTime()).toBe(wire.last_ship_time);
      expect(typeof order.isPreSale).toBe('boolean');
      expect(order.payAmount).toBe(wire.pay_amount);
    });

    // The receiver must not survive the boundary (types.ts: Order has no receiver).
    const text = JSON.stringify(result);
    for (const key of ['receiver', 'address', 'province', 'town']) expect(text).not.toContain(key);
    const personal = new Set(
      rawOrders.flatMap((o) => [o.receiver_name, o.receiver_phone, o.receiver_address].map(String)),
    );
    expect(personal.size).toBeGreaterThan(100);
    for (const value of personal) expect(text).not.toContain(value);
  });

  it('reads the last page, a small page size and the small shop', async () => {
    const last = await h.client.orders({ ownerId: F.owners.busy, page: 3 });
    expect(last.data).toMatchObject({ page: 3, totalElements: 350, totalPages: 4 });
    expect(last.data.orders).toHaveLength(50);

    const seven = await h.client.orders({ ownerId: F.owners.busy, pageSize: 7, page: 49 });
    expect(seven.data).toMatchObject({ pageSize: 7, totalPages: 50 });
    expect(seven.data.orders).toHaveLength(7);

    const small = await h.client.orders({ ownerId: F.owners.small });
    expect(small.data).toMatchObject({ totalElements: F.orderCounts.small, totalPages: 1 });
  });

  it('sends a time window the sandbox understands: the same orders as a raw call with timestamps', async () => {
    const endTime = new Date(Math.floor(Date.now() / 1000) * 1000 - 6 * HOUR);
    const startTime = new Date(endTime.getTime() - 24 * HOUR);
    const result = await h.client.orders({ ownerId: F.owners.busy, startTime, endTime });
    expect(result.data.totalElements).toBeGreaterThan(0);
    expect(result.data.totalElements).toBeLessThan(350);
    for (const order of result.data.orders) {
      expect(order.confirmTime?.getTime()).toBeGreaterThanOrEqual(startTime.getTime());
      expect(order.confirmTime?.getTime()).toBeLessThan(endTime.getTime());
    }
    const raw = await rawSandboxCall(h.sandboxUrl, 'paging-orders', {
      form: {
        owner_id: F.owners.busy,
        pageSize: '100',
        start_time: String(startTime.getTime()),
        end_time: String(endTime.getTime()),
      },
    });
    const rawData = raw.data as { totalElements: number; content: { order_sn: string }[] };
    expect(result.data.totalElements).toBe(rawData.totalElements);
    expect(result.data.orders.map((o) => o.orderSn)).toEqual(rawData.content.map((o) => o.order_sn));
  });

  it('filters by flag in the enhanced edition and pages in the basic edition', async () => {
    const red = await h.client.orders({ ownerId: F.owners.busy, remarkTag: 1 });
    expect(red.data.orders.length).toBeGreaterThan(0);
    expect(red.data.orders.every((o) => o.remarkTag === 1)).toBe(true);

    const basic = await h.client.orders({ ownerId: F.owners.busy, edition: 2, pageSize: 10 });
    expect(basic).toMatchObject({ edition: 2, chargePoints: DEFAULT_PRICES['paging-orders'][2] });
    expect(basic.data).toMatchObject({ totalElements: 350, totalPages: 35 });
  });
});
