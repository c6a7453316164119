/**
 * `/shop` end to end: shop information from an item link (type inferred from the host) and the
 * shop id of a messaging account, "does not exist" answered as a normal, still charged answer.
 */
import { describe, expect, it } from 'vitest';
import { spendSettings } from '../../src/lookups/settings.js';
import { SHOPS } from '../../src/sandbox/fixtures.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  buttonOf,
  buttonsOf,
  confirmationOf,
  looksLikeStackTrace,
  textOf,
  useHarness,
} from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';

const { links, wwids } = SANDBOX_FIXTURES;

describe('/shop', () => {
  const h = useHarness();

  it.each([
    ['ww', 'give the seller messaging account id after ww'],
    ['', 'an item link, or ww and a seller account id, is required'],
    ['680001234501', 'give a full item link'],
    ['https://m.tb.cn/h().abc', 'paste the full item link'],
    [`${links.firstMarketplace} 7`, 'type must be 0, 1 or 2'],
    ['ww <@U1234>', 'that is not a messaging account id'],
  ])('answers %j with the usage line and its problem, and makes no call', async (text, problem) => {
    const said = await h().refused('/shop', text);
    expect(said).toContain(problem);
  });

  it('/shop <branded-store link> infers type 1 and answers with the shop and its charge', async () => {
    const before = h().calls();
    const { sent, confirmation } = await h().ask('/shop', links.brandedStore);
    expect(sent.ms).toBeLessThan(1000);
    expect(confirmation.confirm.label).toMatch(/^Confirm/);
    expect(confirmation.text).toContain('Shop information (basic)');
    expect(confirmation.text).toContain('price not known yet');
    const pending = await h().platdesk.store.pending.get(confirmation.confirm.value ?? '');
    expect(pending?.request).toMatchObject({ kind: 'shop-info', shopType: '1', url: links.brandedStore });

    const { answer } = await h().confirm(confirmation);
    const said = textOf(answer);
    expect(said).toContain(SHOPS.tea.name);
    expect(said).toContain(SHOPS.tea.shopId);
    // get-shop-info basic: 10 points in the sandbox.
    expect(said).toContain('Charged 10 points (¥0.10)');
    await h().settle();
    expect(h().calls()).toBe(before + 1);
  });

  it('the next quote for the same operation states the last charge seen', async () => {
    const { confirmation } = await h().ask('/shop', links.firstMarketplace);
    expect(confirmation.text).toContain('about 10 points (¥0.10), as last charged');
    expect(confirmation.confirm.label).toBe('Confirm (10 points)');
  });

  it('/shop ww <known account> answers with the shop id after one call', async () => {
    const before = h().calls();
    const { confirmation } = await h().ask('/shop', `ww ${wwids.known}`);
    expect(confirmation.text).toContain('Shop id');
    expect(confirmation.text).toContain(`*Shop id* for account ${wwids.known}:`);
    const { answer } = await h().confirm(confirmation);
    const said = textOf(answer);
    expect(said).toContain(`Seller account *${wwids.known}* belongs to shop *${SHOPS.clothing.shopId}*.`);
    expect(said).toContain('Charged 2 points (¥0.02)');
    await h().settle();
    expect(h().calls()).toBe(before + 1);
  });

  it('/shop ww <known account> offers a way on: the shop page, and for a registered shop its orders, each looked up only after its own confirmation', async () => {
    await spendSettings(h().platdesk.store.settings).setShops(
      {
        shops: [{ alias: 'tea', ownerId: SHOPS.tea.ownerId, shopId: SHOPS.tea.shopId, channels: [] }],
        registeredOnly: false,
      },
      SLACK.adminId,
    );
    // A fresh account (the one above is cached now: its answer would come with no confirmation).
    const { confirmation } = await h().ask('/shop', `ww ${wwids.knownChinese}`);
    const { answer } = await h().confirm(confirmation);
    const said = textOf(answer);
    expect(said).toContain(`registered here as *tea* (owner ${SHOPS.tea.ownerId})`);
    const page = buttonsOf(answer).find((b) => b.actionId === 'platdesk.link.shop');
    expect(page?.url).toBe(`https://shop${SHOPS.tea.shopId}.taobao.com/`);
    expect(said).toContain(`\`/waybill <waybill numbers> shop:${SHOPS.tea.shopId}\``);
    const orders = buttonOf(answer, 'platdesk.shop.orders');
    expect(orders.value).toBe(SHOPS.tea.ownerId);
    const before = h().calls();
    const click = await h().click(orders.actionId, orders.value);
    const offer = confirmationOf(await h().nextResponse(click.responseUrlId));
    expect(offer.text).toContain(`owner ${SHOPS.tea.ownerId}`);
    await h().settle(100);
    expect(h().calls()).toBe(before);
  });

  it('/shop ww <unknown account> says the shop does not exist as a normal answer, still charged', async () => {
    const before = h().sandbox.stats().charges.byOperation['get-shop-id'].points;
    const { confirmation } = await h().ask('/shop', `ww ${wwids.unknown}`);
    const { answer } = await h().confirm(confirmation);
    const said = textOf(answer);
    expect(said).toContain(`No shop was found for seller account *${wwids.unknown}*`);
    // Said once, in platdesk's words; the service's own message would only repeat it.
    expect(said).not.toContain('does not exist');
    expect(said).not.toContain(':warning:');
    expect(said).toContain('Charged 2 points (¥0.02)');
    expect(h().sandbox.stats().charges.byOperation['get-shop-id'].points - before).toBe(2);
  });

  it('every message the fake received fits Slack limits', async () => {
    h().assertAllWithinLimits();
    for (const m of h().messages()) expect(looksLikeStackTrace(textOf(m))).toBe(false);
  });
});
