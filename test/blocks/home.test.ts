/**
 * The App Home renderer by value (issue 10, point 18): every time on the Home is in the one zone
 * the Home names (the budget zone), and no heading stands over an empty list.
 */

import { describe, expect, it } from 'vitest';
import { renderHome } from '../../src/blocks/home.js';
import type { HomeData } from '../../src/lookups/home-data.js';
import { en } from '../helpers/words.js';
import { allText } from './render-fixtures.js';

const LANGUAGE = { effective: 'en' as const, own: null };
const ZERO = { points: 0, quotaCalls: 0, calls: 0 };

function home(timeZone: string, recent: HomeData['recent']): HomeData {
  return {
    userId: 'U1234',
    admin: false,
    timeZone,
    today: ZERO,
    month: ZERO,
    recent,
    recentMore: 0,
    mcpEnabled: true,
    adminHome: null,
  };
}

const LOOKUP: HomeData['recent'][number] = {
  at: new Date('2026-11-19T16:30:00Z'),
  request: { kind: 'item', itemId: '680001234501', withPrices: false },
  operations: ['platiteminfo'],
  points: 0,
  quotaCalls: 1,
  failed: false,
  source: 'interactive',
};

describe('renderHome', () => {
  it('shows the lookups of the last 7 days at their time in the budget zone, which it names', () => {
    const now = new Date('2026-11-20T08:00:00Z');
    const berlin = allText(renderHome(en, home('Europe/Berlin', [LOOKUP]), now, LANGUAGE).blocks);
    expect(berlin).toContain('• 2026-11-19 17:30 item 680001234501: 1 quota call');
    expect(berlin).toContain('Times, days and months are in Europe/Berlin.');
    const shanghai = allText(renderHome(en, home('Asia/Shanghai', [LOOKUP]), now, LANGUAGE).blocks);
    expect(shanghai).toContain('• 2026-11-20 00:30 item 680001234501: 1 quota call');
  });

  it('no "Your lookups" heading over an empty list', () => {
    const text = allText(renderHome(en, home('Asia/Shanghai', []), new Date(), LANGUAGE).blocks);
    expect(text).not.toContain('Your lookups, last 7 days');
    expect(text).toContain('No lookups in the last 7 days.');
  });
});
