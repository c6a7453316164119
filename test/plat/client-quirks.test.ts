/**
 * spec/notes.md: "Where a note and the spec disagree, accept both shapes." The sandbox serves one
 * shape of each inconsistency; a canned server (the remote's stand-in) serves the other, and the
 * real client must normalize both to the same domain values.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CannedAnswer, PlatClientRig } from '../helpers/plat-harness.js';
import { type CannedServer, envelope, startCannedRig } from '../helpers/plat-harness.js';

const PRINT_DATA = {
  encryptedData: 'ZW5jcnlwdGVk',
  signature: 'c2ln',
  templateURL: 'https://cloudprint.example.invalid/template/1',
  ver: 'waybill_print_secret_version_1',
};

let rig: (PlatClientRig & { server: CannedServer }) | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** The real client against a canned answer. */
async function cannedClient(answer: CannedAnswer) {
  rig = await startCannedRig(answer);
  return rig.client;
}

const order = (extra: Record<string, unknown>) => ({
  receiver_name: '王**',
  receiver_phone: '138****0001',
  province: '浙江省',
  city: '杭州市',
  town: '西湖区',
  order_sn: '240601-000000000001',
  goods_name: 'T恤',
  goods_img: '//img.example.invalid/g.jpg',
  goods_spec: '白色 L',
  is_pre_sale: false,
  last_ship_time: 1_717_300_000_000,
  confirm_time: 1_717_200_000_000,
  remark: '',
  goods_count: 1,
  pay_amount: 59,
  order_status: 1,
  remark_tag: null,
  remark_tag_name: null,
  ...extra,
});

describe('platdybw', () => {
  it('accepts modules as a plain array (the documented type)', async () => {
    const client = await cannedClient(
      envelope({
        modules: [
          {
            object_id: '1',
            success: true,
            waybill_cloud_print_response: {
              print_data: JSON.stringify(PRINT_DATA),
              waybill_code: 'SF1234567890123',
            },
          },
          { object_id: '2', success: false, error_code: 'isv.x', error_message: 'no' },
        ],
        request_id: 'r-1',
        withholding_money: 5,
      }),
    );
    const result = await client.waybillPrintData({
      shopId: '1',
      waybills: [{ waybillCode: 'SF1234567890123' }, { waybillCode: 'YT9999999999999' }],
    });
    expect(result.requestId).toBe('r-1');
    expect(result.chargePoints).toBe(5);
    expect(result.data[0]).toMatchObject({ success: true, printData: PRINT_DATA });
    expect(result.data[1]).toMatchObject({ success: false, errorCode: 'isv.x', errorMessage: 'no' });
  });

  it('keeps print_data that is not JSON raw, parses print_data sent as an object, reads success as text', async () => {
    const client = await cannedClient(
      envelope({
        modules: {
          waybill_cloud_print_with_result_desc_response: [
            {
              object_id: '1',
              success: 'true',
              waybill_cloud_print_response: { print_data: 'OPAQUE-CIPHERTEXT', waybill_code: 'A1' },
            },
            {
              object_id: '2',
              waybill_cloud_print_response: { print_data: PRINT_DATA, waybill_code: 'A2' },
              parent_waybill_code: 'P1',
            },
            { object_id: '3', error_code: 'isv.waybill-not-exist' },
          ],
        },
        withholding_money: '5',
      }),
    );
    const result = await client.waybillPrintData({
      shopId: '1',
      waybills: [{ waybillCode: 'A1A1A1' }, { waybillCode: 'A2A2A2' }, { waybillCode: 'A3A3A3' }],
    });
    expect(result.chargePoints).toBe(5);
    expect(result.data).toMatchObject([
      { success: true, printData: null, printDataRaw: 'OPAQUE-CIPHERTEXT', waybillCode: 'A1' },
      { success: true, printData: PRINT_DATA, parentWaybillCode: 'P1', waybillCode: 'A2' },
      { success: false, errorCode: 'isv.waybill-not-exist', printData: null },
    ]);
  });
});

