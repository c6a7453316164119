/**
 * Eviction under load (issue 39 point 5), through the real Bolt app in distributed mode on both
 * engines, every plat call counted at the sandbox and every post at the Slack stand-in:
 *  - eight workspaces confirm at once while their parts are evicted under them again and again:
 *    each answered once and charged once;
 *  - a digest whose workspace's parts are dropped mid-run (its plat account replaced, the one way
 *    busy parts go): its lease is given back at once, the replica's wake loop takes the run over
 *    on new parts, posted once, every page in the ledger once (one in flight may be bought again);
 *  - a bot token refreshed while the workspace's parts are evicted: the lookup confirmed meanwhile
 *    is answered once and charged once, and the next digest posts with the new token, once.
 * test/slack/tenant-parts.test.ts has the single evictions (between Confirm and answer, busy
 * parts kept, the idle and count bounds); test/schedule-wakes.test.ts the stranded-runs sweep.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { REFRESH_BEFORE_MS } from '../../src/slack/installs.js';
import { createFakeClock, type FakeClock } from '../helpers/fake-clock.js';
import {
  type HarnessOptions,
  type PlatdeskHarness,
  startPlatdeskHarness,
  startWithWorkspaces,
  textOf,
} from '../helpers/platdesk-harness.js';
import { distributedModeEnv, installFakeOAuth, installThroughOAuth } from '../helpers/slack-oauth.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const A = 'T0EVICTA';
/** Eight workspaces for the load. */
const MANY = Array.from({ length: 8 }, (_, i) => `T0EVICT${i}`);
const BOTS: Record<string, { botToken: string; botUserId: string; botId: string }> = Object.fromEntries(
  [A, ...MANY].map((t) => [t, { botToken: `xoxb-evict-${t}`, botUserId: `UBOT${t}`, botId: `BBOT${t}` }]),
);
const CHANNEL = 'C0EVICTDIGEST';
const HOUR = 3_600_000;
const itemId = SANDBOX_FIXTURES.items.basic;
const range = { from: new Date(0), to: new Date(8.64e15) };

let h: PlatdeskHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function start(engine: (typeof ENGINES)[number], extra: HarnessOptions = {}) {
  return startWithWorkspaces(BOTS, { engine, ...extra });
}

const tenantsBuilt = (harness: PlatdeskHarness) => harness.platdesk.tenants.built().map((p) => p.tenant);

