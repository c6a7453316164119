/**
 * Ship-by alerts on the App Home (issue 15) through the real Bolt app: admins see each alert with
 * what it spent today, add one with a form checked by the `/orders alert add` grammar, and remove
 * one; others can neither open the form nor remove.
 */
import type { ViewStateValue } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { assertWithinSlackLimits } from '../helpers/block-limits.js';
import { createFakeClock } from '../helpers/fake-clock.js';
import { buttonOf, buttonsOf, SIGNING_SECRET, textOf, useHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';

const ADD = 'platdesk.home.alert_add';
const FORM = 'platdesk.home.alert.form';
type Json = Record<string, unknown>;
type Values = Record<string, Record<string, ViewStateValue>>;

/** view.state.values as Slack sends them: each input's action_id is `alert.<block>` (blocks/home-alert-form.ts). */
function formValues(input: Record<string, string>, channel: string | null): Values {
  const values: Values = {};
  const put = (block: string, value: Json) => {
    values[block] = { [`alert.${block}`]: value as unknown as ViewStateValue };
  };
  for (const [block, value] of Object.entries(input)) put(block, { type: 'plain_text_input', value });
  if (channel !== null) put('channel', { type: 'conversations_select', selected_conversation: channel });
  put('zone', { type: 'static_select', selected_option: { value: 'Asia/Shanghai' } });
  return values;
}

describe('App Home: ship-by alerts', () => {
  let seq = 0;
  const clock = createFakeClock(Date.now());
  const h = useHarness({ clock });

  async function openHome(userId: string): Promise<Json[]> {
    const before = h().fake.callsTo('views.publish').length;
    await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(userId), { eventId: `EvHOMEALERT${++seq}` }),
    );
    return waitPublish(before);
  }
  /** The n-th refusal sent to `userId` by direct message (a click in the Home has no response_url). */
  async function refusedByDm(userId: string, n: number): Promise<void> {
    const refusals = () =>
      h()
        .fake.callsTo('chat.postMessage')
        .filter((c) => c.body.channel === userId && textOf(c.body).includes('Only platdesk admins'));
    await h().fake.waitFor('chat.postMessage', () => refusals().length >= n, 5000);
    expect(refusals()).toHaveLength(n);
  }
  async function waitPublish(before: number): Promise<Json[]> {
    await h().fake.waitFor('views.publish', () => h().fake.callsTo('views.publish').length > before, 5000);
    const call = h().fake.callsTo('views.publish')[before] as SlackCall;
    return (call.body.view as { blocks: Json[] }).blocks;
  }

  it('the form (admins only) is checked by the command grammar; a valid one adds the alert; the Home shows its spend today; Remove', async () => {
    const user = await openHome(SLACK.userId);
    expect(buttonsOf({ blocks: user }).map((b) => b.actionId)).not.toContain(ADD);
    const admin = await openHome(SLACK.adminId);
    expect(buttonOf({ blocks: admin }, ADD).label).toBe('Add alert');
    expect(textOf({ blocks: admin })).toContain('Ship-by alerts* (0)');

    const opened = h().fake.callsTo('views.open').length;
    await h().clickInView(ADD, 'add', { surface: 'home', userId: SLACK.adminId });
    const view = (await h().fake.waitFor('views.open', () => h().fake.callsTo('views.open').length > opened))
      .body.view as Json & { blocks: Json[] };
    expect(view.callback_id).toBe(FORM);
    const initial = (block: string) =>
      (view.blocks.find((b) => b.block_id === block)?.element as Json | undefined)?.initial_value;
    expect([initial('within'), initial('every'), initial('hours')]).toEqual(['6', '60', '09:00-21:00']);
    await h().clickInView(ADD, 'add', { surface: 'home', userId: SLACK.userId });
    await refusedByDm(SLACK.userId, 1);

    // Bad answers: errors on their fields, nothing stored, nothing charged.
    const bad = await h().submitView({
      callbackId: FORM,
      userId: SLACK.adminId,
      values: formValues(
        { shop: SANDBOX_FIXTURES.owners.dueSoon, within: '0', every: '5', hours: '21-9', cap: 'x' },
        'CHOMEAL01',
      ),
    });
    const errors = (JSON.parse(bad.body) as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors).sort()).toEqual(['cap', 'every', 'hours', 'within']);
    expect(errors.within).toContain('from 1 to 72');
    expect(await h().platdesk.store.alerts.list()).toHaveLength(0);

    const before = h().fake.callsTo('views.publish').length;
    const ok = await h().submitView({
      callbackId: FORM,
      userId: SLACK.adminId,
      values: formValues(
        { shop: SANDBOX_FIXTURES.owners.dueSoon, within: '6', every: '60', hours: '00:00-23:59', cap: '' },
        'CHOMEAL01',
      ),
    });
    expect(ok.body).toBe('');
    await waitPublish(before);
    expect(await h().platdesk.store.alerts.list()).toMatchObject([
      {
        ownerId: SANDBOX_FIXTURES.owners.dueSoon,
        channelId: 'CHOMEAL01',
        withinHours: 6,
        createdBy: SLACK.adminId,
      },
    ]);
    // Its first check runs at once: the Home then shows what it spent today.
    await clock.advanceAsync(1000);
    await h().fake.waitFor('chat.postMessage', (c) => c.body.channel === 'CHOMEAL01');
    await h().settle(50);
    const spent = await h().platdesk.store.alerts.spentOn(
      1,
      new Date(clock.now() + 8 * 3_600_000).toISOString().slice(0, 10),
    );
    expect(spent).toBeGreaterThan(0);
    const home = await openHome(SLACK.adminId);
    const text = textOf({ blocks: home });
    expect(text).toContain('Ship-by alerts* (1)');
    expect(text).toContain(`#1 ${SANDBOX_FIXTURES.owners.dueSoon} → <#CHOMEAL01> · due within 6 h`);
    expect(text).toContain(`spent today ${spent} points`);
    assertWithinSlackLimits(home, 'home');

    // Remove: others are refused; an admin's click removes it.
    const remove = buttonOf({ blocks: home }, 'platdesk.home.alert_remove.1');
    await h().clickInView(remove.actionId, remove.value, { surface: 'home', userId: SLACK.userId });
    await refusedByDm(SLACK.userId, 2);
    expect(await h().platdesk.store.alerts.list()).toHaveLength(1);
    const again = h().fake.callsTo('views.publish').length;
    await h().clickInView(remove.actionId, remove.value, { surface: 'home', userId: SLACK.adminId });
    // The member's refused click publishes their Home again too: wait for the admin's.
    const published = await h().fake.waitFor(
      'views.publish',
      (c) => c.body.user_id === SLACK.adminId && h().fake.callsTo('views.publish').indexOf(c) >= again,
      5000,
    );
    expect(textOf(published.body.view)).toContain('Ship-by alerts* (0)');
    expect(await h().platdesk.store.alerts.list()).toHaveLength(0);
  });
});
