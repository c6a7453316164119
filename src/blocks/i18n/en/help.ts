/** Usage and help of the four slash commands, and the answer to input that cannot be looked up. */
export const help = {
  title: 'How to use {{command}}',
  fallback: 'How to use {{command}}: {{usage}}',
  examplesTitle: '*Examples*',
  example: '• `{{example}}`: {{what}}',
  confirmFirst: 'Every charged lookup asks you to confirm its charge first.',
  '/item': {
    usage: '/item <item link or id> [prices]',
    summary:
      'Item details: title, shop, SKUs and prices, attributes. Uses the item quota: 1 call, 1 more with prices.',
    ex1: '/item https://item.taobao.com/item.htm?id=680001234501 prices',
    ex1What: 'details and current prices of a linked item',
    ex2: '/item 680001234502',
    ex2What: 'details of an item by id',
    note1: 'Short links (m.tb.cn, e.tb.cn) cannot be resolved: paste the full item link.',
  },
  '/shop': {
    usage: '/shop <item link> [0|1|2]  or  /shop ww <seller account>',
    summary:
      'Shop information from an item link, or the shop of a seller account (旺旺号). Charged in points.',
    ex1: '/shop https://detail.tmall.com/item.htm?id=680001234505 1',
    ex1What: 'the shop selling that item (1 = Tmall)',
    ex2: '/shop ww beeclothing',
    ex2What: 'the shop of a seller account, with a way on to its page and orders',
    note1: 'Shop type: 0 Taobao, 1 Tmall, 2 Pinduoduo (it follows the link when left out).',
  },
  '/waybill': {
    usage: '/waybill <waybill numbers…> shop:<shop id> | owner:<owner id> [carrier:<code>]',
    summary: 'Waybill print data (with shop:) or waybill information (with owner:). Charged in points.',
    ex1: '/waybill SF1234567890123 YT1234567890123 shop:<shop id>',
    ex1What: 'print data of two waybills',
    ex2: '/waybill SF1234567890123 owner:<owner id>',
    ex2What: 'waybill information',
    ex3: '/waybill 7312345678901 carrier:ZTO shop:<shop id>',
    ex3What: 'give the carrier when the number does not tell',
    note1: 'At most 20 waybills at a time. Carrier codes include YTO, ZTO, STO, YUNDA, SF, EMS, JD.',
  },
  '/orders': {
    usage: '/orders <owner id> [page:2] [size:50] [from:2026-11-20 to:2026-11-21] [remark:text] [flag:1-5]',
    summary:
      'Sold orders of a shop, one page at a time, without receiver data. Answers are only visible to you.',
    ex1: '/orders <owner id>',
    ex1What: 'the first page',
    ex2: '/orders <owner id> page:2 size:50',
    ex2What: 'the second page, 50 orders a page (at most 100)',
    ex3: '/orders <owner id> from:2026-11-20 to:2026-11-21 flag:1',
    ex3What: 'red-flagged orders of one day',
    ex4: '/orders',
    ex4What: 'opens a form',
    ex5: '/orders digest add <owner id or shop alias> #channel 09:00',
    ex5What: "admins: yesterday's orders summed up daily",
    ex6: '/orders digest list',
    ex6What: 'the daily digests and when they run',
    note1: 'Flags: 1 red, 2 yellow, 3 green, 4 blue, 5 purple. Filters need the enhanced edition.',
    note2:
      'Digests: `/orders digest help` for add, list, remove and run. Ship-by alerts: `/orders alert help`.',
  },
} as const;

export const invalid = {
  title: ':warning: *That cannot be looked up*\n{{problems}}',
  usage: 'Usage: {{usage}}\nType `{{command}} help` for examples.',
  fallback: '{{command}}: {{problem}}',
  unknown: 'invalid input',
  problem: '• {{text}}',
} as const;
