import type { Catalog } from '../words.js';

export const shipAlert: Catalog['shipAlert'] = {
  title_one: ':alarm_clock: {{shop}} 有 {{n}} 单需在 {{hours}} 小时内发货',
  title_other: ':alarm_clock: {{shop}} 有 {{n}} 单需在 {{hours}} 小时内发货',
  order: '`{{sn}}` · {{goods}} × {{qty}} · {{amount}}\n最晚 *{{time}}* 发货（{{left}}）',
  left: '还剩 {{time}}',
  overdue: '已超时',
  claimedBy: ':raising_hand: {{user}} 已于 {{time}} 认领',
  handledBy: ':white_check_mark: {{user}} 已于 {{time}} 处理',
  shipped: ':package: 已发货 ✓',
  lost: ':grey_question: 未显示：发布时 platdesk 停止了',
  claim: '认领',
  handled: '标记为已处理',
  deferred_one: '还有 {{n}} 单发货时间较晚，下次检查时再提醒。',
  deferred_other: '还有 {{n}} 单发货时间较晚，下次检查时再提醒。',
  footer: '发货预警 #{{id}} · 不含收货人姓名、电话和地址。',
  cost_one: ':receipt: 本次检查扣费 {{points}}，共调用 {{n}} 次',
  cost_other: ':receipt: 本次检查扣费 {{points}}，共调用 {{n}} 次',
  fallback_one: '{{shop}} 有 {{n}} 单需在 {{hours}} 小时内发货',
  fallback_other: '{{shop}} 有 {{n}} 单需在 {{hours}} 小时内发货',
  reminderYou:
    ':rotating_light: 提醒：你认领的 {{shop}} 订单 `{{sn}}` · {{goods}}，最晚 *{{time}}* 发货（{{left}}），目前还未发货。',
  reminderChannel:
    ':rotating_light: 提醒：{{shop}} 订单 `{{sn}}` · {{goods}}，最晚 *{{time}}* 发货（{{left}}），还没有人认领。',
  failed: ':warning: 发货预警 #{{id}}（{{shop}}）没能查询订单：{{reason}}。{{remedy}}{{next}}',
  retryAt: '将在 {{time}} 重试。',
  nextSlot: '下次检查按原定时间进行。',
  resolved: ':white_check_mark: 发货预警 #{{id}}（{{shop}}）已恢复正常。',
  approval:
    ':moneybag: 发货预警 #{{id}}（{{shop}} → {{channel}}）将超出每日扣费上限：今天已扣 {{spent}}，本次检查约 {{points}}，上限 {{cap}}。尚未拉取订单。',
  runAnyway: '今天仍然运行（约 {{points}}）',
  unverified:
    ':warning: Slack 未确认发货预警 #{{id}}（{{shop}}）已发到 {{channel}}，且 platdesk 无法读取该频道历史来核对（缺少权限，或 platdesk 不在该频道）。为避免重复发布，这些订单不会再次提醒。',
  unverifiedBusy:
    ':warning: Slack 未确认发货预警 #{{id}}（{{shop}}）已发到 {{channel}}，且该时段频道中的消息超出了未经 Slack Marketplace 审核的应用可读取的数量（每分钟一次，每次 15 条），无法核对。为避免重复发布，这些订单不会再次提醒。',
  refusedClaim: '订单 `{{sn}}` 已被 {{user}} 认领（{{time}} 起），对方正在处理。',
  refusedDone: '订单 `{{sn}}` 已完成：{{state}}。',
  refusedHandled: '订单 `{{sn}}` 已被 {{user}} 认领，只有对方可以标记为已处理。',
  stateHandled: '已处理',
  stateShipped: '已发货',
  gone: '这个预警已不存在（已被删除）。',
  listNone: '还没有发货预警。管理员可用 `/orders alert add <商家 ID> #频道 within:6` 添加。',
  listTitle: '发货预警（{{n}} 个）',
  listRow:
    '*#{{id}}* · {{shop}} → {{channel}} · {{within}} 小时内需发货 · 每 {{every}} 分钟 {{from}}–{{to}} {{zone}}\n今日已扣 {{spent}}，上限 {{cap}} · 下次检查：{{next}}',
  listFallback: '发货预警：{{n}} 个',
  usage: {
    add: '/orders alert add <商家 ID 或店铺别名> #频道 within:<小时> [every:<分钟>] [hours:09:00-21:00] [时区] [cap:<点数>] [lang:zh-CN]',
    addWhat: '快到最晚发货时间的订单提醒（管理员）',
    list: '/orders alert list',
    listWhat: '所有预警及今日扣费',
    remove: '/orders alert remove <编号>',
    removeWhat: '停止一个预警（管理员）',
  },
  helpIntro:
    '*发货预警：*待发货且快到最晚发货时间的订单，每单只提醒一次，带“认领”和“标记为已处理”按钮。默认：6 小时内、每 60 分钟、09:00–21:00 北京时间，每日上限同汇总上限。',
  helpFallback: '发货预警',
  answer: {
    notEnabled: '这个 platdesk 没有开启发货预警。',
    onlyAdmins: ':no_entry: 只有 platdesk 管理员可以添加或删除发货预警。',
    unknownShop: ':warning: 找不到叫“{{shop}}”的店铺，请填写商家 ID。',
    exists: '这个店铺在该频道已有预警：#{{id}}。',
    added:
      ':white_check_mark: 已添加发货预警 #{{id}}：商家 {{owner}} 在 {{within}} 小时内需发货的订单，{{from}}–{{to}} {{zone}} 每 {{every}} 分钟检查一次，发到 {{channel}}；每日上限 {{cap}}。每次检查约扣费 {{perCheck}}。下次检查：{{next}}。',
    removed: ':wastebasket: 已删除发货预警 #{{id}}。',
    noSuchId: '没有发货预警 #{{id}}，可用 `/orders alert list` 查看。',
    approveOnlyAdmins: ':no_entry: 只有 platdesk 管理员可以批准超出预警扣费上限的检查。',
    approved: ':hourglass_flowing_sand: {{user}} 已批准今天超出上限的扣费，正在检查…',
    ran_one: ':white_check_mark: 检查完成：提醒了 {{n}} 单。',
    ran_other: ':white_check_mark: 检查完成：提醒了 {{n}} 单。',
    alreadyHandled: '这次检查已被批准或已运行，没有再扣费。',
    unknown:
      ':hourglass_flowing_sand: 已检查，但 Slack 未确认预警已发布。platdesk 会在频道中查找，只有缺失时才再发布。',
    failed: ':warning: 检查失败：{{reason}}。',
    notFound: '没有这次检查。',
    stopped: 'platdesk 正在重启，请一分钟后再试。',
  },
};

