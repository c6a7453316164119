/**
 * Issue 34 H4 / point 2: the installer becomes an admin only when the workspace has none (its
 * first install, or after its data was erased); a reinstall by anyone else changes no admin, and
 * the existing admins are told by direct message. On 5ce7905 every OAuth callback added its
 * installer to the admins: any member who reinstalled platdesk made themselves one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../src/lookups/settings.js';
import { eraseDueTenants } from '../../src/lookups/tenancy.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { distributedModeEnv, installFakeOAuth, installThroughOAuth } from '../helpers/slack-oauth.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const SIGNING_SECRET = 'test-secret';
const TEAM = 'T0H4';

describe.each(ENGINES)('H4: admins and reinstalls on %s', (engine) => {
  let h: PlatdeskHarness | undefined;
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await h?.close();
    await db?.dispose();
  });

  it('a reinstall by someone else changes no admin and tells the admins; after an erasure the installer is the first admin again', async () => {
    db = await testDatabase(engine);
    const app = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      env: {
        ...distributedModeEnv(),
        ...(db.options.url ? { DATABASE_URL: db.options.url } : { DATABASE_PATH: db.options.path ?? '' }),
      },
    });
    h = app;
    const oauth = installFakeOAuth(app.fake);
    const settings = app.platdesk.store.forTenant(TEAM).settings;
    const admins = () => settings.get<string[]>(SETTING_KEYS.admins);
    const dmsTo = (user: string) =>
      app.fake.callsTo('chat.postMessage').filter((c) => c.body.channel === user);

    await installThroughOAuth(app.platdesk.url, oauth, { teamId: TEAM, installerUserId: 'UFIRST' });
    expect(await admins()).toEqual(['UFIRST']);

    // A member reinstalls (to add a scope, or to make themselves admin): no admin changes.
    const again = await installThroughOAuth(app.platdesk.url, oauth, {
      teamId: TEAM,
      installerUserId: 'UMEMBER',
    });
    expect(again.status).toBe(200);
    expect(await admins()).toEqual(['UFIRST']);
    const told = await app.fake.waitFor('chat.postMessage', (c) => c.body.channel === 'UFIRST', 5000);
    expect(textOf(told.body)).toContain('<@UMEMBER> installed platdesk again in this workspace');
    expect(textOf(told.body)).toContain('No admin was added');
    expect(dmsTo('UMEMBER')).toEqual([]);

    // The admin reinstalling: nothing to tell.
    const before = dmsTo('UFIRST').length;
    await installThroughOAuth(app.platdesk.url, oauth, { teamId: TEAM, installerUserId: 'UFIRST' });
    await new Promise((r) => setTimeout(r, 300));
    expect(dmsTo('UFIRST').length).toBe(before);

    // Uninstalled and erased: the next installer starts the workspace anew, as its first admin.
    await app.platdesk.store.installations.uninstall(TEAM, {
      reason: 'app_uninstalled',
      eraseAfter: new Date(0),
    });
    expect(await eraseDueTenants({ store: app.platdesk.store, now: () => new Date() })).toEqual([TEAM]);
    await installThroughOAuth(app.platdesk.url, oauth, { teamId: TEAM, installerUserId: 'UNEXT' });
    expect(await admins()).toEqual(['UNEXT']);
  });
});
