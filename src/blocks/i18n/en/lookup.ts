/** Confirmations, charge notes, refusals and what a lookup is "of". */
export const charge = {
  fromCache: 'From cache, {{age}} old: no charge',
  shared: 'Shared with the same lookup already running: no charge',
  charged: 'Charged {{points}}',
  quotaUsed_one: 'Used {{n}} call of the item quota',
  quotaUsed_other: 'Used {{n}} calls of the item quota',
  noneReported: 'No charge reported (0 points)',
  overAttempts: '{{text}} over {{n}} attempts',
  note: ':receipt: {{text}}',
  priceUnknown: 'price not known yet',
  noCharge: 'no charge',
  plus: '{{a}} + {{b}}',
} as const;

export const confirm = {
  /** One operation: "Item prices for item 680001234501: 1 quota call." */
  title: ':money_with_wings: *{{operations}}* for {{summary}}: {{price}}.',
  /** Several operations: what is looked up, then a line each and the total. */
  titleMany: ':money_with_wings: Looking up {{summary}} costs:',
  after: 'The answer will state the actual charge.',
  quotaPerCall_one: '{{n}} quota call',
  quotaPerCall_other: '{{n}} quota calls',
  about: 'about {{points}} per call',
  asLastCharged: '{{text}}, as last charged',
  lastCharged: '{{text}}, last charged {{last}}',
  callsThen: '{{calls}}, {{text}}',
  line: '• *{{operation}}*: {{price}}',
  moreOperations_one: '…and {{n}} more operation',
  moreOperations_other: '…and {{n}} more operations',
  aboutTotal: 'about {{points}}',
  and: '{{a}} and {{b}}',
  total: '*Total:* {{total}}. The answer will state the actual charge.',
  warning: ':warning: {{text}}',
  confirmButton: 'Confirm ({{short}})',
  cancelButton: 'Cancel',
  expires_one: 'Expires in {{n}} minute. Nothing is charged until you confirm.',
  expires_other: 'Expires in {{n}} minutes. Nothing is charged until you confirm.',
  fallback: 'Confirm {{operations}} for {{summary}}: {{short}}',
  capWarning: 'This lookup brings {{cap}}.',
  closed: {
    cancelled: ':no_entry_sign: Cancelled. Nothing was charged.',
    expired: ':hourglass: This confirmation has expired and nothing was charged. Run the command again.',
    already_used: ':white_check_mark: This confirmation was already used; the lookup runs only once.',
    not_yours: ':lock: This confirmation belongs to someone else. Run the command yourself to look it up.',
    running: ':hourglass_flowing_sand: Looking it up…',
    not_found:
      ':hourglass: This button is no longer valid (it expired, or is older than platdesk keeps). This click charged nothing. Run the command again if you still need it.',
    interrupted:
      ':warning: This lookup was interrupted by a platdesk restart before its answer arrived and was not run again. It may have been charged: `/platdesk usage` shows your spend. Run the command again if you still need it.',
  },
  interruptedNotSent:
    ':warning: Your lookup of {{summary}} was interrupted (a platdesk restart or a lost database connection) before its call was sent, so nothing was charged.',
  interruptedCharged:
    ':warning: Your lookup of {{summary}} was interrupted (a platdesk restart or a lost database connection) after its call, and it was not run again (nor will it be). {{cost}}: `/platdesk usage` shows it.',
  interruptedNoCharge:
    ':warning: Your lookup of {{summary}} was interrupted (a platdesk restart or a lost database connection) after its call reached the data service, which reported no charge for it. It was not run again (nor will it be).',
  interruptedChargeUnknown:
    ':warning: Your lookup of {{summary}} was interrupted (a platdesk restart or a lost database connection) after its call was sent, and it was not run again (nor will it be). What it cost is not recorded yet: `/platdesk usage` shows it once it is.',
  interruptedCostUnknown:
    ':warning: Your lookup of {{summary}} was interrupted (a platdesk restart or a lost database connection) after its call was sent, before its answer was read, and it was not run again (nor will it be). The data service may have charged it; what it charged is not known to platdesk: your plat account statement shows it.',
  interruptedMaybeNotSent:
    ':warning: Your lookup of {{summary}} was interrupted (a platdesk restart or a lost database connection) just as its call was being sent, and it was not run again (nor will it be). The call may never have reached the data service; if it did, what it charged is not known to platdesk: your plat account statement shows it.',
  interruptedRunBelow: 'To run it, confirm the new request below.',
  interruptedRunAgain: 'To run it, use the same command again: it asks you to confirm the charge first.',
  interruptedAnswerBelow: 'Its answer, as kept at the time, follows.',
  interruptedAnswerLost:
    'If its answer has not reached you, it was lost: use the command again if you still need it; it asks you to confirm before any new charge.',
  lookingUp: ':hourglass_flowing_sand: Looking up {{summary}}…',
  refresh: 'Refresh ({{short}})',
} as const;

