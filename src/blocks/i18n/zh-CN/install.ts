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
} as const;