describe('platiteminfo', () => {
  const wireItem = {
    name: 'T恤',
    shopId: 57301234,
    storeName: '小蜜蜂服饰',
    shopUrl: '//shop57301234.taobao.com',
    product: {
      cat: ['16', 50000436],
      skus: [{ skuId: 5001, propPath: '1:2', jprice: '59.00', oprice: '99.00', 颜色分类: '白色' }],
      imageList: ['//img.example.invalid/1.jpg', 'https://img.example.invalid/2.jpg'],
    },
    images: ['//img.example.invalid/d1.jpg'],
    props: { groupProps: [{ 品牌: '小蜜蜂' }] },
    skuBase: [{ pid: 1, name: '颜色分类', values: [{ vid: 2, name: '白色', image: '' }] }],
    videoUrl: '//video.example.invalid/v.mp4',
  };
  const expected = {
    itemId: '680001234501',
    title: 'T恤',
    shopId: '57301234',
    shopName: '小蜜蜂服饰',
    shopUrl: 'https://shop57301234.taobao.com',
    images: ['https://img.example.invalid/1.jpg', 'https://img.example.invalid/2.jpg'],
    detailImages: ['https://img.example.invalid/d1.jpg'],
    categoryIds: [16, 50000436],
    skus: [
      {
        id: '5001',
        propPath: '1:2',
        price: 59,
        originalPrice: 99,
        propNames: '颜色分类',
        propValues: '白色',
      },
    ],
    skuProperties: [{ pid: '1', name: '颜色分类', values: [{ vid: '2', name: '白色', image: null }] }],
    attributes: [{ name: '品牌', value: '小蜜蜂' }],
    videoUrl: 'https://video.example.invalid/v.mp4',
  };

  it('reads the item inside data (the documented envelope) the same as at the top level', async () => {
    const inData = await cannedClient(envelope({ ...wireItem, withholding_money: 0 }));
    const a = await inData.itemInfo({ itemId: expected.itemId });
    expect(a.data).toEqual(expected);
    expect(a.chargePoints).toBe(0);
    await rig?.close();

    const topLevel = await cannedClient({
      code: 0,
      msg: 'success',
      msec: 2,
      time: 1_717_171_717_171,
      ...wireItem,
      withholding_money: 0,
    });
    expect((await topLevel.itemInfo({ itemId: expected.itemId })).data).toEqual(expected);
  });
});

describe('platiteminfoprice', () => {
  it('accepts prices as objects (documented) and numbers, besides decimal text', async () => {
    const client = await cannedClient(
      envelope({ jprice: { price: '59.00' }, oprice: 99, mprice: { value: 89.5 }, withholding_money: 0 }),
    );
    const { data } = await client.itemPrices({ itemId: '680001234501' });
    expect(data.price).toEqual({ value: 59, text: '59.00' });
    expect(data.originalPrice).toEqual({ value: 99, text: '99.00' });
    expect(data.referencePrice?.value).toBe(89.5);
  });

  it('reads an empty, null or absent price as null', async () => {
    const client = await cannedClient(envelope({ jprice: '59.90', oprice: '', mprice: null }));
    const { data } = await client.itemPrices({ itemId: '680001234501' });
    expect(data).toMatchObject({
      price: { value: 59.9, text: '59.90' },
      originalPrice: null,
      referencePrice: null,
    });
    await rig?.close();

    // Regression: a bare z.unknown().transform() key was required in zod 4, so an answer without
    // oprice/mprice failed the whole (quota-charged) call with a PlatSchemaError.
    const absent = await cannedClient(envelope({ jprice: '59.90', withholding_money: 0 }));
    const prices = await absent.itemPrices({ itemId: '680001234501' });
    expect(prices.data).toEqual({
      itemId: '680001234501',
      price: { value: 59.9, text: '59.90' },
      originalPrice: null,
      referencePrice: null,
    });
  });
});

describe('get-shop-info', () => {
  it('accepts shop_Id as text and showShopLinkIcon as a boolean', async () => {
    const client = await cannedClient(
      envelope({ shop_Id: '57301234', shopName: 'S', showShopLinkIcon: true, withholding_money: 10 }),
    );
    const { data } = await client.shopInfo({ url: 'https://item.taobao.com/item.htm?id=1' });
    expect(data).toMatchObject({ shopId: '57301234', name: 'S', showShopLinkIcon: true, url: null });
  });
});

