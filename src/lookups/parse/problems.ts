/**
 * Why input cannot be looked up, as stable codes with the values a sentence needs. blocks/
 * turns each into words (catalog `problem.<code>`), so the parser stays free of language.
 */
export type ProblemCode =
  | 'item_required'
  | 'item_count'
  | 'item_short_link'
  | 'item_not_an_item'
  | 'shop_required'
  | 'shop_ww_id_required'
  | 'shop_ww_bad_id'
  | 'shop_too_many'
  | 'shop_full_link'
  | 'shop_type'
  | 'unknown_option'
  | 'waybill_unknown_option'
  | 'waybill_whose'
  | 'waybill_both'
  | 'waybill_bad_id'
  | 'waybill_carrier_code'
  | 'waybill_none'
  | 'waybill_too_many'
  | 'waybill_bad_numbers'
  | 'waybill_unknown_carrier'
  | 'orders_owner'
  | 'orders_one_owner'
  | 'orders_page'
  | 'orders_size'
  | 'orders_window_reversed'
  | 'orders_window_long'
  | 'orders_remark'
  | 'orders_flag'
  | 'orders_flagname'
  | 'orders_filters_need_enhanced'
  | 'orders_date'
  | 'orders_from'
  | 'orders_to'
  /** A workflow step's "hours ahead" (orders_due) is not a whole number in range. */
  | 'step_hours';

export interface Problem {
  code: ProblemCode;
  /** Values the sentence names (raw text: the renderer escapes it). */
  values?: Readonly<Record<string, string | number>>;
  /** waybill_unknown_carrier: the first numbers, each with the carriers its shape fits. */
  carriers?: readonly { number: string; candidates: readonly string[] }[];
}

export const problem = (code: ProblemCode, values?: Record<string, string | number>): Problem =>
  values === undefined ? { code } : { code, values };
