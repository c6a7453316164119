/**
 * Wire schemas (zod) for the seven operations, and their normalization into domain types.
 * Every inconsistency listed in spec/notes.md is accepted here, once; unknown extra fields are
 * ignored; anything else that does not parse is a PlatSchemaError naming the operation.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { maskReceiverData } from './receiver-data.js';
import type {
  Item,
  ItemPrices,
  Order,
  OrdersPage,
  PriceValue,
  PrintData,
  ShopIdLookup,
  ShopInfo,
  Sku,
  WaybillInfoRecord,
  WaybillPrintRecord,
} from './types.js';

// ---- scalar helpers ------------------------------------------------------------------------

/** Text that may arrive as a number (ids, vvtype: "sent as text in examples"). */
const looseText = lazySchema(() => z.union([z.string(), z.number()]).transform((v) => String(v)));
const optText = lazySchema(() =>
  z
    .union([z.string(), z.number(), z.null()])
    .optional()
    .transform((v) => (v === null || v === undefined || v === '' ? null : String(v))),
);
/** An integer that may arrive as text. */
const looseInt = lazySchema(() =>
  z.union([z.number(), z.string().regex(/^-?\d+$/)]).transform((v) => Number(v)),
);
const optNumber = lazySchema(() =>
  z
    .union([z.number(), z.string(), z.null()])
    .optional()
    .transform((v) => {
      if (v === null || v === undefined || v === '') return null;
      const n = Number(v);
      return Number.isFinite(n) ? n : null;
    }),
);
/** Booleans sent as true/false, "true"/"false", 1/0. */
const looseBool = lazySchema(() =>
  z
    .union([z.boolean(), z.string(), z.number(), z.null()])
    .optional()
    .transform((v) => {
      if (v === null || v === undefined || v === '') return null;
      if (typeof v === 'boolean') return v;
      if (typeof v === 'number') return v !== 0;
      return /^(true|1|yes)$/i.test(v.trim());
    }),
);

/** Numeric timestamps: 13-digit ms (the samples), 10-digit seconds, or numeric text. */
export function toDate(value: number | string | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n <= 0) return null;
  return new Date(n < 1e11 ? n * 1000 : n);
}
const timestamp = lazySchema(() =>
  z
    .union([z.number(), z.string(), z.null()])
    .optional()
    .transform((v) => toDate(v)),
);

/** Protocol-relative image addresses (spec §2.4: they begin with //) become https:. */
export function absoluteUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  const trimmed = url.trim();
  if (trimmed.startsWith('//')) return `https:${trimmed}`;
  if (/^https?:\/\//i.test(trimmed)) return trimmed;
  return null;
}

function decimal(text: string | null): number | null {
  if (text === null) return null;
  const n = Number(text.replace(/[^\d.-]/g, ''));
  return text.trim() !== '' && Number.isFinite(n) ? n : null;
}

// ---- envelope ------------------------------------------------------------------------------

/** spec §2.1. `data` is checked per operation. */
export const envelopeSchema = lazySchema(() =>
  z.looseObject({
    code: looseInt,
    msg: z
      .string()
      .nullish()
      .transform((v) => v ?? ''),
    msec: optNumber,
    time: timestamp,
    data: z.unknown().optional(),
  }),
);
export type Envelope = z.infer<typeof envelopeSchema>;

