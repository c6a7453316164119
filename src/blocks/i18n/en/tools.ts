/**
 * The tool catalog’s words (lookups/tools.ts): each tool’s title and description, and those of
 * its inputs and outputs. The manifest’s `functions:` are these English words (blocks/tools.ts);
 * the agent’s model and MCP clients read them too.
 */
export const tool = {
  /** The person input every Workflow step takes (not a tool input: the agent and MCP know their caller). */
  userContext: {
    title: 'Person who used this workflow',
    description:
      "Filled by Slack, never typed by a builder; the spender, checked like a person. Without one (a schedule) the run is the workflow's own",
  },
  channel: {
    title: 'Channel',
    description:
      "Where the workflow posts the answer; checked against the step's approval when it is narrowed to channels",
  },
  lookup_waybill: {
    title: 'Waybill lookup',
    description:
      'Carrier, state and last event of a waybill number (waybill information), within the approved cap. No tracking link (the service gives none)',
    in: {
      waybills: { title: 'Waybill numbers', description: 'One or more waybill numbers, separated by spaces' },
      owner_id: { title: 'Owner id', description: 'The shop’s owner id (商家 ID) the waybills belong to' },
      carrier: {
        title: 'Carrier code',
        description: 'The carrier (YTO, ZTO, STO, YUNDA, SF, EMS, JD…) when the number’s shape does not tell',
      },
    },
    out: {
      carrier: { title: 'Carrier' },
      state: { title: 'State' },
      last_event: { title: 'Last event' },
      last_event_time: { title: 'Last event time' },
      summary: { title: 'Summary', description: 'One line in the workspace’s language' },
    },
  },
  lookup_item: {
    title: 'Item lookup',
    description:
      'Title, shop, price range and SKU count of an item (1 item quota call), within the approved cap. No stock state (the service reports none)',
    in: {
      item: { title: 'Item link or id' },
      with_prices: {
        title: 'With prices',
        description: 'Also ask for the item’s prices (a second item quota call)',
      },
    },
    out: {
      title: { title: 'Title' },
      shop: { title: 'Shop' },
      price_range: { title: 'Price range' },
      link: {
        title: 'Item link',
        description: 'The item’s page, only when the input is an item link; empty for a bare id',
      },
      summary: { title: 'Summary', description: 'One line in the workspace’s language' },
    },
  },
  item_prices: {
    title: 'Item prices',
    description: 'Selling, original and reference price of an item (1 item quota call), without its details',
    in: {
      item: { title: 'Item link or id' },
    },
    out: {
      price: { title: 'Price', description: 'Selling price in yuan' },
      original_price: { title: 'Original price', description: 'In yuan' },
      reference_price: { title: 'Reference price', description: 'In yuan' },
      summary: { title: 'Summary', description: 'One line in the asker’s language' },
    },
  },
  orders_due: {
    title: 'Orders due to ship',
    description:
      'Orders awaiting shipment whose ship-by time is past or within the next hours (one page of orders), within the approved cap',
    in: {
      shop: { title: 'Shop', description: 'The shop’s owner id (商家 ID) or its alias in platdesk' },
      hours_ahead: { title: 'Hours ahead', description: 'Look this many hours ahead (1 to 168)' },
    },
    out: {
      count_due: { title: 'Due to ship' },
      count_overdue: { title: 'Overdue' },
      summary: { title: 'Summary', description: 'One line in the workspace’s language' },
      list: {
        title: 'List',
        description: 'One order a line (order number, goods, ship-by time), for a following message step',
      },
    },
  },
  lookup_shop: {
    title: 'Shop lookup',
    description: 'The shop of an item link, or of a seller account (旺旺号), within the approved cap',
    in: {
      shop: { title: 'Item link or seller account' },
    },
    out: {
      shop_id: { title: 'Shop id' },
      name: { title: 'Name' },
      type: { title: 'Type' },
      summary: { title: 'Summary', description: 'One line in the workspace’s language' },
    },
  },
  orders_page: {
    title: 'Orders',
    description:
      'One page of a shop’s sold orders, newest first, without receiver data; a time window of at most 24 hours',
    in: {
      shop: { title: 'Shop', description: 'The shop’s owner id (商家 ID) or its alias in platdesk' },
      page: { title: 'Page', description: 'Which page, from 1' },
      size: { title: 'Page size', description: 'Orders a page (1 to 100, default 20)' },
      from: { title: 'From', description: 'Start time, YYYY-MM-DD or YYYY-MM-DD HH:MM in China time' },
      to: { title: 'To', description: 'End time, at most 24 hours after the start' },
      flag: { title: 'Flag', description: 'The remark flag: 1 red, 2 yellow, 3 green, 4 blue, 5 purple' },
      remark: { title: 'Remark', description: 'Only orders whose remark holds this text' },
    },
    out: {
      page: { title: 'Page' },
      pages: { title: 'Pages' },
      count: { title: 'Orders on the page' },
      total: { title: 'Orders in all' },
      orders: {
        title: 'Orders',
        description:
          'Order number, status, goods, quantity, amount (yuan), ship-by and confirmation time (China time, ISO 8601), pre-sale, flag and remark (receiver data hidden), as /orders shows them',
      },
      summary: { title: 'Summary', description: 'One line in the asker’s language' },
    },
  },
  waybill_print: {
    title: 'Waybill print data',
    description: 'The print data of waybill numbers of a shop (20 numbers a call), kept for download',
    in: {
      waybills: { title: 'Waybill numbers', description: 'One or more waybill numbers, separated by spaces' },
      shop_id: { title: 'Shop id', description: 'The shop id (店铺 ID) or its alias in platdesk' },
    },
    out: {
      printed: { title: 'Printed' },
      failed: { title: 'Failed' },
      summary: { title: 'Summary', description: 'One line in the asker’s language' },
    },
  },
  spend: {
    title: 'Spend report',
    description: 'What was spent on the plat service, from the ledger: free, no call',
    in: {
      period: { title: 'Period', description: 'today, month or last30' },
      everyone: { title: 'Everyone', description: 'The whole workspace (admins) instead of the asker' },
    },
    out: {
      points: { title: 'Points' },
      calls: { title: 'Calls' },
      quota_calls: { title: 'Item quota calls' },
      summary: { title: 'Summary', description: 'One line in the asker’s language' },
    },
  },
} as const;
