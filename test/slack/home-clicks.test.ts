/**
 * Every App Home button, clicked by a member and by an admin, through the real Bolt app with the
 * payload Slack sends for a click in a view: the view and its container, no channel and no
 * response_url (issue 20 point 5). The Home is the one the app publishes, with a digest and a
 * ship-by alert listed, so every kind of button is on it. A member is refused every admin button
 * privately (a direct message, in their language) and nothing changes; an admin's click does
 * what the button says; nothing answers at a response_url and nothing crashes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { HOME_FORMS } from '../../src/blocks/home.js';
import { HOME_ALERT_FORM } from '../../src/blocks/home-alert-form.js';
import { HOME_DIGEST_FORM } from '../../src/blocks/home-digest-form.js';
import { wordsFor } from '../../src/blocks/i18n/words.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { makeNewAlertSubscription } from '../helpers/domain-factories.js';
import { createFakeClock } from '../helpers/fake-clock.js';
import {
  type ButtonInfo,
  buttonsOf,
  SIGNING_SECRET,
  textOf,
  useHarness,
} from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';

type Json = Record<string, unknown>;
const MEMBER = SLACK.userId;
const ADMIN = SLACK.adminId;
const ZH_MEMBER = SLACK.secondUserId;

/** The form each admin button opens. */
const OPENS: Record<string, string> = {
  'platdesk.home.access': HOME_FORMS.access.callbackId,
  'platdesk.home.autolookup': HOME_FORMS.autoLookup.callbackId,
  'platdesk.home.prices': HOME_FORMS.prices.callbackId,
  'platdesk.home.digest_add': HOME_DIGEST_FORM.callbackId,
  'platdesk.home.alert_add': HOME_ALERT_FORM.callbackId,
};

