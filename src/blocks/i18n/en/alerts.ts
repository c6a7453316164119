/** Ship-by alerts and `/orders alert`. */
export const shipAlert = {
  title_one: ':alarm_clock: {{n}} order of {{shop}} to ship within {{hours}} h',
  title_other: ':alarm_clock: {{n}} orders of {{shop}} to ship within {{hours}} h',
  order: '`{{sn}}` · {{goods}} × {{qty}} · {{amount}}\nShip by *{{time}}* ({{left}})',
  left: '{{time}} left',
  overdue: 'overdue',
  claimedBy: ':raising_hand: Claimed by {{user}} at {{time}}',
  handledBy: ':white_check_mark: Handled by {{user}} at {{time}}',
  shipped: ':package: Shipped ✓',
  lost: ':grey_question: Not shown: platdesk stopped while posting',
  claim: 'Claim',
  handled: 'Mark handled',
  deferred_one: '{{n}} more order due later follows in the next check.',
  deferred_other: '{{n}} more orders due later follow in the next check.',
  footer: 'Ship-by alert #{{id}} · no receiver names, phones or addresses.',
  cost_one: ':receipt: This check cost {{points}} in {{n}} call',
  cost_other: ':receipt: This check cost {{points}} in {{n}} calls',
  fallback_one: '{{n}} order of {{shop}} to ship within {{hours}} h',
  fallback_other: '{{n}} orders of {{shop}} to ship within {{hours}} h',
  reminderYou:
    ':rotating_light: Reminder: order `{{sn}}` of {{shop}} ({{goods}}) you claimed must ship by *{{time}}* ({{left}}) and is not shipped yet.',
  reminderChannel:
    ':rotating_light: Reminder: order `{{sn}}` of {{shop}} ({{goods}}) must ship by *{{time}}* ({{left}}); nobody has claimed it.',
  failed:
    ':warning: Ship-by alert #{{id}} ({{shop}}) could not check the orders: {{reason}}.{{remedy}} {{next}}',
  retryAt: 'Trying again at {{time}}.',
  nextSlot: 'The next check runs at its usual time.',
  resolved: ':white_check_mark: Ship-by alert #{{id}} ({{shop}}) works again.',
  approval:
    ':moneybag: Ship-by alert #{{id}} ({{shop}} → {{channel}}) would pass its daily cap: {{spent}} spent today, this check about {{points}}, cap {{cap}}. Its orders were not fetched.',
  runAnyway: 'Run anyway today (~{{points}})',
  unverified:
    ":warning: Slack did not confirm that ship-by alert #{{id}} ({{shop}}) was posted in {{channel}}, and platdesk cannot read that channel's history to check (missing scope, or platdesk is not in the channel). Those orders are not alerted again, to avoid a double post.",
  unverifiedBusy:
    ":warning: Slack did not confirm that ship-by alert #{{id}} ({{shop}}) was posted in {{channel}}, and that channel had more messages around that time than platdesk may read to check under Slack's limit for apps not approved for the Slack Marketplace (one request of 15 messages a minute). Those orders are not alerted again, to avoid a double post.",
  refusedClaim: 'Order `{{sn}}` is already claimed by {{user}} (since {{time}}); they are on it.',
  refusedDone: 'Order `{{sn}}` is already done: {{state}}.',
  refusedHandled: 'Order `{{sn}}` is claimed by {{user}}; only they can mark it handled.',
  stateHandled: 'handled',
  stateShipped: 'shipped',
  gone: 'This alert is no longer known (it was removed).',
  listNone: 'No ship-by alerts yet. An admin can add one: `/orders alert add <owner id> #channel within:6`.',
  listTitle: 'Ship-by alerts ({{n}})',
  listRow:
    '*#{{id}}* · {{shop}} → {{channel}} · due within {{within}} h · every {{every}} min {{from}}–{{to}} {{zone}}\nSpent today: {{spent}} of {{cap}} · Next check: {{next}}',
  listFallback: 'Ship-by alerts: {{n}}',
  usage: {
    add: '/orders alert add <owner id or shop alias> #channel within:<hours> [every:<minutes>] [hours:09:00-21:00] [time zone] [cap:<points>] [lang:zh-CN]',
    addWhat: 'alert on orders due to ship soon (admins)',
    list: '/orders alert list',
    listWhat: 'the alerts and what each spent today',
    remove: '/orders alert remove <id>',
    removeWhat: 'stop an alert (admins)',
  },
  helpIntro:
    '*Ship-by alerts*: orders awaiting shipment whose latest ship time is near, posted once each with Claim and Mark handled buttons. Defaults: within 6 h, every 60 min, 09:00–21:00 Beijing time, daily cap = the digest cap.',
  helpFallback: 'Ship-by alerts',
  answer: {
    notEnabled: 'Ship-by alerts are not enabled on this platdesk.',
    onlyAdmins: ':no_entry: Only platdesk admins can add or remove ship-by alerts.',
    unknownShop: ':warning: No shop is known as "{{shop}}"; give its owner id.',
    exists: 'That shop already has an alert in that channel: #{{id}}.',
    added:
      ':white_check_mark: Ship-by alert #{{id}} added: orders of owner {{owner}} due within {{within}} h, checked every {{every}} min {{from}}–{{to}} {{zone}} in {{channel}}; daily cap {{cap}}. One check costs about {{perCheck}}. Next check: {{next}}.',
    removed: ':wastebasket: Ship-by alert #{{id}} removed.',
    noSuchId: 'There is no ship-by alert #{{id}} (see `/orders alert list`).',
    approveOnlyAdmins: ':no_entry: Only platdesk admins can approve spending past an alert’s cap.',
    approved: ':hourglass_flowing_sand: {{user}} approved today’s spending; checking now…',
    ran_one: ':white_check_mark: Checked: {{n}} order alerted.',
    ran_other: ':white_check_mark: Checked: {{n}} orders alerted.',
    alreadyHandled: 'That check was already approved or run; nothing more was charged.',
    unknown:
      ':hourglass_flowing_sand: Checked, but Slack did not confirm the alert post. platdesk looks for it in the channel and posts it only if it is missing.',
    failed: ':warning: The check failed: {{reason}}.',
    notFound: 'There is no such check.',
    stopped: 'platdesk is restarting; try again in a minute.',
  },
} as const;

