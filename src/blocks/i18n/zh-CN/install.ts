/** 分发模式的安装页面（Slack OAuth 跳转回来后显示的网页）。 */
export const install = {
  title: 'platdesk',
  installedHeading: 'platdesk 已安装',
  installedBody:
    'platdesk 已加入 {{workspace}}。请在 Slack 中打开它的 App 主页：管理员在那里连接 plat 账户后，所有人即可使用 /item、/shop、/waybill 和 /orders。',
  openSlack: '打开 Slack',
  failedHeading: 'platdesk 安装未完成',
  failedBody: '安装没有完成（{{reason}}），未保存任何内容。请从安装链接重新开始。',
  tryAgain: '重新安装',
  reasonState: '安装链接已过期，或在另一个浏览器中打开',
  reasonDenied: '安装已在 Slack 中取消',
  reasonOther: 'Slack 未确认安装',
  notAllowedHeading: '此工作区不能安装 platdesk',
  notAllowedBody:
    '此 platdesk 只为指定的工作区运行，你的工作区不在其中。未保存任何内容，platdesk 已从该工作区卸载。请运营方把你的工作区加入名单。',
  platAccountHeading: 'plat 账户',
  platAccountFirstStep: '第一步：连接 plat 账户',
  platAccountMemberNone:
    ':information_source: 此工作区还没有 plat 账户，暂时无法查询：需要管理员在 App 主页连接。',
  platAccountNone: '尚未连接 plat 账户：管理员连接之前无法查询。',
  platAccountDefault: '查询费用从运营方的 plat 账户扣除。连接你们自己的账户后将从该账户扣费。',
  platAccountUnchecked: '已连接 {{url}}。plat API 没有免费调用，令牌将在第一次查询时验证（照常扣费）。',
  platAccountVerified: '已连接 {{url}}，令牌已通过验证。',
  platAccountRefused: '已连接 {{url}}，但 plat API 拒绝了该令牌（{{code}}）。请用有效令牌重新连接。',
  platAccountButton: '连接 plat 账户',
  platAccountModalTitle: 'plat 账户',
  platAccountModalSave: '保存',
  platAccountBaseUrl: '基础 URL',
  platAccountBaseUrlHint: '服务商提供的 plat API 基础 URL（https://…）。',
  platAccountToken: '令牌',
  platAccountTokenHint: '加密保存，之后不再显示。',
  platAccountBadUrl: '请输入 https:// 网址（不含用户名和密码）。',
  platAccountPrivateUrl:
    '这个网址指向本机或内部地址，不是公网地址：请输入服务商提供的 plat API 的 https:// 网址。',
  platAccountUnresolvedUrl: '找不到这个主机名：请检查网址。',
  platAccountBadToken: '令牌只能包含可打印的 ASCII 字符（不含空格）。',
  platAccountOnlyAdmins: '只有本工作区的 platdesk 管理员可以连接 plat 账户。',
  eraseButton: '删除工作区数据',
  eraseModalTitle: '删除工作区数据',
  eraseModalBody:
    '这将立即从本工作区卸载 platdesk：其 Slack 令牌和 plat 账户立即删除，全部数据（扣费明细、设置、日报、发货预警）在一小时内清除。此操作无法撤销。',
  eraseModalSubmit: '删除',
} as const;
