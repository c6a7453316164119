/**
 * The deterministic planner on the phrasing table (test/agent/phrasings.ts): every row gives the
 * plan or the question back it must, in Chinese and English; and the table is what issue 36 asks
 * (at least 60 rows, half Chinese).
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_CONTEXT, planDeterministic } from '../../src/agent/planner.js';
import { findWhen } from '../../src/agent/when.js';
import { NOW, PHRASINGS } from './phrasings.js';

describe('the phrasing table', () => {
  it('has at least 60 rows, at least half of them Chinese', () => {
    expect(PHRASINGS.length).toBeGreaterThanOrEqual(60);
    expect(PHRASINGS.filter((p) => p.lang === 'zh').length * 2).toBeGreaterThanOrEqual(PHRASINGS.length);
  });

  it.each(PHRASINGS.map((p) => [p.text, p] as const))('%s', (_text, p) => {
    const proposal = planDeterministic({
      text: p.text,
      now: NOW,
      shops: p.shops ?? [],
      context: p.context ?? EMPTY_CONTEXT,
    });
    expect(proposal).toEqual(p.expect);
  });
});

describe('dates and times (China time)', () => {
  const at = (text: string) => findWhen(text, NOW);
  it('reads days, times, ranges and hours', () => {
    expect(at('今天')).toEqual({ kind: 'day', start: new Date('2026-11-19T16:00:00Z'), today: true });
    expect(at('明早 9 点')).toEqual({ kind: 'until', at: new Date('2026-11-21T01:00:00Z') });
    expect(at('明早九点半')).toEqual({ kind: 'until', at: new Date('2026-11-21T01:30:00Z') });
    expect(at('下午3点前')).toEqual({ kind: 'until', at: new Date('2026-11-20T07:00:00Z') });
    expect(at('by 6pm')).toEqual({ kind: 'until', at: new Date('2026-11-20T10:00:00Z') });
    expect(at('last 3 days')).toMatchObject({ kind: 'days', starts: { length: 3 } });
    expect(at('最近七天')).toMatchObject({ kind: 'days', starts: { length: 7 } });
    expect(at('6小时内')).toEqual({ kind: 'hours', hours: 6 });
    expect(at('2026-11-18')).toEqual({ kind: 'day', start: new Date('2026-11-17T16:00:00Z'), today: false });
    expect(at('11月18日')).toEqual({ kind: 'day', start: new Date('2026-11-17T16:00:00Z'), today: false });
    expect(at('no date here')).toBeNull();
  });

  it('a time of day already past today means tomorrow', () => {
    expect(at('9点')).toEqual({ kind: 'until', at: new Date('2026-11-21T01:00:00Z') });
  });
});