/** The App Home's "Add alert" form. */
export const alertForm = {
  title: 'Add ship-by alert',
  submit: 'Add',
  close: 'Cancel',
  intro:
    'platdesk checks the shop’s orders awaiting shipment during working hours and posts, once each, those due to ship soon, with Claim and Mark handled buttons. No personal data.',
  shop: 'Owner id or shop alias',
  channel: 'Post in channel',
  within: 'Due within (hours)',
  every: 'Check every (minutes)',
  hours: 'Working hours',
  timeZone: 'Time zone',
  cap: 'Daily cost cap (points)',
  capHint: 'Empty: the digest cost cap. Over it, the admins are asked before any call.',
  onlyAdmins: 'Only platdesk admins can add ship-by alerts.',
  chooseChannel: 'choose a channel',
} as const;

/** Why an alert command cannot be taken (alerts/grammar.ts codes beyond the digest's). */
export const shipAlertProblem = {
  alert_usage:
    'usage: /orders alert add <owner id or shop alias> #channel within:<hours> [every:<minutes>] [hours:09:00-21:00] [time zone] [cap:<points>] [lang:zh-CN]',
  within_bad: '"within:{{text}}" must be a whole number of hours from 1 to 72',
  every_bad: '"every:{{text}}" must be a whole number of minutes from 15 to 720',
  hours_bad: '"hours:{{text}}" must be working hours such as 09:00-21:00',
  cap_bad: '"cap:{{text}}" must be a number of points from 0 to 1000000',
  alert_id_missing: "give the alert's number (see `/orders alert list`)",
  alert_verb: 'unknown alert command "{{verb}}"',
} as const;
