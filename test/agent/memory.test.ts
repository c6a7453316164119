/**
 * A thread's stored context (agent/memory.ts) across the catalog's rename to issue 37's tool
 * names: a thread stored with `list_orders` or `spend_report` still answers "again" with the
 * tools of today's catalog.
 */
import { describe, expect, it } from 'vitest';
import { readContext, writeContext } from '../../src/agent/memory.js';
import { isToolName } from '../../src/lookups/tools.js';

describe('a stored thread context', () => {
  it('reads the tools stored under their former names as today’s', () => {
    const stored = JSON.stringify({
      refs: [],
      lastCalls: [
        { tool: 'list_orders', input: { shop: 'bee', page: 2 } },
        { tool: 'spend_report', input: { period: 'today' } },
        { tool: 'lookup_item', input: { item: '680001234501' } },
      ],
    });
    const context = readContext(stored);
    expect(context.lastCalls.map((c) => c.tool)).toEqual(['orders_page', 'spend', 'lookup_item']);
    expect(context.lastCalls.every((c) => isToolName(c.tool))).toBe(true);
    expect(context.lastCalls[0]?.input).toEqual({ shop: 'bee', page: 2 });
    expect(readContext(writeContext(context))).toEqual(context);
  });
});
