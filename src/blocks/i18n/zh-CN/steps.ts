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
    byWorkflow: '（记在工作流名下：没有人启动它）',
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
    refused: '{{step}}：未查询。{{reason}}未扣费。',
    interrupted:
      '{{step}}：本次运行查询时 platdesk 重启了；调用可能已发出并扣费（见扣费明细），所以不会再运行。如需结果，请重新运行工作流。',
  },
  refusal: {
    not_allowed: '此工作流由 <@{{user}}> 启动：<@{{user}}> 不在可以进行收费查询的名单中。',
    no_person:
      '没有 Slack 能确认的人启动此工作流（定时或事件触发），而这里只有名单中的人可以进行收费查询。请在此步骤前加一个由人回应的步骤（带按钮的消息），或允许所有人扣费（`/platdesk access everyone`）。',
    shop_channel:
      '店铺 {{shop}} 的订单和运单只能在它自己的频道里查询，而步骤的结果会发到工作流指定的任何地方：管理员可以为此店铺批准这个步骤（`/platdesk steps approve {{id}} daily <点数> shops:{{shop}}`）。',
    shop: '此步骤只批准用于 {{shops}}。',
    channel: '此步骤只批准把结果发到 {{channels}}：请在步骤的“频道”输入中填其中一个。',
  },
};
