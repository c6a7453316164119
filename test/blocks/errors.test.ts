import type { ActionsBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { errorChargeText, errorRemedy, renderPlatError } from '../../src/blocks/errors.js';
import { escapeText } from '../../src/blocks/text.js';
import {
  PlatAbortedError,
  PlatBadResponseError,
  PlatBusyError,
  PlatConnectionError,
  PlatInputError,
  PlatNoPermissionError,
  PlatQuotaExhaustedError,
  PlatSchemaError,
  PlatShopUnauthorizedError,
  PlatSystemError,
  PlatTimeoutError,
  PlatUnknownCodeError,
  PlatUpstreamTimeoutError,
} from '../../src/plat/errors.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { allPlatErrors } from '../helpers/domain-factories.js';
import { en } from '../helpers/words.js';
import { allText } from './render-fixtures.js';

describe('renderPlatError', () => {
  it.each(allPlatErrors().map((e) => [e.code, e] as const))(
    '%s: title, remedy, charge, within limits',
    (_code, error) => {
      const { text, blocks } = renderPlatError(en, error);
      assertWithinSlackLimits(blocks);
      const all = allText(blocks);
      expect(all).toContain(escapeText(errorRemedy(en, error)));
      expect(all).toContain(errorChargeText(en, error));
      expect(all).not.toMatch(/<[!@]/);
      expect(text.length).toBeGreaterThan(0);
    },
  );

  it('offers the authorization link as a button for a shop that has not authorized', () => {
    const error = new PlatShopUnauthorizedError(
      302,
      'not authorized',
      'https://auth.example.com/scan?code=abc',
      {
        operation: 'paging-orders',
      },
    );
    const { text, blocks } = renderPlatError(en, error);
    expect(text).toContain('The shop has not authorized platdesk');
    const link = blocks.find((b): b is ActionsBlock => b.type === 'actions')?.elements[0];
    expect(link).toMatchObject({
      action_id: ACTIONS.errorAuthLink,
      url: 'https://auth.example.com/scan?code=abc',
    });
    // A known code: its title and remedy say it; the service's English message is not repeated.
    expect(allText(blocks)).toContain('The service answered with code 302.');
    expect(allText(blocks)).not.toContain('code 302, not authorized');
  });

  it('has no button when the authorization link is missing or not http(s)', () => {
    for (const url of [null, 'javascript:alert(1)']) {
      const error = new PlatShopUnauthorizedError(302, 'x', url, { operation: 'platdybw' });
      expect(renderPlatError(en, error).blocks.some((b) => b.type === 'actions')).toBe(false);
    }
  });

  it('says the plat account is out of balance', () => {
    const error = new PlatQuotaExhaustedError(204, 'not enough calls left', { operation: 'platdybw' });
    expect(renderPlatError(en, error).text).toBe(
      'The plat account is out of balance. The service reported no charge.',
    );
  });

  it('shows the estimated wait when busy', () => {
    expect(allText(renderPlatError(en, new PlatBusyError('platdybw', 12_300)).blocks)).toContain(
      'try again in about 13 s',
    );
  });

  it('lists the issues of invalid input, escaped, and that nothing was charged', () => {
    const error = new PlatInputError('platdybw', ['waybill <!here> is not a number', 'at most 20 waybills']);
    const all = allText(renderPlatError(en, error).blocks);
    expect(all).toContain('• waybill &lt;!here&gt; is not a number\n• at most 20 waybills');
    expect(all).toContain('Nothing was charged.');
  });

  it('states a reported charge and says only what is known otherwise', () => {
    expect(
      errorChargeText(
        en,
        new PlatUnknownCodeError(999, 'x', { operation: 'get-shop-info', chargePoints: 5 }),
      ),
    ).toBe('Charged 5 points (¥0.05).');
    expect(
      errorChargeText(en, new PlatSystemError(200, 'x', { operation: 'get-shop-id', chargePoints: 0 })),
    ).toBe('Nothing was charged.');
    // Item operations: the client counts the quota call an answer took (plat/codes.ts takesQuotaCall).
    expect(
      errorChargeText(en, new PlatSystemError(200, 'x', { operation: 'platiteminfo', quotaCalls: 1 })),
    ).toBe('It cost 1 call of the item quota.');
    expect(errorChargeText(en, new PlatNoPermissionError(204, 'x', { operation: 'platiteminfo' }))).toBe(
      'Nothing was charged.',
    );
    expect(errorChargeText(en, new PlatTimeoutError('platiteminfo', 10_000))).toContain(
      'may still have counted',
    );
    // An item call whose answer never came: the client counts the quota call it may have taken
    // (the ledger overstates rather than loses one); said as a count, never as a known cost.
    const unanswered = new PlatTimeoutError('platiteminfo', 10_000);
    unanswered.quotaCalls = 1;
    expect(errorChargeText(en, unanswered)).toBe(
      'No charge was reported; the service may still have counted the call. It is counted as 1 call of the item quota.',
    );
    const unreadable = new PlatBadResponseError('platiteminfoprice', 500, '<html>');
    unreadable.quotaCalls = 1;
    expect(errorChargeText(en, unreadable)).toBe(
      'No charge was reported; the item quota may count this call. It is counted as 1 call of the item quota.',
    );
    // A cancel: while queued nothing was sent; in flight the service may have counted it.
    expect(errorChargeText(en, new PlatAbortedError('queued', { operation: 'paging-orders' }))).toBe(
      'Nothing was charged.',
    );
    expect(
      errorChargeText(
        en,
        new PlatAbortedError('in flight', { operation: 'paging-orders', reachedService: true }),
      ),
    ).toBe('No charge was reported; the service may still have counted the call.');
    // A wrong shape inside an envelope is an answer: its quota call is known.
    expect(errorChargeText(en, new PlatSchemaError('platiteminfo', ['name'], null, 1))).toBe(
      'It cost 1 call of the item quota.',
    );
    // Totals over retried attempts (issue 10 point 3).
    const retried = new PlatUpstreamTimeoutError(101, 'x', { operation: 'get-shop-info', chargePoints: 3 });
    retried.setAttemptTotals({ chargePoints: 9, quotaCalls: 0, attempts: 3 });
    expect(errorChargeText(en, retried)).toBe('Charged 9 points (¥0.09) over 3 attempts.');
    expect(errorChargeText(en, new PlatTimeoutError('platdybw', 10_000))).toContain('may still have counted');
    expect(errorChargeText(en, new PlatConnectionError('refused', { operation: 'platdybw' }))).toBe(
      'No charge was reported.',
    );
    // A socket closed after the request went out: the service may have counted it (its ledger
    // row says "cost unknown"), so the answer must not read as if nothing was charged.
    expect(
      errorChargeText(
        en,
        new PlatConnectionError('reset', { operation: 'paging-orders', reachedService: true }),
      ),
    ).toBe('No charge was reported; the service may still have counted the call.');
  });

  it('reports an error that is not a PlatError as a failed lookup, escaped', () => {
    const { text, blocks } = renderPlatError(en, new Error('disk <!channel> & full'));
    assertWithinSlackLimits(blocks);
    expect(text).toBe(':warning: The lookup failed: disk &lt;!channel&gt; &amp; full');
    expect(allText(blocks)).not.toContain('charged');
  });
});
