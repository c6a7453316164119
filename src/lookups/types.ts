/**
 * The vocabulary shared by every entry point (slash command, shortcut, unfurl, button):
 * what a user asked for, what it will cost, and what came back.
 */
import type { PlatError } from '../plat/errors.js';
import type { Operation } from '../plat/operations.js';
import type {
  Item,
  ItemPrices,
  OrdersPage,
  ShopIdLookup,
  ShopInfo,
  WaybillInfoRecord,
  WaybillPrintRecord,
} from '../plat/types.js';
import type { PendingLookup } from '../store/store.js';

export interface WaybillRef {
  waybillCode: string;
  /** Carrier code (cp_code / wp_code), guessed from the number's shape or given by the user. */
  carrier: string | null;
}

export interface OrderFilters {
  startTime?: Date;
  endTime?: Date;
  remark?: string;
  remarkTag?: number;
  remarkTagName?: string;
}

/** A validated request: nothing invalid ever gets this far, so nothing invalid is ever charged. */
export type LookupRequest =
  | { kind: 'item'; itemId: string; withPrices: boolean }
  | { kind: 'item-prices'; itemId: string }
  | { kind: 'shop-info'; url: string; shopType: '0' | '1' | '2' }
  | { kind: 'shop-id'; wwid: string }
  | { kind: 'waybill-print'; shopId: string; waybills: WaybillRef[] }
  | { kind: 'waybill-info'; ownerId: string; waybills: WaybillRef[] }
  | { kind: 'orders'; ownerId: string; page: number; pageSize: number; filters: OrderFilters };

export type LookupKind = LookupRequest['kind'];

/** One line of a quote: `calls` calls of one operation in one edition. */
export interface QuoteLine {
  operation: Operation;
  edition: number | null;
  calls: number;
  /** 'quota' for the item operations ("1 call of the quota"), else points from the balance. */
  unit: 'points' | 'quota';
  /** Configured price per call (PLAT_PRICES), if any. */
  configuredPoints: number | null;
  /** The last withholding_money seen for this operation and edition, if any. */
  lastSeenPoints: number | null;
}

/** What a request will cost, stated before the call (DESIGN rule 2). */
export interface Quote {
  lines: QuoteLine[];
  /** Best estimate in points over all lines (configured price first, else last seen); null when unknown. */
  totalPoints: number | null;
  /** Calls of the item quota. */
  quotaCalls: number;
}

/**
 * What came back, ready for a renderer. `chargedPoints` is the sum of withholding_money reported
 * over every attempt of every call (retries included); `attempts`, present only when a call was
 * retried, is the number of attempts sent.
 */
export type LookupOutcome = (
  | { kind: 'item'; item: Item; prices: ItemPrices | null; chargedPoints: number; quotaCalls: number }
  | { kind: 'item-prices'; prices: ItemPrices; chargedPoints: number; quotaCalls: number }
  | { kind: 'shop-info'; shop: ShopInfo; url: string; chargedPoints: number }
  | { kind: 'shop-id'; result: ShopIdLookup; chargedPoints: number }
  | {
      kind: 'waybill-print';
      shopId: string;
      records: WaybillPrintRecord[];
      /** Batches that failed as a whole (e.g. 302), with the waybill numbers they held. */
      failedBatches: { waybillCodes: string[]; error: PlatError }[];
      chargedPoints: number;
    }
  | {
      kind: 'waybill-info';
      ownerId: string;
      records: WaybillInfoRecord[];
      failedBatches: { waybillCodes: string[]; error: PlatError }[];
      chargedPoints: number;
    }
  | { kind: 'orders'; ownerId: string; page: OrdersPage; filters: OrderFilters; chargedPoints: number }
) & { attempts?: number };

/** A stored pending lookup with its request and quote typed (the store keeps them as JSON). */
export type Pending = PendingLookup<LookupRequest, Quote>;
