import type { Catalog } from '../words.js';

export const common: Catalog['common'] = {
  points_one: '{{n}} 点（{{yuan}}）',
  points_other: '{{n}} 点（{{yuan}}）',
  pointsShort_one: '{{n}} 点',
  pointsShort_other: '{{n}} 点',
  calls_one: '{{n}} 次调用',
  calls_other: '{{n}} 次调用',
  quotaCalls_one: '{{n}} 次额度',
  quotaCalls_other: '{{n}} 次额度',
  age: {
    underMinute: '不到 1 分钟',
    minutes_one: '{{n}} 分钟',
    minutes_other: '{{n}} 分钟',
    hours_one: '{{n}} 小时',
    hours_other: '{{n}} 小时',
    days_one: '{{n}} 天',
    days_other: '{{n}} 天',
  },
  more_one: '…还有 {{n}} 条',
  more_other: '…还有 {{n}} 条',
  nothingCharged: '未发送任何请求，未产生任何费用。',
  lookup: '查询',
  sep: ' · ',
  // Only characters the chart font already holds (test/charts/font.test.ts).
  hidden: {
    phone: '（电话不显示）',
    id: '（证件号不显示）',
    address: '（地址不显示）',
  },
};

export const domain: Catalog['domain'] = {
  operation: {
    platdybw: '面单打印数据',
    platiteminfo: '商品详情',
    platiteminfoprice: '商品价格',
    'get-shop-info': '店铺信息',
    'get-shop-id': '店铺 ID',
    platdzmd: '电子面单信息',
    'paging-orders': '订单',
  },
  edition: {
    basic: '基础版',
    standard: '标准版',
    enhanced: '增强版',
    professional: '专业版',
  },
  operationWithEdition: '{{operation}}（{{edition}}）',
  flag: {
    '1': '红',
    '2': '黄',
    '3': '绿',
    '4': '蓝',
    '5': '紫',
    unknown: '旗帜 {{code}}',
  },
  carrier: {
    SF: '顺丰',
    YTO: '圆通',
    ZTO: '中通',
    STO: '申通',
    YUNDA: '韵达',
    JT: '极兔',
    JTSD: '极兔',
    JD: '京东',
    DBKD: '德邦',
    DBL: '德邦',
    POSTB: '邮政',
    EMS: '邮政 EMS',
    HTKY: '百世快递',
  },
};
