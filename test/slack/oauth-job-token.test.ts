/**
 * Issue 24, jobs on a replica (PostgreSQL + Redis, two platdesk replicas, one Slack): a job's Slack
 * calls (a digest run with no request behind it) carry the workspace's CURRENT bot token. Replica B
 * rotates the token; replica A's next digest run, with the old token still in its cache, is refused
 * by Slack once for it, reads the installation again and posts once with the new token (tokens
 * counted at the local Slack-compatible server). An admin's plat account connected on A serves B's
 * next lookup, B having answered "no plat account yet" before (no restart). After B handles the
 * uninstall, A's digest run sends no plat call, writes no ledger row and posts nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PLAT_ACCOUNT_FORM } from '../../src/blocks/plat-account.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { postEvent } from '../helpers/slack-http.js';
import {
  distributedModeEnv,
  fromWorkspace,
  installFakeOAuth,
  installThroughOAuth,
  platAccountValues,
} from '../helpers/slack-oauth.js';
import { appHomeOpened, eventCallback, SLACK } from '../helpers/slack-payloads.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const SIGNING_SECRET = 'test-secret';
const TEAM = SLACK.teamId;
const range = { from: new Date(0), to: new Date(Date.now() + 2 * 86_400_000) };
/** What Slack's side of a job touches; each answers token_expired to an expired rotating token. */
const ENFORCED = [
  'chat.postMessage',
  'chat.update',
  'conversations.history',
  'conversations.replies',
  'conversations.open',
  'users.info',
  'files.getUploadURLExternal',
  'files.completeUploadExternal',
  'views.publish',
];

const fromTeam = <T extends object>(payload: T) => fromWorkspace(payload, TEAM);

