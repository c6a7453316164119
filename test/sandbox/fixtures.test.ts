import { describe, expect, it } from 'vitest';
import { buildOrderBook, SANDBOX_FIXTURES as F, ITEMS, WAYBILLS } from '../../src/sandbox/fixtures.js';
import { parseTimeFilter } from '../../src/sandbox/params.js';

describe('sandbox fixtures', () => {
  it('every named id exists', () => {
    for (const [name, id] of Object.entries(F.items)) expect(ITEMS.has(id), name).toBe(name !== 'missing');
    for (const code of [...F.waybills.ok, F.waybills.parentChild, F.waybills.parent])
      expect(WAYBILLS.has(code)).toBe(true);
    expect(WAYBILLS.has(F.waybills.failing)).toBe(false);
  });

  it('builds the same orders from the same anchor', () => {
    const anchor = Date.UTC(2024, 0, 1);
    const a = buildOrderBook(anchor);
    expect(a.get(F.owners.busy)).toHaveLength(F.orderCounts.busy);
    expect(a.get(F.owners.small)).toHaveLength(F.orderCounts.small);
    expect(a.has(F.owners.unauthorized)).toBe(false);
    expect(buildOrderBook(anchor)).toEqual(a);
  });
});

describe('parseTimeFilter', () => {
  it('reads seconds, milliseconds and Asia/Shanghai local time', () => {
    const ms = Date.UTC(2024, 4, 19, 16, 0, 0);
    expect(parseTimeFilter(String(ms))).toBe(ms);
    expect(parseTimeFilter(String(ms / 1000))).toBe(ms);
    expect(parseTimeFilter('2024-05-20 00:00:00')).toBe(ms);
  });

  it('rejects other shapes and impossible dates', () => {
    for (const text of [
      '2024-02-30 00:00:00',
      '2024-05-20',
      '2024-05-20T00:00:00',
      '12345',
      '2024-05-20 24:00:00',
    ]) {
      expect(parseTimeFilter(text), text).toBeNull();
    }
  });
});
