/**
 * Domain objects with fixed ids for renderer and store tests, small by default and as large as asked.
 */
import type { LookupOutcome, Quote, QuoteLine } from '../../src/lookups/types.js';
import {
  PlatAbortedError,
  PlatAccountNotFoundError,
  PlatBadResponseError,
  PlatBusyError,
  PlatConnectionError,
  PlatCredentialError,
  type PlatError,
  PlatInputError,
  PlatItemNotFoundError,
  PlatNoPermissionError,
  PlatParameterError,
  PlatQuotaExhaustedError,
  PlatRetryLaterError,
  PlatSchemaError,
  PlatShopNotSubscribedError,
  PlatShopUnauthorizedError,
  PlatSystemError,
  PlatTimeoutError,
  PlatUnknownCodeError,
  PlatUnsupportedError,
  PlatUpstreamTimeoutError,
  PlatWrongPathError,
} from '../../src/plat/errors.js';
import type {
  Item,
  ItemPrices,
  Order,
  ShopInfo,
  Sku,
  WaybillInfoRecord,
  WaybillPrintRecord,
} from '../../src/plat/types.js';
import type { AlertSubscription, DigestRun, NewAlertSubscription } from '../../src/store/store.js';

/** 2026-11-21 12:00 in Asia/Shanghai. */
export const NOW = new Date('2026-11-21T04:00:00Z');
export const ITEM_ID = '6543210987';
export const SHOP_ID = '57301234';
export const OWNER_ID = 'owner-1234';
export const PENDING_ID = 'pl_0001';
export const HOUR = 60 * 60 * 1000;

export function makeSku(i: number, overrides: Partial<Sku> = {}): Sku {
  return {
    id: `50000${String(i).padStart(5, '0')}`,
    propPath: `1627207:${1000 + i};20509:${2000 + i}`,
    price: 59 + (i % 71),
    originalPrice: 99 + (i % 101),
    propNames: '颜色分类,尺码',
    propValues: `颜色${i},XL`,
    ...overrides,
  };
}

export function makeItem(
  overrides: Partial<Item> = {},
  size: { skus?: number; attributes?: number } = {},
): Item {
  return {
    itemId: ITEM_ID,
    title: 'Linen summer shirt',
    shopId: SHOP_ID,
    shopName: 'Harbour Linen Store',
    shopUrl: 'https://shop57301234.taobao.com',
    images: ['https://img.example.com/main-1.jpg', 'https://img.example.com/main-2.jpg'],
    detailImages: [],
    categoryIds: [50010850, 121],
    skus: Array.from({ length: size.skus ?? 3 }, (_, i) => makeSku(i)),
    skuProperties: [],
    attributes: Array.from({ length: size.attributes ?? 2 }, (_, i) => ({
      name: `Attribute ${i}`,
      value: `Value ${i}`,
    })),
    videoUrl: null,
    ...overrides,
  };
}

export function makeItemPrices(overrides: Partial<ItemPrices> = {}): ItemPrices {
  return {
    itemId: ITEM_ID,
    price: { value: 59, text: '59.00' },
    originalPrice: { value: 99, text: '99.00' },
    referencePrice: { value: 79.5, text: '79.50' },
    ...overrides,
  };
}

export function makeShopInfo(overrides: Partial<ShopInfo> = {}): ShopInfo {
  return {
    shopId: SHOP_ID,
    name: 'Harbour Linen Store',
    url: 'https://harbourlinen.tmall.com',
    firstMarketplaceUrl: 'https://shop57301234.taobao.com',
    iconUrl: 'https://img.example.com/shop-icon.png',
    showShopLinkIcon: false,
    card: null,
    type: '1',
    status: 'normal',
    version: '3',
    textColor: '#333333',
    ...overrides,
  };
}

export function makeQuoteLine(overrides: Partial<QuoteLine> = {}): QuoteLine {
  return {
    operation: 'platdybw',
    edition: 1,
    calls: 1,
    unit: 'points',
    configuredPoints: 10,
    lastSeenPoints: 10,
    ...overrides,
  };
}

