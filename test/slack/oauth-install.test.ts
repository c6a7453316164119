/**
 * Distributed mode end to end (issue 24, install half), on both engines: the real Bolt app in HTTP
 * mode installed through Slack's OAuth flow against the local Slack-compatible server (a workspace
 * install and an Enterprise Grid org-wide install), each request answered with its installation's
 * bot token; a bad state installs nothing; a forged team id gets nothing; a rotating token is
 * refreshed once; uninstall deletes the tokens at once and later events are ignored without an
 * error.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../src/lookups/settings.js';
import { type PlatdeskHarness, startPlatdeskHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import { type FakeOAuth, installFakeOAuth, installThroughOAuth } from '../helpers/slack-oauth.js';
import { appHomeOpened, eventCallback } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const SIGNING_SECRET = 'test-secret';
const STATE_SECRET = 'state-secret-for-tests-0123456789';

/** An Events API envelope from a workspace (or, with `orgWide`, from a workspace of an org-wide install). */
function envelopeFrom<E extends { type: string }>(
  event: E,
  from: { teamId: string; enterpriseId?: string; orgWide?: boolean },
  eventId = `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
) {
  const base = eventCallback(event, { eventId });
  return {
    ...base,
    team_id: from.teamId,
    context_team_id: from.teamId,
    ...(from.enterpriseId ? { enterprise_id: from.enterpriseId } : {}),
    ...(from.orgWide ? { is_enterprise_install: true } : {}),
    authorizations: [
      {
        enterprise_id: from.enterpriseId ?? null,
        team_id: from.orgWide ? null : from.teamId,
        user_id: 'UBOT',
        is_bot: true,
        is_enterprise_install: from.orgWide === true,
      },
    ],
  };
}

const errorLines = (h: PlatdeskHarness) =>
  h.logs().filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

describe.each(ENGINES)('OAuth install on %s', (engine) => {
  let h: PlatdeskHarness;
  let oauth: FakeOAuth;
  afterEach(async () => {
    await h?.close();
  });

  async function start(): Promise<void> {
    h = await startPlatdeskHarness({
      engine,
      signingSecret: SIGNING_SECRET,
      // Every line, so the test sees that no token or secret is ever logged.
      logLevel: 'debug',
      env: {
        SLACK_BOT_TOKEN: '',
        SLACK_CLIENT_ID: '1234.5678',
        SLACK_CLIENT_SECRET: 'client-secret-for-tests',
        SLACK_STATE_SECRET: STATE_SECRET,
        PLATDESK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        PLATDESK_ADMINS: '',
        PLATDESK_DEFAULT_ACCOUNT_FOR: '*',
      },
    });
    oauth = installFakeOAuth(h.fake, { now: () => h.now().getTime() });
  }

  const homeOpened = async (userId: string, from: Parameters<typeof envelopeFrom>[1]) => {
    const before = h.fake.callsTo('views.publish').length;
    const res = await postEvent(h.eventsUrl, SIGNING_SECRET, envelopeFrom(appHomeOpened(userId), from));
    expect(res.status).toBe(200);
    return before;
  };
  const nextPublish = async (before: number): Promise<SlackCall> => {
    await h.fake.waitFor('views.publish', () => h.fake.callsTo('views.publish').length > before, 5000);
    return h.fake.callsTo('views.publish')[before] as SlackCall;
  };
  /** An admin's Home is published again once its spend chart is uploaded: lets that land. */
  const chartPublished = (userId: string) =>
    h.fake.waitFor(
      'views.publish',
      (c) => c.body.user_id === userId && JSON.stringify(c.body.view).includes('slack_file'),
      20_000,
    );
  const quiet = () => new Promise((resolve) => setTimeout(resolve, 600));

  it('installs a workspace and an org-wide Grid org; each request is answered with its own bot token', async () => {
    await start();
    const ws = await installThroughOAuth(h.platdesk.url, oauth, {
      teamId: 'T0001',
      teamName: 'Shop <one> & co',
      installerUserId: 'UINST1',
    });
    expect(ws.status).toBe(200);
    expect(ws.page).toContain('platdesk is installed');
    expect(ws.page).toContain('platdesk 已安装');
    // Slack's text is escaped on the page.
    expect(ws.page).toContain('Shop &lt;one&gt; &amp; co');
    expect(ws.authorizeUrl.searchParams.get('client_id')).toBe('1234.5678');
    expect(ws.authorizeUrl.searchParams.get('scope')?.split(',')).toContain('commands');
    const org = await installThroughOAuth(h.platdesk.url, oauth, {
      enterpriseId: 'E0001',
      enterpriseName: 'Grid org',
      orgWide: true,
      installerUserId: 'UINST2',
    });
    expect(org.status).toBe(200);

    const installed = await h.platdesk.store.installations.get('T0001');
    expect(installed).toMatchObject({
      teamId: 'T0001',
      installerUserId: 'UINST1',
      isEnterpriseInstall: false,
    });
    expect(installed?.botToken).toBe(oauth.currentToken('T0001'));
    expect(await h.platdesk.store.installations.get('E0001')).toMatchObject({
      enterpriseId: 'E0001',
      teamId: null,
      isEnterpriseInstall: true,
    });
    // Each installer is an admin of its own tenant.
    expect(await h.platdesk.store.forTenant('T0001').settings.get<string[]>(SETTING_KEYS.admins)).toEqual([
      'UINST1',
    ]);
    expect(await h.platdesk.store.forTenant('E0001').settings.get<string[]>(SETTING_KEYS.admins)).toEqual([
      'UINST2',
    ]);

    const fromWorkspace = await nextPublish(await homeOpened('UINST1', { teamId: 'T0001' }));
    await chartPublished('UINST1');
    expect(oauth.tokenOf(fromWorkspace)).toBe(oauth.currentToken('T0001'));
    // A workspace of the org, never installed on its own: the org-wide install answers.
    const fromOrg = await nextPublish(
      await homeOpened('UORG1', { teamId: 'T0777', enterpriseId: 'E0001', orgWide: true }),
    );
    expect(oauth.tokenOf(fromOrg)).toBe(oauth.currentToken('E0001'));
    expect(oauth.tokenOf(fromOrg)).not.toBe(oauth.tokenOf(fromWorkspace));

    // A forged team id gets nothing, and it is not an error of platdesk's.
    const before = await homeOpened('UINST1', { teamId: 'T0404' });
    await quiet();
    expect(h.fake.callsTo('views.publish').length).toBe(before);
    expect(errorLines(h)).toEqual([]);
    const logs = h.logs().join('\n');
    for (const secret of ['xoxe', 'xoxb', 'refresh-', 'client-secret', STATE_SECRET])
      expect(logs).not.toContain(secret);
    // Nor in /metrics.
    const metrics = await (await fetch(`${h.platdesk.metricsUrl}/metrics`)).text();
    expect(metrics).not.toMatch(/xox|client-secret/);
  });

  it('a redirect with a state not from this browser installs nothing and says why in both languages', async () => {
    await start();
    const forged = await installThroughOAuth(
      h.platdesk.url,
      oauth,
      { teamId: 'T0001', installerUserId: 'UINST1' },
      { state: 'forged-state' },
    );
    expect(forged.status).toBe(400);
    expect(forged.page).toContain('platdesk could not be installed');
    expect(forged.page).toContain('platdesk 安装未完成');
    expect(forged.page).toContain('the install link expired or was opened in another browser');
    const noCookie = await installThroughOAuth(
      h.platdesk.url,
      oauth,
      { teamId: 'T0001', installerUserId: 'UINST1' },
      { dropCookie: true },
    );
    expect(noCookie.status).toBe(400);
    expect(h.fake.callsTo('oauth.v2.access')).toEqual([]);
    expect(await h.platdesk.store.installations.tenants()).toEqual([]);
  });

  it('refreshes a token about to expire once, then answers with the new one', async () => {
    await start();
    // Expires within the refresh margin (10 min): the first request refreshes it.
    await installThroughOAuth(h.platdesk.url, oauth, {
      teamId: 'T0001',
      installerUserId: 'UINST1',
      expiresInSeconds: 300,
    });
    const first = oauth.currentToken('T0001');
    const publishes = await Promise.all([
      homeOpened('UINST1', { teamId: 'T0001' }),
      homeOpened('UINST1', { teamId: 'T0001' }),
    ]);
    await nextPublish(Math.max(...publishes));
    expect(oauth.refreshGrants()).toHaveLength(1);
    const renewed = oauth.currentToken('T0001');
    expect(renewed).not.toBe(first);
    for (const call of h.fake.callsTo('views.publish')) expect(oauth.tokenOf(call)).toBe(renewed);
    expect((await h.platdesk.store.installations.get('T0001'))?.botToken).toBe(renewed);
  });

  it('app_uninstalled deletes the tokens at once; later events are ignored without an error', async () => {
    await start();
    await installThroughOAuth(h.platdesk.url, oauth, { teamId: 'T0001', installerUserId: 'UINST1' });
    await installThroughOAuth(h.platdesk.url, oauth, { teamId: 'T0002', installerUserId: 'UINST2' });
    await nextPublish(await homeOpened('UINST1', { teamId: 'T0001' }));
    await chartPublished('UINST1');
    const res = await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      envelopeFrom({ type: 'app_uninstalled' }, { teamId: 'T0001' }),
    );
    expect(res.status).toBe(200);
    await expect.poll(() => h.platdesk.store.installations.get('T0001')).toBeNull();
    expect(await h.platdesk.store.installations.erasure('T0001')).toMatchObject({
      reason: 'app_uninstalled',
      erasedAt: null,
    });
    // 30 days by default (PLATDESK_RETENTION_DAYS).
    const erasure = await h.platdesk.store.installations.erasure('T0001');
    expect((erasure?.eraseAfter.getTime() ?? 0) - (erasure?.uninstalledAt.getTime() ?? 0)).toBe(
      30 * 86_400_000,
    );
    const before = await homeOpened('UINST1', { teamId: 'T0001' });
    await quiet();
    expect(h.fake.callsTo('views.publish').length).toBe(before);
    expect(errorLines(h)).toEqual([]);
    // The other workspace is untouched.
    const other = await nextPublish(await homeOpened('UINST2', { teamId: 'T0002' }));
    expect(oauth.tokenOf(other)).toBe(oauth.currentToken('T0002'));
    // tokens_revoked (bot) does the same for the other one.
    await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      envelopeFrom({ type: 'tokens_revoked', tokens: { bot: ['UBOT'] } }, { teamId: 'T0002' }),
    );
    await expect.poll(() => h.platdesk.store.installations.get('T0002')).toBeNull();
  });
});
