/** 工作流步骤（issue 25）：名称、摘要、失败原因、批准。 */
import type { Catalog } from '../words.js';

export const step: Catalog['step'] = {
  summary: {
    waybill_one: '运单号 {{number}}：{{state}}{{last}}（{{carrier}}）',
    waybill_other: '{{count}} 个运单号，第一个 {{number}}：{{state}}{{last}}（{{carrier}}）',
    waybillNone: '运单号 {{number}} 没有信息',
    last: '，最新：{{time}} {{event}}',
    item: '{{title}} · {{shop}} · {{price}} · {{skus}}',
    ordersDue: '{{shop}}：{{hours}} 小时内须发货 {{due}} 单，已超时 {{overdue}} 单',
    shop: '{{name}}（店铺 ID {{id}}，{{type}}）',
    shopNotFound: '旺旺号 {{wwid}} 没有对应的店铺',
    cached: '（来自缓存，{{age}}前：不扣费）',
  },
  value: {
    unknown: '未知',
    noPrice: '无价格',
    skus_one: '列出 {{count}} 个 SKU',
    skus_other: '列出 {{count}} 个 SKU',
    noSkus: '没有 SKU',
    dueLine: '{{sn}} · {{goods}} · 最晚 {{time}} 发货',
    overdueLine: '{{sn}} · {{goods}} · 自 {{time}} 起已超时',
    more: '…还有 {{n}} 单',
  },
  fail: {
    invalid: '{{step}}：输入无法查询：{{problems}}。未扣费。',
    notApproved:
      '{{step}}：管理员尚未批准此步骤扣费，所以它不会扣费。管理员可以用 `/platdesk steps approve {{id}} daily <点数>` 或在应用主页批准。未扣费。',
    failed: '{{step}}：{{title}}。{{remedy}}{{charge}}',
    other: '{{step}}：查询失败（{{detail}}）。目前不知道有任何扣费。',
    interrupted:
      '{{step}}：本次运行查询时 platdesk 重启了；调用可能已发出并扣费（见扣费明细），所以不会再运行。如需结果，请重新运行工作流。',
  },
};