describe('every App Home button, clicked in the Home', () => {
  let seq = 0;
  // The schedulers' clock stands still: the digest and the alert listed here never run.
  const h = useHarness({ clock: createFakeClock(Date.now()) });
  let digestId = 0;
  let alertId = 0;

  beforeAll(async () => {
    const { store } = h().platdesk;
    digestId = (
      await store.digests.add({
        ownerId: SANDBOX_FIXTURES.owners.small,
        shopLabel: 'tea',
        channelId: 'CHOMECL01',
        localTime: '09:00',
        timeZone: 'Asia/Shanghai',
        createdBy: ADMIN,
      })
    ).id;
    alertId = (await store.alerts.add(makeNewAlertSubscription({ channelId: 'CHOMECL02' }))).id;
  });

  const publishes = () => h().fake.callsTo('views.publish');
  /**
   * The first Home published for the user since `from` that `shows` (any, by default). An admin's
   * Home is published again once its spend chart is uploaded, so the chart's publish for an
   * earlier click may land after `from`: a check of what a click did names what it shows.
   */
  async function publishedFor(
    userId: string,
    from: number,
    shows: (view: Json) => boolean = () => true,
  ): Promise<SlackCall> {
    return h().fake.waitFor(
      'views.publish',
      (c) => c.body.user_id === userId && publishes().indexOf(c) >= from && shows(c.body.view as Json),
      5000,
    );
  }
  async function openHome(userId: string): Promise<ButtonInfo[]> {
    const from = publishes().length;
    await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(userId), { eventId: `EvHOMECLICK${++seq}` }),
    );
    return buttonsOf((await publishedFor(userId, from)).body.view as Json);
  }
  async function clickInHome(button: ButtonInfo, userId: string): Promise<void> {
    const res = await h().clickInView(button.actionId, button.value, { surface: 'home', userId });
    expect(res.status, button.actionId).toBe(200);
  }
  const dmsTo = (userId: string) =>
    h()
      .fake.callsTo('chat.postMessage')
      .filter((c) => c.body.channel === userId);
  const errorLogs = () =>
    h()
      .logs()
      .filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

  let adminButtons: ButtonInfo[] = [];
  let memberButtons: ButtonInfo[] = [];

  it('the Homes hold every kind of button: admins see their controls, members only theirs', async () => {
    adminButtons = await openHome(ADMIN);
    memberButtons = await openHome(MEMBER);
    const ids = adminButtons.map((b) => b.actionId);
    expect(ids).toEqual(
      expect.arrayContaining([
        ...Object.keys(OPENS),
        `platdesk.home.digest_remove.${digestId}`,
        `platdesk.home.alert_remove.${alertId}`,
        'platdesk.home.language.en',
        'platdesk.home.language.zh-CN',
        'platdesk.home.language.auto',
      ]),
    );
    // Everyone's: the language and "Connect an AI client" (test/slack/home-mcp.test.ts clicks it).
    expect(memberButtons.map((b) => b.actionId).sort()).toEqual([
      'platdesk.home.language.auto',
      'platdesk.home.language.en',
      'platdesk.home.language.zh-CN',
      'platdesk.home.mcp_connect',
    ]);
  });

  it('a member clicking any admin button is told privately that only admins can, and nothing changes', async () => {
    const memberIds = new Set(memberButtons.map((b) => b.actionId));
    const adminOnly = adminButtons.filter((b) => !memberIds.has(b.actionId));
    expect(adminOnly.length).toBeGreaterThanOrEqual(7);
    const responseUrls = h().fake.callsTo('response_url').length;
    const opened = h().fake.callsTo('views.open').length;
    for (const button of adminOnly) {
      const dms = dmsTo(MEMBER).length;
      const from = publishes().length;
      await clickInHome(button, MEMBER);
      const dm = await h().fake.waitFor('chat.postMessage', () => dmsTo(MEMBER).length > dms, 5000);
      expect(textOf(dm.body), button.actionId).toContain('Only platdesk admins can use this button');
      expect(textOf(dm.body)).toContain('Nothing was changed');
      expect(textOf(dm.body)).toContain(`<@${ADMIN}>`);
      // Their Home is published again (without the admin controls).
      const again = buttonsOf((await publishedFor(MEMBER, from)).body.view as Json).map((b) => b.actionId);
      expect(again.filter((id) => !memberIds.has(id))).toEqual([]);
    }
    expect(h().fake.callsTo('views.open')).toHaveLength(opened);
    expect(h().fake.callsTo('response_url')).toHaveLength(responseUrls);
    expect((await h().platdesk.store.digests.list()).map((d) => d.id)).toEqual([digestId]);
    expect((await h().platdesk.store.alerts.list()).map((a) => a.id)).toEqual([alertId]);
    expect(errorLogs()).toEqual([]);
  });

  it('a member in Chinese: their language button works, and the refusal is in Chinese', async () => {
    const zh = memberButtons.find((b) => b.actionId === 'platdesk.home.language.zh-CN') as ButtonInfo;
    const from = publishes().length;
    await clickInHome(zh, ZH_MEMBER);
    const home = await publishedFor(ZH_MEMBER, from);
    expect(textOf(home.body.view)).toContain(wordsFor('zh-CN').t('home.yourSpend'));

    const dms = dmsTo(ZH_MEMBER).length;
    const refusedFrom = publishes().length;
    await clickInHome(
      adminButtons.find((b) => b.actionId === 'platdesk.home.alert_add') as ButtonInfo,
      ZH_MEMBER,
    );
    const dm = await h().fake.waitFor('chat.postMessage', () => dmsTo(ZH_MEMBER).length > dms, 5000);
    expect(textOf(dm.body)).toContain('只有 platdesk 管理员可以使用这个按钮');
    await publishedFor(ZH_MEMBER, refusedFrom);

    const auto = memberButtons.find((b) => b.actionId === 'platdesk.home.language.auto') as ButtonInfo;
    const back = publishes().length;
    await clickInHome(auto, ZH_MEMBER);
    expect(textOf((await publishedFor(ZH_MEMBER, back)).body.view)).toContain('Your spend');
  });

  it("an admin's click on every Home button does what it says", async () => {
    const responseUrls = h().fake.callsTo('response_url').length;
    // Removals last: the other buttons are clicked on the Home that lists both.
    const ordered = [...adminButtons].sort(
      (a, b) => Number(a.actionId.includes('_remove')) - Number(b.actionId.includes('_remove')),
    );
    for (const button of ordered) {
      const id = button.actionId;
      const from = publishes().length;
      const opened = h().fake.callsTo('views.open').length;
      await clickInHome(button, ADMIN);
      if (OPENS[id]) {
        const open = await h().fake.waitFor(
          'views.open',
          () => h().fake.callsTo('views.open').length > opened,
          5000,
        );
        expect(open.body.trigger_id, id).toBe(SLACK.triggerId);
        expect((open.body.view as Json).callback_id, id).toBe(OPENS[id]);
      } else if (id === 'platdesk.home.mcp_connect') {
        // A modal with a new token (test/slack/home-mcp.test.ts says all it must hold).
        const open = await h().fake.waitFor(
          'views.open',
          () => h().fake.callsTo('views.open').length > opened,
          5000,
        );
        expect(textOf(open.body.view), id).toMatch(/pdmcp_/);
      } else if (id.startsWith('platdesk.home.language.')) {
        const expected = id.endsWith('zh-CN') ? wordsFor('zh-CN') : wordsFor('en');
        // Fails after 5 s if no Home in the chosen language comes.
        const home = await publishedFor(ADMIN, from, (view) =>
          textOf(view).includes(expected.t('home.yourSpend')),
        );
        expect(textOf(home.body.view), id).toContain(expected.t('home.yourSpend'));
      } else if (id === `platdesk.home.digest_remove.${digestId}`) {
        await publishedFor(ADMIN, from, (view) => !buttonsOf(view).some((b) => b.actionId === id));
        expect(await h().platdesk.store.digests.list()).toEqual([]);
      } else if (id === `platdesk.home.alert_remove.${alertId}`) {
        await publishedFor(ADMIN, from, (view) => !buttonsOf(view).some((b) => b.actionId === id));
        expect(await h().platdesk.store.alerts.list()).toEqual([]);
      } else throw new Error(`a Home button this test does not know: ${id}`);
    }
    expect(h().fake.callsTo('response_url')).toHaveLength(responseUrls);
    // No refusal went to the admin, and nothing crashed ("respond is not a function" and the like).
    expect(dmsTo(ADMIN).map((c) => textOf(c.body))).not.toContainEqual(
      expect.stringContaining('Only platdesk admins'),
    );
    expect(errorLogs()).toEqual([]);
  });
});
