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
    interrupted:
      '{{step}}: platdesk restarted while this run was looking up; its call may have been sent and charged (see the ledger), so it is not run again. Run the workflow again if you need the answer.',
  },
} as const;
