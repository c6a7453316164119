import type { Catalog } from '../words.js';

export const workObject: Catalog['workObject'] = {
  displayType: '电商商品',
  titleUnknown: '商品 {{id}}',
  shop: '店铺',
  price: '价格',
  known: 'platdesk 已知信息',
  knownAge: '{{age}}前查询；打开此面板不扣费',
  notKnown: '尚未查询；打开此面板不扣费',
  lookUpNow: '立即查询 — 商品额度 1 次',
};
