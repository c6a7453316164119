import type { Catalog } from '../words.js';

export const notice: Catalog['notice'] = {
  unknownCommand:
    'platdesk 没有 `{{command}}` 这个命令。可用命令：`/item`、`/shop`、`/waybill`、`/orders` 和 `/platdesk`（各自可用 `help` 查看用法）。',
  printDataGone: '这份打印数据已无法获取；请重新查询面单。',
  printDataTitle: '面单打印数据',
  printDataComment: '{{summary}}，供打印工具使用。',
  printDataFailed: '打印数据文件未能发送给你；请稍后再点一次按钮（不会重复扣费）。',
  printDataSent: '打印数据文件已发到你与 platdesk 的私信中。',
  notItemLink: '该链接不是 platdesk 能查询的商品链接。未产生任何费用。',
  exportFailed: '扣费明细未能发到你的私信；请稍后重试。',
  exportTitle: 'platdesk 扣费明细',
};
