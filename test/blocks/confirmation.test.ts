import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { chargeNoteText, quoteShort } from '../../src/blocks/charge-note.js';
import { renderConfirmation, renderConfirmationClosed } from '../../src/blocks/confirmation.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { makeQuote, makeQuoteLine, PENDING_ID } from '../helpers/domain-factories.js';
import { en, zh } from '../helpers/words.js';
import { allText } from './render-fixtures.js';

function buttons(blocks: KnownBlock[]): Button[] {
  const block = blocks.find((b): b is ActionsBlock => b.type === 'actions');
  return (block?.elements ?? []) as Button[];
}

describe('renderConfirmation', () => {
  it('names the operation, the charge per call and the total, with Confirm and Cancel', () => {
    const { text, blocks } = renderConfirmation(en, {
      pendingId: PENDING_ID,
      request: {
        kind: 'waybill-print',
        shopId: '57301234',
        waybills: [{ waybillCode: 'SF1234567890123', carrier: 'SF' }],
      },
      quote: makeQuote([makeQuoteLine({ configuredPoints: 10, lastSeenPoints: 12 })]),
      expiresInMinutes: 10,
    });
    assertWithinSlackLimits(blocks);
    expect(text).toBe('Confirm Waybill print data (basic) for 1 waybill of shop 57301234: 10 points');
    const all = allText(blocks);
    // Issue 10, point 18: what the lookup costs, not that it "is charged"; issue 35: one
    // operation is named once, in one line with its charge.
    expect(all).toContain(
      ':money_with_wings: *Waybill print data (basic)* for 1 waybill of shop 57301234: about 10 points (¥0.10), last charged 12 points (¥0.12).\nThe answer will state the actual charge.',
    );
    expect(all).not.toContain('SF1234567890123 is charged');
    expect(all).not.toContain('Total');
    expect(all).toContain('Expires in 10 minutes');
    const [confirm, cancel] = buttons(blocks);
    expect(confirm).toMatchObject({
      action_id: ACTIONS.confirm,
      style: 'primary',
      value: PENDING_ID,
      text: { text: 'Confirm (10 points)' },
    });
    expect(cancel).toMatchObject({ action_id: ACTIONS.cancel, value: PENDING_ID, text: { text: 'Cancel' } });
  });

  it('states the item quota for the item operations', () => {
    const { blocks } = renderConfirmation(en, {
      pendingId: PENDING_ID,
      request: { kind: 'item', itemId: '6543210987', withPrices: false },
      quote: makeQuote([
        makeQuoteLine({
          operation: 'platiteminfo',
          edition: null,
          unit: 'quota',
          configuredPoints: null,
          lastSeenPoints: null,
        }),
      ]),
      expiresInMinutes: 10,
    });
    expect(allText(blocks)).toContain(':money_with_wings: *Item details* for item 6543210987: 1 quota call.');
    expect(buttons(blocks)[0]?.text.text).toBe('Confirm (1 quota call)');
  });

  it('names the operation once (issue 35): "Item prices for item 680001234501: 1 quota call", in both languages', () => {
    const quota = makeQuoteLine({
      operation: 'platiteminfoprice',
      edition: null,
      unit: 'quota',
      configuredPoints: null,
      lastSeenPoints: null,
    });
    const input = {
      pendingId: PENDING_ID,
      request: { kind: 'item-prices', itemId: '680001234501' } as const,
      quote: makeQuote([quota]),
      expiresInMinutes: 10,
    };
    expect(allText(renderConfirmation(en, input).blocks)).toContain(
      '*Item prices* for item 680001234501: 1 quota call.',
    );
    expect(renderConfirmation(en, input).text).toBe(
      'Confirm Item prices for item 680001234501: 1 quota call',
    );
    expect(allText(renderConfirmation(zh, input).blocks)).toContain(
      ':money_with_wings: 商品价格：商品 680001234501，商品额度 1 次。\n查询结果会写明实际扣费。',
    );
    const shopId = renderConfirmation(en, {
      ...input,
      request: { kind: 'shop-id', wwid: 'beeclothing' },
      quote: makeQuote([
        makeQuoteLine({ operation: 'get-shop-id', edition: null, configuredPoints: 2, lastSeenPoints: null }),
      ]),
    });
    expect(allText(shopId.blocks)).toContain('*Shop id* for account beeclothing: about 2 points (¥0.02).');
  });

  it('several operations: what is looked up, a line each, and the total', () => {
    const quota = (operation: 'platiteminfo' | 'platiteminfoprice') =>
      makeQuoteLine({
        operation,
        edition: null,
        unit: 'quota',
        configuredPoints: null,
        lastSeenPoints: null,
      });
    const { blocks } = renderConfirmation(en, {
      pendingId: PENDING_ID,
      request: { kind: 'item', itemId: '680001234501', withPrices: true },
      quote: makeQuote([quota('platiteminfo'), quota('platiteminfoprice')]),
      expiresInMinutes: 10,
    });
    const all = allText(blocks);
    expect(all).toContain(':money_with_wings: Looking up item 680001234501 with prices costs:');
    expect(all).toContain('• *Item details*: 1 quota call\n• *Item prices*: 1 quota call');
    expect(all).toContain('*Total:* 2 quota calls. The answer will state the actual charge.');
  });

  it('says when the price is not known yet, and uses the last charge alone', () => {
    const { blocks } = renderConfirmation(en, {
      pendingId: PENDING_ID,
      request: { kind: 'shop-id', wwid: 'beeclothing' },
      quote: makeQuote([
        makeQuoteLine({
          operation: 'get-shop-info',
          edition: 2,
          configuredPoints: null,
          lastSeenPoints: null,
        }),
        makeQuoteLine({
          operation: 'get-shop-id',
          edition: null,
          configuredPoints: null,
          lastSeenPoints: 7,
          calls: 2,
        }),
      ]),
      expiresInMinutes: 1,
    });
    const all = allText(blocks);
    expect(all).toContain('*Shop information (enhanced)*: price not known yet');
    expect(all).toContain('*Shop id*: 2 calls, about 7 points (¥0.07) per call, as last charged');
    expect(all).toContain('*Total:* price not known yet');
    expect(all).toContain('Expires in 1 minute.');
    expect(buttons(blocks)[0]?.text.text).toBe('Confirm (price not known yet)');
  });

  it('escapes what is looked up (it holds what the user typed)', () => {
    const { text, blocks } = renderConfirmation(en, {
      pendingId: PENDING_ID,
      request: { kind: 'shop-id', wwid: '<!channel> & <@U1>' },
      quote: makeQuote(),
      expiresInMinutes: 10,
    });
    expect(allText(blocks)).toContain('&lt;!channel&gt; &amp; &lt;@U1&gt;');
    expect(text).not.toContain('<!channel>');
  });

  it('refuses a pending id that cannot be a button value', () => {
    expect(() =>
      renderConfirmation(en, {
        pendingId: 'x'.repeat(2001),
        request: { kind: 'item', itemId: '1', withPrices: false },
        quote: makeQuote(),
        expiresInMinutes: 10,
      }),
    ).toThrow(RangeError);
  });
});

