import { describe, expect, it } from 'vitest';
import { RateWindow } from '../../src/sandbox/rate-window.js';

describe('RateWindow', () => {
  it('counts a call as a violation only when the limit was already reached within the previous window', () => {
    const window = new RateWindow({ windowMs: 1000, limit: 10 });
    for (let i = 0; i < 10; i += 1) window.record(i * 100); // 0..900 ms: exactly 10
    expect(window.snapshot()).toEqual({ maxInWindow: 10, violations: 0 });
    window.record(1000); // the call at 0 ms has left the window
    expect(window.snapshot()).toEqual({ maxInWindow: 10, violations: 0 });
    window.record(1050); // 100..1050: 11 calls
    expect(window.snapshot()).toEqual({ maxInWindow: 11, violations: 1 });
  });

  it('keeps working past its initial capacity and after reset', () => {
    const window = new RateWindow({ windowMs: 1000, limit: 10 });
    for (let i = 0; i < 500; i += 1) window.record(0);
    expect(window.snapshot()).toEqual({ maxInWindow: 500, violations: 490 });
    expect(window.record(5000)).toBe(1);
    window.reset();
    expect(window.snapshot()).toEqual({ maxInWindow: 0, violations: 0 });
  });
});