describe('jobs on a replica use the current bot token (PostgreSQL, two replicas)', () => {
  const apps: PlatdeskHarness[] = [];
  let redis: RedisServer | undefined;
  let url: string | undefined;
  let plat: Sandbox | undefined;
  afterEach(async () => {
    for (const app of apps.splice(0).reverse()) await app.close();
    await plat?.close();
    await redis?.close();
    if (url) await dropPostgresDatabase(url);
  });

  it('B rotates, A posts its next digest once with the new token; after uninstall A posts and spends nothing', async () => {
    redis = await startRedisServer();
    url = await createPostgresDatabase();
    plat = createSandbox({ token: 'plat-own' });
    const platUrl = await plat.listen(0);
    const shared = {
      DATABASE_URL: url,
      REDIS_URL: redis.url,
      ...distributedModeEnv(),
    };
    const a = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      now: () => new Date(),
      instance: { id: 'host-a/1/replica', host: 'host-a', pid: 1, pidNs: null, bootId: null },
      env: shared,
      plat: 'none',
    });
    apps.push(a);
    // B's clock goes 11 h 55 min ahead for its rotating request: the 12 h token is then due to it.
    let ahead = 0;
    const b = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      now: () => new Date(Date.now() + ahead),
      instance: { id: 'host-b/1/replica', host: 'host-b', pid: 1, pidNs: null, bootId: null },
      env: { ...shared, SLACK_API_URL: a.fake.apiUrl },
      plat: 'none',
    });
    apps.push(b);
    // A fresh Redis: the first grants wait out the fence of a new key set (shared-limiter.test.ts).
    await Promise.all([a.platdesk.limiter.ready(), b.platdesk.limiter.ready()]);
    const slack = a.fake;
    const oauth = installFakeOAuth(slack);
    oauth.enforceTokens(ENFORCED);
    expect(
      (await installThroughOAuth(a.platdesk.url, oauth, { teamId: TEAM, installerUserId: SLACK.adminId }))
        .status,
    ).toBe(200);
    const first = oauth.currentToken(TEAM);
    const store = a.platdesk.store.forTenant(TEAM);

    // B answers "no plat account yet" (its parts are built without one)…
    const before = await b.command('/item', SANDBOX_FIXTURES.items.basic, { userId: SLACK.userId });
    expect(textOf(await b.nextResponse(before.responseUrlId))).toContain(
      'This workspace has no plat account yet',
    );
    // …the admin connects one on A…
    const saved = await a.submitView({
      callbackId: PLAT_ACCOUNT_FORM.callbackId,
      userId: SLACK.adminId,
      values: platAccountValues(platUrl, 'plat-own'),
    });
    expect(saved.status).toBe(200);
    await expect.poll(() => store.platAccounts.get(TEAM).then((x) => x?.token ?? null)).toBe('plat-own');
    // …and B's very next lookup is confirmed and answered from it, with no restart.
    const asked = await b.ask('/item', SANDBOX_FIXTURES.items.basic, { userId: SLACK.userId });
    const { answer } = await b.confirm(asked.confirmation, { userId: SLACK.userId });
    expect(textOf(answer)).toContain(SANDBOX_FIXTURES.items.basic);
    expect(plat.stats().callsByToken['plat-own']).toBe(1);

    // A digest subscription, added on A (A now holds the first token in its cache).
    const at = `${String(new Date(Date.now() + 20 * 3_600_000).getUTCHours()).padStart(2, '0')}:00`;
    const added = await a.command(
      '/orders',
      `digest add ${SANDBOX_FIXTURES.owners.busy} <#C1234|support> ${at} single`,
      { userId: SLACK.adminId },
    );
    expect(textOf(await a.nextResponse(added.responseUrlId))).toContain(SANDBOX_FIXTURES.owners.busy);
    const [sub] = await store.digests.list();
    if (!sub) throw new Error('no digest subscription');

    // B rotates: Slack no longer takes the first token (expired), B refreshes on its next request.
    oauth.expireNow(TEAM);
    ahead = 12 * 3_600_000 - 5 * 60_000;
    const homeOnB = await postEvent(
      b.eventsUrl,
      SIGNING_SECRET,
      fromTeam(eventCallback(appHomeOpened(SLACK.adminId), { eventId: 'EvROTATE1' })),
    );
    expect(homeOnB.status).toBe(200);
    await expect.poll(() => oauth.refreshGrants().length, { timeout: 8000 }).toBe(1);
    ahead = 0;
    const renewed = oauth.currentToken(TEAM);
    expect(renewed).not.toBe(first);

    // A's digest run (a job: no request on A) posts with the new token, once.
    const fromSlack = slack.calls.length;
    const partsA = await a.platdesk.tenants.forTenant(TEAM);
    const result = await partsA.deps.digests?.scheduler.runNow(sub.id, SLACK.adminId);
    expect(result?.kind).toBe('posted');
    const posts = slack.calls.slice(fromSlack).filter((c) => c.method === 'chat.postMessage');
    const accepted = posts.filter((c) => oauth.isValid(oauth.tokenOf(c), c.at));
    expect(accepted.length).toBeGreaterThan(0);
    expect(new Set(accepted.map((c) => oauth.tokenOf(c)))).toEqual(new Set([renewed]));
    // Refused attempts (the old token, at most one per call) carried only the first token.
    for (const c of posts.filter((p) => !accepted.includes(p))) expect(oauth.tokenOf(c)).toBe(first);
    // Nothing posted twice: each keyed message once.
    const keys = accepted.map((c) => JSON.stringify(c.body.metadata ?? c.body.text));
    expect(new Set(keys).size).toBe(keys.length);
    expect(oauth.refreshGrants()).toHaveLength(1);

    // Uninstall, handled by B; Slack revokes the tokens.
    const uninstalled = await postEvent(
      b.eventsUrl,
      SIGNING_SECRET,
      fromTeam(eventCallback({ type: 'app_uninstalled' }, { eventId: 'EvUNINSTALL1' })),
    );
    expect(uninstalled.status).toBe(200);
    await expect.poll(() => a.platdesk.store.installations.get(TEAM)).toBeNull();
    oauth.expireNow(TEAM);
    const platCalls = plat.stats().calls;
    const ledgerRows = (await store.ledger.list(range)).length;
    const afterUninstall = slack.calls.length;
    const again = await partsA.deps.digests?.scheduler.runNow(sub.id, SLACK.adminId);
    expect(again?.kind).toBe('failed');
    expect(plat.stats().calls).toBe(platCalls);
    expect((await store.ledger.list(range)).length).toBe(ledgerRows);
    const later = slack.calls
      .slice(afterUninstall)
      .filter((c) => c.method.startsWith('chat.') && oauth.isValid(oauth.tokenOf(c), c.at));
    expect(later).toEqual([]);
  }, 90_000);
});