/** withholding_money, wherever the operation puts it (data, top level, or each order). */
export function chargeIn(value: unknown): number | null {
  if (value && typeof value === 'object' && 'withholding_money' in value) {
    const n = Number((value as { withholding_money: unknown }).withholding_money);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

// ---- platdybw (spec §2.2, §4.1) ------------------------------------------------------------

const printDataJson = lazySchema(() =>
  z.looseObject({
    encryptedData: z.string(),
    signature: z.string(),
    templateURL: z.string(),
    ver: looseText,
  }),
);

function parsePrintData(raw: string | null): PrintData | null {
  if (!raw) return null;
  try {
    const parsed = printDataJson.safeParse(JSON.parse(raw));
    if (!parsed.success) return null;
    const { encryptedData, signature, templateURL, ver } = parsed.data;
    return { encryptedData, signature, templateURL, ver };
  } catch {
    return null; // print_data that is not JSON is kept raw (printDataRaw)
  }
}

const printRecordSchema = lazySchema(() =>
  z.looseObject({
    object_id: optText,
    success: looseBool,
    error_code: optText,
    error_message: optText,
    waybill_cloud_print_response: z
      .looseObject({
        print_data: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
        waybill_code: optText,
      })
      .nullish(),
    parent_waybill_code: optText,
  }),
);

/** notes.md: modules is documented as an array, the sample holds it in an object. */
const printModulesSchema = lazySchema(() =>
  z
    .union([
      z.array(printRecordSchema),
      z.looseObject({ waybill_cloud_print_with_result_desc_response: z.array(printRecordSchema) }),
    ])
    .transform((m) => (Array.isArray(m) ? m : m.waybill_cloud_print_with_result_desc_response)),
);

export const waybillPrintDataSchema = lazySchema(() =>
  z
    .looseObject({ modules: printModulesSchema, request_id: optText })
    .transform((d): { records: WaybillPrintRecord[]; requestId: string | null } => ({
      requestId: d.request_id,
      records: d.modules.map((r) => {
        const rawPrint = r.waybill_cloud_print_response?.print_data ?? null;
        const printDataRaw =
          rawPrint === null ? null : typeof rawPrint === 'string' ? rawPrint : JSON.stringify(rawPrint);
        return {
          objectId: r.object_id,
          // A record without a success flag but with print data succeeded; an error code means failure.
          success: r.success ?? (r.error_code === null && printDataRaw !== null),
          errorCode: r.error_code,
          errorMessage: r.error_message,
          waybillCode: r.waybill_cloud_print_response?.waybill_code ?? null,
          parentWaybillCode: r.parent_waybill_code,
          printData: parsePrintData(printDataRaw),
          printDataRaw,
        };
      }),
    })),
);

// ---- platdzmd (spec §2.3, §4.6) ------------------------------------------------------------

const infoRecordSchema = lazySchema(() => z.looseObject({ object_id: optText, waybill_code: optText }));
const infoModuleSchema = lazySchema(() =>
  z
    .looseObject({ waybill_cloud_print_response: z.unknown().optional() })
    .transform((m) => (m.waybill_cloud_print_response ?? m) as unknown),
);

export const waybillInfoDataSchema = lazySchema(() =>
  z
    .looseObject({
      plat_waybill_query_by_waybillcode_response: z.looseObject({
        modules: z.union([
          z.array(infoModuleSchema),
          z
            .looseObject({ waybill_cloud_print_response: z.array(z.unknown()) })
            .transform((o) => o.waybill_cloud_print_response),
        ]),
      }),
    })
    .transform((d): WaybillInfoRecord[] =>
      d.plat_waybill_query_by_waybillcode_response.modules.flatMap((m) => {
        // Some answers nest one record, some an array of them: accept both.
        const list = Array.isArray(m) ? m : [m];
        return list.map((raw) => {
          const parsed = infoRecordSchema.parse(raw ?? {});
          const { object_id: _o, waybill_code: _w, ...extra } = (raw ?? {}) as Record<string, unknown>;
          return { objectId: parsed.object_id, waybillCode: parsed.waybill_code, extra };
        });
      }),
    ),
);

// ---- platiteminfo (spec §2.4, §4.2) --------------------------------------------------------

const SKU_KNOWN_KEYS = new Set(['skuId', 'propPath', 'jprice', 'oprice']);
const skuSchema = lazySchema(() =>
  z
    .looseObject({ skuId: looseText, propPath: optText, jprice: optText, oprice: optText })
    .transform((s): Sku => {
      // spec §2.4: one extra key whose name is the property names joined by a comma.
      const extra = Object.entries(s).find(([k, v]) => !SKU_KNOWN_KEYS.has(k) && typeof v === 'string');
      return {
        id: s.skuId,
        propPath: s.propPath ?? '',
        price: decimal(s.jprice),
        originalPrice: decimal(s.oprice),
        propNames: extra ? extra[0] : null,
        propValues: extra ? String(extra[1]) : null,
      };
    }),
);

const stringList = lazySchema(() =>
  z
    .array(z.unknown())
    .nullish()
    .transform((l) => (l ?? []).filter((v): v is string => typeof v === 'string')),
);

export const itemSchema = lazySchema(() =>
  z
    .looseObject({
      name: z.string(),
      shopId: optText,
      storeName: optText,
      shopUrl: optText,
      product: z
        .looseObject({
          cat: z.array(z.union([z.number(), z.string()])).nullish(),
          skus: z.array(skuSchema).nullish(),
          imageList: stringList,
        })
        .nullish(),
      images: stringList,
      props: z.looseObject({ groupProps: z.array(z.record(z.string(), z.unknown())).nullish() }).nullish(),
      skuBase: z
        .array(
          z.looseObject({
            pid: looseText,
            name: z.string(),
            values: z
              .array(z.looseObject({ vid: looseText, name: z.string(), image: z.string().nullish() }))
              .nullish(),
          }),
        )
        .nullish(),
      videoUrl: optText,
    })
    .transform(
      (i): Omit<Item, 'itemId'> => ({
        title: i.name,
        shopId: i.shopId,
        shopName: i.storeName,
        shopUrl: absoluteUrl(i.shopUrl),
        images: i.product?.imageList.map(absoluteUrl).filter((u): u is string => u !== null) ?? [],
        detailImages: i.images.map(absoluteUrl).filter((u): u is string => u !== null),
        categoryIds: (i.product?.cat ?? []).map(Number).filter(Number.isFinite),
        skus: i.product?.skus ?? [],
        skuProperties: (i.skuBase ?? []).map((b) => ({
          pid: b.pid,
          name: b.name,
          values: (b.values ?? []).map((v) => ({ vid: v.vid, name: v.name, image: absoluteUrl(v.image) })),
        })),
        attributes: (i.props?.groupProps ?? []).flatMap((g) =>
          Object.entries(g).map(([name, value]) => ({
            name,
            value: typeof value === 'string' ? value : JSON.stringify(value),
          })),
        ),
        videoUrl: absoluteUrl(i.videoUrl),
      }),
    ),
);

// ---- platiteminfoprice (spec §2.5) ---------------------------------------------------------

/** Documented as an object, sampled as decimal text: accept text, numbers and objects. */
// z.optional: zod 4 makes a key of bare z.unknown().transform() required, and an answer without
// e.g. mprice must read as null (below), not fail the whole charged call.
const priceSchema = lazySchema(() =>
  z.optional(z.unknown()).transform((v): PriceValue | null => {
    if (v === null || v === undefined || v === '') return null;
    if (typeof v === 'number') return { value: v, text: v.toFixed(2) };
    if (typeof v === 'string') return { value: decimal(v), text: v };
    if (typeof v === 'object') {
      // An object: take the first numeric-looking field (e.g. {price: "59.00"}) and keep its text.
      const first = Object.values(v as Record<string, unknown>).find(
        (x) => (typeof x === 'string' && decimal(x) !== null) || typeof x === 'number',
      );
      const text = first === undefined ? JSON.stringify(v) : String(first);
      return { value: first === undefined ? null : decimal(text), text };
    }
    return null;
  }),
);

export const itemPricesSchema = lazySchema(() =>
  z.looseObject({ jprice: priceSchema, oprice: priceSchema, mprice: priceSchema }).transform(
    (p): Omit<ItemPrices, 'itemId'> => ({
      price: p.jprice,
      originalPrice: p.oprice,
      referencePrice: p.mprice,
    }),
  ),
);

// ---- get-shop-info (spec §2.6) -------------------------------------------------------------

export const shopInfoSchema = lazySchema(() =>
  z
    .looseObject({
      // notes.md: shop_Id, with a capital I; accept the other spellings too.
      shop_Id: z.union([z.number(), z.string()]).optional(),
      shop_id: z.union([z.number(), z.string()]).optional(),
      shopId: z.union([z.number(), z.string()]).optional(),
      shopName: z.string(),
      shopUrl: optText,
      taoShopUrl: optText,
      shopIcon: optText,
      showShopLinkIcon: looseBool,
      shopCard: optText,
      shopType: optText,
      simpleShopDOStatus: optText,
      shopVersion: optText,
      shopTextColor: optText,
    })
    .refine((s) => s.shop_Id !== undefined || s.shop_id !== undefined || s.shopId !== undefined, {
      message: 'shop_Id is missing',
      path: ['shop_Id'],
    })
    .transform(
      (s): ShopInfo => ({
        shopId: String(s.shop_Id ?? s.shop_id ?? s.shopId),
        name: s.shopName,
        url: absoluteUrl(s.shopUrl),
        firstMarketplaceUrl: absoluteUrl(s.taoShopUrl),
        iconUrl: absoluteUrl(s.shopIcon),
        showShopLinkIcon: s.showShopLinkIcon,
        card: s.shopCard,
        type: s.shopType,
        status: s.simpleShopDOStatus,
        version: s.shopVersion,
        textColor: s.shopTextColor,
      }),
    ),
);

// ---- get-shop-id (spec §2.7, §4.5) ---------------------------------------------------------

/** shopid: int documented, text in the sample, absent when the shop does not exist. */
export function shopIdFrom(data: unknown, wwid: string, message: string): ShopIdLookup | null {
  const parsed = z.looseObject({ shopid: optText }).nullish().safeParse(data);
  if (!parsed.success) return null;
  const shopId = parsed.data?.shopid ?? null;
  return shopId === null ? { found: false, wwid, message } : { found: true, wwid, shopId };
}

// ---- paging-orders (spec §2.8, §4.7) -------------------------------------------------------

const orderSchema = lazySchema(() =>
  z
    .looseObject({
      order_sn: looseText,
      goods_name: z.string().nullish(),
      goods_img: optText,
      goods_spec: optText,
      is_pre_sale: looseBool,
      last_ship_time: timestamp,
      confirm_time: timestamp,
      remark: optText,
      goods_count: optNumber,
      pay_amount: optNumber,
      order_status: optNumber,
      remark_tag: optNumber,
      remark_tag_name: optText,
    })
    // Receiver fields (receiver_name, receiver_phone, receiver_address/address, province, city,
    // town) are deliberately not mapped: they must never leave this module (DESIGN rule 6).
    // What a buyer wrote of them into a remark is masked (issue 34 M4).
    .transform(
      (o): Order => ({
        orderSn: o.order_sn,
        goodsName: o.goods_name ?? '',
        goodsImage: absoluteUrl(o.goods_img),
        goodsSpec: o.goods_spec,
        goodsCount: o.goods_count ?? 0,
        payAmount: o.pay_amount ?? 0,
        status: o.order_status,
        isPreSale: o.is_pre_sale ?? false,
        lastShipTime: o.last_ship_time,
        confirmTime: o.confirm_time,
        // A buyer's own words: receiver data in them is masked here too (receiver-data.ts).
        remark: maskReceiverData(o.remark),
        remarkTag: o.remark_tag,
        remarkTagName: maskReceiverData(o.remark_tag_name),
      }),
    ),
);

export const ordersPageSchema = lazySchema(() =>
  z
    .looseObject({
      content: z.array(orderSchema).nullish(),
      page: optNumber,
      pageSize: optNumber,
      // notes.md: the field table calls it total_elements.
      totalElements: optNumber,
      total_elements: optNumber,
    })
    .transform((d): Omit<OrdersPage, 'totalPages'> & { requestedPageSize?: number } => ({
      orders: d.content ?? [],
      page: d.page ?? 0,
      pageSize: d.pageSize ?? 0,
      totalElements: d.totalElements ?? d.total_elements ?? d.content?.length ?? 0,
    })),
);

/** Zod issues as short "path: message" lines for PlatSchemaError. */
export function issueLines(error: z.ZodError): string[] {
  return error.issues.slice(0, 8).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
}
