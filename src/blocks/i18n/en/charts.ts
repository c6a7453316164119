/** Chart images and table blocks (issue 26): their labels, alt text and column headers. */
export const chart = {
  hourlyTitle: 'Orders by hour',
  axisHour: 'Hour ({{zone}})',
  axisOrders: 'Orders',
  previousDay: 'Day before ({{date}})',
  shipBy: 'Ship-by: {{overdue}} overdue · {{due}} due within 24 h',
  overdueMark: 'Ship-by deadline passed',
  alt_one:
    'Bar chart of orders by hour, {{n}} order in all, busiest hour {{peak}} with {{peakOrders}}; {{previous}}{{shipBy}}.',
  alt_other:
    'Bar chart of orders by hour, {{n}} orders in all, busiest hour {{peak}} with {{peakOrders}}; {{previous}}{{shipBy}}.',
  altPrevious: 'the day before had {{n}}; ',
  altEmpty: 'Bar chart of orders by hour: no orders in this window.',
  fileTitle: 'Orders by hour · {{date}}',
  spendTitle: 'Points per day, last 30 days',
  axisDay: 'Day ({{zone}})',
  axisPoints: 'Points',
  dailyCap: 'Daily cap: {{n}} points',
  spendAlt:
    'Bar chart of points spent per day over {{days}} days by operation: {{n}} points in all, busiest day {{peak}} with {{peakPoints}}; {{cap}}.',
  spendAltEmpty: 'Bar chart of points spent per day over {{days}} days: nothing spent.',
  spendAltNoCap: 'no daily cap is set',
  spendAltCap_one: 'daily cap {{cap}}, reached on {{reached}} day',
  spendAltCap_other: 'daily cap {{cap}}, reached on {{reached}} days',
} as const;

export const table = {
  status: 'Status',
  orders: 'Orders',
  amount: 'Amount',
  share: 'Share',
  total: 'Total',
  operation: 'Operation',
  points: 'Points',
  calls: 'Calls',
  quotaCalls: 'Quota calls',
  order: 'Order',
  goods: 'Goods',
  qty: 'Qty',
  shipBy: 'Ship by ({{zone}})',
  flag: 'Flag',
  remark: 'Remark',
} as const;
