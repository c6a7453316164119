/**
 * The seven plat operations (spec §1) and what the client must know about each one:
 * method, path, body encoding, how it is charged and which editions (vvtype, spec §9) it has.
 */
export const OPERATIONS = {
  platdybw: {
    title: 'Waybill print data',
    method: 'POST',
    path: '/papi/tool/erps/platdybw',
    body: 'json',
    charge: 'balance',
    // spec §4.1 / §9: vvtype is required; 1 basic, 3 standard.
    editions: { 1: 'basic', 3: 'standard' },
    defaultEdition: 1,
    editionRequired: true,
  },
  platiteminfo: {
    title: 'Item details',
    method: 'GET',
    path: '/papi/tool/accounts/platiteminfo',
    body: 'none',
    charge: 'quota',
    editions: {},
    defaultEdition: null,
    editionRequired: false,
  },
  platiteminfoprice: {
    title: 'Item prices',
    method: 'GET',
    path: '/papi/tool/accounts/platiteminfoprice',
    body: 'none',
    charge: 'quota',
    editions: {},
    defaultEdition: null,
    editionRequired: false,
  },
  'get-shop-info': {
    title: 'Shop information',
    method: 'GET',
    path: '/papi/tool/erps/get-shop-info',
    body: 'none',
    charge: 'balance',
    // spec §4.4: 1 basic (default when omitted), 2 enhanced, 3 standard.
    editions: { 1: 'basic', 2: 'enhanced', 3: 'standard' },
    defaultEdition: 1,
    editionRequired: false,
  },
  'get-shop-id': {
    title: 'Shop id',
    method: 'GET',
    path: '/papi/tool/erps/get-shop-id',
    body: 'none',
    charge: 'balance',
    editions: {},
    defaultEdition: null,
    editionRequired: false,
  },
  platdzmd: {
    title: 'Waybill information',
    method: 'POST',
    path: '/papi/tool/erps/platdzmd',
    body: 'json',
    charge: 'balance',
    // spec §4.6: 1 enhanced (default), 2 basic, 3 professional.
    editions: { 1: 'enhanced', 2: 'basic', 3: 'professional' },
    defaultEdition: 1,
    editionRequired: false,
  },
  'paging-orders': {
    title: 'Orders',
    method: 'POST',
    path: '/papi/tool/erps/paging-orders',
    // spec §4.7: the examples send form fields (multipart form).
    body: 'form',
    charge: 'arrangement',
    // spec §4.7: 1 enhanced (default), 2 basic; filters are enhanced-only.
    editions: { 1: 'enhanced', 2: 'basic' },
    defaultEdition: 1,
    editionRequired: false,
  },
} as const satisfies Record<string, OperationSpec>;

export interface OperationSpec {
  title: string;
  method: 'GET' | 'POST';
  path: `/papi/tool/${string}`;
  body: 'none' | 'json' | 'form';
  /** balance: points from the account balance; quota: one call of the item quota; arrangement: by contract. */
  charge: 'balance' | 'quota' | 'arrangement';
  editions: Readonly<Record<number, string>>;
  defaultEdition: number | null;
  editionRequired: boolean;
}

export type Operation = keyof typeof OPERATIONS;

export const OPERATION_NAMES = Object.keys(OPERATIONS) as Operation[];

export function isOperation(value: string): value is Operation {
  return Object.hasOwn(OPERATIONS, value);
}

/** "basic", "enhanced"…, or null for operations without editions. */
export function editionName(operation: Operation, edition: number | null): string | null {
  if (edition === null) return null;
  const editions: Readonly<Record<number, string>> = OPERATIONS[operation].editions;
  return editions[edition] ?? null;
}
