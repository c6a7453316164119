/**
 * `/platdesk` through the real Bolt app: admin subcommands are refused to others; an admin's
 * changes land in the store with an audit row naming them, and take effect on the next lookup
 * (shop aliases and channels, cache lifetimes, admins), proved with the sandbox's call counter.
 */
import { describe, expect, it } from 'vitest';
import { SETTING_KEYS, spendSettings } from '../../src/lookups/settings.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { confirmationOf, textOf, useHarness } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';

const { owners, shops, wwids, orderCounts } = SANDBOX_FIXTURES;
const OTHER_CHANNEL = 'C9999';

describe('/platdesk', () => {
  const settings = () => spendSettings(h().platdesk.store.settings);
  const audit = () => h().platdesk.store.audit.list(100);

  /** Runs /platdesk and returns the text of its answer. */
  async function platdesk(text: string, userId: string = SLACK.userId): Promise<string> {
    const sent = await h().command('/platdesk', text, { userId });
    expect(sent.status).toBe(200);
    expect(sent.ms).toBeLessThan(2000);
    const answer = await h().nextResponse(sent.responseUrlId);
    expect(answer.response_type).toBe('ephemeral');
    return textOf(answer);
  }
  const admin = (text: string) => platdesk(text, SLACK.adminId);

  const h = useHarness({ env: { PLAT_PRICES: 'get-shop-id=2,paging-orders:1=2' } });

  it('help lists the admin subcommands to admins only', async () => {
    const mine = await platdesk('help');
    expect(mine).toContain('/platdesk usage');
    // A member is pointed to the lookups themselves (issue 22.6).
    for (const command of ['/item', '/shop', '/waybill', '/orders']) expect(mine).toContain(`\`${command}\``);
    expect(mine).not.toContain('/platdesk budget');
    expect(await admin('')).toContain('/platdesk budget');
  });

  it('admin subcommands are denied to others and change nothing', async () => {
    for (const text of [
      'budget workspace daily 1',
      'access only <@U1234>',
      'shop add tea owner:1',
      'cache platiteminfo 0',
      `admins add <@${SLACK.userId}>`,
      'audit',
    ])
      expect(await platdesk(text)).toContain('is for platdesk admins');
    expect(await audit()).toEqual([]);
    expect((await settings().budgets()).workspace.daily).toBeNull();
  });

  it("an admin's budget change is stored and audited with the admin's id", async () => {
    expect(await admin('budget workspace monthly 5000')).toContain(
      'Workspace: daily no cap, monthly 5,000 points',
    );
    expect((await settings().budgets()).workspace.monthly).toBe(5000);
    expect((await audit())[0]).toMatchObject({ actorId: SLACK.adminId, action: 'settings.set' });
    expect((await audit())[0]?.detail).toContain('"monthly":5000');
    expect(await admin('audit')).toContain(`<@${SLACK.adminId}> set: \`budgets = {`);
  });

  it('a shop registered to a channel: /orders <alias> elsewhere is refused (no call), in its channel it queries the owner', async () => {
    expect(
      await admin(
        `shop add tea owner:${owners.small} shop:${shops.tea} <#${SLACK.channelId}|${SLACK.channelName}>`,
      ),
    ).toContain(`*tea*: owner ${owners.small}, shop ${shops.tea}; <#${SLACK.channelId}>`);
    expect((await settings().shops()).shops).toEqual([
      { alias: 'tea', ownerId: owners.small, shopId: shops.tea, channels: [SLACK.channelId] },
    ]);
    expect((await audit())[0]).toMatchObject({ actorId: SLACK.adminId });

    await h().settle(50);
    const before = h().calls();
    const elsewhere = await h().command('/orders', 'tea', { channelId: OTHER_CHANNEL });
    const refusal = textOf(await h().nextResponse(elsewhere.responseUrlId));
    expect(refusal).toContain('may only be looked up in its own channels');
    expect(refusal).toContain(`<@${SLACK.adminId}>`);
    await h().settle(100);
    expect(h().calls()).toBe(before);

    const { confirmation } = await h().ask('/orders', 'tea');
    const { answer } = await h().confirm(confirmation);
    expect(textOf(answer)).toContain(`Orders of ${owners.small}`);
    expect(textOf(answer)).toContain(`page 1 of 1, ${orderCounts.small} orders`);
    await h().settle();
    expect(h().calls()).toBe(before + 1);
    expect(h().sandbox.stats().callsByOperation['paging-orders']).toBe(1);
  });

  it('registered-only: an unregistered owner is refused to staff (no call)', async () => {
    expect(await admin('shops registered-only on')).toContain('Only registered shops may be queried.');
    const before = h().calls();
    const sent = await h().command('/orders', owners.busy);
    expect(textOf(await h().nextResponse(sent.responseUrlId))).toContain('not a registered shop');
    await h().settle(100);
    expect(h().calls()).toBe(before);
    await admin('shops registered-only off');
    expect((await settings().shops()).registeredOnly).toBe(false);
  });

  it('cache lifetimes: 0 for get-shop-id means every lookup asks and calls again', async () => {
    const first = await h().ask('/shop', `ww ${wwids.known}`);
    await h().confirm(first.confirmation);
    const cached = await h().command('/shop', `ww ${wwids.known}`);
    expect(textOf(await h().nextResponse(cached.responseUrlId))).toContain('From cache');

    expect(await admin('cache get-shop-id 0')).toContain('`get-shop-id` · Shop id: not cached');
    expect((await settings().cacheTtlS())['get-shop-id']).toBe(0);
    await h().settle();
    const before = h().calls();
    const again = await h().ask('/shop', `ww ${wwids.known}`);
    expect(again.confirmation.confirm.label).toBe('Confirm (2 points)');
    await h().confirm(again.confirmation);
    const third = await h().command('/shop', `ww ${wwids.known}`);
    const asked = await h().nextResponse(third.responseUrlId);
    expect(textOf(asked)).not.toContain('From cache');
    expect(confirmationOf(asked).confirm.label).toBe('Confirm (2 points)');
    await h().settle();
    expect(h().calls()).toBe(before + 1);
  });

  it('admins add / remove from the app; the new admin can change settings at once', async () => {
    expect(await admin(`admins add <@${SLACK.secondUserId}|agent2>`)).toContain(`<@${SLACK.secondUserId}>`);
    expect(await h().platdesk.store.settings.get(SETTING_KEYS.admins)).toEqual([SLACK.secondUserId]);
    expect(await platdesk('budget user daily 300', SLACK.secondUserId)).toContain(
      'Each user: daily 300 points',
    );
    expect((await audit())[0]).toMatchObject({ actorId: SLACK.secondUserId });

    expect(await admin(`admins remove <@${SLACK.secondUserId}> <@${SLACK.adminId}>`)).toContain(
      'stay admins: they are set in PLATDESK_ADMINS',
    );
    expect(await platdesk('budget user daily off', SLACK.secondUserId)).toContain('is for platdesk admins');
    expect((await settings().budgets()).perUser.daily).toBe(300);
  });

  it('bad input is answered with what was not understood', async () => {
    expect(await admin('frobnicate')).toContain('unknown subcommand frobnicate');
    expect(await admin('budget workspace weekly 5')).toContain('daily|monthly');
    expect(await platdesk('usage yesterday')).toContain('usage takes');
  });

  it('every message fits Slack limits', async () => {
    h().assertAllWithinLimits();
  });
});
