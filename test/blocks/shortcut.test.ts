/**
 * The shortcut modal's cost statement (issue 10, point 18): sentences a person would write, not
 * "Total charge for the 2 chosen things (1 lookup): a price not known yet".
 */

import { describe, expect, it } from 'vitest';
import { chosenCostText } from '../../src/blocks/shortcut.js';
import type { Candidate } from '../../src/lookups/message-refs.js';
import type { Plan } from '../../src/lookups/shortcut-lookups.js';
import type { LookupRequest, Quote } from '../../src/lookups/types.js';
import { makeQuote, makeQuoteLine } from '../helpers/domain-factories.js';
import { en } from '../helpers/words.js';

const waybill = (code: string): Candidate => ({ kind: 'waybill', waybillCode: code, carrier: 'SF' });
const item = (id: string): Candidate => ({ kind: 'item', itemId: id, marketplace: null });
const itemQuote = () =>
  makeQuote([makeQuoteLine({ operation: 'platiteminfo', edition: null, unit: 'quota' })]);

function plan(quotes: Quote[], needsTarget = false): Plan {
  const request: LookupRequest = { kind: 'item', itemId: '1', withPrices: false };
  const total = makeQuote(quotes.flatMap((q) => q.lines));
  return {
    lookups: quotes.map((quote) => ({ request, summary: 'x', quote })),
    total,
    problems: [],
    needsTarget,
  };
}

describe('chosenCostText', () => {
  it('two waybill numbers in one lookup whose price is not known yet', () => {
    const unknown = makeQuote([
      makeQuoteLine({ operation: 'platdzmd', edition: 2, configuredPoints: null, lastSeenPoints: null }),
    ]);
    expect(
      chosenCostText(en, [waybill('SF1234567890123'), waybill('SF1234567890124')], plan([unknown])),
    ).toBe(
      'You chose 2 waybill numbers, looked up together in 1 lookup. Its price is not known yet: no price is set for it and it has not been charged here before. The answer will say what it actually cost.',
    );
  });

  it('items, one lookup each, in calls of the item quota', () => {
    expect(
      chosenCostText(en, [item('1'), item('2'), item('3')], plan([itemQuote(), itemQuote(), itemQuote()])),
    ).toBe(
      'You chose 3 items, one lookup each. Together they cost 3 calls of the item quota. Each answer will say what it actually cost.',
    );
  });

  it('an item and waybill numbers with a known price', () => {
    const known = makeQuote([makeQuoteLine({ configuredPoints: 5, lastSeenPoints: null })]);
    expect(chosenCostText(en, [item('1'), waybill('A1'), waybill('A2')], plan([itemQuote(), known]))).toBe(
      'You chose 1 item and 2 waybill numbers, looked up in 2 lookups (the waybill numbers together). Together they cost about 5 points (¥0.05) and 1 call of the item quota. Each answer will say what it actually cost.',
    );
  });

  it('a known and an unknown price together', () => {
    const unknown = makeQuote([makeQuoteLine({ configuredPoints: null, lastSeenPoints: null })]);
    expect(chosenCostText(en, [item('1'), waybill('A1')], plan([itemQuote(), unknown]))).toBe(
      'You chose 1 item and 1 waybill number, one lookup each. Together they cost 1 call of the item quota, plus points not known yet: one of them has no price set and has not been charged here before. Each answer will say what it actually cost.',
    );
  });

  it('waybills without an owner yet, and nothing chosen', () => {
    expect(chosenCostText(en, [waybill('A1'), waybill('A2')], plan([], true))).toBe(
      'You chose 2 waybill numbers: say whose waybills they are (below) to see what looking them up costs.',
    );
    expect(chosenCostText(en, [], plan([]))).toBe('Nothing chosen: tick at least one.');
  });
});
