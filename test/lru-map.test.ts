/** LruMap: at most `max` entries; a read keeps an entry, an addition past the bound drops the least recently used. */
import { describe, expect, it } from 'vitest';
import { LruMap } from '../src/lru-map.js';

describe('LruMap', () => {
  it('keeps at most max entries however many keys come', () => {
    const m = new LruMap<string, number>(100);
    for (let i = 0; i < 10_000; i++) m.set(`k${i}`, i);
    expect(m.size).toBe(100);
    expect(m.get('k9999')).toBe(9999);
    expect(m.get('k9900')).toBe(9900);
    expect(m.get('k9899')).toBeUndefined();
  });

  it('drops the least recently used: a read or a replacement counts as a use', () => {
    const m = new LruMap<string, string>(3);
    m.set('a', 'A');
    m.set('b', 'B');
    m.set('c', 'C');
    expect(m.get('a')).toBe('A');
    m.set('d', 'D'); // b is the least recently used now
    expect(m.get('b')).toBeUndefined();
    m.set('c', 'C2'); // replaced: a is the oldest
    m.set('e', 'E');
    expect(m.get('a')).toBeUndefined();
    expect([m.get('c'), m.get('d'), m.get('e')]).toEqual(['C2', 'D', 'E']);
    expect(m.size).toBe(3);
  });

  it('delete frees a place; a bound below 1 is refused', () => {
    const m = new LruMap<number, number>(2);
    m.set(1, 1);
    m.set(2, 2);
    expect(m.delete(1)).toBe(true);
    m.set(3, 3);
    expect([m.get(2), m.get(3), m.size]).toEqual([2, 3, 2]);
    expect(() => new LruMap(0)).toThrow(/max/);
  });
});
