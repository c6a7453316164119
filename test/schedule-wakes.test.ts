/**
 * The replica's one wake loop as its stranded-runs sweep (issue 39 with issue 33 finding 12),
 * through startPlatdesk in distributed mode on both engines, on a fake clock: a run whose holder
 * died on another replica is claimed by this one whether or not the workspace's parts are built
 * here and whenever it appeared (after this replica's last look too), and only then are that
 * workspace's parts built. Every kind: a "Run now" left running, a scheduled digest left posting
 * (its history read, then posted once), a ship-by alert check left running. A workspace that
 * cannot be served (uninstalled) has its run given back and looked at once a sleep, not in a loop.
 * The holders' deaths are the rows they leave (test/replicas/stranded-posts.test.ts kills real
 * processes).
 */
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_LEASE_DEFAULTS } from '../src/digest/run-fence.js';
import { summarize } from '../src/digest/summarize.js';
import { SANDBOX_FIXTURES } from '../src/sandbox/index.js';
import { makeNewAlertSubscription } from './helpers/domain-factories.js';
import { createFakeClock, type FakeClock } from './helpers/fake-clock.js';
import { type PlatdeskHarness, startPlatdeskHarness } from './helpers/platdesk-harness.js';
import { ENGINES } from './helpers/store-engines.js';

const A = 'T0SWEEPA';
const B = 'T0SWEEPB';
/** Has rows, no installation any more. */
const GONE = 'T0SWEEPGONE';
const BOTS = {
  [A]: { botToken: 'xoxb-sweep-a', botUserId: 'UBOTA', botId: 'BBOTA' },
  [B]: { botToken: 'xoxb-sweep-b', botUserId: 'UBOTB', botId: 'BBOTB' },
} as const;
const CHANNEL_A = 'C0SWEEPA';
const CHANNEL_B = 'C0SWEEPB';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const LEASE_MS = RUN_LEASE_DEFAULTS.leaseMs;
/** The harness's longest sleep of the wake loop on a fake clock (platdesk-harness.ts). */
const MAX_SLEEP_MS = 15 * MINUTE;
const range = { from: new Date(0), to: new Date(8.64e15) };
const dead = () => ({ owner: 'replica-that-died', ms: LEASE_MS });

let h: PlatdeskHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function start(engine: (typeof ENGINES)[number], clock: FakeClock) {
  return startPlatdeskHarness({
    engine,
    clock,
    installations: async (tenant) => (tenant === A || tenant === B ? BOTS[tenant] : null),
    platAccounts: (baseUrl) => ({
      accountFor: async (tenant) =>
        tenant === A || tenant === B || tenant === GONE ? { baseUrl, token: 'sandbox' } : null,
    }),
  });
}

