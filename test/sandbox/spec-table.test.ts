/**
 * The client's operation table and the sandbox's own reading of the spec must agree; each is
 * checked here against the spec's values written out once more (spec §1, §8, §9).
 */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES, OPERATIONS } from '../../src/plat/operations.js';
import { SANDBOX_OPERATIONS } from '../../src/sandbox/spec-table.js';

const SPEC: Record<string, { method: string; path: string; quota: boolean; editions: number[] }> = {
  platdybw: { method: 'POST', path: '/papi/tool/erps/platdybw', quota: false, editions: [1, 3] },
  platiteminfo: { method: 'GET', path: '/papi/tool/accounts/platiteminfo', quota: true, editions: [] },
  platiteminfoprice: {
    method: 'GET',
    path: '/papi/tool/accounts/platiteminfoprice',
    quota: true,
    editions: [],
  },
  'get-shop-info': {
    method: 'GET',
    path: '/papi/tool/erps/get-shop-info',
    quota: false,
    editions: [1, 2, 3],
  },
  'get-shop-id': { method: 'GET', path: '/papi/tool/erps/get-shop-id', quota: false, editions: [] },
  platdzmd: { method: 'POST', path: '/papi/tool/erps/platdzmd', quota: false, editions: [1, 2, 3] },
  'paging-orders': { method: 'POST', path: '/papi/tool/erps/paging-orders', quota: false, editions: [1, 2] },
};

describe('the operation tables', () => {
  it('name the same seven operations', () => {
    expect(Object.keys(SANDBOX_OPERATIONS).sort()).toEqual([...OPERATION_NAMES].sort());
    expect(Object.keys(SPEC).sort()).toEqual([...OPERATION_NAMES].sort());
  });

  it.each(Object.entries(SPEC))('%s: the client sends what the spec says', (name, spec) => {
    const op = OPERATIONS[name as keyof typeof OPERATIONS];
    expect({ method: op.method, path: op.path }).toEqual({ method: spec.method, path: spec.path });
    expect(op.charge === 'quota').toBe(spec.quota);
    expect(Object.keys(op.editions).map(Number)).toEqual(spec.editions);
  });

  it.each(Object.entries(SPEC))('%s: the sandbox serves what the spec says', (name, spec) => {
    const op = SANDBOX_OPERATIONS[name as keyof typeof SANDBOX_OPERATIONS];
    expect({ method: op.method, path: op.path, quota: op.quota, editions: [...op.editions] }).toEqual(spec);
  });
});
