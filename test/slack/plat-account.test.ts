/**
 * A workspace's plat account (issue 24 pt 8), distributed mode: the installer is the workspace's
 * first admin and sees "Connect plat account" on the App Home (others do not); the modal's entry
 * is checked, stored sealed for that workspace (raw row read), and the Home then says the token is
 * checked on first use (the plat API has no free call). Non-admins are refused on submit.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ERASE_FORM, PLAT_ACCOUNT_FORM } from '../../src/blocks/plat-account.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { postEvent } from '../helpers/slack-http.js';
import {
  distributedModeEnv,
  installFakeOAuth,
  installThroughOAuth,
  openConnectForm,
  openHomeForm,
  platAccountValues,
} from '../helpers/slack-oauth.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';

const SIGNING_SECRET = 'test-secret';

describe('plat account per workspace (App Home)', () => {
  let h: PlatdeskHarness;
  let dir = '';
  afterEach(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an admin asks for the workspace data to be deleted: uninstalled in Slack, tokens gone, erasure due now', async () => {
    h = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      env: {
        ...distributedModeEnv(),
      },
    });
    const oauth = installFakeOAuth(h.fake);
    await installThroughOAuth(h.platdesk.url, oauth, {
      teamId: SLACK.teamId,
      installerUserId: SLACK.adminId,
    });
    const token = oauth.currentToken(SLACK.teamId);
    const view = await openHomeForm(h, {
      actionId: 'platdesk.home.erase_data',
      value: 'erase',
      callbackId: ERASE_FORM.callbackId,
    });
    expect(textOf(view)).toContain('This cannot be undone');
    // Someone else's submit deletes nothing.
    await h.submitView({ callbackId: ERASE_FORM.callbackId, userId: SLACK.userId });
    expect(await h.platdesk.store.installations.get(SLACK.teamId)).not.toBeNull();
    const done = await h.submitView({ callbackId: ERASE_FORM.callbackId, userId: SLACK.adminId });
    expect(done.status).toBe(200);
    await expect.poll(() => h.platdesk.store.installations.get(SLACK.teamId)).toBeNull();
    const uninstall = await h.fake.waitFor('apps.uninstall');
    expect(oauth.tokenOf(uninstall)).toBe(token);
    expect(uninstall.body.client_id).toBe('1234.5678');
    const erasure = await h.platdesk.store.installations.erasure(SLACK.teamId);
    expect(erasure).toMatchObject({ reason: 'admin_request', erasedAt: null });
    expect(erasure?.eraseAfter.getTime()).toBe(erasure?.uninstalledAt.getTime());
  });

  it('the installer connects the workspace plat account; stored sealed; others are refused', async () => {
    dir = mkdtempSync(join(tmpdir(), 'platdesk-plat-account-'));
    const path = join(dir, 'platdesk.sqlite');
    h = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      env: {
        ...distributedModeEnv(),
        DATABASE_PATH: path,
      },
    });
    const oauth = installFakeOAuth(h.fake);
    await installThroughOAuth(h.platdesk.url, oauth, {
      teamId: SLACK.teamId,
      installerUserId: SLACK.adminId,
    });
    const home = async (userId: string) => {
      const before = h.fake.callsTo('views.publish').length;
      await postEvent(
        h.eventsUrl,
        SIGNING_SECRET,
        eventCallback(appHomeOpened(userId), { eventId: `Ev${randomBytes(4).toString('hex')}` }),
      );
      await h.fake.waitFor('views.publish', () => h.fake.callsTo('views.publish').length > before);
      return h.fake.callsTo('views.publish')[before]?.body.view;
    };

    // The operator's default account (PLAT_BASE_URL) serves until the workspace connects its own.
    const adminHome = textOf(await home(SLACK.adminId));
    expect(adminHome).toContain('Connect plat account');
    expect(adminHome).toContain("charged to the operator's plat account");
    expect(textOf(await home(SLACK.userId))).not.toContain('Connect plat account');

    await openConnectForm(h);

    const bad = await h.submitView({
      callbackId: PLAT_ACCOUNT_FORM.callbackId,
      userId: SLACK.adminId,
      values: platAccountValues('ftp://x', 'tok'),
    });
    expect(JSON.parse(bad.body)).toMatchObject({
      response_action: 'errors',
      errors: {
        [PLAT_ACCOUNT_FORM.baseUrl.block]: 'Enter an https:// URL (with no user name or password in it).',
      },
    });
    const badToken = await h.submitView({
      callbackId: PLAT_ACCOUNT_FORM.callbackId,
      userId: SLACK.adminId,
      // A public address literal: the check at save needs no DNS (tests stand alone).
      values: platAccountValues('https://93.184.216.34', 'has space'),
    });
    expect(JSON.parse(badToken.body).errors[PLAT_ACCOUNT_FORM.token.block]).toMatch(/printable ASCII/);
    const notAdmin = await h.submitView({
      callbackId: PLAT_ACCOUNT_FORM.callbackId,
      userId: SLACK.userId,
      values: platAccountValues('https://93.184.216.34', 'tok-secret-123'),
    });
    expect(JSON.parse(notAdmin.body).errors[PLAT_ACCOUNT_FORM.baseUrl.block]).toMatch(
      /Only a platdesk admin/,
    );
    expect(await h.platdesk.store.platAccounts.get(SLACK.teamId)).toBeNull();

    const before = h.fake.callsTo('views.publish').length;
    const saved = await h.submitView({
      callbackId: PLAT_ACCOUNT_FORM.callbackId,
      userId: SLACK.adminId,
      values: platAccountValues('https://93.184.216.34/', 'tok-secret-123'),
    });
    expect(saved.status).toBe(200);
    await h.fake.waitFor('views.publish', () => h.fake.callsTo('views.publish').length > before);
    expect(textOf(h.fake.callsTo('views.publish')[before]?.body.view)).toContain(
      'Connected to `https://93.184.216.34`. The plat API has no free call, so the token is checked by the first lookup',
    );
    expect(await h.platdesk.store.platAccounts.get(SLACK.teamId)).toMatchObject({
      baseUrl: 'https://93.184.216.34',
      token: 'tok-secret-123',
      updatedBy: SLACK.adminId,
      verifiedAt: null,
    });
    const raw = new Database(path, { readonly: true });
    const rows = raw.prepare('SELECT * FROM plat_accounts').all();
    raw.close();
    expect(JSON.stringify(rows)).not.toContain('tok-secret-123');
    // A refusal recorded on first use is shown to the admins.
    await h.platdesk.store.platAccounts.markRefused(SLACK.teamId, '401');
    expect(textOf(await home(SLACK.adminId))).toContain('the plat API refused the token (401)');
    expect(h.logs().join('\n')).not.toContain('tok-secret-123');
  });
});
