/**
 * Token rotation with two replicas (issue 24; node-slack-sdk #2504): two platdesk apps on one
 * PostgreSQL (sharing Redis, as replicas do) and one Slack. A token about to expire is refreshed
 * by both at once: Slack sees ONE `oauth.v2.access` refresh_token grant (a refresh token spent
 * twice would leave one replica with a token Slack has replaced), and both answer with the new
 * token, which Slack accepts.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type PlatdeskHarness, startPlatdeskHarness } from '../helpers/platdesk-harness.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import {
  distributedModeEnv,
  fromWorkspace,
  installFakeOAuth,
  installThroughOAuth,
} from '../helpers/slack-oauth.js';
import { appHomeOpened, eventCallback } from '../helpers/slack-payloads.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const SIGNING_SECRET = 'test-secret';

function homeOpenedFrom(teamId: string, userId: string) {
  return fromWorkspace(
    eventCallback(appHomeOpened(userId), { eventId: `Ev${randomBytes(5).toString('hex').toUpperCase()}` }),
    teamId,
  );
}

describe('token rotation across replicas (PostgreSQL)', () => {
  const apps: PlatdeskHarness[] = [];
  let redis: RedisServer | undefined;
  let url: string | undefined;
  afterEach(async () => {
    for (const app of apps.splice(0).reverse()) await app.close();
    await redis?.close();
    if (url) await dropPostgresDatabase(url);
  });

  it('two replicas refreshing at once: one refresh grant, both answer with the new token', async () => {
    redis = await startRedisServer();
    url = await createPostgresDatabase();
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
    });
    apps.push(a);
    // One Slack for both replicas.
    const b = await startPlatdeskHarness({
      signingSecret: SIGNING_SECRET,
      now: () => new Date(),
      instance: { id: 'host-b/1/replica', host: 'host-b', pid: 1, pidNs: null, bootId: null },
      env: { ...shared, SLACK_API_URL: a.fake.apiUrl },
    });
    apps.push(b);
    const slack = a.fake;
    const oauth = installFakeOAuth(slack);
    // Installed through replica A; its token expires within the refresh margin.
    const installed = await installThroughOAuth(a.platdesk.url, oauth, {
      teamId: 'T0001',
      installerUserId: 'UINST1',
      expiresInSeconds: 300,
    });
    expect(installed.status).toBe(200);
    const first = oauth.currentToken('T0001');
    // Slow refreshes, so the second replica is surely waiting on the lock meanwhile.
    slack.setDelay('oauth.v2.access', 300);

    const [ra, rb] = await Promise.all([
      postEvent(a.eventsUrl, SIGNING_SECRET, homeOpenedFrom('T0001', 'UINST1')),
      postEvent(b.eventsUrl, SIGNING_SECRET, homeOpenedFrom('T0001', 'UINST1')),
    ]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    await expect.poll(() => slack.callsTo('views.publish').length, { timeout: 8000 }).toBe(2);

    expect(oauth.refreshGrants()).toHaveLength(1);
    const renewed = oauth.currentToken('T0001');
    expect(renewed).not.toBe(first);
    const publishes = slack.callsTo('views.publish') as SlackCall[];
    for (const call of publishes) {
      expect(oauth.tokenOf(call)).toBe(renewed);
      expect(oauth.isValid(oauth.tokenOf(call), call.at)).toBe(true);
    }
    // Both keep working: the next requests (cached or read again) use the renewed token too.
    await postEvent(a.eventsUrl, SIGNING_SECRET, homeOpenedFrom('T0001', 'UINST1'));
    await postEvent(b.eventsUrl, SIGNING_SECRET, homeOpenedFrom('T0001', 'UINST1'));
    await expect.poll(() => slack.callsTo('views.publish').length, { timeout: 8000 }).toBe(4);
    for (const call of slack.callsTo('views.publish')) expect(oauth.tokenOf(call)).toBe(renewed);
    expect(oauth.refreshGrants()).toHaveLength(1);
  });
});
