/** 工具目录的文字（lookups/tools.ts）：每个工具及其输入、输出的名称和说明。 */
import type { Catalog } from '../words.js';

export const tool: Catalog['tool'] = {
  userContext: {
    title: '使用此工作流的人',
    description:
      '由 Slack 填写，工作流搭建者无法输入；即扣费人，与个人使用时一样检查。没有此人（定时触发）时，记在工作流名下',
  },
  channel: {
    title: '频道',
    description: '工作流发布答复的频道；步骤的批准限定了频道时据此检查',
  },
  lookup_waybill: {
    title: '查询运单',
    description:
      '运单号的快递公司、状态和最新动态（电子面单信息），在批准的额度内。没有物流链接（服务不提供）',
    in: {
      waybills: { title: '运单号', description: '一个或多个运单号，用空格分开' },
      owner_id: { title: '商家 ID', description: '运单所属店铺的商家 ID' },
      carrier: {
        title: '快递公司代码',
        description: '运单号看不出快递公司时填写（YTO、ZTO、STO、YUNDA、SF、EMS、JD…）',
      },
    },
    out: {
      carrier: { title: '快递公司' },
      state: { title: '状态' },
      last_event: { title: '最新动态' },
      last_event_time: { title: '最新动态时间' },
      summary: { title: '概述', description: '一行文字，工作区的语言' },
    },
  },
  lookup_item: {
    title: '查询商品',
    description:
      '商品的标题、店铺、价格区间和 SKU 数（1 次商品额度），在批准的额度内。没有库存状态（服务不提供）',
    in: {
      item: { title: '商品链接或 ID' },
      with_prices: { title: '包括价格', description: '同时查询商品价格（再用 1 次商品额度）' },
    },
    out: {
      title: { title: '标题' },
      shop: { title: '店铺' },
      price_range: { title: '价格区间' },
      link: { title: '商品链接', description: '只有输入是商品链接时才有；只给 ID 时为空' },
      summary: { title: '概述', description: '一行文字，工作区的语言' },
    },
  },
  item_prices: {
    title: '商品价格',
    description: '商品的售价、原价和参考价（1 次商品额度），不含商品详情',
    in: {
      item: { title: '商品链接或 ID' },
    },
    out: {
      price: { title: '售价', description: '单位：元' },
      original_price: { title: '原价', description: '单位：元' },
      reference_price: { title: '参考价', description: '单位：元' },
      summary: { title: '概述', description: '一行文字，提问人的语言' },
    },
  },
  orders_due: {
    title: '待发货订单',
    description: '待发货且最晚发货时间已过或在接下来几小时内的订单（一页订单），在批准的额度内',
    in: {
      shop: { title: '店铺', description: '店铺的商家 ID 或在 platdesk 中的别名' },
      hours_ahead: { title: '提前小时数', description: '往后看多少小时（1 到 168）' },
    },
    out: {
      count_due: { title: '待发货' },
      count_overdue: { title: '已超时' },
      summary: { title: '概述', description: '一行文字，工作区的语言' },
      list: {
        title: '列表',
        description: '每行一个订单（订单号、商品、最晚发货时间），供后续发消息步骤使用',
      },
    },
  },
  lookup_shop: {
    title: '查询店铺',
    description: '商品链接所属的店铺，或旺旺号对应的店铺，在批准的额度内',
    in: {
      shop: { title: '商品链接或旺旺号' },
    },
    out: {
      shop_id: { title: '店铺 ID' },
      name: { title: '名称' },
      type: { title: '类型' },
      summary: { title: '概述', description: '一行文字，工作区的语言' },
    },
  },
  orders_page: {
    title: '订单',
    description: '店铺已售订单的一页，最新的在前，不含收货人信息；时间范围最多 24 小时',
    in: {
      shop: { title: '店铺', description: '店铺的商家 ID 或在 platdesk 中的别名' },
      page: { title: '页', description: '第几页，从 1 开始' },
      size: { title: '每页', description: '每页订单数（1 到 100，默认 20）' },
      from: { title: '从', description: '开始时间，YYYY-MM-DD 或 YYYY-MM-DD HH:MM，北京时间' },
      to: { title: '到', description: '结束时间，最多在开始后 24 小时' },
      flag: { title: '旗帜', description: '备注旗帜：1 红、2 黄、3 绿、4 蓝、5 紫' },
      remark: { title: '备注', description: '只要备注包含这段文字的订单' },
    },
    out: {
      page: { title: '页' },
      pages: { title: '总页数' },
      count: { title: '本页订单数' },
      total: { title: '订单总数' },
      orders: {
        title: '订单',
        description:
          '订单号、状态、商品、数量、金额（元）、最晚发货和成交时间（北京时间，ISO 8601）、预售、旗帜和备注（不显示收货人信息），与 /orders 显示的相同',
      },
      summary: { title: '概述', description: '一行文字，提问人的语言' },
    },
  },
  waybill_print: {
    title: '面单打印数据',
    description: '店铺运单号的打印数据（每次调用 20 个运单号），保存以供下载',
    in: {
      waybills: { title: '运单号', description: '一个或多个运单号，用空格分开' },
      shop_id: { title: '店铺 ID', description: '店铺 ID 或在 platdesk 中的别名' },
    },
    out: {
      printed: { title: '成功' },
      failed: { title: '失败' },
      summary: { title: '概述', description: '一行文字，提问人的语言' },
    },
  },
  spend: {
    title: '扣费统计',
    description: '从扣费明细读出的 plat 服务扣费：免费，不调用',
    in: {
      period: { title: '时段', description: 'today、month 或 last30' },
      everyone: { title: '所有人', description: '整个工作区（管理员），而不只是提问人' },
    },
    out: {
      points: { title: '点数' },
      calls: { title: '调用次数' },
      quota_calls: { title: '商品额度' },
      summary: { title: '概述', description: '一行文字，提问人的语言' },
    },
  },
};