const built = (harness: PlatdeskHarness) =>
  harness.platdesk.tenants
    .built()
    .map((p) => p.tenant)
    .sort();
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe.each(ENGINES)('the replica’s stranded-runs sweep (%s store)', (engine) => {
  it('a "Run now" stranded after this replica last looked, its workspace’s parts not built: claimed here, its parts built for it, finished once, every call in the ledger', async () => {
    // 10:00 UTC: the day has room for the run; the digest's own time is far away.
    const clock = createFakeClock(Date.parse('2026-11-20T10:00:00Z'));
    h = await start(engine, clock);
    const harness = h;
    const store = harness.platdesk.store.forTenant(A);
    const sub = await store.digests.add({
      ownerId: SANDBOX_FIXTURES.owners.busy,
      shopLabel: 'clothing',
      channelId: CHANNEL_A,
      localTime: hhmm(clock.now() + 10 * HOUR),
      timeZone: 'UTC',
      createdBy: 'UADMIN',
    });
    // The added digest is looked at (within a sleep; its parts built to plan it), then let go.
    await clock.advanceAsync(MAX_SLEEP_MS + MINUTE);
    expect(built(harness)).toEqual([A]);
    await harness.platdesk.schedulersIdle();
    expect(await harness.platdesk.tenants.evict(A)).toBe(true);
    expect(built(harness)).toEqual([]);

    // Another replica took a "Run now", posted its progress message and died.
    const created = clock.now();
    const run = await store.digests.createManual(
      {
        subscriptionId: sub.id,
        localDate: day(created),
        windowStart: new Date(created - 24 * HOUR),
        windowEnd: new Date(created),
        requestedBy: 'UADMIN',
      },
      dead(),
    );
    if (!run) throw new Error('no manual run');
    const slack = new WebClient(BOTS[A].botToken, { slackApiUrl: harness.fake.apiUrl });
    const progress = await slack.chat.postMessage({ channel: CHANNEL_A, text: 'Preparing… page 1 of 3' });
    await store.digests.setMessageTs(run.id, progress.ts ?? '');

    // Within this replica's next look after the lease ran out.
    await clock.advanceAsync(LEASE_MS + MAX_SLEEP_MS + MINUTE);
    await harness.platdesk.schedulersIdle();
    const done = await store.digests.run(run.id);
    expect(done).toMatchObject({ state: 'posted', attempts: 2, messageTs: progress.ts });
    expect(built(harness)).toEqual([A]);
    const messages = harness.fake.messages(CHANNEL_A);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.metadata?.event_type).toBe('platdesk_digest');
    const pages = harness.sandbox.stats().callsByOperation['paging-orders'] ?? 0;
    expect(pages).toBeGreaterThan(0);
    expect(done?.calls).toBe(pages);
    const charged = (await store.ledger.list(range)).filter((e) => e.correlationId === `digest-${run.id}`);
    expect(charged).toHaveLength(pages);
  });

  it('a scheduled digest left posting and an alert check left running, in two workspaces with no parts: the post verified then sent once, the check taken over; nothing charged twice', async () => {
    const clock = createFakeClock(Date.parse('2026-11-20T10:00:00Z'));
    h = await start(engine, clock);
    const harness = h;
    const a = harness.platdesk.store.forTenant(A);
    const b = harness.platdesk.store.forTenant(B);
    const due = clock.now() - 5 * MINUTE;
    const sub = await a.digests.add({
      ownerId: SANDBOX_FIXTURES.owners.small,
      shopLabel: 'tea',
      channelId: CHANNEL_A,
      localTime: hhmm(due),
      timeZone: 'UTC',
      createdBy: 'UADMIN',
    });
    const alert = await b.alerts.add(
      makeNewAlertSubscription({
        ownerId: SANDBOX_FIXTURES.owners.busy,
        channelId: CHANNEL_B,
        timeZone: 'UTC',
        // Its first slot of the day at 11:00: nothing of its own due while the test runs.
        hoursFrom: '11:00',
      }),
    );
    // Both looked at here once (their workspaces' parts built to plan them), then let go.
    await clock.advanceAsync(MAX_SLEEP_MS + MINUTE);
    expect(built(harness)).toEqual([A, B]);
    expect(await harness.platdesk.tenants.evict(A)).toBe(true);
    expect(await harness.platdesk.tenants.evict(B)).toBe(true);
    // Then both were claimed by the replica that died: today's digest had bought its pages and
    // was posting; the alert's check of this hour was running.
    const digest = await a.digests.claimScheduled(
      {
        subscriptionId: sub.id,
        localDate: day(due),
        windowStart: new Date(due - 24 * HOUR),
        windowEnd: new Date(due),
        requestedBy: null,
      },
      dead(),
    );
    const summary = summarize([], {
      window: { from: new Date(due - 24 * HOUR), to: new Date(due) },
      at: new Date(due),
    });
    expect(
      await a.digests.markPosting(
        digest.run.id,
        { ...dead(), epoch: digest.run.epoch },
        JSON.stringify(summary),
      ),
    ).toBe(true);
    const slot = Math.floor(clock.now() / HOUR) * HOUR;
    const check = await b.alerts.claimCheck(
      { subscriptionId: alert.id, slotAt: new Date(slot), localDate: day(slot) },
      dead(),
    );
    expect(check.claimed).toBe(true);

    // The posting digest: made unknown once its lease ran out, its history read the settle
    // delay later (nothing there), then posted once. The check: taken over and run.
    await clock.advanceAsync(LEASE_MS + 50_000 + MAX_SLEEP_MS + MINUTE);
    await harness.platdesk.schedulersIdle();
    expect(await a.digests.run(digest.run.id)).toMatchObject({ state: 'posted' });
    const keyed = harness.fake
      .callsTo('chat.postMessage')
      .filter(
        (c) =>
          c.body.channel === CHANNEL_A &&
          (c.body.metadata as { event_type?: string })?.event_type === 'platdesk_digest',
      );
    expect(keyed).toHaveLength(1);
    expect(harness.fake.callsTo('conversations.history').length).toBeGreaterThan(0);
    const after = await b.alerts.check(check.check.id);
    expect(after?.state).not.toBe('running');
    expect(after?.epoch).toBeGreaterThan(check.check.epoch);
    expect(built(harness)).toEqual([A, B]);
    // Every call the service saw is in a ledger once (the digest bought nothing more).
    const calls = harness.sandbox.stats().calls;
    const ledger = [...(await a.ledger.list(range)), ...(await b.ledger.list(range))];
    expect(ledger).toHaveLength(calls);
    expect((await a.ledger.list(range)).filter((e) => e.operation === 'paging-orders')).toHaveLength(0);
  });

  it('a stranded run of a workspace that cannot be served (uninstalled) is given back and looked at once a sleep, not in a loop; no parts built', async () => {
    const clock = createFakeClock(Date.parse('2026-11-20T10:00:00Z'));
    h = await start(engine, clock);
    const harness = h;
    const gone = harness.platdesk.store.forTenant(GONE);
    const sub = await gone.digests.add({
      ownerId: SANDBOX_FIXTURES.owners.small,
      shopLabel: 'tea',
      channelId: CHANNEL_A,
      localTime: hhmm(clock.now() + 10 * HOUR),
      timeZone: 'UTC',
      createdBy: 'UADMIN',
    });
    const created = clock.now();
    const run = await gone.digests.createManual(
      {
        subscriptionId: sub.id,
        localDate: day(created),
        windowStart: new Date(created - 24 * HOUR),
        windowEnd: new Date(created),
        requestedBy: 'UADMIN',
      },
      dead(),
    );
    if (!run) throw new Error('no manual run');
    const sleeps = 4;
    await clock.advanceAsync(LEASE_MS + sleeps * MAX_SLEEP_MS);
    await harness.platdesk.schedulersIdle();
    const after = await gone.digests.run(run.id);
    // Claimed and given back at most once per look (and the first look at start), never run.
    expect(after?.state).toBe('running');
    expect(after?.epoch).toBeGreaterThan(run.epoch);
    expect(after?.epoch).toBeLessThanOrEqual(run.epoch + sleeps + 2);
    expect(built(harness)).toEqual([]);
    expect(harness.sandbox.stats().calls).toBe(0);
  });
});
