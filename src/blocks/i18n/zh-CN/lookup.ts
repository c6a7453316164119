import type { Catalog } from '../words.js';

export const charge: Catalog['charge'] = {
  fromCache: '来自缓存（{{age}}前）：未扣费',
  shared: '与正在进行的相同查询共用结果：未扣费',
  charged: '已扣费 {{points}}',
  quotaUsed_one: '已使用商品额度 {{n}} 次',
  quotaUsed_other: '已使用商品额度 {{n}} 次',
  noneReported: '服务未返回扣费（0 点）',
  overAttempts: '{{text}}（共尝试 {{n}} 次）',
  note: ':receipt: {{text}}',
  priceUnknown: '价格暂未知',
  noCharge: '不扣费',
  plus: '{{a}} + {{b}}',
};

export const confirm: Catalog['confirm'] = {
  title: ':money_with_wings: {{operations}}：{{summary}}，{{price}}。',
  titleMany: ':money_with_wings: 查询{{summary}}的费用：',
  after: '查询结果会写明实际扣费。',
  quotaPerCall_one: '商品额度 {{n}} 次',
  quotaPerCall_other: '商品额度 {{n}} 次',
  about: '每次约 {{points}}',
  asLastCharged: '{{text}}，按上次实际扣费',
  lastCharged: '{{text}}，上次实际扣费 {{last}}',
  callsThen: '{{calls}}，{{text}}',
  line: '• {{operation}}：{{price}}',
  moreOperations_one: '…还有 {{n}} 项接口',
  moreOperations_other: '…还有 {{n}} 项接口',
  aboutTotal: '约 {{points}}',
  and: '{{a}}，另用{{b}}',
  total: '合计：{{total}}。查询结果会写明实际扣费。',
  warning: ':warning: {{text}}',
  confirmButton: '确认（{{short}}）',
  cancelButton: '取消',
  expires_one: '{{n}} 分钟后失效。确认之前不会产生任何费用。',
  expires_other: '{{n}} 分钟后失效。确认之前不会产生任何费用。',
  fallback: '请确认{{operations}}：{{summary}}，{{short}}',
  capWarning: '本次查询后，{{cap}}。',
  closed: {
    cancelled: ':no_entry_sign: 已取消，未产生任何费用。',
    expired: ':hourglass: 此确认已失效，未产生任何费用。请重新输入命令。',
    already_used: ':white_check_mark: 此确认已使用过，同一查询只会执行一次。',
    not_yours: ':lock: 这是别人的确认。如需查询，请自己输入命令。',
    running: ':hourglass_flowing_sand: 正在查询…',
    not_found:
      ':hourglass: 此按钮已失效（已过期，或超过 platdesk 的保存期限）。这次点击没有产生任何费用。如仍需要，请重新输入命令。',
    interrupted:
      ':warning: 此查询在结果返回前因 platdesk 重启而中断，且没有重新执行。可能已经扣费，你的扣费可用 `/platdesk usage` 查看。如仍需要，请重新输入命令。',
  },
  interruptedNotSent:
    ':warning: 你对{{summary}}的查询在调用发送前中断（platdesk 重启或数据库连接中断），未产生任何费用。',
  interruptedCharged:
    ':warning: 你对{{summary}}的查询在调用后中断（platdesk 重启或数据库连接中断），没有重新执行，也不会再执行。{{cost}}，可用 `/platdesk usage` 查看。',
  interruptedNoCharge:
    ':warning: 你对{{summary}}的查询在调用到达数据服务后中断（platdesk 重启或数据库连接中断），服务没有报告任何费用。没有重新执行，也不会再执行。',
  interruptedChargeUnknown:
    ':warning: 你对{{summary}}的查询在调用发送后中断（platdesk 重启或数据库连接中断），没有重新执行，也不会再执行。费用尚未记录，记录后可用 `/platdesk usage` 查看。',
  interruptedCostUnknown:
    ':warning: 你对{{summary}}的查询在调用发送后、读到回复前中断（platdesk 重启或数据库连接中断），没有重新执行，也不会再执行。数据服务可能已经扣费；扣了多少 platdesk 无从得知：请到 plat 账户查看数据服务的扣费情况。',
  interruptedMaybeNotSent:
    ':warning: 你对{{summary}}的查询在调用正要发送时中断（platdesk 重启或数据库连接中断），没有重新执行，也不会再执行。这次调用可能没有到达数据服务；如果到达了，扣了多少 platdesk 无从得知：请到 plat 账户查看数据服务的扣费情况。',
  interruptedRunBelow: '如需查询，请确认下面的新请求。',
  interruptedRunAgain: '如需查询，请再次输入同一命令：它会先请你确认费用。',
  interruptedAnswerBelow: '下面是当时保存的结果。',
  interruptedAnswerLost:
    '如果你还没有收到它的结果，说明结果已丢失：如仍需要，请再次输入命令；任何新的扣费前都会先请你确认。',
  lookingUp: ':hourglass_flowing_sand: 正在查询{{summary}}…',
  refresh: '刷新（{{short}}）',
};

