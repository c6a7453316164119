import type { ActionsBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { errorChargeText, errorRemedy, renderPlatError } from '../../src/blocks/errors.js';
import { escapeText } from '../../src/blocks/text.js';
import {
  PlatBusyError,
  PlatConnectionError,
  PlatInputError,
  PlatQuotaExhaustedError,
  PlatShopUnauthorizedError,
  PlatSystemError,
  PlatTimeoutError,
  PlatUnknownCodeError,
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
    expect(allText(blocks)).toContain('The service said: code 302, not authorized');
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
    expect(errorChargeText(en, new PlatSystemError(200, 'x', { operation: 'platiteminfo' }))).toBe(
      'No points were charged; the item quota may count this call.',
    );
    expect(errorChargeText(en, new PlatTimeoutError('platdybw', 10_000))).toContain('may still have counted');
    expect(errorChargeText(en, new PlatConnectionError('refused', { operation: 'platdybw' }))).toBe(
      'No charge was reported.',
    );
  });

  it('reports an error that is not a PlatError as a failed lookup, escaped', () => {
    const { text, blocks } = renderPlatError(en, new Error('disk <!channel> & full'));
    assertWithinSlackLimits(blocks);
    expect(text).toBe(':warning: The lookup failed: disk &lt;!channel&gt; &amp; full');
    expect(allText(blocks)).not.toContain('charged');
  });
});
