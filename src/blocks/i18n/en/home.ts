/** The App Home, its settings forms and the alerts sent to admins. */
export const home = {
  title: 'platdesk',
  intro:
    'Look up waybills, items, shops and orders from the plat data service. Every charged lookup states its charge and waits for your Confirm.',
  commands: '*Commands* (each answers `help`)\n{{lines}}',
  platdeskLine:
    '`/platdesk usage [today|month]`, `/platdesk confirm under &lt;points&gt;`: your spend and confirmations',
  also: '*Also*\n• Paste an item link: its preview offers `Look up` with the charge.\n• On any message, *More actions* → *Look up items*, *Look up waybills* or *Find shop*.\n• The shortcut *platdesk lookup* (⚡ menu) takes pasted text.',
  mcp: '*AI clients (MCP)*\nClaude, Cursor or any MCP client can run your lookups; each paid call waits for your Confirm here.',
  mcpButton: 'Connect an AI client',
  language: '*Language*: {{language}}{{source}}',
  languageSource: {
    own: ' (your choice)',
    auto: ' (from your Slack language or the workspace default)',
  },
  languageName: {
    en: 'English',
    'zh-CN': '中文 (Chinese)',
  },
  languageButton: {
    en: 'English',
    'zh-CN': '中文',
    auto: 'Automatic',
  },
  yourSpend: 'Your spend',
  today: '*Today*\n{{totals}}',
  month: '*This month*\n{{totals}}',
  totals: '{{points}}, {{calls}}',
  totalsQuota: '{{points}}, {{calls}}, {{quota}} of the item quota',
  recentTitle: '*Your lookups, last 7 days*',
  lookupLine: '• {{time}} {{what}}{{via}}: {{cost}}{{failed}}',
  via: ' ({{source}})',
  source: {
    interactive: 'interactive',
    digest: 'digest',
    alert: 'ship-by alert',
    unfurl: 'unfurl',
    shortcut: 'shortcut',
    workflow: 'workflow step',
    agent: 'agent',
    mcp: 'AI client (MCP)',
  },
  failedMark: ' · failed',
  noRecent: 'No lookups in the last 7 days.',
  moreRecent_one: '…and {{n}} more lookup in the last 7 days.',
  moreRecent_other: '…and {{n}} more lookups in the last 7 days.',
  daysIn: 'Times, days and months are in {{zone}}.',
  workspaceSpend: 'Workspace spend, last 30 days',
  total: '*Total:* {{totals}}',
  byUser: '*By user*',
  byOperation: '*By operation*',
  byDay: '*By day* ({{zone}}, newest first)',
  userLine: '• {{who}}: {{totals}}',
  scheduledWithinCaps:
    'Scheduled digests and ship-by alerts are counted here and obey the workspace caps: a page that would pass one is not fetched, and Run anyway does not lift it.',
  scheduledDigests: 'scheduled digests',
  moreUsers_one: '…and {{n}} more user',
  moreUsers_other: '…and {{n}} more users',
  moreDays_one: '…and {{n}} more day',
  moreDays_other: '…and {{n}} more days',
  alerts: 'Alerts',
  alertLine: '• {{time}} {{text}}',
  budgetAlertLine: '• {{day}}: budget cap alert ({{cap}})',
  noAlerts: 'No balance, token or budget alerts sent to admins.',
  settings: 'Settings',
  whoMaySpend: '*Who may spend*\n{{who}}',
  capsTitle: '*Spending caps*',
  capsHint:
    'Counted in {{zone}}. Set with `/platdesk budget <workspace|user|@user|#channel> <daily|monthly> <points|off>`.',
  accessEveryone: 'Everyone in the workspace.',
  accessOnly: 'Only {{who}} (and admins).',
  membersIn: 'members in {{channel}}',
  nobodyListed: 'nobody listed',
  edit: 'Edit',
  autoTitle: '*Channels that look item links up automatically*\n{{list}}',
  autoNone: 'None: every item link offers a Look up button.',
  autoLine: '{{channel}}: up to {{cap}} a day, {{used}} used today',
  pricesTitle_one: '*Prices per call* (quotes use these; {{n}} price set here)\n{{lines}}',
  pricesTitle_other: '*Prices per call* (quotes use these; {{n}} prices set here)\n{{lines}}',
  priceQuota: '• {{label}}: 1 call of the item quota',
  priceLine: '• {{label}}: {{price}}',
  priceLineLast: '• {{label}}: {{price}}, last charged {{last}}',
  setHere: '{{points}} (set here)',
  notConfigured: 'not configured',
  digestsTitle: '*Digest subscriptions* ({{n}})',
  digestsNone: '*Digest subscriptions* ({{n}})\nNone yet. Add one here or with `/orders digest add`.',
  addDigest: 'Add digest',
  digestLine: '• #{{id}} {{shop}} → {{channel}} at {{time}} {{zone}}',
  remove: 'Remove',
  moreDigests: '…and {{n}} more: `/orders digest list`.',
  alertsTitle: '*Ship-by alerts* ({{n}})',
  alertsNone: '*Ship-by alerts* ({{n}})\nNone yet. Add one here or with `/orders alert add`.',
  addAlert: 'Add alert',
  shipAlertLine:
    '• #{{id}} {{shop}} → {{channel}} · due within {{within}} h · every {{every}} min {{from}}–{{to}} · spent today {{spent}} of {{cap}}',
  moreAlerts: '…and {{n}} more: `/orders alert list`.',
  agentTitle: 'The agent (last 30 days)',
  agentSpend_one:
    'Spent through the agent: {{spent}} over {{n}} call, as the ledger records it{{quota}} (`/platdesk export` lists them as source agent)',
  agentSpend_other:
    'Spent through the agent: {{spent}} over {{n}} calls, as the ledger records it{{quota}} (`/platdesk export` lists them as source agent)',
  agentQuota_one: '; {{n}} of them used the item quota',
  agentQuota_other: '; {{n}} of them used the item quota',
  agentVotes: '👍 {{good}} · 👎 {{bad}}',
  agentVoteLine: '{{vote}} <@{{user}}>, {{time}}: {{tools}}',
  footer:
    'Run digests with `/orders digest run`. Every change is recorded with who made it (`/platdesk audit`). Updated {{time}}.',
  form: {
    save: 'Save',
    cancel: 'Cancel',
    accessTitle: 'Who may spend',
    accessEveryone: 'Everyone in the workspace',
    accessListed: 'Only the people, groups and channels below (and admins)',
    accessMode: 'Who may run charged lookups',
    people: 'People',
    channels: 'Members of these channels',
    groups: 'User group ids (S…), separated by spaces',
    accessFooter: 'Admins may always spend. The change is recorded with your name.',
    autoTitle: 'Auto-lookup',
    autoOn: 'On: look item links up automatically',
    autoOff: 'Off: offer a Look up button',
    autoNow: '*Now*\n{{list}}',
    autoModalLine: '• {{channel}}: up to {{cap}} a day',
    autoModalNone: 'No channel looks item links up automatically.',
    channel: 'Channel',
    autoMode: 'Item links posted there',
    autoCap: 'Automatic lookups a day, at most',
    autoFooter:
      'Each automatic lookup is charged like a confirmed one (to the person who posted the link) and the unfurl says so. The same item in the same channel is looked up at most once in 30 minutes.',
    pricesTitle: 'Prices',
    quotedNow: '*Quoted now*\n{{lines}}',
    setHere: '*Set here*\n{{lines}}',
    setHereNone: 'Nothing: the prices come from PLAT_PRICES and the last charges seen.',
    setLine: '• {{label}}: {{points}}',
    operation: 'Operation and edition',
    points: 'Points per call (empty: remove the price set here)',
    pricesFooter: '1 point = ¥0.01. Item details and prices use the item quota and have no price in points.',
    onlyAdmins: 'Only platdesk admins can change this.',
    adminOnlyButton:
      ':no_entry: Only platdesk admins can use this button: it changes what the whole workspace gets. Nothing was changed. {{ask}}',
    notGroups: 'not user group ids: {{ids}}',
    nameSomeone: 'name at least one person, channel or group (or choose everyone)',
    chooseChannel: 'choose a channel',
    capRange: 'a whole number from 1 to {{max}}',
    chooseOperation: 'choose an operation',
    pointsRange: 'a number of points from 0 to 100000',
  },
} as const;

