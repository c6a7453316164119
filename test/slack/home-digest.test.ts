/**
 * "Add digest" on the App Home (issue 6) through the real Bolt app: admins see the button and get
 * the form; a submit is checked with the rules of `/orders digest add` (errors on the fields,
 * nothing stored), added the way the command adds (audited with the admin, planned by the
 * scheduler at once) and shown on the republished Home; non-admins can neither open nor submit it.
 */

import type { ViewStateValue } from '@slack/bolt';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocaleSettings } from '../../src/lookups/locale.js';
import { spendSettings } from '../../src/lookups/settings.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { buttonOf, buttonsOf, SIGNING_SECRET, textOf, useHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { owners } = SANDBOX_FIXTURES;
const ADD = 'platdesk.home.digest_add';
const FORM = 'platdesk.home.digest.form';
type Json = Record<string, unknown>;
type Values = Record<string, Record<string, ViewStateValue>>;

interface FormInput {
  alias?: string;
  owner?: string;
  channel?: string;
  time?: string;
  zone?: string;
  language?: string;
  layout?: 'thread' | 'single';
  days?: number[];
  flags?: number[];
  statuses?: number[];
}

/** view.state.values as Slack sends them for the form (blocks left out when not given). */
function formValues(input: FormInput): Values {
  const values: Values = {};
  const put = (block: string, value: Json) => {
    values[block] = { [`digest.${block}`]: value as unknown as ViewStateValue };
  };
  if (input.alias !== undefined)
    put('shop', { type: 'static_select', selected_option: { value: input.alias } });
  put('owner', { type: 'plain_text_input', value: input.owner ?? null });
  if (input.channel !== undefined)
    put('channel', { type: 'conversations_select', selected_conversation: input.channel });
  if (input.time !== undefined) put('time', { type: 'timepicker', selected_time: input.time });
  if (input.zone !== undefined)
    put('zone', { type: 'static_select', selected_option: { value: input.zone } });
  if (input.language !== undefined)
    put('language', { type: 'static_select', selected_option: { value: input.language } });
  if (input.layout !== undefined)
    put('layout', { type: 'radio_buttons', selected_option: { value: input.layout } });
  for (const block of ['days', 'flags', 'statuses'] as const) {
    const picked = input[block];
    if (picked !== undefined)
      put(block, { type: 'checkboxes', selected_options: picked.map((n) => ({ value: String(n) })) });
  }
  return values;
}

/** A time of day twelve hours from the harness clock in Shanghai, so no scheduled run fires mid-test. */
function farTime(now: Date): string {
  const later = new Date(now.getTime() + 12 * 3_600_000 + 8 * 3_600_000);
  return `${String(later.getUTCHours()).padStart(2, '0')}:00`;
}

/**
 * A valid submit is answered with the form's answer in place (response_action update): the words
 * `/orders digest add` answers with, and the cost line (the page price is unknown here: no
 * PLAT_PRICES and nothing charged yet).
 */
