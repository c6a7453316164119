/** The agent in the Messages tab and in mentions (issue 36). */
export const agent = {
  promptsTitle: 'Ask platdesk, for example:',
  prompt: {
    waybills: { title: 'Track waybills', message: 'Where are SF1234567890123 and YT9876543210?' },
    item: {
      title: 'Look up an item link',
      message: 'What does https://item.taobao.com/item.htm?id=6543210987 sell for?',
    },
    orders: { title: 'Orders due today', message: 'Which orders of my shop must ship today?' },
    spend: { title: 'What we spent', message: 'What did we spend this month?' },
  },
  status: {
    planning: 'is planning…',
    running: 'is asking the plat service…',
  },
  planTitle: 'Plan',
  planIntro: '*Here is my plan.* Nothing is charged before you confirm.',
  step: {
    paid: '{{n}}. {{what}}: {{price}}',
    cached: '{{n}}. {{what}}: free (from cache, {{age}} old), answered below',
    free: '{{n}}. {{what}}: free (from the ledger), answered below',
    refused: '{{n}}. {{what}}: not run, {{why}}',
    invalid: '{{n}}. {{what}}: cannot be looked up, {{why}}',
    overCap: '{{n}}. {{what}}: left out, over the cap',
  },
  spendWhat: {
    mine: 'your spend ({{period}})',
    everyone: 'the workspace’s spend ({{period}})',
  },
  assumedShop: 'Shop {{shop}} is the only registered shop, so the plan uses it.',
  overCap:
    ':warning: The whole plan ({{wanted}}) would pass a cap by {{over}} ({{cap}}). Offered: the steps that fit.',
  overCapNone: ':warning: The plan ({{wanted}}) would pass a cap by {{over}} ({{cap}}): no paid step fits.',
  total_one: '*Total to confirm:* {{total}} for {{count}} paid step',
  total_other: '*Total to confirm:* {{total}} for {{count}} paid steps',
  nothingToConfirm: 'Nothing here costs anything: no Confirm needed.',
  confirmButton: 'Confirm plan ({{short}})',
  stopButton: 'Cancel',
  modelFallback: {
    down: 'The language model did not answer; planned without it.',
    timeout: 'The language model took too long; planned without it.',
    invalid: 'The language model proposed something that does not check out; planned without it.',
  },
  task: {
    pending: '{{what}}',
  },
  running: 'Running the plan you confirmed…',
  doneSummary: '*Plan done.* In total, as the ledger records it: {{charged}}.',
  doneSummaryReported: '*Plan done.* In total, as the data service reported it: {{charged}}.',
  stoppedSteps_one: '{{n}} step was not run (stopped): no charge for it.',
  stoppedSteps_other: '{{n}} steps were not run (stopped): no charge for them.',
  failedStep: '{{what}} failed: {{why}}',
  undelivered_one:
    '{{n}} answer may not have reached you (Slack did not confirm it): ask again to see it; an answer still in the cache is free.',
  undelivered_other:
    '{{n}} answers may not have reached you (Slack did not confirm them): ask again to see them; an answer still in the cache is free.',
  record: {
    intro:
      ':warning: *This plan was cut off* by a platdesk restart or a lost database connection. None of its steps will run again, and nothing more will be charged for it.',
    done: '{{n}}. {{what}}: done — {{charged}}',
    failed: '{{n}}. {{what}}: failed — {{charged}}',
    cut: '{{n}}. {{what}}: cut off after its call was sent — {{charged}}',
    cutMaybe:
      '{{n}}. {{what}}: cut off just as its call was being sent — it may never have reached the data service',
    running: '{{n}}. {{what}}: still running',
    notRun: '{{n}}. {{what}}: not run — no charge',
    costUnknown:
      'sent, but its answer was never read: the data service may have charged it, and what it charged is not known to platdesk',
    total: '*In total*, as the ledger records it: {{charged}}.',
    unknown_one:
      '{{n}} call went unanswered: what the data service charged for it is not known to platdesk (your plat account statement shows it).',
    unknown_other:
      '{{n}} calls went unanswered: what the data service charged for them is not known to platdesk (your plat account statement shows it).',
    notRunIntro:
      ':warning: *This plan did not run*: platdesk restarted after your Confirm, before any of its steps started. Nothing was charged and nothing will run. Ask again to have it priced and confirmed anew.',
    lateIntro:
      '*Plan done.* platdesk restarted before it could post this summary: every step ran, and none runs again.',
    answers:
      'An answer missing above was lost: ask again if you still need it; nothing is charged before you confirm.',
  },
  stopped: 'Cancelled. Nothing more will be charged.',
  stoppedRunning: 'Stopped. The step already running finishes and states its charge; no further step runs.',
  closed: {
    not_found: 'This plan is no longer known. Ask again.',
    not_yours: 'Only the person who asked can confirm or cancel this plan.',
    already_used: 'This plan was already confirmed or cancelled: it runs at most once.',
    expired: 'This plan expired before it was confirmed: nothing was charged. Ask again.',
  },
  tooMany:
    'That would take {{n}} paid steps; I run at most {{max}} under one Confirm. Narrow it down: fewer waybills or items, one shop, or a shorter time span.',
  help: '*Ask me in plain words, in English or Chinese.* For example:\n• Where are SF1234567890123 and YT9876543210?\n• What does https://item.taobao.com/item.htm?id=6543210987 sell for?\n• Which orders of shop-a are due in the next 6 hours?\n• Find the shop of seller account ww:example-shop\n• What did I spend this month?\nI show the plan and its price first; nothing is charged before you confirm.',
  unsupported:
    'I cannot do that. I look up waybills, items, shops and orders, and what was spent. For example: “Where is SF1234567890123?” or “2200001001 今天要发的单有哪些快超时了”.',
  empty: 'Your message is empty. Ask me about waybills, items, shops, orders or spend.',
  tooLong: 'Your message is longer than {{max}} characters. Ask a shorter question.',
  edited: 'I read new messages only, not edits. Send the question again as a new message.',
  question: {
    which_shop: 'Which shop do you mean: {{options}}?',
    unknown_shop:
      'No shop is registered in platdesk as {{name}}. Which shop do you mean: {{options}}? Or give its owner id (商家 ID).',
    no_such_shop:
      'No shop is registered in platdesk as {{name}}. Give its owner id (商家 ID), or ask an admin to register it with `/platdesk shop add`.',
    owner_needed: 'Which shop? Give its owner id (商家 ID) or its alias in platdesk.',
    shop_id_needed: 'Waybill print data needs the shop id: write it as shop:<shop id>.',
    which_carrier: 'Which carrier are {{numbers}} with: {{candidates}}?',
    item_or_waybill: 'Is {{value}} an item id or a waybill number?',
    what_number: 'What is {{value}}: an item id, a waybill number or an owner id?',
    which_result: 'Which one do you mean? The last answer showed {{count}}: say “the first”, “the second”…',
    nothing_before: 'There is nothing earlier in this thread to refer to. Name the item, waybill or shop.',
    full_link:
      'Short links cannot be resolved without opening them: paste the full item link instead of {{link}}.',
    item_link_for_shop:
      'To find the shop of item {{itemId}}, paste its full item link (the link names the marketplace).',
  },
  feedbackGood: 'Good answer',
  feedbackBad: 'Bad answer',
  feedbackThanks: 'Thanks, your feedback is recorded.',
  fallback: 'platdesk’s plan: {{total}}',
} as const;
