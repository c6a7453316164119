/**
 * The words people type for an order's flag (paging-orders `remark_tag`, notes.md: 1 red,
 * 2 yellow, 3 green, 4 blue, 5 purple), in English and as Chinese staff say them (红旗 or just 红).
 * One table for every grammar that accepts a flag: /orders and the digest and alert options.
 */
export const REMARK_FLAG_WORDS: Readonly<Record<string, number>> = {
  red: 1,
  yellow: 2,
  green: 3,
  blue: 4,
  purple: 5,
  红: 1,
  黄: 2,
  绿: 3,
  蓝: 4,
  紫: 5,
  红旗: 1,
  黄旗: 2,
  绿旗: 3,
  蓝旗: 4,
  紫旗: 5,
};
