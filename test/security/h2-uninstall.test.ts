/**
 * Issue 34 H2 / point 3: `app_uninstalled` and `tokens_revoked` are handled before, and without,
 * the workspace's parts or tokens, on any replica, once. On 5ce7905 both passed the tenant
 * middleware, which built the workspace's parts and read its bot token: with token rotation on
 * and the token due, the refresh failed after the uninstall (Slack had revoked it), the middleware
 * threw, and the uninstall never ran: tokens, the plat token and the data stayed.
 *
 * As checked from outside, on both engines: a workspace installed through one process (its
 * rotating token about to expire, a plat account connected); that process stops; another process
 * that never served the workspace, on the same database, gets `app_uninstalled` then
 * `tokens_revoked`. It must delete the tokens and the plat account at once, schedule the erasure
 * of the rest (docs/workspaces.md), make no call to Slack for it, and take the second event as
 * the no-op it is (an info line, not an error).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/lookups/tenancy.js';
import { type PlatdeskHarness, startPlatdeskHarness } from '../helpers/platdesk-harness.js';
import { postEvent } from '../helpers/slack-http.js';
import {
  distributedModeEnv,
  fromWorkspace,
  installFakeOAuth,
  installThroughOAuth,
} from '../helpers/slack-oauth.js';
import { eventCallback } from '../helpers/slack-payloads.js';
import { createPostgresDatabase, dropPostgresDatabase, ENGINES } from '../helpers/store-engines.js';

const SIGNING_SECRET = 'test-secret';
const TEAM = 'T0H2';

const lines = (h: PlatdeskHarness) => h.logs().map((l) => JSON.parse(l) as { level: number; msg: string });

describe.each(ENGINES)('H2: uninstall on %s', (engine) => {
  const apps: PlatdeskHarness[] = [];
  let cleanup: () => Promise<void> = async () => undefined;
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await cleanup();
  });

  it('on a process that never served the workspace, its rotating token expired: tokens and plat account deleted, erasure scheduled, no Slack call; the second event is a no-op', async () => {
    let database: Record<string, string>;
    if (engine === 'postgres') {
      const url = await createPostgresDatabase();
      database = { DATABASE_URL: url };
      cleanup = () => dropPostgresDatabase(url);
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'platdesk-h2-'));
      database = { DATABASE_PATH: join(dir, 'platdesk.sqlite') };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
    const env = { ...distributedModeEnv(), ...database, PLATDESK_RETENTION_DAYS: '30' };

    const first = await startPlatdeskHarness({ signingSecret: SIGNING_SECRET, env, logLevel: 'info' });
    apps.push(first);
    const oauth = installFakeOAuth(first.fake);
    // Five minutes left: inside the refresh margin, so any use of it would refresh it first.
    expect(
      (
        await installThroughOAuth(first.platdesk.url, oauth, {
          teamId: TEAM,
          installerUserId: 'UINST',
          expiresInSeconds: 300,
        })
      ).status,
    ).toBe(200);
    await first.platdesk.store.platAccounts.set(
      TEAM,
      { baseUrl: 'https://plat.example', token: 'plat-secret' },
      'UINST',
    );
    await first.close();
    apps.splice(0);

    // Another process (another replica, or this one restarted): it never served TEAM. Its Slack
    // knows no refresh token of TEAM: they were revoked with the uninstall.
    const other = await startPlatdeskHarness({ signingSecret: SIGNING_SECRET, env, logLevel: 'info' });
    apps.push(other);
    installFakeOAuth(other.fake);
    const before = Date.now();
    const uninstalled = await postEvent(
      other.eventsUrl,
      SIGNING_SECRET,
      fromWorkspace(eventCallback({ type: 'app_uninstalled' }, { eventId: 'EvH2UNINSTALL' }), TEAM),
    );
    expect(uninstalled.status).toBe(200);
    await expect.poll(() => other.platdesk.store.installations.get(TEAM), { timeout: 5000 }).toBeNull();
    expect(await other.platdesk.store.platAccounts.get(TEAM)).toBeNull();
    const erasure = await other.platdesk.store.installations.erasure(TEAM);
    expect(erasure).toMatchObject({ reason: 'app_uninstalled', erasedAt: null });
    const scheduled = erasure?.eraseAfter.getTime() ?? 0;
    expect(scheduled).toBeGreaterThanOrEqual(before + 30 * DAY_MS - 60_000);
    // Nothing was asked of Slack for it: no refresh of the dead token, no call with it.
    expect(other.fake.calls.filter((c) => c.method !== 'auth.test')).toEqual([]);

    const revoked = await postEvent(
      other.eventsUrl,
      SIGNING_SECRET,
      fromWorkspace(
        eventCallback(
          { type: 'tokens_revoked', tokens: { oauth: [], bot: ['UBOT'] } },
          { eventId: 'EvH2REVOKED' },
        ),
        TEAM,
      ),
    );
    expect(revoked.status).toBe(200);
    await expect
      .poll(() => lines(other).some((l) => l.level === 30 && /already uninstalled/.test(l.msg)), {
        timeout: 5000,
      })
      .toBe(true);
    // The second event changed nothing: the same erasure, not moved.
    expect((await other.platdesk.store.installations.erasure(TEAM))?.eraseAfter.getTime()).toBe(scheduled);
    expect(lines(other).filter((l) => l.level >= 50)).toEqual([]);
    expect(other.fake.calls.filter((c) => c.method !== 'auth.test')).toEqual([]);
  });
});
