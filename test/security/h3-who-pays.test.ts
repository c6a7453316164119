/**
 * Issue 34 H3 / point 1: who may install, and whose account pays. On 5ce7905 any workspace that
 * installed platdesk (public distribution: anyone) spent from the operator's default plat account,
 * and any workspace could install.
 *
 * - PLATDESK_DEFAULT_ACCOUNT_FOR names the workspaces and orgs (or `*`) the operator's account
 *   serves, as the start log says; any other workspace's paid paths (commands, shortcuts, unfurls,
 *   workflow steps, digests, ship-by alerts) answer with how to connect an account and charge nothing, while a
 *   named workspace (or a workspace of a named org) is served as before.
 * - PLATDESK_INSTALL_ALLOW refuses other installs on the install page, stores nothing, logs the
 *   ids, and uninstalls the refused app in Slack again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { SHORTCUT_IDS } from '../../src/blocks/shortcut.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { postAction, postEvent } from '../helpers/slack-http.js';
import {
  distributedModeEnv,
  type FakeOAuth,
  installFakeOAuth,
  installThroughOAuth,
} from '../helpers/slack-oauth.js';
import {
  eventCallback,
  functionExecuted,
  linkShared,
  messageShortcut,
  SLACK,
} from '../helpers/slack-payloads.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const SIGNING_SECRET = 'test-secret';
const { items, owners } = SANDBOX_FIXTURES;
const NO_ACCOUNT = 'This workspace has no plat account yet — an admin connects one on the App Home';

const dbEnv = (db: TestDatabase) =>
  db.options.url ? { DATABASE_URL: db.options.url } : { DATABASE_PATH: db.options.path ?? '' };
const logLines = (h: PlatdeskHarness) => h.logs().map((l) => JSON.parse(l) as Record<string, unknown>);

describe.each(ENGINES)('H3: the operator’s plat account on %s', (engine) => {
  let h: PlatdeskHarness | undefined;
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await h?.close();
    await db?.dispose();
    h = undefined;
  });

  async function start(defaultFor: string): Promise<{ app: PlatdeskHarness; oauth: FakeOAuth }> {
    db = await testDatabase(engine);
    const { PLATDESK_DEFAULT_ACCOUNT_FOR: _, ...env } = distributedModeEnv();
    const app = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      logLevel: 'info',
      env: { ...env, ...dbEnv(db), PLATDESK_DEFAULT_ACCOUNT_FOR: defaultFor },
    });
    h = app;
    return { app, oauth: installFakeOAuth(app.fake) };
  }

  it('serves only the workspaces and orgs it names: every paid path of another answers how to connect, and charges nothing', async () => {
    const { app, oauth } = await start('T0001, E0009');
    for (const spec of [
      { teamId: SLACK.teamId, installerUserId: SLACK.adminId },
      { teamId: 'T0001', installerUserId: 'UINST1' },
      { teamId: 'T0005', enterpriseId: 'E0009', installerUserId: 'UINST5' },
    ])
      expect((await installThroughOAuth(app.platdesk.url, oauth, spec)).status).toBe(200);

    // SLACK.teamId is not named: a command, a shortcut, an unfurl, a step, a digest.
    const refused = async (name: string, text: string, userId: string = SLACK.userId) => {
      const sent = await app.command(name, text, { userId });
      const answer = await app.nextResponse(sent.responseUrlId);
      expect(JSON.stringify(answer)).not.toContain('platdesk.confirm');
      return textOf(answer);
    };
    expect(await refused('/item', items.basic)).toContain(NO_ACCOUNT);
    expect(await refused('/orders', owners.busy, SLACK.adminId)).toContain(NO_ACCOUNT);
    await postAction(
      app.eventsUrl,
      SIGNING_SECRET,
      messageShortcut({
        callbackId: SHORTCUT_IDS.items,
        message: { text: `look at ${items.basic}` },
        responseUrl: app.fake.responseUrl('sc'),
      }),
    );
    expect(textOf(await app.nextResponse('sc'))).toContain(NO_ACCOUNT);
    const url = `https://item.taobao.com/item.htm?id=${items.basic}`;
    await postEvent(
      app.eventsUrl,
      SIGNING_SECRET,
      eventCallback(linkShared({ links: [{ url, domain: 'item.taobao.com' }] }), { eventId: 'EvH3LINK' }),
    );
    const unfurl = await app.fake.waitFor('chat.unfurl');
    expect(textOf(unfurl.body.unfurls)).toContain('This workspace has no plat account yet');
    expect(JSON.stringify(unfurl.body.unfurls)).not.toContain(ACTIONS.unfurlLookup);
    await postEvent(
      app.eventsUrl,
      SIGNING_SECRET,
      eventCallback(
        functionExecuted({ callbackId: 'orders_due', inputs: { shop: owners.dueSoon }, executionId: 'FxH3' }),
        { eventId: 'EvFxH3' },
      ),
    );
    expect(String((await app.fake.waitFor('functions.completeError')).body.error)).toContain(
      'This workspace has no plat account yet',
    );
    const added = await app.command('/orders', `digest add ${owners.busy} <#C1234|support> 23:00 single`, {
      userId: SLACK.adminId,
    });
    await app.nextResponse(added.responseUrlId);
    const store = app.platdesk.store.forTenant(SLACK.teamId);
    const [sub] = await store.digests.list();
    const parts = await app.platdesk.tenants.forTenant(SLACK.teamId);
    const run = await parts.deps.digests?.scheduler.runNow(sub?.id ?? 0, SLACK.adminId);
    expect(run?.kind).toBe('failed');
    // A ship-by alert: its check sends no call, and its channel's one notice says why.
    const alert = await app.command(
      '/orders',
      `alert add ${owners.dueSoon} <#C1234|support> within:6 hours:00:00-23:59`,
      { userId: SLACK.adminId },
    );
    expect(textOf(await app.nextResponse(alert.responseUrlId))).toContain('Ship-by alert #1 added');
    const notice = await app.fake.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === 'C1234' && /could not check the orders/.test(textOf(c.body)),
      15_000,
    );
    expect(textOf(notice.body)).toContain('no plat account');
    expect(app.sandbox.stats().calls).toBe(0);

    // A named workspace, and a workspace of a named org, spend from it as before.
    for (const [teamId, userId] of [
      ['T0001', 'UINST1'],
      ['T0005', 'UINST5'],
    ] as const) {
      const asked = await app.ask('/item', items.basic, { userId, teamId });
      const { answer } = await app.confirm(asked.confirmation, { userId, teamId });
      expect(textOf(answer)).toContain(items.basic);
    }
    expect(app.sandbox.stats().calls).toBe(2);
    const started = logLines(app).find(
      (l) => l.msg === 'the operator plat account serves these workspaces only',
    );
    expect(started).toMatchObject({ serves: ['T0001', 'E0009'] });
  });

  it('`*` serves every install, and the start log says so', async () => {
    const { app, oauth } = await start('*');
    expect(
      logLines(app).some((l) =>
        String(l.msg).startsWith('the operator plat account serves every installed workspace'),
      ),
    ).toBe(true);
    await installThroughOAuth(app.platdesk.url, oauth, {
      teamId: SLACK.teamId,
      installerUserId: SLACK.adminId,
    });
    const { answer } = await app.confirm((await app.ask('/item', items.basic)).confirmation);
    expect(textOf(answer)).toContain(items.basic);
  });
});

describe.each(ENGINES)('H3: PLATDESK_INSTALL_ALLOW on %s', (engine) => {
  let h: PlatdeskHarness | undefined;
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await h?.close();
    await db?.dispose();
  });

  it('refuses other installs on the install page, stores nothing, logs the ids, uninstalls the app again', async () => {
    db = await testDatabase(engine);
    h = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      env: { ...distributedModeEnv(), ...dbEnv(db), PLATDESK_INSTALL_ALLOW: 'T0001,E0009' },
    });
    const oauth = installFakeOAuth(h.fake);
    const refused = await installThroughOAuth(h.platdesk.url, oauth, {
      teamId: 'T0002',
      installerUserId: 'USTRANGER',
    });
    expect(refused.status).toBe(403);
    expect(refused.page).toContain('not open to this workspace');
    expect(refused.page).toContain('此工作区不能安装 platdesk');
    expect(await h.platdesk.store.installations.get('T0002')).toBeNull();
    expect(await h.platdesk.store.installations.tenants()).toEqual([]);
    expect(await h.platdesk.store.forTenant('T0002').settings.get('admins')).toBeNull();
    const warned = logLines(h).find((l) => l.msg === 'an install refused: not in PLATDESK_INSTALL_ALLOW');
    expect(warned).toMatchObject({ teamId: 'T0002', enterpriseId: null });
    const uninstall = await h.fake.waitFor('apps.uninstall');
    expect(oauth.tokenOf(uninstall)).toBe(oauth.currentToken('T0002'));

    // What it names installs: a workspace, and a workspace of a named org.
    expect(
      (await installThroughOAuth(h.platdesk.url, oauth, { teamId: 'T0001', installerUserId: 'U1' })).status,
    ).toBe(200);
    expect(
      (
        await installThroughOAuth(h.platdesk.url, oauth, {
          teamId: 'T0005',
          enterpriseId: 'E0009',
          installerUserId: 'U5',
        })
      ).status,
    ).toBe(200);
    expect(await h.platdesk.store.installations.tenants()).toEqual(['T0001', 'T0005']);
  });
});