/** What an operation is for, in a confirmation that names the operation itself. */
export const subject = {
  item: 'item {{id}}',
  shopInfo: 'the item {{url}}',
  shopId: 'account {{wwid}}',
  waybillPrint_one: '{{n}} waybill of shop {{shop}}',
  waybillPrint_other: '{{n}} waybills of shop {{shop}}',
  waybillInfo_one: '{{n}} waybill of owner {{owner}}',
  waybillInfo_other: '{{n}} waybills of owner {{owner}}',
  orders: 'owner {{owner}}, page {{page}} ({{size}} per page)',
} as const;

/** What a lookup is of ("item 6543210987"), for progress lines, interruptions and the Home. */
export const summary = {
  item: 'item {{id}}',
  itemWithPrices: 'item {{id}} with prices',
  itemPrices: 'prices of item {{id}}',
  shopInfo: 'the shop of {{url}}',
  shopId: 'the shop id of account {{wwid}}',
  waybillPrint_one: 'print data of {{n}} waybill of shop {{shop}}',
  waybillPrint_other: 'print data of {{n}} waybills of shop {{shop}}',
  waybillInfo_one: 'information on {{n}} waybill of owner {{owner}}',
  waybillInfo_other: 'information on {{n}} waybills of owner {{owner}}',
  orders: 'orders of owner {{owner}}, page {{page}} ({{size}} per page)',
} as const;

export const cap = {
  user: {
    daily: 'your daily cap: {{spent}} of {{cap}} points used',
    monthly: 'your monthly cap: {{spent}} of {{cap}} points used',
  },
  workspace: {
    daily: 'the workspace daily cap: {{spent}} of {{cap}} points used',
    monthly: 'the workspace monthly cap: {{spent}} of {{cap}} points used',
  },
  channel: {
    daily: "this channel's daily cap: {{spent}} of {{cap}} points used",
    monthly: "this channel's monthly cap: {{spent}} of {{cap}} points used",
  },
  step: {
    daily: "this workflow step's approved daily cap: {{spent}} of {{cap}} points used",
    monthly: "this workflow step's approved monthly cap: {{spent}} of {{cap}} points used",
  },
  left: {
    user: {
      daily: 'your daily cap ({{left}} of {{cap}} points left)',
      monthly: 'your monthly cap ({{left}} of {{cap}} points left)',
    },
    workspace: {
      daily: 'the workspace daily cap ({{left}} of {{cap}} points left)',
      monthly: 'the workspace monthly cap ({{left}} of {{cap}} points left)',
    },
    channel: {
      daily: "this channel's daily cap ({{left}} of {{cap}} points left)",
      monthly: "this channel's monthly cap ({{left}} of {{cap}} points left)",
    },
  },
  quotaCalls_one: '{{n}} call of the item quota',
  quotaCalls_other: '{{n}} calls of the item quota',
  quotaNoPoints: '{{quota}}, no points',
  aboutPoints_one: 'about {{n}} point',
  aboutPoints_other: 'about {{n}} points',
  /** The call holds more than its quote: a larger charge was seen for it. */
  aboutHeld_one: 'about {{n}} point, up to {{held}} held until it is charged',
  aboutHeld_other: 'about {{n}} points, up to {{held}} held until it is charged',
  /** A price not known yet: the ceiling (PLAT_PRICE_CEILING) is held. */
  unknownHeld: 'price not known yet, up to {{held}} points held until it is charged',
  pointsAndQuota: '{{points}} and {{quota}}',
} as const;

export const refusal = {
  title: ':no_entry: *Not looked up*\n{{reason}}',
  fallback: 'Not looked up: {{reason}}',
  askAdmins: 'Ask an admin: {{admins}}.',
  askAnyAdmin: 'Ask a platdesk admin (PLATDESK_ADMINS).',
  footer: '{{ask}} Nothing was sent or charged.',
  reason: {
    not_allowed: 'You are not on the list of people who may run charged lookups.',
    shop_unregistered: '{{shop}} is not a registered shop; only registered shops may be queried.',
    shop_channel: 'Orders and waybills of shop {{shop}} may only be looked up in its own channels.',
    shop_no_owner: 'Shop {{shop}} has no owner id registered.',
    shop_no_shop_id: 'Shop {{shop}} has no shop id registered.',
    budget: 'This lookup ({{wanted}}) would exceed {{cap}}, by {{over}}.',
    budget_passed: 'This lookup ({{wanted}}) was not run: {{cap}}, the cap is already passed.',
    price_unknown:
      'The price of {{operations}} is not known yet, so this lookup cannot be checked against {{caps}}; it was not run and nothing was charged. Ask an admin to set the price in PLAT_PRICES or on the App Home (Prices), or to run it once.',
    no_plat_account:
      'This workspace has no plat account yet — an admin connects one on the App Home (Connect plat account).',
    page_past_last: '{{text}} (Counted {{age}} ago.)',
  },
} as const;
