/**
 * The sandbox's own reading of the spec's operation table (§1 paths and methods, §8 charging,
 * §9 editions). It is deliberately NOT shared with the client (src/plat/operations.ts): the
 * sandbox stands in for the remote service, so a wrong path or edition in the client must fail
 * against it rather than be mirrored by it. test/sandbox checks the two tables agree on what the
 * spec says.
 */
export const SANDBOX_OPERATIONS = {
  platdybw: {
    method: 'POST',
    path: '/papi/tool/erps/platdybw',
    quota: false,
    editions: [1, 3],
    defaultEdition: null,
  },
  platiteminfo: {
    method: 'GET',
    path: '/papi/tool/accounts/platiteminfo',
    quota: true,
    editions: [],
    defaultEdition: null,
  },
  platiteminfoprice: {
    method: 'GET',
    path: '/papi/tool/accounts/platiteminfoprice',
    quota: true,
    editions: [],
    defaultEdition: null,
  },
  'get-shop-info': {
    method: 'GET',
    path: '/papi/tool/erps/get-shop-info',
    quota: false,
    editions: [1, 2, 3],
    defaultEdition: 1,
  },
  'get-shop-id': {
    method: 'GET',
    path: '/papi/tool/erps/get-shop-id',
    quota: false,
    editions: [],
    defaultEdition: null,
  },
  platdzmd: {
    method: 'POST',
    path: '/papi/tool/erps/platdzmd',
    quota: false,
    editions: [1, 2, 3],
    defaultEdition: 1,
  },
  'paging-orders': {
    method: 'POST',
    path: '/papi/tool/erps/paging-orders',
    quota: false,
    editions: [1, 2],
    defaultEdition: 1,
  },
} as const satisfies Record<
  string,
  {
    method: 'GET' | 'POST';
    path: string;
    quota: boolean;
    editions: readonly number[];
    defaultEdition: number | null;
  }
>;

export type Operation = keyof typeof SANDBOX_OPERATIONS;
export const OPERATION_NAMES = Object.keys(SANDBOX_OPERATIONS) as Operation[];
