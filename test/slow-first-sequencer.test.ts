import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SLOWEST_FIRST } from './helpers/slow-first-sequencer.js';

describe('the slow-first table of the test sequencer', () => {
  it('names test files that exist, each once (a renamed file would silently lose its early start)', () => {
    expect(SLOWEST_FIRST.filter((file) => !existsSync(file))).toEqual([]);
    expect(new Set(SLOWEST_FIRST).size).toBe(SLOWEST_FIRST.length);
  });
});
