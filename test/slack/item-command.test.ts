/**
 * `/item` end to end: signed slash commands into the real Bolt app, answers on the fake Slack
 * server, calls counted at the in-process sandbox.
 */
import { describe, expect, it } from 'vitest';
import { ITEMS } from '../../src/sandbox/fixtures.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  buttonOf,
  confirmationOf,
  looksLikeStackTrace,
  textOf,
  useHarness,
} from '../helpers/platdesk-harness.js';

const { items, links } = SANDBOX_FIXTURES;
const titleOf = (itemId: string) => ITEMS.get(itemId)?.wire.name ?? '';

describe('/item', () => {
  const h = useHarness();

  it.each([
    ['notalink', 'that is not an item link or id'],
    ['https://m.tb.cn/h().abc', 'paste the full item link'],
    ['', 'an item link or id is required'],
    ['680001234501 680001234502', 'give exactly one item link or id'],
    ['https://example.com/item.htm?id=680001234501', 'that is not an item link or id'],
  ])('answers %j with the usage line and its problem, and makes no call', async (text, problem) => {
    const said = await h().refused('/item', text);
    expect(said).toContain(problem);
    expect(said).toContain('Usage: `/item &lt;item link or id&gt; [prices]`');
    expect(said).toContain('Nothing was sent or charged');
  });

  it('asks to confirm "1 quota call", then answers with the item after exactly one call', async () => {
    const before = h().calls();
    const { sent, message, confirmation } = await h().ask('/item', links.firstMarketplace);
    expect(sent.ms).toBeLessThan(1000);
    expect(message.response_type).toBe('ephemeral');
    expect(confirmation.confirm.label).toMatch(/^Confirm/);
    expect(confirmation.confirm.style).toBe('primary');
    expect(confirmation.cancel.label).toBe('Cancel');
    expect(confirmation.text).toContain('Item details');
    expect(confirmation.text).toContain(`item ${items.basic}`);
    expect(confirmation.text).toContain('*Item details* for item');
    expect(confirmation.text).toContain(': 1 quota call.');
    expect(h().calls()).toBe(before);

    const { progress, answer } = await h().confirm(confirmation);
    expect(progress.text).toContain('Looking up');
    expect(progress.replace_original).toBe(true);
    expect(answer.replace_original).toBe(true);
    expect(answer.response_type).toBe('ephemeral');
    const said = textOf(answer);
    expect(said).toContain(titleOf(items.basic));
    expect(said).toContain('Used 1 call of the item quota');
    await h().settle();
    expect(h().calls()).toBe(before + 1);
    expect(h().sandbox.stats().callsByOperation.platiteminfo).toBe(1);
  });

  it('accepts a link as Slack wraps it (<url|label>)', async () => {
    const { confirmation } = await h().ask('/item', `<${links.mobile}|${links.mobile}>`);
    expect(confirmation.text).toContain(`item ${items.manySkus}`);
  });

  it('/item <id> prices makes two calls (details and prices) after one confirmation', async () => {
    const before = h().sandbox.stats().callsByOperation;
    const { confirmation } = await h().ask('/item', `${items.withVideo} prices`);
    expect(confirmation.text).toContain('Item details');
    expect(confirmation.text).toContain('Item prices');
    expect(confirmation.text).toContain('*Total:* 2 quota calls');
    const { answer } = await h().confirm(confirmation);
    const said = textOf(answer);
    expect(said).toContain(titleOf(items.withVideo));
    expect(said).toContain('Used 2 calls of the item quota');
    await h().settle();
    const after = h().sandbox.stats().callsByOperation;
    expect(after.platiteminfo - before.platiteminfo).toBe(1);
    expect(after.platiteminfoprice - before.platiteminfoprice).toBe(1);
  });

  it('code 100 "item does not exist" answers "Item not found", costing one call of the quota (not a parameter error)', async () => {
    const allTime = { from: new Date(0), to: new Date(Date.now() + 86_400_000) };
    const rowsBefore = (await h().platdesk.store.ledger.list(allTime)).length;
    const { answer, calls } = await h().lookup('/item', items.missing, { settle: true });
    const said = textOf(answer);
    expect(said).toContain('Item not found');
    expect(said).toContain('No item has this id');
    expect(said).toContain('It cost 1 call of the item quota.');
    expect(answer.text).toContain('Item not found. It cost 1 call of the item quota.');
    expect(said).not.toContain('rejected the request');
    expect(said).not.toContain('check the values sent');
    expect(looksLikeStackTrace(said)).toBe(false);
    expect(calls).toBe(1);
    // …and that call of the quota is in the ledger (issue 10 point 1).
    const rows = await h().platdesk.store.ledger.list(allTime);
    expect(rows.length - rowsBefore).toBe(1);
    expect(rows[0]).toMatchObject({
      operation: 'platiteminfo',
      code: 100,
      points: 0,
      quotaCalls: 1,
      outcome: 'error',
    });
  });

  it("the answer's Prices button offers a new confirmation and calls nothing by itself", async () => {
    const { confirmation } = await h().ask('/item', items.tea);
    const { answer } = await h().confirm(confirmation);
    const before = h().calls();
    const prices = buttonOf(answer, 'platdesk.item.prices');
    const click = await h().click(prices.actionId, prices.value);
    expect(click.status).toBe(200);
    const offer = await h().nextResponse(click.responseUrlId);
    const second = confirmationOf(offer);
    expect(offer.replace_original).toBe(false);
    expect(second.text).toContain(`*Item prices* for item ${items.tea}: 1 quota call.`);
    await h().settle(50);
    expect(h().calls()).toBe(before);
  });

  it('every message the fake received fits Slack limits', async () => {
    expect(h().fake.callsTo('response_url').length).toBeGreaterThan(10);
    h().assertAllWithinLimits();
    for (const m of h().messages()) expect(looksLikeStackTrace(textOf(m))).toBe(false);
  });
});
