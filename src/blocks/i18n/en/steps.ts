/** Workflow Builder steps (issue 25): their names, summaries, failures, approvals. */
export const step = {
  summary: {
    waybill_one: 'Waybill {{number}}: {{state}}{{last}} ({{carrier}})',
    waybill_other: '{{count}} waybills, first {{number}}: {{state}}{{last}} ({{carrier}})',
    waybillNone: 'No information for waybill {{number}}',
    last: ', last: {{event}} at {{time}}',
    item: '{{title}} · {{shop}} · {{price}} · {{skus}}',
    ordersDue: '{{shop}}: {{due}} due to ship within {{hours}} h, {{overdue}} overdue',
    shop: '{{name}} (shop id {{id}}, {{type}})',
    shopNotFound: 'No shop found for seller account {{wwid}}',
    cached: ' (from cache, {{age}} old: no charge)',
    byWorkflow: ' (charged to the workflow: no person started it)',
  },
  value: {
    unknown: 'unknown',
    noPrice: 'no price',
    skus_one: '{{count}} SKU listed',
    skus_other: '{{count}} SKUs listed',
    noSkus: 'no SKUs listed',
    dueLine: '{{sn}} · {{goods}} · ship by {{time}}',
    overdueLine: '{{sn}} · {{goods}} · overdue since {{time}}',
    more: '…and {{n}} more',
  },
  fail: {
    invalid: '{{step}}: the input cannot be looked up: {{problems}}. Nothing was charged.',
    notApproved:
      '{{step}}: an admin has not approved spending for this step, so it spends nothing. An admin can approve it with `/platdesk steps approve {{id}} daily <points>` or on the App Home. Nothing was charged.',
    failed: '{{step}}: {{title}}. {{remedy}} {{charge}}',
    other: '{{step}}: the lookup failed ({{detail}}). Nothing is known to have been charged.',
    refused: '{{step}}: not looked up. {{reason}} Nothing was charged.',
    interrupted:
      '{{step}}: platdesk restarted while this run was looking up; its call may have been sent and charged (see the ledger), so it is not run again. Run the workflow again if you need the answer.',
  },
  /** Why the access rules refused a run (issue 34 H1). */
  refusal: {
    not_allowed:
      'This workflow was started by <@{{user}}>: <@{{user}}> is not on the list of people who may run charged lookups.',
    no_person:
      'There is no person Slack vouches for who started this workflow (a scheduled or event trigger), and only listed people may run charged lookups here. Put a step a person answers (a message with a button) before this one, or let everyone spend (`/platdesk access everyone`).',
    shop_channel:
      'Orders and waybills of shop {{shop}} may only be looked up in its own channels, and a step posts wherever its workflow says: an admin can approve this step for the shop (`/platdesk steps approve {{id}} daily <points> shops:{{shop}}`).',
    shop: 'This step is approved for {{shops}} only.',
    channel:
      'This step is approved for answers in {{channels}} only: name one of them in the step’s Channel input.',
  },
} as const;