export const alertForm: Catalog['alertForm'] = {
  title: '添加发货预警',
  submit: '添加',
  close: '取消',
  intro:
    'platdesk 在工作时间检查店铺的待发货订单，把快到最晚发货时间的订单各提醒一次，带“认领”和“标记为已处理”按钮。不含个人信息。',
  shop: '商家 ID 或店铺别名',
  channel: '发到频道',
  within: '多少小时内需发货',
  every: '每隔多少分钟检查',
  hours: '工作时间',
  timeZone: '时区',
  cap: '每日扣费上限（点）',
  capHint: '留空：使用汇总的扣费上限。超过上限时，先请管理员批准，再调用。',
  onlyAdmins: '只有 platdesk 管理员可以添加发货预警。',
  chooseChannel: '请选择频道',
};

export const shipAlertProblem: Catalog['shipAlertProblem'] = {
  alert_usage:
    '用法：/orders alert add <商家 ID 或店铺别名> #频道 within:<小时> [every:<分钟>] [hours:09:00-21:00] [时区] [cap:<点数>] [lang:zh-CN]',
  within_bad: '“within:{{text}}”应为 1 到 72 之间的整数小时',
  every_bad: '“every:{{text}}”应为 15 到 720 之间的整数分钟',
  hours_bad: '“hours:{{text}}”应为工作时间，例如 09:00-21:00',
  cap_bad: '“cap:{{text}}”应为 0 到 1000000 之间的点数',
  alert_id_missing: '请给出预警编号，可用 `/orders alert list` 查看',
  alert_verb: '未知的预警命令“{{verb}}”',
};
