import type { Catalog } from '../words.js';

export const unfurl: Catalog['unfurl'] = {
  what: ':shopping_bags: *商品 {{id}}*{{where}}{{host}}',
  where: {
    '0': ' · 淘宝',
    '1': ' · 天猫',
    '2': ' · 拼多多',
  },
  host: '（{{host}}）',
  shop: '店铺：{{shop}}',
  price: '价格：{{price}}',
  notListed: '未标价',
  lookUp: '查询（{{short}}）',
  showDetails: '查看详情',
  earlierAuto: ':recycle: 之前的结果（{{time}} 自动查询，{{age}}前）：未重复查询，不扣费。',
  earlierBy: ':recycle: 之前的结果（{{user}} 于 {{time}} 查询，{{age}}前）：未重复查询，不扣费。',
  shortLink:
    ':link: 短链接：不打开链接，platdesk 无法知道 {{host}} 指向哪个商品。请粘贴完整的商品链接再查询，例如 `item.taobao.com/item.htm?id=…` `detail.tmall.com/item.htm?id=…` 或 `mobile.yangkeduo.com/goods.html?goods_id=…` 这样的链接。',
  shortLinkIt: '它',
  capped: ':no_entry: 未自动查询：本频道每天最多自动查询 {{cap}} 次，今天已用完（{{used}} / {{cap}}）。',
  refused: ':no_entry: 未自动查询（按发链接的人核对未通过）：{{reason}}',
  running: ':hourglass_flowing_sand: 这个商品正在自动查询中（之前有人发过同一链接）。',
  failedEarlier: ':warning: 此商品的自动查询在 {{time}} 失败；如有需要请手动查询。',
  costs: '查询费用为 {{short}}；会先请你确认。目前未产生任何费用。',
  autoCached: '来自缓存（{{age}}前）：不扣费，不计入次数（今天 {{used}} / {{cap}}）',
  autoCounted: '今天 {{used}} / {{cap}} · {{charge}}',
  auto: ':robot_face: 已自动查询（本频道会自动查询商品链接）：{{counted}}。',
  autoFailedWhy: '{{title}}。{{charge}}',
  lookupFailed: '查询失败。',
  autoFailed: ':warning: 已自动查询（今天 {{used}} / {{cap}}），但查询失败：{{why}}',
  earlierFallback: '之前的结果：{{text}}',
};
