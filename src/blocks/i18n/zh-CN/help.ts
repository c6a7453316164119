import type { Catalog } from '../words.js';

export const help: Catalog['help'] = {
  title: '{{command}} 使用说明',
  fallback: '{{command}} 使用说明 · {{usage}}',
  examplesTitle: '*示例*',
  example: '• `{{example}}` — {{what}}',
  confirmFirst: '每次收费查询都会先请你确认费用。',
  '/item': {
    usage: '/item <商品链接或 ID> [价格]',
    summary: '商品详情：标题、店铺、SKU 与价格、属性。不扣点，使用商品额度：每次 1 次，带价格再用 1 次。',
    ex1: '/item https://item.taobao.com/item.htm?id=680001234501 价格',
    ex1What: '链接商品的详情和当前价格',
    ex2: '/item 680001234502',
    ex2What: '按商品 ID 查详情',
    note1: '短链接（m.tb.cn、e.tb.cn）无法解析：请粘贴完整的商品链接。',
  },
  '/shop': {
    usage: '/shop <商品链接> [0|1|2]  或  /shop ww <旺旺号>',
    summary: '根据商品链接查店铺信息，或查旺旺号所属的店铺 ID。按点扣费。',
    ex1: '/shop https://detail.tmall.com/item.htm?id=680001234505 1',
    ex1What: '出售该商品的店铺（1 = 天猫）',
    ex2: '/shop ww beeclothing',
    ex2What: '旺旺号所属的店铺，并可继续查看店铺页面和订单',
    note1: '店铺类型：0 淘宝，1 天猫，2 拼多多（不写时按链接判断）。',
  },
  '/waybill': {
    usage: '/waybill <运单号…> shop:<店铺 ID> | owner:<商家 ID> [carrier:<快递公司代码>]',
    summary: '查面单打印数据（用 shop:）或电子面单信息（用 owner:）。按点扣费。',
    ex1: '/waybill SF1234567890123 YT1234567890123 shop:<店铺 ID>',
    ex1What: '两张面单的打印数据',
    ex2: '/waybill SF1234567890123 owner:<商家 ID>',
    ex2What: '电子面单信息',
    ex3: '/waybill 7312345678901 carrier:ZTO shop:<店铺 ID>',
    ex3What: '运单号看不出快递公司时，写明快递公司',
    note1:
      '一次最多 20 个运单号。快递公司代码有 YTO 圆通、ZTO 中通、STO 申通、YUNDA 韵达、SF 顺丰、EMS、JD 京东等。',
  },
  '/orders': {
    usage: '/orders <商家 ID> [页:2] [每页:50] [从:2026-11-20 到:2026-11-21] [备注:文字] [旗:红]',
    summary: '店铺的已售订单，一次一页，不含收货人信息。查询结果只有你能看到。',
    ex1: '/orders <商家 ID>',
    ex1What: '第一页',
    ex2: '/orders <商家 ID> 页:2 每页:50',
    ex2What: '第二页，每页 50 单（最多 100）',
    ex3: '/orders <商家 ID> 从:2026-11-20 到:2026-11-21 旗:红',
    ex3What: '某一天插红旗的订单',
    ex4: '/orders',
    ex4What: '打开筛选表单',
    ex5: '/orders digest add <商家 ID 或店铺别名> #频道 09:00',
    ex5What: '管理员：每天把昨天的订单汇总发到频道',
    ex6: '/orders digest list',
    ex6What: '所有每日汇总及发送时间',
    note1:
      '旗帜：1 红、2 黄、3 绿、4 蓝、5 紫。筛选条件需要增强版。英文关键字（page: size: date: from: to: remark: flag:）同样可用。',
    note2:
      '每日汇总：用 `/orders digest help` 查看 add、list、remove 和 run 的用法。发货预警：用 `/orders alert help` 查看用法。',
  },
};

export const invalid: Catalog['invalid'] = {
  title: ':warning: *无法查询*\n{{problems}}',
  usage: '用法：\n{{usage}}\n输入 `{{command}} 帮助` 查看示例。',
  fallback: '{{command}}：{{problem}}',
  unknown: '输入无效',
  problem: '• {{text}}',
};
