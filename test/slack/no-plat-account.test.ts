/**
 * Issue 24: a workspace installed through OAuth with no plat account of its own and no operator
 * default (distributed mode, PLAT_BASE_URL unset), on both engines, through the real Bolt app.
 * Its admin's App Home opens on "First step: connect a plat account" with the button and the
 * Connect form works; a member's Home says an admin must connect one; /item is answered
 * "this workspace has no plat account yet" in en and zh-CN with no Confirm, no plat call and no
 * ledger row (the sandbox the account is later connected to counts 0 calls); a message shortcut
 * answers the same with no modal, a link unfurl says it with no Look up button, the Work Object
 * panel says why and offers no paid action, a workflow step
 * fails with that reason, a digest run fails with no_plat_account and no call; once the admin connects an account the very next /item is confirmed and
 * answered from it, with no restart.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { PLAT_ACCOUNT_FORM } from '../../src/blocks/plat-account.js';
import { SHORTCUT_IDS } from '../../src/blocks/shortcut.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { postAction, postEvent } from '../helpers/slack-http.js';
import {
  distributedModeEnv,
  installFakeOAuth,
  installThroughOAuth,
  openConnectForm,
  platAccountValues,
} from '../helpers/slack-oauth.js';
import {
  appHomeOpened,
  entityDetailsRequested,
  eventCallback,
  functionExecuted,
  linkShared,
  messageShortcut,
  SLACK,
  userContext,
} from '../helpers/slack-payloads.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const SIGNING_SECRET = 'test-secret';
const itemId = SANDBOX_FIXTURES.items.basic;
const range = { from: new Date(0), to: new Date(Date.now() + 86_400_000) };
const MEMBER_ZH = 'UZHMEMBER';

describe.each(ENGINES)('a workspace with no plat account on %s', (engine) => {
  let h: PlatdeskHarness | undefined;
  let plat: Sandbox | undefined;
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await h?.close();
    await plat?.close();
    await db?.dispose();
  });

  it('reaches its Home and Connect form; every lookup is refused for free until an admin connects one', async () => {
    db = await testDatabase(engine);
    const app = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      env: {
        ...(db.options.url ? { DATABASE_URL: db.options.url } : { DATABASE_PATH: db.options.path ?? '' }),
        ...distributedModeEnv(),
      },
      // No operator default account.
      plat: 'none',
    });
    h = app;
    plat = createSandbox({ token: 'plat-own' });
    const platUrl = await plat.listen(0);
    const oauth = installFakeOAuth(app.fake);
    const installed = await installThroughOAuth(app.platdesk.url, oauth, {
      teamId: SLACK.teamId,
      installerUserId: SLACK.adminId,
    });
    expect(installed.status).toBe(200);
    const store = app.platdesk.store.forTenant(SLACK.teamId);

    const home = async (userId: string) => {
      const before = app.fake.callsTo('views.publish').length;
      const res = await postEvent(
        app.eventsUrl,
        SIGNING_SECRET,
        eventCallback(appHomeOpened(userId), { eventId: `Ev${randomBytes(4).toString('hex')}` }),
      );
      expect(res.status).toBe(200);
      const call = await app.fake.waitFor(
        'views.publish',
        (c) => c.body.user_id === userId && app.fake.callsTo('views.publish').length > before,
      );
      return call.body.view as { blocks: { type: string; text?: { text: string } }[] };
    };

    // The admin's Home opens on the first step, with the button.
    const adminHome = await home(SLACK.adminId);
    expect(adminHome.blocks[0]?.type).toBe('header');
    expect(adminHome.blocks[0]?.text?.text).toBe('First step: connect a plat account');
    expect(textOf(adminHome)).toContain('Connect plat account');
    // A member is told an admin must connect one, and gets no button.
    const memberHome = textOf(await home(SLACK.userId));
    expect(memberHome).toContain('This workspace has no plat account yet');
    expect(memberHome).not.toContain('Connect plat account');
    app.fake.setLocale(MEMBER_ZH, 'zh-CN');
    expect(textOf(await home(MEMBER_ZH))).toContain('此工作区还没有 plat 账户');

    // Every command answers "no plat account yet", in the person's language, with no Confirm.
    const refusedWith = async (name: string, text: string, userId: string) => {
      const sent = await app.command(name, text, { userId });
      expect(sent.status).toBe(200);
      const answer = await app.nextResponse(sent.responseUrlId);
      expect(JSON.stringify(answer)).not.toContain('platdesk.confirm');
      return textOf(answer);
    };
    expect(await refusedWith('/item', itemId, SLACK.userId)).toContain(
      'This workspace has no plat account yet — an admin connects one on the App Home',
    );
    expect(await refusedWith('/shop', 'ww shopkeeper1', SLACK.adminId)).toContain(
      'This workspace has no plat account yet',
    );
    expect(await refusedWith('/orders', `${SANDBOX_FIXTURES.owners.busy}`, SLACK.adminId)).toContain(
      'This workspace has no plat account yet',
    );
    expect(await refusedWith('/item', itemId, MEMBER_ZH)).toContain('此工作区还没有 plat 账户');

    // A message shortcut: the same answer, no modal with a Confirm.
    const shortcut = await postAction(
      app.eventsUrl,
      SIGNING_SECRET,
      messageShortcut({
        callbackId: SHORTCUT_IDS.items,
        message: { text: `look at ${itemId}` },
        responseUrl: app.fake.responseUrl('sc-1'),
      }),
    );
    expect(shortcut.status).toBe(200);
    expect(textOf(await app.nextResponse('sc-1'))).toContain('This workspace has no plat account yet');
    expect(app.fake.callsTo('views.open')).toEqual([]);

    // A link unfurl: what the link is, the sentence, and no Look up button.
    const url = `https://item.taobao.com/item.htm?id=${itemId}`;
    const shared = await postEvent(
      app.eventsUrl,
      SIGNING_SECRET,
      eventCallback(linkShared({ links: [{ url, domain: 'item.taobao.com' }] }), { eventId: 'EvLINK1' }),
    );
    expect(shared.status).toBe(200);
    const unfurl = await app.fake.waitFor('chat.unfurl');
    expect(textOf(unfurl.body.unfurls)).toContain('This workspace has no plat account yet');
    expect(JSON.stringify(unfurl.body.unfurls)).not.toContain(ACTIONS.unfurlLookup);

    // The Work Object panel: it says why and offers no paid action (no button, nothing to click).
    const panelTrigger = app.fake.entityTrigger(itemId);
    const panelOpened = await postEvent(
      app.eventsUrl,
      SIGNING_SECRET,
      eventCallback(
        entityDetailsRequested({
          entityUrl: url,
          appUnfurlUrl: url,
          externalId: itemId,
          triggerId: panelTrigger,
        }),
        { eventId: 'EvENTITY1' },
      ),
    );
    expect(panelOpened.status).toBe(200);
    await app.fake.waitFor('entity.presentDetails', (c) => c.body.trigger_id === panelTrigger, 5000);
    const panel = app.fake.presentedDetails().find((p) => p.triggerId === panelTrigger)?.metadata as
      | { entity_payload: { actions?: unknown } }
      | undefined;
    expect(panel?.entity_payload.actions).toBeUndefined();
    expect(JSON.stringify(panel)).toContain('This workspace has no plat account yet');
    expect(JSON.stringify(panel)).not.toContain(ACTIONS.entityLookup);

    // A workflow step fails with the reason, in the workspace's language.
    const step = await postEvent(
      app.eventsUrl,
      SIGNING_SECRET,
      eventCallback(
        functionExecuted({
          callbackId: 'orders_due',
          inputs: { shop: SANDBOX_FIXTURES.owners.dueSoon, hours_ahead: 24, ...userContext(SLACK.userId) },
          executionId: 'Fx0001',
        }),
        { eventId: 'EvFx0001' },
      ),
    );
    expect(step.status).toBe(200);
    const failed = await app.fake.waitFor('functions.completeError');
    expect(String(failed.body.error)).toContain('This workspace has no plat account yet');
    expect(app.fake.callsTo('functions.completeSuccess')).toEqual([]);

    // A digest run sends no call; its channel gets the one failure notice, saying why.
    const added = await app.command(
      '/orders',
      `digest add ${SANDBOX_FIXTURES.owners.busy} <#C1234|support> 23:00 single`,
      { userId: SLACK.adminId },
    );
    await app.nextResponse(added.responseUrlId);
    const [sub] = await store.digests.list();
    if (!sub) throw new Error('no digest subscription');
    const parts = await app.platdesk.tenants.forTenant(SLACK.teamId);
    const run = await parts.deps.digests?.scheduler.runNow(sub.id, SLACK.adminId);
    expect(run?.kind).toBe('failed');
    const runId = run && 'run' in run && run.run ? run.run.id : 0;
    expect((await store.digests.run(runId))?.lastError).toMatch(/^no_plat_account/);

    // Nothing sent, nothing charged.
    expect(plat.stats().calls).toBe(0);
    expect(app.sandbox.stats().calls).toBe(0);
    expect(await store.ledger.list(range)).toEqual([]);

    // The Connect form opens and stores the account; the very next lookup is confirmed and answered.
    await openConnectForm(app);
    const saved = await app.submitView({
      callbackId: PLAT_ACCOUNT_FORM.callbackId,
      userId: SLACK.adminId,
      values: platAccountValues(platUrl, 'plat-own'),
    });
    expect(saved.status).toBe(200);
    await expect
      .poll(() => store.platAccounts.get(SLACK.teamId).then((a) => a?.token ?? null))
      .toBe('plat-own');
    const asked = await app.ask('/item', itemId, { userId: SLACK.userId });
    const { answer } = await app.confirm(asked.confirmation, { userId: SLACK.userId });
    expect(textOf(answer)).toContain(itemId);
    expect(plat.stats().callsByToken['plat-own']).toBeGreaterThan(0);
    expect((await store.ledger.list(range)).length).toBeGreaterThan(0);
    // The admin's Home no longer leads with the first step. (The publish the Home waits for may
    // be a late one of an earlier open, on a loaded machine: opened again until it is not.)
    await expect
      .poll(async () => (await home(SLACK.adminId)).blocks[0]?.text?.text, { timeout: 8000, interval: 200 })
      .not.toBe('First step: connect a plat account');
  });
});