describe.each(ENGINES)('eviction under load (%s store)', (engine) => {
  it('eight workspaces confirming at once while their parts are evicted under them: each answered once, charged once', async () => {
    h = await start(engine, { tenantParts: { maxParts: 2 } });
    const harness = h;
    const asked = await Promise.all(MANY.map((t) => harness.ask('/item', itemId, { teamId: t })));
    // Every workspace's parts go between its confirmation and its click…
    for (const t of MANY) await harness.platdesk.tenants.evict(t);
    expect(tenantsBuilt(harness)).toEqual([]);
    // …and while the clicks are handled, whatever is idle is evicted again and again.
    let clicking = true;
    const evictor = (async () => {
      for (let i = 0; clicking; i++) {
        await harness.platdesk.tenants.evict(MANY[i % MANY.length] ?? A);
        await harness.platdesk.tenants.trim();
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const answered = await Promise.all(
      asked.map(({ confirmation }, i) => harness.confirm(confirmation, { teamId: MANY[i] ?? A })),
    ).finally(() => {
      clicking = false;
    });
    await evictor;
    for (const { answer } of answered) expect(textOf(answer)).toContain(itemId);
    await harness.settle(300);
    expect(harness.sandbox.stats().callsByOperation.platiteminfo).toBe(MANY.length);
    for (const t of MANY)
      expect(await harness.platdesk.store.forTenant(t).ledger.list(range)).toHaveLength(1);
  });

  it('a digest whose parts are dropped mid-run (its plat account replaced): its lease given back, taken over on new parts by the wake loop, posted once, every page in the ledger once', async () => {
    const clock: FakeClock = createFakeClock(Date.now() - 2 * HOUR);
    h = await start(engine, { clock });
    const harness = h;
    const due = Math.ceil(clock.now() / HOUR) * HOUR + HOUR;
    const local = `${String(new Date(due).getUTCHours()).padStart(2, '0')}:00`;
    const store = harness.platdesk.store.forTenant(A);
    await store.digests.add({
      ownerId: SANDBOX_FIXTURES.owners.busy,
      shopLabel: 'clothing',
      channelId: CHANNEL,
      localTime: local,
      timeZone: 'UTC',
      createdBy: 'UADMIN',
    });
    harness.sandbox.setFaults([{ kind: 'latency', ms: 300, operations: ['paging-orders'] }]);
    const pages = () => harness.sandbox.stats().callsByOperation['paging-orders'] ?? 0;
    const advancing = clock.advanceAsync(due - clock.now());
    await expect.poll(pages, { timeout: 10_000 }).toBeGreaterThan(0);
    // The account is replaced: the parts are dropped though their run is in flight. Their run
    // gives its lease back as it stops, and the wake loop takes it over at once on new parts (no
    // lease to wait out: the clock does not move past the due time).
    await harness.platdesk.tenants.forget(A);
    await advancing;
    harness.sandbox.setFaults([]);
    await harness.platdesk.schedulersIdle();
    const [sub] = await store.digests.list();
    const run = await store.digests.lastRun(sub?.id ?? 0);
    expect(run).toMatchObject({ state: 'posted', kind: 'scheduled', attempts: 2 });
    expect(clock.now()).toBe(due);
    expect(tenantsBuilt(harness)).toEqual([A]);
    const posts = harness.fake
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === CHANNEL && !c.body.thread_ts);
    expect(posts).toHaveLength(1);
    expect(textOf(posts[0]?.body)).toContain('Orders digest of clothing');
    const charged = (await store.ledger.list(range)).filter((r) => r.operation === 'paging-orders');
    expect(charged).toHaveLength(pages());
    expect(run?.calls).toBe(pages());
    // Each page bought once, but one in flight when the parts were dropped (bought again: counted).
    const needed = run ? (await store.digestPages.list(run.id)).length : 0;
    expect(pages() - needed).toBeLessThanOrEqual(1);
  });

  it('a bot token refreshed while the workspace’s parts are evicted: the lookup confirmed meanwhile answered once and charged once; the next digest posts once with the new token', async () => {
    let ahead = 0;
    h = await startPlatdeskHarness({
      engine,
      env: distributedModeEnv(),
      now: () => new Date(Date.now() + ahead),
    });
    const harness = h;
    const oauth = installFakeOAuth(harness.fake);
    oauth.enforceTokens(['chat.postMessage', 'chat.update', 'users.info', 'conversations.history']);
    const TEAM = SLACK.teamId;
    // A rotating token that is not yet due for its refresh (REFRESH_BEFORE_MS) at the ask.
    const installed = await installThroughOAuth(harness.platdesk.url, oauth, {
      teamId: TEAM,
      installerUserId: SLACK.adminId,
      expiresInSeconds: REFRESH_BEFORE_MS / 1000 + 120,
    });
    expect(installed.status).toBe(200);
    const first = oauth.currentToken(TEAM);
    const store = harness.platdesk.store.forTenant(TEAM);
    const sub = await store.digests.add({
      ownerId: SANDBOX_FIXTURES.owners.busy,
      shopLabel: 'clothing',
      channelId: CHANNEL,
      localTime: '03:00',
      timeZone: 'UTC',
      createdBy: SLACK.adminId,
    });
    const { confirmation } = await harness.ask('/item', itemId);

    // Three minutes on, the token is due for its refresh at the click (the confirmation is still
    // valid), Slack no longer takes it, and it answers the refresh late.
    oauth.expireNow(TEAM);
    ahead = 3 * 60_000;
    harness.fake.setDelay('oauth.v2.access', 2_000);
    const confirming = harness.confirm(confirmation);
    let answered = false;
    void confirming.finally(() => {
      answered = true;
    });
    await expect.poll(() => oauth.refreshGrants().length, { timeout: 5_000 }).toBe(1);
    // Evicted while the refresh is under way (a wake-up of its scheduler on a loaded machine may
    // hold the parts for a moment: asked again until let go).
    await expect
      .poll(() => harness.platdesk.tenants.evict(TEAM), { timeout: 1_500, interval: 20 })
      .toBe(true);
    expect(answered).toBe(false);
    const { answer } = await confirming;
    harness.fake.setDelay('oauth.v2.access', 0);
    ahead = 0;
    expect(textOf(answer)).toContain(itemId);
    await harness.settle(300);
    expect(harness.sandbox.stats().callsByOperation.platiteminfo).toBe(1);
    expect(await store.ledger.list(range)).toHaveLength(1);
    const renewed = oauth.currentToken(TEAM);
    expect(renewed).not.toBe(first);

    // The digest, on parts built anew, posts once with the new token; no second refresh.
    const parts = await harness.platdesk.tenants.forTenant(TEAM);
    const from = harness.fake.calls.length;
    const result = await parts.deps.digests?.scheduler.runNow(sub.id, SLACK.adminId);
    expect(result?.kind).toBe('posted');
    const posts = harness.fake.calls
      .slice(from)
      .filter((c) => c.method === 'chat.postMessage' || c.method === 'chat.update');
    expect(posts.length).toBeGreaterThan(0);
    expect(new Set(posts.map((c) => oauth.tokenOf(c)))).toEqual(new Set([renewed]));
    expect(
      harness.fake.messages(CHANNEL).filter((m) => m.metadata?.event_type === 'platdesk_digest'),
    ).toHaveLength(1);
    expect(oauth.refreshGrants()).toHaveLength(1);
    const charged = (await store.ledger.list(range)).filter((r) => r.operation === 'paging-orders');
    expect(charged).toHaveLength(harness.sandbox.stats().callsByOperation['paging-orders'] ?? 0);
  });
});
