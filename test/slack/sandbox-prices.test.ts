/**
 * Issue 22.3: on the built-in sandbox (PLAT_SANDBOX=1) the first /shop, /orders and /waybill
 * lookup states its charge — the sandbox's own price — in the text and on the Confirm button, and
 * the charge after the call is that figure; an operation PLAT_PRICES names keeps its configured
 * price. Against an API whose prices are not known (the default harness: the sandbox reached at
 * PLAT_BASE_URL like the real API), the first quote still says the price is not known yet.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { textOf, useHarness } from '../helpers/platdesk-harness.js';

const { links, owners, waybills, shops } = SANDBOX_FIXTURES;

const FIRST_LOOKUPS = [
  ['/shop', links.brandedStore],
  ['/orders', `${owners.busy} page:7`],
  ['/waybill', `${waybills.ok[0]} shop:${shops.clothing}`],
] as const;

/** The points a text states as a charge: "12 points (¥0.12)". */
const pointsIn = (text: string) => text.match(/([\d,]+) points? \(¥/)?.[1]?.replace(/,/g, '');

describe('PLAT_SANDBOX=1 quotes the sandbox prices', () => {
  const h = useHarness({ plat: 'sandbox' });

  it.each(FIRST_LOOKUPS)('the first %s states the charge the sandbox then takes', async (name, text) => {
    const { confirmation } = await h().ask(name, text);
    expect(confirmation.text).not.toContain('not known yet');
    const quoted = pointsIn(confirmation.text);
    expect(quoted, confirmation.text).toBeDefined();
    expect(Number(quoted)).toBeGreaterThan(0);
    expect(confirmation.confirm.label).toMatch(/^Confirm/);
    // The button says it too: "Confirm (12 points)".
    expect(confirmation.confirm.label).toBe(`Confirm (${quoted} points)`);
    const before = h().sandbox.stats().charges.points;
    const { answer } = await h().confirm(confirmation);
    const charged = h().sandbox.stats().charges.points - before;
    expect(charged).toBe(Number(quoted));
    expect(textOf(answer)).toContain(`Charged ${quoted} point`);
  });
});

describe('PLAT_SANDBOX=1 with PLAT_PRICES naming an operation', () => {
  const h = useHarness({ plat: 'sandbox', env: { PLAT_PRICES: 'paging-orders=3' } });

  it('quotes the configured price for it and the sandbox price for the others', async () => {
    const orders = await h().ask('/orders', `${owners.busy} page:9`);
    expect(pointsIn(orders.confirmation.text)).toBe('3');
    const shop = await h().ask('/shop', links.brandedStore);
    expect(Number(pointsIn(shop.confirmation.text))).toBeGreaterThan(0);
  });
});

describe('an API whose prices are not known (PLAT_BASE_URL, no PLAT_PRICES)', () => {
  const h = useHarness();

  it('the first quote says so, as before', async () => {
    const { confirmation } = await h().ask('/shop', links.brandedStore);
    expect(confirmation.text).toContain('price not known yet');
    expect(pointsIn(confirmation.text)).toBeUndefined();
  });
});