function expectAdded(body: string): void {
  const answer = JSON.parse(body) as {
    response_action: string;
    view: { title: { text: string }; blocks: unknown[] };
  };
  expect(answer.response_action).toBe('update');
  expect(answer.view.title.text).toBe('Digest added');
  const said = textOf({ blocks: answer.view.blocks as never });
  expect(said).toMatch(/Digest #\d+ added: orders of owner/);
  expect(said).toContain('each run reads at least one page of orders for each day it covers');
  expect(said).toContain('the digest cap of 200 points');
}

describe.each(ENGINES)('App Home: Add digest (%s store)', (engine) => {
  let seq = 0;

  const h = useHarness({ engine });
  beforeAll(async () => {
    spendSettings(h().platdesk.store.settings).setShops(
      {
        shops: [
          { alias: 'tea', ownerId: owners.small, shopId: null, channels: [] },
          // No owner id: cannot be subscribed, so the form does not offer it.
          { alias: 'noowner', ownerId: null, shopId: null, channels: [] },
        ],
        registeredOnly: false,
      },
      SLACK.adminId,
    );
  });

  // The admin's Home is published again once a changed spend chart is uploaded: let that land
  // before a test counts publishes.
  beforeEach(async () => {
    await expect
      .poll(
        () => {
          const last = h()
            .fake.callsTo('views.publish')
            .filter((c) => c.body.user_id === SLACK.adminId)
            .at(-1);
          return last === undefined || JSON.stringify(last.body.view).includes('slack_file');
        },
        { timeout: 20_000 },
      )
      .toBe(true);
  });

  async function openHome(userId: string): Promise<Json[]> {
    const before = h().fake.callsTo('views.publish').length;
    const res = await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(userId), { eventId: `EvHOMEDIGEST${++seq}` }),
    );
    expect(res.status).toBe(200);
    return waitPublish(before);
  }

  async function waitPublish(before: number): Promise<Json[]> {
    await h().fake.waitFor('views.publish', () => h().fake.callsTo('views.publish').length > before, 5000);
    const call = h().fake.callsTo('views.publish')[before] as SlackCall;
    return (call.body.view as { blocks: Json[] }).blocks;
  }

  async function submit(input: FormInput, userId: string = SLACK.adminId) {
    const res = await h().submitView({ callbackId: FORM, values: formValues(input), userId });
    expect(res.status).toBe(200);
    return res;
  }

  /** The field errors of a refused submit (block id → message). */
  async function errorsOf(input: FormInput, userId: string = SLACK.adminId): Promise<Record<string, string>> {
    const res = await submit(input, userId);
    const body = JSON.parse(res.body) as { response_action: string; errors: Record<string, string> };
    expect(body.response_action).toBe('errors');
    return body.errors;
  }

  it('admins see "Add digest" next to the digest list; others do not', async () => {
    const admin = await openHome(SLACK.adminId);
    const add = buttonOf({ blocks: admin }, ADD);
    expect(add.label).toBe('Add digest');
    const section = admin.find((b) => (b.accessory as Json | undefined)?.action_id === ADD);
    expect(textOf(section)).toContain('Digest subscriptions');
    assertWithinSlackLimits(admin, 'home');

    const user = await openHome(SLACK.userId);
    expect(buttonsOf({ blocks: user }).map((b) => b.actionId)).not.toContain(ADD);
  });

  it('the button opens the form (admins only): registered shops, owner id, channel, 09:00, Asia/Shanghai', async () => {
    const opened = h().fake.callsTo('views.open').length;
    await h().clickInView(ADD, 'add', { surface: 'home', userId: SLACK.adminId });
    const call = await h().fake.waitFor(
      'views.open',
      () => h().fake.callsTo('views.open').length > opened,
      5000,
    );
    expect(call.body.trigger_id).toBe(SLACK.triggerId);
    const view = call.body.view as Json & { blocks: Json[] };
    expect(view.type).toBe('modal');
    expect(view.callback_id).toBe(FORM);
    const element = (block: string) => view.blocks.find((b) => b.block_id === block)?.element as Json;

    const shops = element('shop').options as { text: { text: string }; value: string }[];
    expect(shops.map((o) => o.value)).toEqual(['tea']);
    expect(shops[0]?.text.text).toContain(owners.small);
    expect(element('owner').type).toBe('plain_text_input');
    expect(element('channel')).toMatchObject({
      type: 'conversations_select',
      filter: { include: ['public', 'private'], exclude_bot_users: true },
    });
    expect(element('channel').default_to_current_conversation).toBeUndefined();
    expect(element('time')).toMatchObject({ type: 'timepicker', initial_time: '09:00' });
    const zone = element('zone') as { options: { value: string }[]; initial_option: { value: string } };
    expect(zone.initial_option.value).toBe('Asia/Shanghai');
    expect(zone.options.map((o) => o.value)).toEqual([
      'Asia/Shanghai',
      'Asia/Hong_Kong',
      'Asia/Singapore',
      'Asia/Tokyo',
      'Europe/London',
      'Europe/Berlin',
      'America/New_York',
      'America/Los_Angeles',
      'UTC',
    ]);
    // Shop and owner id are optional to Slack (one of them is required, checked on submit); days
    // and filters are optional (none: every day, every order); the channel's language is optional
    // (the workspace default).
    expect(view.blocks.filter((b) => b.type === 'input' && b.optional).map((b) => b.block_id)).toEqual([
      'shop',
      'owner',
      'days',
      'flags',
      'statuses',
      'language',
    ]);
    // What `/orders digest add` offers: threaded (the default) or single, weekdays, flags, statuses.
    expect(element('layout')).toMatchObject({ type: 'radio_buttons', initial_option: { value: 'thread' } });
    const values = (block: string) => (element(block).options as { value: string }[]).map((o) => o.value);
    expect(values('layout')).toEqual(['thread', 'single']);
    expect(values('days')).toEqual(['1', '2', '3', '4', '5', '6', '0']);
    expect(values('flags')).toEqual(['1', '2', '3', '4', '5']);
    expect(values('statuses')).toEqual(['1', '2', '3']);

    // A non-admin's click (a forged one: they have no button) opens nothing.
    // A click in the Home carries no response_url: the refusal comes by direct message, and
    // their Home is published again.
    const published = h().fake.callsTo('views.publish').length;
    const click = await h().clickInView(ADD, 'add', { surface: 'home', userId: SLACK.userId });
    expect(click.status).toBe(200);
    const dm = await h().fake.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === SLACK.userId && textOf(c.body).includes('Only platdesk admins'),
      5000,
    );
    expect(dm.body.channel).toBe(SLACK.userId);
    const republished = await h().fake.waitFor(
      'views.publish',
      (c) => h().fake.callsTo('views.publish').indexOf(c) >= published,
      5000,
    );
    expect(republished.body.user_id).toBe(SLACK.userId);
    expect(h().fake.callsTo('views.open')).toHaveLength(opened + 1);
  });

  it('a valid submit adds the digest as /orders digest add does and republishes the Home with it', async () => {
    const at = farTime(h().now());
    const before = h().fake.callsTo('views.publish').length;
    const res = await submit({ alias: 'tea', channel: 'CHOMEDG01', time: at, zone: 'Asia/Tokyo' });
    expectAdded(res.body);
    const blocks = await waitPublish(before);
    expect(h().fake.callsTo('views.publish')[before]?.body.user_id).toBe(SLACK.adminId);
    expect(textOf({ blocks })).toContain(`tea → <#CHOMEDG01> at ${at} Asia/Tokyo`);
    expect(textOf({ blocks })).toContain('Digest subscriptions* (1)');

    expect(await h().platdesk.store.digests.list()).toMatchObject([
      {
        ownerId: owners.small,
        shopLabel: 'tea',
        channelId: 'CHOMEDG01',
        localTime: at,
        timeZone: 'Asia/Tokyo',
        createdBy: SLACK.adminId,
      },
    ]);
    const audit = await h().platdesk.store.audit.list(5, { action: 'digest.add' });
    expect(audit.map((a) => a.actorId)).toEqual([SLACK.adminId]);

    // An owner id typed instead of a shop works too.
    const again = h().fake.callsTo('views.publish').length;
    const typed = await submit({ owner: ` ${owners.busy} `, channel: 'GHOMEDG02', time: at, zone: 'UTC' });
    expectAdded(typed.body);
    expect(textOf({ blocks: await waitPublish(again) })).toContain(`${owners.busy} → <#GHOMEDG02>`);
    expect((await h().platdesk.store.digests.list()).at(-1)).toMatchObject({
      ownerId: owners.busy,
      shopLabel: owners.busy,
      channelId: 'GHOMEDG02',
      timeZone: 'UTC',
    });
    expect(h().calls()).toBe(0);
  });

  it('offers what /orders digest add offers: single message, weekdays, flag and status filters (stored as the command stores them)', async () => {
    const at = farTime(h().now());
    const published = h().fake.callsTo('views.publish').length;
    const res = await submit({
      alias: 'tea',
      channel: 'CHOMEOPT1',
      time: at,
      zone: 'Asia/Shanghai',
      layout: 'single',
      days: [5, 1, 2, 3, 4],
      flags: [1, 2],
      statuses: [1],
    });
    expectAdded(res.body);
    await waitPublish(published);
    const added = (await h().platdesk.store.digests.list()).find((d) => d.channelId === 'CHOMEOPT1');
    expect(added).toMatchObject({ layout: 'single', days: [1, 2, 3, 4, 5], flags: [1, 2], statuses: [1] });
    // The same digest through the command is the one already added.
    const { responseUrlId } = await h().command(
      '/orders',
      `digest add tea <#CHOMEOPT1|x> ${at} Asia/Shanghai days:mon-fri flag:red,yellow status:1 single`,
      { userId: SLACK.adminId },
    );
    expect(textOf(await h().nextResponse(responseUrlId))).toContain(`#${added?.id}`);
    // Nothing ticked: a threaded digest every day, every order.
    const before = h().fake.callsTo('views.publish').length;
    await submit({ alias: 'tea', channel: 'CHOMEOPT2', time: at, zone: 'Asia/Shanghai' });
    await waitPublish(before);
    expect((await h().platdesk.store.digests.list()).find((d) => d.channelId === 'CHOMEOPT2')).toMatchObject({
      layout: 'thread',
      days: null,
      flags: null,
      statuses: null,
    });
  });

  it('invalid answers are shown on their fields and add nothing', async () => {
    const at = farTime(h().now());
    const count = (await h().platdesk.store.digests.list()).length;
    const published = h().fake.callsTo('views.publish').length;
    const ok = { channel: 'CHOMEDG03', time: at, zone: 'Asia/Shanghai' };

    expect(await errorsOf(ok)).toEqual({ owner: 'choose a registered shop or type an owner id' });
    expect(await errorsOf({ ...ok, owner: '   ' })).toEqual({
      owner: 'choose a registered shop or type an owner id',
    });
    expect((await errorsOf({ ...ok, alias: 'tea', owner: owners.busy })).owner).toContain('not both');
    // The rules of /orders digest add, on the field they concern.
    // Every problem at once, each on its field.
    expect(await errorsOf({ ...ok, zone: 'Mars/Olympus' })).toEqual({
      owner: 'choose a registered shop or type an owner id',
      zone: '"Mars/Olympus" is not a time zone: use an IANA name such as Asia/Shanghai',
    });
    const zone = await errorsOf({ ...ok, owner: owners.busy, zone: 'Mars/Olympus' });
    expect(Object.keys(zone)).toEqual(['zone']);
    expect(zone.zone).toContain('not a time zone');
    const many = await errorsOf({
      owner: 'not an id!',
      channel: 'nochannel',
      time: '25:00',
      zone: 'Nowhere',
    });
    expect(many.owner).toContain('is not an owner id or shop alias');
    expect(many.channel).toContain('is not a channel');
    expect(many.time).toContain('not a time of day');
    expect(many.zone).toContain('not a time zone');
    // A forged shop with no owner id: the command's "no shop is known" on the shop field.
    expect((await errorsOf({ ...ok, alias: 'noowner' })).shop).toContain('No shop is known as "noowner"');
    // Missing required answers (a forged payload: Slack itself requires them).
    expect(await errorsOf({ owner: owners.busy })).toEqual({
      channel: 'choose a channel',
      time: 'choose a time of day',
      zone: 'choose a time zone',
    });
    // The same digest twice.
    const dup = await errorsOf({ alias: 'tea', channel: 'CHOMEDG01', time: at, zone: 'Asia/Tokyo' });
    expect(dup.channel).toMatch(/already exists: #\d+/);

    expect((await h().platdesk.store.digests.list()).slice(count)).toEqual([]);
    expect(h().fake.callsTo('views.publish')).toHaveLength(published);
  });

  it('a non-admin submit is refused and adds nothing', async () => {
    const count = (await h().platdesk.store.digests.list()).length;
    const errors = await errorsOf(
      { owner: owners.busy, channel: 'CHOMEDG04', time: farTime(h().now()), zone: 'UTC' },
      SLACK.userId,
    );
    expect(Object.values(errors).join(' ')).toContain('Only platdesk admins');
    expect(await h().platdesk.store.digests.list()).toHaveLength(count);
    expect(
      (await h().platdesk.store.audit.list(10, { action: 'digest.add' })).map((a) => a.actorId),
    ).not.toContain(SLACK.userId);
  });

  it('the scheduler plans a digest added from the Home at once: due in 1.5 s, it is posted', async () => {
    // Harness time 1.5 s before a minute boundary; the digest is due at that minute (UTC). The
    // scheduler's own timer sleeps up to 60 s between looks, so a post within seconds shows that
    // the add had it plan again.
    const now = h().now().getTime();
    let due = Math.ceil((now + 1) / 60_000) * 60_000;
    if (due - now < 1500) due += 60_000;
    h().advance(due - 1500 - now);
    const time = new Date(due).toISOString().slice(11, 16);
    const res = await submit({ alias: 'tea', channel: 'CHOMEDG05', time, zone: 'UTC' });
    expectAdded(res.body);
    h().advance(3000);
    const post = await h().fake.waitFor('chat.postMessage', (c) => c.body.channel === 'CHOMEDG05', 8000);
    expect(textOf(post.body)).toContain('Orders digest of tea');
    expect(h().sandbox.stats().callsByOperation['paging-orders']).toBeGreaterThan(0);
  });

  it('the Home, the form and every message fit Slack limits', async () => {
    h().assertAllWithinLimits();
    for (const call of h().fake.callsTo('views.publish'))
      assertWithinSlackLimits((call.body.view as { blocks: unknown[] }).blocks, 'home');
  });

  it("the form sets the channel's language with the digest (else the channel keeps the workspace default)", async () => {
    const at = farTime(h().now());
    const before = h().fake.callsTo('views.publish').length;
    const res = await submit({
      alias: 'tea',
      channel: 'CHOMELANG',
      time: at,
      zone: 'Asia/Shanghai',
      language: 'zh-CN',
    });
    expectAdded(res.body);
    await waitPublish(before);
    const locales = createLocaleSettings(h().platdesk.store.settings);
    // The publish waited for may be an earlier test's late one (a loaded machine): the setting is read until written.
    await expect.poll(() => locales.channel('CHOMELANG'), { timeout: 5000 }).toBe('zh-CN');
    const again = h().fake.callsTo('views.publish').length;
    await submit({ alias: 'tea', channel: 'CHOMEDEF', time: at, zone: 'Asia/Shanghai', language: 'default' });
    await waitPublish(again);
    expect(await locales.channel('CHOMEDEF')).toBeNull();
    for (const d of await h().platdesk.store.digests.list())
      await h().platdesk.store.digests.remove(d.id, SLACK.adminId);
  });
});
