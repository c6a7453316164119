/**
 * The App Home (issue 5) through the real Bolt app: app_home_opened → views.publish for a user
 * (commands, their lookups, their spend) and for an admin (workspace spend, alerts, settings),
 * within Slack's 100 blocks; settings changed from the Home persist and are audited; non-admins
 * cannot change them.
 */

import type { ViewStateValue } from '@slack/bolt';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_ALERT_PREFIX } from '../../src/lookups/lookup-service.js';
import { autoLookupSettings } from '../../src/lookups/unfurls.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { localDateOf } from '../../src/zoned-time.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { buttonOf, SIGNING_SECRET, textOf, useHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';

const { items, owners } = SANDBOX_FIXTURES;
type Json = Record<string, unknown>;
type Values = Record<string, Record<string, ViewStateValue>>;

describe('App Home', () => {
  let seq = 0;

  const h = useHarness({ env: { PLAT_PRICES: 'paging-orders:1=2' } });
  beforeAll(async () => {
    // Some spend: the user looks up an item and a page of orders.
    for (const [command, text] of [
      ['/item', items.basic],
      ['/orders', owners.busy],
    ] as const) {
      const { confirmation } = await h().ask(command, text);
      await h().confirm(confirmation);
    }
  });

  async function openHome(userId: string): Promise<{ call: SlackCall; blocks: Json[] }> {
    const before = h().fake.callsTo('views.publish').length;
    const res = await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(userId), { eventId: `EvHOME${++seq}` }),
    );
    expect(res.status).toBe(200);
    return waitPublish(before);
  }

  async function waitPublish(before: number) {
    await h().fake.waitFor('views.publish', () => h().fake.callsTo('views.publish').length > before, 5000);
    const call = h().fake.callsTo('views.publish')[before] as SlackCall;
    return { call, blocks: (call.body.view as { blocks: Json[] }).blocks };
  }

  /** The refusal of an admin button, sent by direct message (chat.postMessage to the user id). */
  async function refusedByDm(userId: string): Promise<void> {
    const dm = await h().fake.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === userId && textOf(c.body).includes('Only platdesk admins'),
      5000,
    );
    expect(dm.body.channel).toBe(userId);
  }

  const submitForm = (callbackId: string, values: Values, userId: string = SLACK.adminId) =>
    h().submitView({ callbackId, values, userId });

  it('a user sees how to use each command, their lookups of the last 7 days and their spend', async () => {
    const { call, blocks } = await openHome(SLACK.userId);
    expect(call.body.user_id).toBe(SLACK.userId);
    expect((call.body.view as Json).type).toBe('home');
    const said = textOf({ blocks });
    for (const command of ['/item', '/shop', '/waybill', '/orders', '/platdesk usage'])
      expect(said).toContain(command);
    expect(said).toContain('Your lookups, last 7 days');
    expect(said).toContain(`item ${items.basic}`);
    expect(said).toContain(`orders of owner ${owners.busy}`);
    expect(said).toContain('*Today*');
    expect(said).toContain('*This month*');
    expect(said).toContain('2 points');
    expect(said).not.toContain('Workspace spend');
    expect(said).not.toContain('Who may spend');
    assertWithinSlackLimits(blocks, 'home');
    expect(blocks.length).toBeLessThanOrEqual(100);
  });

  it('the messages tab publishes nothing', async () => {
    const before = h().fake.callsTo('views.publish').length;
    await postEvent(h().eventsUrl, SIGNING_SECRET, eventCallback(appHomeOpened(SLACK.userId, 'messages')));
    await h().settle(150);
    expect(h().fake.callsTo('views.publish')).toHaveLength(before);
  });

  it('an admin also sees spend by user, operation and day, the alerts, and the settings', async () => {
    // An account alert: the plat token is refused on a lookup.
    h().sandbox.setFaults([{ kind: 'code', code: 401 }]);
    const { confirmation } = await h().ask('/orders', `${owners.busy} page:3`);
    await h().confirm(confirmation);
    h().sandbox.setFaults([]);
    await h().fake.waitFor(
      'chat.postMessage',
      (c) => textOf(c.body).includes('access token was refused'),
      5000,
    );

    const { blocks } = await openHome(SLACK.adminId);
    const said = textOf({ blocks });
    expect(said).toContain('Workspace spend, last 30 days');
    expect(said).toContain('*By user*');
    expect(said).toContain(`<@${SLACK.userId}>`);
    expect(said).toContain('*By operation*');
    expect(said).toContain('Orders');
    expect(said).toContain('*By day*');
    expect(said).toContain('Alerts');
    expect(said).toContain('access token was refused');
    expect(said).toContain('Who may spend');
    expect(said).toContain('Everyone in the workspace');
    expect(said).toContain('look item links up automatically');
    expect(said).toContain('Prices per call');
    expect(said).toContain('Digest subscriptions');
    for (const id of ['platdesk.home.access', 'platdesk.home.autolookup', 'platdesk.home.prices'])
      expect(buttonOf({ blocks }, id).label).toBe('Edit');
    assertWithinSlackLimits(blocks, 'home');
  });

  it('one zone on the whole Home: days, times and budget alerts in the budget zone, labelled so (issue 10, point 18)', async () => {
    // The budget alert key holds the instant the local day began: 2026-11-23 00:00 in Shanghai.
    await h().platdesk.store.alertsSent.claim(
      `${BUDGET_ALERT_PREFIX}2026-11-22T16:00:00.000Z|workspace:*:daily:warned`,
      Number.POSITIVE_INFINITY,
    );
    const { blocks } = await openHome(SLACK.adminId);
    const said = textOf({ blocks });
    const today = localDateOf(h().now().getTime(), 'Asia/Shanghai');
    expect(said).toContain(`*By day* (Beijing time, newest first)\n• ${today}: `);
    expect(said).toContain('• 2026-11-23: budget cap alert (workspace:*:daily:warned)');
    expect(said).toContain('Times, days and months are in Beijing time.');
    expect(said).toContain(`Updated ${localDateOf(h().now().getTime(), 'Asia/Shanghai')} `);
    expect(said).not.toContain('UTC');
  });

  it('Edit opens a form (admins only); an auto-lookup change persists, is audited and shows on the Home', async () => {
    const opened = h().fake.callsTo('views.open').length;
    await h().clickInView('platdesk.home.autolookup', 'edit', { surface: 'home', userId: SLACK.adminId });
    await h().fake.waitFor('views.open', () => h().fake.callsTo('views.open').length > opened, 5000);
    const form = h().fake.callsTo('views.open')[opened]?.body.view as { callback_id: string; blocks: Json[] };
    expect(form.callback_id).toBe('platdesk.home.autolookup.form');

    // A non-admin's click opens nothing; a click in the Home has no response_url, so the
    // refusal comes by direct message and their Home is published again (without admin controls).
    const published = h().fake.callsTo('views.publish').length;
    const click = await h().clickInView('platdesk.home.autolookup', 'edit', {
      surface: 'home',
      userId: SLACK.userId,
    });
    expect(click.status).toBe(200);
    await refusedByDm(SLACK.userId);
    const republished = await waitPublish(published);
    expect(republished.call.body.user_id).toBe(SLACK.userId);
    expect(textOf({ blocks: republished.blocks })).not.toContain('Who may spend');
    expect(h().fake.callsTo('views.open')).toHaveLength(opened + 1);

    const values: Values = {
      channel: {
        'autolookup.channel': { type: 'conversations_select', selected_conversation: 'CHOME0001' } as never,
      },
      mode: { 'autolookup.mode': { type: 'radio_buttons', selected_option: { value: 'on' } } as never },
      cap: { 'autolookup.cap': { type: 'number_input', value: '7' } as never },
    };
    // A non-admin's submit is refused.
    const refused = await submitForm('platdesk.home.autolookup.form', values, SLACK.userId);
    expect(refused.body).toContain('Only platdesk admins');
    expect(await autoLookupSettings(h().platdesk.store.settings).capOf('CHOME0001')).toBeNull();

    const before = h().fake.callsTo('views.publish').length;
    const res = await submitForm('platdesk.home.autolookup.form', values);
    expect(res.body).toBe('');
    const { call, blocks } = await waitPublish(before);
    expect(call.body.user_id).toBe(SLACK.adminId);
    expect(textOf({ blocks })).toContain('<#CHOME0001>: up to 7 a day, 0 used today');
    expect(await autoLookupSettings(h().platdesk.store.settings).capOf('CHOME0001')).toBe(7);
    const audit = await h().platdesk.store.audit.list(5);
    expect(audit.some((a) => a.actorId === SLACK.adminId && a.detail.startsWith('autolookup'))).toBe(true);
  });

  it('who may spend and prices set from the Home persist, are audited and apply', async () => {
    const access = await submitForm('platdesk.home.access.form', {
      mode: { 'access.mode': { type: 'radio_buttons', selected_option: { value: 'listed' } } as never },
      users: {
        'access.users': { type: 'multi_users_select', selected_users: [SLACK.secondUserId] } as never,
      },
      channels: {
        'access.channels': { type: 'multi_conversations_select', selected_conversations: [] } as never,
      },
      groups: { 'access.groups': { type: 'plain_text_input', value: '' } as never },
    });
    expect(access.body).toBe('');
    await h().settle(50);
    const policy = await h().platdesk.store.settings.get<{ mode: string; users: string[] }>('access');
    expect(policy?.mode).toBe('listed');
    expect(policy?.users).toEqual([SLACK.secondUserId]);
    // Applies: the first user may no longer spend.
    const refusedLookup = await h().command('/shop', `ww ${SANDBOX_FIXTURES.wwids.known}`);
    expect(textOf(await h().nextResponse(refusedLookup.responseUrlId))).toContain('not on the list');

    const bad = await submitForm('platdesk.home.access.form', {
      mode: { 'access.mode': { type: 'radio_buttons', selected_option: { value: 'listed' } } as never },
    });
    expect(bad.body).toContain('name at least one');

    const prices = await submitForm('platdesk.home.prices.form', {
      operation: {
        'prices.operation': { type: 'static_select', selected_option: { value: 'get-shop-id:*' } } as never,
      },
      points: { 'prices.points': { type: 'number_input', value: '3' } as never },
    });
    expect(prices.body).toBe('');
    await h().settle(50);
    expect(await h().platdesk.store.settings.get('prices')).toEqual({ 'get-shop-id': { '*': 3 } });
    // Quotes use it: the second user (allowed) is asked to confirm 3 points.
    const { confirmation } = await h().ask('/shop', `ww ${SANDBOX_FIXTURES.wwids.known}`, {
      userId: SLACK.secondUserId,
    });
    expect(confirmation.confirm.label).toBe('Confirm (3 points)');

    const audit = await h().platdesk.store.audit.list(10);
    expect(audit.some((a) => a.actorId === SLACK.adminId && a.detail.startsWith('access ='))).toBe(true);
    expect(audit.some((a) => a.actorId === SLACK.adminId && a.detail.startsWith('prices ='))).toBe(true);
  });

  it('digest subscriptions are listed and can be removed from the Home', async () => {
    const sub = await h().platdesk.store.digests.add({
      ownerId: owners.busy,
      shopLabel: 'clothing',
      channelId: 'CDIGEST01',
      localTime: '09:00',
      timeZone: 'Asia/Shanghai',
      createdBy: SLACK.adminId,
    });
    const { blocks } = await openHome(SLACK.adminId);
    expect(textOf({ blocks })).toContain('clothing → <#CDIGEST01> at 09:00');
    // One Remove button per digest, each with its own action_id (no two alike in a view).
    const remove = buttonOf({ blocks }, `platdesk.home.digest_remove.${sub.id}`);
    expect(remove.value).toBe(String(sub.id));
    // Someone who is not (or no longer) an admin is refused by direct message; nothing is removed.
    await h().clickInView(remove.actionId, remove.value, { surface: 'home', userId: SLACK.secondUserId });
    await refusedByDm(SLACK.secondUserId);
    expect(await h().platdesk.store.digests.list()).toHaveLength(1);
    const before = h().fake.callsTo('views.publish').length;
    await h().clickInView(remove.actionId, remove.value, { surface: 'home', userId: SLACK.adminId });
    // The admin's Home as published after the click (another person's may be published meanwhile).
    const after = await h().fake.waitFor(
      'views.publish',
      (c) => c.body.user_id === SLACK.adminId && h().fake.callsTo('views.publish').indexOf(c) >= before,
      5000,
    );
    expect(textOf({ blocks: (after.body.view as { blocks: Json[] }).blocks })).not.toContain('<#CDIGEST01>');
    expect(await h().platdesk.store.digests.list()).toHaveLength(0);
  });

  it('every view published fits Slack limits', async () => {
    h().assertAllWithinLimits();
    for (const call of h().fake.callsTo('views.publish'))
      assertWithinSlackLimits((call.body.view as { blocks: unknown[] }).blocks, 'home');
  });
});