/** Alerts sent to admins by direct message. */
export const alert = {
  account: {
    credential_invalid:
      ':rotating_light: The plat access token was refused (code 401). Lookups fail until PLAT_TOKEN is refreshed.',
    quota_exhausted:
      ':rotating_light: The plat account is out of calls or balance (code 204). Lookups fail until it is recharged on the official site.',
  },
  seenBy: '{{text}} (seen on a lookup by {{user}})',
  reinstalled:
    ':warning: {{user}} installed platdesk again in this workspace. No admin was added: the admins are who they were. If nobody here asked for it, check the app in Slack’s app management.',
  budget: {
    userWarned:
      ":money_with_wings: {{user}}'s {{period}} cap is at 80 % or more: {{spent}} of {{cap}} points used.",
    userRefused:
      ":money_with_wings: {{user}}'s {{period}} cap refused a lookup: {{spent}} of {{cap}} points used.",
    workspaceWarned:
      ':money_with_wings: The workspace {{period}} cap is at 80 % or more: {{spent}} of {{cap}} points used.',
    workspaceRefused:
      ':money_with_wings: The workspace {{period}} cap refused a lookup: {{spent}} of {{cap}} points used.',
    channelWarned:
      ':money_with_wings: The {{period}} cap of {{channel}} is at 80 % or more: {{spent}} of {{cap}} points used.',
    channelRefused:
      ':money_with_wings: The {{period}} cap of {{channel}} refused a call: {{spent}} of {{cap}} points used.',
  },
  period: {
    daily: 'daily',
    monthly: 'monthly',
  },
  spendTotals: {
    found_one:
      ':warning: Nightly check of {{day}}: {{n}} spend total differs from the ledger (caps count it). Tell whoever runs platdesk; the log has details.',
    found_other:
      ':warning: Nightly check of {{day}}: {{n}} spend totals differ from the ledger (caps count them). Tell whoever runs platdesk; the log has details.',
    spentLine: '• {{who}}, {{period}} {{key}}: total {{counter}}, ledger {{expected}} points',
    reservedLine: '• {{who}}, {{period}} {{key}}: {{counter}} points held, reservations {{expected}}',
    workspace: 'the workspace',
  },
  chargeParked:
    ':warning: A charge the database refused was set aside so the ones after it could be written: {{operation}}, {{points}} points, {{at}}. Spend figures and caps do not count it. Tell whoever runs platdesk: the log holds it, to enter by hand.',
} as const;
