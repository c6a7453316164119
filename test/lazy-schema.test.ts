/**
 * lazySchema (src/lazy-schema.ts): a zod schema built on first use, usable as the schema itself.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazySchema } from '../src/lazy-schema.js';
import { envelopeSchema, itemSchema } from '../src/plat/schemas.js';

describe('lazySchema', () => {
  it('builds the schema once, on first use, not when declared', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds++;
      return z.object({ n: z.number().int() });
    });
    expect(builds).toBe(0);
    expect(schema.parse({ n: 2 })).toEqual({ n: 2 });
    expect(schema.safeParse({ n: 1.5 }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('is the schema to zod: composed into another, extended, instanceof, its shape', () => {
    const inner = lazySchema(() => z.object({ id: z.string().transform((s) => s.toUpperCase()) }));
    const outer = z.object({ items: z.array(inner), more: inner.optional() });
    expect(outer.parse({ items: [{ id: 'a' }], more: { id: 'b' } })).toEqual({
      items: [{ id: 'A' }],
      more: { id: 'B' },
    });
    expect(() => outer.parse({ items: [{ id: 1 }] })).toThrow(z.ZodError);
    expect(inner).toBeInstanceOf(z.ZodObject);
    expect(Object.keys(inner.shape)).toEqual(['id']);
    expect(inner.extend({ n: z.number() }).parse({ id: 'c', n: 1 })).toEqual({ id: 'C', n: 1 });
  });

  it("the plat API's schemas parse through it as before", () => {
    const envelope = envelopeSchema.parse({ code: 0, msg: 'ok', data: {} });
    expect(envelope.code).toBe(0);
    expect(itemSchema.safeParse('not an item').success).toBe(false);
  });
});