export const subject: Catalog['subject'] = {
  item: '商品 {{id}}',
  shopInfo: '链接 {{url}} 的商品',
  shopId: '旺旺号 {{wwid}}',
  waybillPrint_one: '店铺 {{shop}} 的 {{n}} 张面单',
  waybillPrint_other: '店铺 {{shop}} 的 {{n}} 张面单',
  waybillInfo_one: '商家 {{owner}} 的 {{n}} 张面单',
  waybillInfo_other: '商家 {{owner}} 的 {{n}} 张面单',
  orders: '商家 {{owner}}，第 {{page}} 页（每页 {{size}} 单）',
};

export const summary: Catalog['summary'] = {
  item: '商品 {{id}}',
  itemWithPrices: '商品 {{id}}（含价格）',
  itemPrices: '商品 {{id}} 的价格',
  shopInfo: '链接 {{url}} 所属的店铺',
  shopId: '旺旺号 {{wwid}} 的店铺 ID',
  waybillPrint_one: '店铺 {{shop}} 的 {{n}} 张面单打印数据',
  waybillPrint_other: '店铺 {{shop}} 的 {{n}} 张面单打印数据',
  waybillInfo_one: '商家 {{owner}} 的 {{n}} 张电子面单信息',
  waybillInfo_other: '商家 {{owner}} 的 {{n}} 张电子面单信息',
  orders: '商家 {{owner}} 的订单，第 {{page}} 页（每页 {{size}} 单）',
};

export const cap: Catalog['cap'] = {
  user: {
    daily: '你的每日上限：已用 {{spent}} / {{cap}} 点',
    monthly: '你的每月上限：已用 {{spent}} / {{cap}} 点',
  },
  workspace: {
    daily: '工作区每日上限：已用 {{spent}} / {{cap}} 点',
    monthly: '工作区每月上限：已用 {{spent}} / {{cap}} 点',
  },
  channel: {
    daily: '本频道的每日上限：已用 {{spent}} / {{cap}} 点',
    monthly: '本频道的每月上限：已用 {{spent}} / {{cap}} 点',
  },
  step: {
    daily: '此工作流步骤批准的每日上限：已用 {{spent}} / {{cap}} 点',
    monthly: '此工作流步骤批准的每月上限：已用 {{spent}} / {{cap}} 点',
  },
  left: {
    user: {
      daily: '你的每日上限（{{cap}} 点中还剩 {{left}} 点）',
      monthly: '你的每月上限（{{cap}} 点中还剩 {{left}} 点）',
    },
    workspace: {
      daily: '工作区每日上限（{{cap}} 点中还剩 {{left}} 点）',
      monthly: '工作区每月上限（{{cap}} 点中还剩 {{left}} 点）',
    },
    channel: {
      daily: '本频道的每日上限（{{cap}} 点中还剩 {{left}} 点）',
      monthly: '本频道的每月上限（{{cap}} 点中还剩 {{left}} 点）',
    },
  },
  quotaCalls_one: '商品额度 {{n}} 次',
  quotaCalls_other: '商品额度 {{n}} 次',
  quotaNoPoints: '{{quota}}，不扣点',
  aboutPoints_one: '约 {{n}} 点',
  aboutPoints_other: '约 {{n}} 点',
  aboutHeld_one: '约 {{n}} 点，扣费前最多预留 {{held}} 点',
  aboutHeld_other: '约 {{n}} 点，扣费前最多预留 {{held}} 点',
  unknownHeld: '价格暂未知，扣费前最多预留 {{held}} 点',
  pointsAndQuota: '{{points}}，另用{{quota}}',
};

export const refusal: Catalog['refusal'] = {
  title: ':no_entry: *未查询*\n{{reason}}',
  fallback: '未查询：{{reason}}',
  askAdmins: '请联系管理员：{{admins}}。',
  askAnyAdmin: '请联系 platdesk 管理员（PLATDESK_ADMINS）。',
  footer: '{{ask}}未发送任何请求，未产生任何费用。',
  reason: {
    not_allowed: '你不在可以发起收费查询的名单中。',
    shop_unregistered: '{{shop}} 不是已登记的店铺；只能查询已登记的店铺。',
    shop_channel: '店铺 {{shop}} 的订单和面单只能在它自己的频道里查询。',
    shop_no_owner: '店铺 {{shop}} 没有登记商家 ID。',
    shop_no_shop_id: '店铺 {{shop}} 没有登记店铺 ID。',
    budget: '本次查询（{{wanted}}）将超出{{cap}}，多出 {{over}}。',
    budget_passed: '本次查询（{{wanted}}）未执行：{{cap}}，已超过上限。',
    price_unknown:
      '{{operations}}的价格暂未知，无法按{{caps}}核对这次查询；查询未执行，未产生任何费用。请管理员在 PLAT_PRICES 或 App 主页的“价格”中设置价格，或由管理员先运行一次。',
    no_plat_account: '此工作区还没有 plat 账户——需要管理员在 App 主页连接（“连接 plat 账户”）。',
    page_past_last: '{{text}}（{{age}}前统计）',
  },
};