export function makeQuote(lines: QuoteLine[] = [makeQuoteLine()]): Quote {
  const points = lines.filter((l) => l.unit === 'points');
  const unknown = points.some((l) => l.configuredPoints === null && l.lastSeenPoints === null);
  return {
    lines,
    totalPoints: unknown
      ? null
      : points.reduce((n, l) => n + l.calls * (l.configuredPoints ?? l.lastSeenPoints ?? 0), 0),
    quotaCalls: lines.filter((l) => l.unit === 'quota').reduce((n, l) => n + l.calls, 0),
  };
}

export function makeOrder(i: number, overrides: Partial<Order> = {}): Order {
  return {
    orderSn: `261121-${String(100000 + i)}`,
    goodsName: `Linen shirt ${i}`,
    goodsImage: 'https://img.example.com/goods.jpg',
    goodsSpec: 'White, XL',
    goodsCount: 1 + (i % 3),
    payAmount: 59 + i,
    status: 1 + (i % 3),
    isPreSale: i % 7 === 0,
    lastShipTime: new Date(NOW.getTime() + 48 * HOUR),
    confirmTime: new Date(NOW.getTime() - 2 * HOUR),
    remark: null,
    remarkTag: null,
    remarkTagName: null,
    ...overrides,
  };
}

type OrdersOutcome = Extract<LookupOutcome, { kind: 'orders' }>;

export function makeOrdersOutcome(
  orders: Order[],
  page: { page?: number; pageSize?: number; totalElements?: number; totalPages?: number } = {},
): OrdersOutcome {
  const pageSize = page.pageSize ?? 100;
  const totalElements = page.totalElements ?? orders.length;
  return {
    kind: 'orders',
    ownerId: OWNER_ID,
    filters: {},
    chargedPoints: 2,
    page: {
      orders,
      page: page.page ?? 0,
      pageSize,
      totalElements,
      totalPages: page.totalPages ?? Math.ceil(totalElements / pageSize),
    },
  };
}

/** Print data as platdybw returns it inside print_data; the secrets are easy to search for. */
export const ENCRYPTED_DATA = 'ENCRYPTED-DATA-AAAA1111';
export const SIGNATURE = 'SIGNATURE-BBBB2222';

export function makeWaybillPrintRecord(
  i: number,
  overrides: Partial<WaybillPrintRecord> = {},
): WaybillPrintRecord {
  const printData = {
    encryptedData: `${ENCRYPTED_DATA}-${i}`,
    signature: `${SIGNATURE}-${i}`,
    templateURL: `https://cloudprint.example.com/template/standard_${i}.xml`,
    ver: '12',
  };
  return {
    objectId: `obj-${i}`,
    success: true,
    errorCode: null,
    errorMessage: null,
    waybillCode: `SF${String(1234567890000 + i)}`,
    parentWaybillCode: i % 5 === 0 ? `SF${String(1234567800000 + i)}` : null,
    printData,
    printDataRaw: JSON.stringify(printData),
    ...overrides,
  };
}

/** `count` records, every fourth one failed on its own. */
export function makeWaybillPrintOutcome(count: number): Extract<LookupOutcome, { kind: 'waybill-print' }> {
  const records = Array.from({ length: count }, (_, i) =>
    i % 4 === 3
      ? makeWaybillPrintRecord(i, {
          success: false,
          errorCode: 'isv.waybill-not-found',
          errorMessage: 'waybill not found',
          printData: null,
          printDataRaw: null,
        })
      : makeWaybillPrintRecord(i),
  );
  return {
    kind: 'waybill-print',
    shopId: SHOP_ID,
    records,
    failedBatches: [
      {
        waybillCodes: Array.from({ length: 20 }, (_, i) => `YT${String(1234567890100 + i)}`),
        error: new PlatShopUnauthorizedError(
          302,
          'shop not authorized',
          'https://auth.example.com/scan?code=abc',
          {
            operation: 'platdybw',
          },
        ),
      },
    ],
    chargedPoints: count * 10,
  };
}

export function makeWaybillInfoRecord(i: number, extra: Record<string, unknown> = {}): WaybillInfoRecord {
  return {
    objectId: `obj-${i}`,
    waybillCode: `YT${String(1234567890000 + i)}`,
    extra: {
      cp_code: 'YTO',
      status: 'in transit',
      receiver_name: 'Zhang San',
      receiver_phone: '13800000000',
      receiver_address: 'No. 1 Example Road',
      print_data: JSON.stringify({ encryptedData: ENCRYPTED_DATA }),
      ...extra,
    },
  };
}

