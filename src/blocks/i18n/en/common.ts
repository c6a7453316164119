/** Words shared by every renderer: units, ages, "…and N more", domain names. */
export const common = {
  points_one: '{{n}} point ({{yuan}})',
  points_other: '{{n}} points ({{yuan}})',
  pointsShort_one: '{{n}} point',
  pointsShort_other: '{{n}} points',
  calls_one: '{{n}} call',
  calls_other: '{{n}} calls',
  quotaCalls_one: '{{n}} quota call',
  quotaCalls_other: '{{n}} quota calls',
  orders_one: '{{n}} order',
  orders_other: '{{n}} orders',
  age: {
    underMinute: 'under a minute',
    minutes_one: '{{n}} min',
    minutes_other: '{{n}} min',
    hours_one: '{{n}} h',
    hours_other: '{{n}} h',
    days_one: '{{n}} day',
    days_other: '{{n}} days',
  },
  more_one: '…and {{n}} more',
  more_other: '…and {{n}} more',
  nothingCharged: 'Nothing was sent or charged.',
  lookup: 'Lookup',
  /** Asia/Shanghai, as people say it. */
  beijingTime: 'Beijing time',
  /** Joins short facts on one line. */
  sep: ' · ',
  /** A part of a buyer's remark hidden as receiver data (blocks/hidden.ts). */
  hidden: {
    phone: '[phone number hidden]',
    id: '[ID number hidden]',
    address: '[address hidden]',
  },
  /** Joins clauses of one sentence. */
  clauseSep: '; ',
} as const;

/** The marketplace's own words, as staff say them. */
export const domain = {
  operation: {
    platdybw: 'Waybill print data',
    platiteminfo: 'Item details',
    platiteminfoprice: 'Item prices',
    'get-shop-info': 'Shop information',
    'get-shop-id': 'Shop id',
    platdzmd: 'Waybill information',
    'paging-orders': 'Orders',
  },
  edition: {
    basic: 'basic',
    standard: 'standard',
    enhanced: 'enhanced',
    professional: 'professional',
  },
  operationWithEdition: '{{operation}} ({{edition}})',
  flag: {
    '1': 'red',
    '2': 'yellow',
    '3': 'green',
    '4': 'blue',
    '5': 'purple',
    unknown: 'flag {{code}}',
  },
  // English staff use the carriers' codes (as platdesk's commands do).
  carrier: {
    SF: 'SF',
    YTO: 'YTO',
    ZTO: 'ZTO',
    STO: 'STO',
    YUNDA: 'YUNDA',
    JT: 'JT',
    JTSD: 'JTSD',
    JD: 'JD',
    DBKD: 'DBKD',
    DBL: 'DBL',
    POSTB: 'POSTB',
    EMS: 'EMS',
    HTKY: 'HTKY',
  },
} as const;