describe('get-shop-id', () => {
  it('accepts shopid as an int (the documented type)', async () => {
    const client = await cannedClient(envelope({ shopid: 57301234, withholding_money: 2 }));
    const result = await client.shopId({ wwid: 'beeclothing' });
    expect(result.data).toEqual({ found: true, wwid: 'beeclothing', shopId: '57301234' });
    expect(result.chargePoints).toBe(2);
  });

  it('reads an absent shopid with code 0 as found: false, keeping the message', async () => {
    const client = await cannedClient(envelope({ withholding_money: 2 }, { msg: '店铺不存在' }));
    const result = await client.shopId({ wwid: 'nobody' });
    expect(result.data).toEqual({ found: false, wwid: 'nobody', message: '店铺不存在' });
  });
});

describe('platdzmd', () => {
  it('accepts modules holding the records directly, without waybill_cloud_print_response', async () => {
    const client = await cannedClient(
      envelope({
        plat_waybill_query_by_waybillcode_response: {
          modules: [{ object_id: 1, waybill_code: 'SF1234567890123', status: 'SIGN' }],
        },
        withholding_money: 4,
      }),
    );
    const result = await client.waybillInfo({
      ownerId: '2200001001',
      waybills: [{ waybillCode: 'SF1234567890123', wpCode: 'SF' }],
    });
    expect(result.data).toEqual([
      { objectId: '1', waybillCode: 'SF1234567890123', extra: { status: 'SIGN' } },
    ]);
  });
});

describe('paging-orders', () => {
  it('reads total_elements, 10-digit timestamps, is_pre_sale as text, and drops `address`', async () => {
    const client = await cannedClient(
      envelope({
        content: [
          order({
            is_pre_sale: 'true',
            confirm_time: 1_717_200_000,
            last_ship_time: '1717300000',
            address: '文三路**号',
          }),
          order({ order_sn: 2, is_pre_sale: 'false', receiver_address: '张杨路**号', pay_amount: '79.90' }),
        ],
        page: '0',
        pageSize: '2',
        total_elements: 5,
        withholding_money: 2,
      }),
    );
    const result = await client.orders({ ownerId: '2200001001', pageSize: 2 });
    expect(result.data).toMatchObject({ page: 0, pageSize: 2, totalElements: 5, totalPages: 3 });
    const [first, second] = result.data.orders;
    expect(first?.isPreSale).toBe(true);
    expect(first?.confirmTime?.toISOString()).toBe(new Date(1_717_200_000_000).toISOString());
    expect(first?.lastShipTime?.getTime()).toBe(1_717_300_000_000);
    expect(first?.goodsImage).toBe('https://img.example.invalid/g.jpg');
    expect(second).toMatchObject({ orderSn: '2', isPreSale: false, payAmount: 79.9 });
    expect(second?.confirmTime?.getTime()).toBe(1_717_200_000_000);
    const text = JSON.stringify(result);
    for (const leaked of ['文三路', '张杨路', '王**', '138****0001', '浙江省', '西湖区']) {
      expect(text).not.toContain(leaked);
    }
  });

  it('takes the page size it asked for when the answer has none, and an empty page is one page', async () => {
    const client = await cannedClient(envelope({ content: [], totalElements: 0 }));
    const result = await client.orders({ ownerId: '2200001001', pageSize: 50 });
    expect(result.data).toEqual({ orders: [], page: 0, pageSize: 50, totalElements: 0, totalPages: 1 });
  });
});

describe('envelope', () => {
  it('accepts code as text and a 10-digit time', async () => {
    const client = await cannedClient({
      code: '0',
      msg: 'success',
      msec: '4',
      time: 1_717_171_717,
      data: { shopid: '1', withholding_money: 2 },
    });
    const result = await client.shopId({ wwid: 'x' });
    expect(result.serverMs).toBe(4);
    expect(result.serverTime?.getTime()).toBe(1_717_171_717_000);
  });
});