describe('renderConfirmationClosed', () => {
  it.each([
    ['cancelled', 'Cancelled. Nothing was charged.'],
    ['expired', 'expired and nothing was charged'],
    ['already_used', 'already used'],
    ['not_yours', 'belongs to someone else'],
    ['running', 'Looking it up'],
    ['interrupted', 'was not run again'],
    ['not_found', 'This click charged nothing'],
  ] as const)('%s', (reason, expected) => {
    const { text, blocks } = renderConfirmationClosed(en, reason);
    assertWithinSlackLimits(blocks);
    expect(text).toContain(expected);
    expect(buttons(blocks)).toEqual([]);
  });
});

describe('charge notes', () => {
  it('states the actual charge, the quota used, or the cache', () => {
    expect(chargeNoteText(en, { chargedPoints: 10, quotaCalls: 0 })).toBe('Charged 10 points (¥0.10)');
    expect(chargeNoteText(en, { chargedPoints: 0, quotaCalls: 1 })).toBe('Used 1 call of the item quota');
    expect(chargeNoteText(en, { chargedPoints: 3, quotaCalls: 2 })).toBe(
      'Charged 3 points (¥0.03) · Used 2 calls of the item quota',
    );
    expect(chargeNoteText(en, { chargedPoints: 10, quotaCalls: 0, cached: { ageMs: 5 * 60_000 } })).toBe(
      'From cache, 5 min old: no charge',
    );
    expect(chargeNoteText(en, { chargedPoints: 0, quotaCalls: 0 })).toBe('No charge reported (0 points)');
  });

  it('shortens a quote for a button', () => {
    expect(quoteShort(en, makeQuote([makeQuoteLine({ configuredPoints: 1, lastSeenPoints: null })]))).toBe(
      '1 point',
    );
    expect(
      quoteShort(
        en,
        makeQuote([
          makeQuoteLine(),
          makeQuoteLine({ operation: 'platiteminfo', edition: null, unit: 'quota', calls: 2 }),
        ]),
      ),
    ).toBe('10 points + 2 quota calls');
    expect(quoteShort(en, makeQuote([]))).toBe('no charge');
  });
});