/** One instance of every PlatError class, with long foreign text where the class carries some. */
export function allPlatErrors(): PlatError[] {
  const op = { operation: 'paging-orders' as const };
  const long = `<!channel> ${'x'.repeat(4000)}`;
  return [
    new PlatInputError(
      'platdybw',
      Array.from({ length: 60 }, (_, i) => `waybill ${i}: <@U1> not a waybill number`),
    ),
    new PlatParameterError(100, 'parameter error <!here>', op),
    new PlatItemNotFoundError(100, '商品不存在 <!here>', { operation: 'platiteminfo', quotaCalls: 1 }),
    new PlatUpstreamTimeoutError(101, 'timed out', op),
    new PlatAccountNotFoundError(103, 'account does not exist', { operation: 'get-shop-id' }),
    new PlatSystemError(200, long, op),
    new PlatRetryLaterError(202, 'retry later', op),
    new PlatUnsupportedError(203, 'not supported', op),
    new PlatNoPermissionError(204, 'no permission', op),
    new PlatQuotaExhaustedError(204, 'not enough calls left', { operation: 'platiteminfo' }),
    new PlatShopUnauthorizedError(302, 'shop not authorized', 'https://auth.example.com/scan?code=abc', {
      operation: 'paging-orders',
      chargePoints: 0,
    }),
    new PlatShopUnauthorizedError(302, 'shop not authorized', null, op),
    new PlatShopNotSubscribedError(303, 'not subscribed', op),
    new PlatCredentialError(401, 'token invalid', op),
    new PlatWrongPathError(404, 'not found', op),
    new PlatUnknownCodeError(999, long, { operation: 'get-shop-info', chargePoints: 5 }),
    new PlatTimeoutError('platdzmd', 10_000),
    new PlatConnectionError('connect ECONNREFUSED 127.0.0.1:8787', op),
    new PlatBadResponseError('platdybw', 502, '<html>bad gateway</html>'),
    new PlatSchemaError(
      'platiteminfo',
      Array.from({ length: 40 }, (_, i) => `skus.${i}.jprice: expected a number`),
      3,
    ),
    new PlatBusyError('platdybw', 12_300),
    new PlatAbortedError('aborted', op),
  ];
}

/**
 * The schedule `/orders alert add` gives an alert when no option is set (README): written out here
 * rather than read from src/alerts, so tests that compare against it check the source.
 */
export const DEFAULT_ALERT_SCHEDULE = {
  withinHours: 6,
  everyMinutes: 60,
  hoursFrom: '09:00',
  hoursTo: '21:00',
  timeZone: 'Asia/Shanghai',
} as const;

/** What `store.alerts.add` takes: a default alert on shop 2200001004 posting to C1234. */
export function makeNewAlertSubscription(
  overrides: Partial<NewAlertSubscription> = {},
): NewAlertSubscription {
  return {
    ownerId: '2200001004',
    shopLabel: 'snacks',
    channelId: 'C1234',
    ...DEFAULT_ALERT_SCHEDULE,
    capPoints: 200,
    createdBy: 'UADMIN',
    ...overrides,
  };
}

/** A stored alert subscription (id 4, created at NOW). */
export function makeAlertSubscription(overrides: Partial<AlertSubscription> = {}): AlertSubscription {
  return { id: 4, tenantId: '', ...makeNewAlertSubscription(), createdAt: NOW, ...overrides };
}

/** A stored digest run: scheduled, posted, for the 24 h before NOW. */
export function makeDigestRun(overrides: Partial<DigestRun> = {}): DigestRun {
  return {
    id: 3,
    tenantId: '',
    subscriptionId: 7,
    kind: 'scheduled',
    localDate: '2026-11-20',
    windowStart: new Date(NOW.getTime() - 24 * HOUR),
    windowEnd: NOW,
    state: 'posted',
    attempts: 1,
    leaseOwner: null,
    leaseExpiresAt: null,
    nextAttemptAt: null,
    lastError: null,
    noticeTs: null,
    messageTs: null,
    summaryJson: null,
    chargedPoints: 4,
    calls: 2,
    estimatePoints: null,
    requestedBy: null,
    createdAt: NOW,
    updatedAt: NOW,
    epoch: 1,
    postAttemptAt: null,
    checkProgress: null,
    ...overrides,
  };
}
