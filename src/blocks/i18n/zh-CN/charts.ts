import type { Catalog } from '../words.js';

export const chart: Catalog['chart'] = {
  hourlyTitle: '每小时订单',
  axisHour: '小时（{{zone}}）',
  axisOrders: '订单数',
  previousDay: '前一天（{{date}}）',
  shipBy: '发货期限：已超时 {{overdue}} 单 · 24 小时内到期 {{due}} 单',
  overdueMark: '已过发货期限',
  alt_one: '每小时订单柱状图，共 {{n}} 单，最忙时段 {{peak}}（{{peakOrders}} 单）；{{previous}}{{shipBy}}。',
  alt_other:
    '每小时订单柱状图，共 {{n}} 单，最忙时段 {{peak}}（{{peakOrders}} 单）；{{previous}}{{shipBy}}。',
  altPrevious: '前一天共 {{n}} 单；',
  altEmpty: '每小时订单柱状图：此时段没有订单。',
  fileTitle: '每小时订单 · {{date}}',
  spendTitle: '近 30 天每日扣费点数',
  axisDay: '日期（{{zone}}）',
  axisPoints: '点数',
  dailyCap: '每日上限：{{n}} 点',
  spendAlt:
    '近 {{days}} 天按操作划分的每日扣费点数柱状图：共 {{n}} 点，最多的一天是 {{peak}}，{{peakPoints}} 点；{{cap}}。',
  spendAltEmpty: '近 {{days}} 天每日扣费点数柱状图：没有扣费。',
  spendAltNoCap: '未设置每日上限',
  spendAltCap_one: '每日上限 {{cap}} 点，有 {{reached}} 天达到',
  spendAltCap_other: '每日上限 {{cap}} 点，有 {{reached}} 天达到',
};

export const table: Catalog['table'] = {
  status: '状态',
  orders: '订单数',
  amount: '金额',
  share: '占比',
  total: '合计',
  operation: '操作',
  points: '点数',
  calls: '调用次数',
  quotaCalls: '配额调用',
  order: '订单号',
  goods: '商品',
  qty: '数量',
  shipBy: '最晚发货（{{zone}}）',
  flag: '旗帜',
  remark: '备注',
};
