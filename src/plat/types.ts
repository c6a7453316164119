/**
 * Normalized domain types: what every layer above plat/ sees. The wire shapes and their
 * documented inconsistencies (spec/notes.md) are handled once, in plat/schemas.ts.
 */
import type { Operation } from './operations.js';

/** Every successful call returns its data together with what it cost. */
export interface PlatResult<T> {
  operation: Operation;
  /** vvtype sent, or null for operations without editions. */
  edition: number | null;
  data: T;
  /**
   * withholding_money in points summed over every attempt of this call (a retried 101/202 may be
   * charged too), null when no attempt reported any.
   */
  chargePoints: number | null;
  /** The successful attempt's own withholding_money: the price of one call, for estimates. */
  pricePoints: number | null;
  /** Calls of the item quota taken over every attempt (item operations, spec §8). */
  quotaCalls: number;
  /** Attempts sent: 1, or more when 101/202 were retried. */
  attempts: number;
  /** The envelope's msg (e.g. get-shop-id's "shop does not exist"). */
  message: string;
  /** platdybw's data.request_id, when present. */
  requestId: string | null;
  /** The envelope's msec and time. */
  serverMs: number | null;
  serverTime: Date | null;
}

/**
 * One call that reached the service, charged or not (a ledger row each): the plat API charges per
 * call (spec §1), so every answer, and every call sent whose answer never came, is reported.
 */
export interface ChargeEvent {
  operation: Operation;
  edition: number | null;
  /** withholding_money, 0 when the response reported none (item operations, refusals, no answer). */
  points: number;
  /**
   * Calls of the item quota taken: 1 for an item operation's answer that ran a query (takesQuotaCall)
   * and for an item call whose answer never came (it may have taken one), else 0.
   */
  quotaCalls: number;
  /** The envelope code: 0 for success; NO_ANSWER_CODE (-1) when no answer could be read. */
  code: number;
  requestId: string | null;
  correlationId: string | null;
  /** Which attempt of the call this was: 0 the first, 1 the first retry… (part of its charge id). */
  attempt: number;
  at: Date;
}
export type ChargeListener = (event: ChargeEvent) => void;

// ---- items -------------------------------------------------------------------------------

export interface Sku {
  id: string;
  propPath: string;
  /** Selling price in yuan (jprice). */
  price: number | null;
  /** Original price in yuan (oprice). */
  originalPrice: number | null;
  /** The joined property names, e.g. "颜色分类,尺码" (the extra key of spec §2.4). */
  propNames: string | null;
  /** The joined property values, e.g. "红色,XL". */
  propValues: string | null;
}

export interface SkuProperty {
  pid: string;
  name: string;
  values: { vid: string; name: string; image: string | null }[];
}

export interface Item {
  itemId: string;
  title: string;
  shopId: string | null;
  shopName: string | null;
  shopUrl: string | null;
  /** Main images, with protocol-relative // made https:. */
  images: string[];
  detailImages: string[];
  categoryIds: number[];
  skus: Sku[];
  skuProperties: SkuProperty[];
  /** groupProps flattened to name/value pairs, in order. */
  attributes: { name: string; value: string }[];
  videoUrl: string | null;
}

/** A price as reported: a number when it parses, with the text it came from. */
export interface PriceValue {
  value: number | null;
  text: string;
}

export interface ItemPrices {
  itemId: string;
  price: PriceValue | null;
  originalPrice: PriceValue | null;
  referencePrice: PriceValue | null;
}

// ---- shops -------------------------------------------------------------------------------

export type ShopType = '0' | '1' | '2';

export interface ShopInfo {
  shopId: string;
  name: string;
  url: string | null;
  firstMarketplaceUrl: string | null;
  iconUrl: string | null;
  showShopLinkIcon: boolean | null;
  card: string | null;
  type: string | null;
  status: string | null;
  version: string | null;
  textColor: string | null;
}

/** get-shop-id: "shop does not exist" is a normal answer (spec §4.5), not an error. */
export type ShopIdLookup =
  | { found: true; wwid: string; shopId: string }
  | { found: false; wwid: string; message: string };

// ---- waybills ----------------------------------------------------------------------------

/** The JSON held inside platdybw's print_data string (spec §2.2). */
export interface PrintData {
  encryptedData: string;
  signature: string;
  templateURL: string;
  ver: string;
}

export interface WaybillPrintRecord {
  objectId: string | null;
  success: boolean;
  errorCode: string | null;
  errorMessage: string | null;
  waybillCode: string | null;
  parentWaybillCode: string | null;
  /** Parsed when print_data holds the four-key JSON; null otherwise. */
  printData: PrintData | null;
  /** print_data exactly as received (may be encrypted text that is not JSON). */
  printDataRaw: string | null;
}

export interface WaybillInfoRecord {
  objectId: string | null;
  waybillCode: string | null;
  /** Every other field of the record, kept as received (the spec lists only two). */
  extra: Record<string, unknown>;
}

// ---- orders ------------------------------------------------------------------------------

/**
 * An order without its receiver: receiver_name, receiver_phone, receiver_address/address and
 * town are dropped at the boundary so they can never reach a log line, a digest or a channel.
 */
export interface Order {
  orderSn: string;
  goodsName: string;
  goodsImage: string | null;
  goodsSpec: string | null;
  goodsCount: number;
  /** Yuan. */
  payAmount: number;
  /** 1 awaiting shipment, 2 shipped, 3 received (notes.md); other codes kept raw. */
  status: number | null;
  isPreSale: boolean;
  lastShipTime: Date | null;
  confirmTime: Date | null;
  remark: string | null;
  /** 1 red, 2 yellow, 3 green, 4 blue, 5 purple (notes.md). */
  remarkTag: number | null;
  remarkTagName: string | null;
}

export interface OrdersPage {
  orders: Order[];
  page: number;
  pageSize: number;
  totalElements: number;
  totalPages: number;
}
