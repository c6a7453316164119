/**
 * The scheduler with an injected clock against the sandbox and the fake Slack: on time in the
 * subscription's zone (with and without DST), exactly once a local day, caught up at start-up,
 * taken over after a crash or a stop in the middle of a run, never doubled by other instances
 * on the same database, failures told to the channel once and retried with backoff, the cost
 * cap asking an admin first, and the ledger recording what the digest cost. Every case runs on
 * SQLite and on PostgreSQL (its store answers over a socket, so the wake loop's timers are set
 * from absolute deadlines and the fake clock waits for the schedulers between timers).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_POINTS_SETTING } from '../../src/digest/runner.js';
import { parseSummary, summarize } from '../../src/digest/summarize.js';
import { buildOrderBook, SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { ENGINES } from '../helpers/store-engines.js';
import { ADMIN, CHANNEL, type DigestRig, messageText, startDigestRig } from './digest-rig.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** 08:00 in Shanghai on 2026-11-20; the digest is due at 09:00 (01:00Z). */
const START = Date.parse('2026-11-20T00:00:00Z');
const DUE = Date.parse('2026-11-20T01:00:00Z');

describe.each(ENGINES)('digest scheduler (%s store)', (engine) => {
  let rig: DigestRig | null = null;
  afterEach(async () => {
    await rig?.close();
    rig = null;
  });

  describe('scheduling', () => {
    it('posts at 09:00 Asia/Shanghai, once that day, again the next day with the comparison', async () => {
      rig = await startDigestRig({ engine, start: START });
      const sub = await rig.subscribe();
      rig.scheduler.start();
      await rig.advance(DUE - START - MINUTE);
      expect(rig.posts()).toHaveLength(0);
      expect(rig.pagesFetched()).toBe(0);

      await rig.advance(MINUTE);
      expect(rig.posts()).toHaveLength(1);
      const run = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');
      expect(run).toMatchObject({ state: 'posted', attempts: 1, calls: 1, chargedPoints: 2 });
      expect(run?.createdAt.getTime()).toBe(DUE);
      expect(run?.windowStart.getTime()).toBe(DUE - 24 * HOUR);
      expect(run?.windowEnd.getTime()).toBe(DUE);
      // The small owner's orders of the window, from the fixture.
      const expected = (buildOrderBook(START).get(SANDBOX_FIXTURES.owners.small) ?? []).filter(
        (o) => o.confirm_time >= DUE - 24 * HOUR && o.confirm_time < DUE,
      ).length;
      expect(parseSummary(run?.summaryJson ?? null)?.orders).toBe(expected);
      const text = messageText(rig.posts()[0] ?? ({} as never));
      expect(text).toContain('Daily orders · tea · 2026-11-20');
      expect(text).toContain('This digest cost 2 points');
      // Charges in the ledger: source digest, no user.
      // (The client stamps charges with the wall clock, not the fake one: any time will do here.)
      const ledger = await rig.store.ledger.list({ from: new Date(0), to: new Date(8.64e15) });
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ source: 'digest', userId: null, channelId: CHANNEL, points: 2 });

      await rig.advance(23 * HOUR);
      expect(rig.posts()).toHaveLength(1);
      await rig.advance(HOUR);
      expect(rig.posts()).toHaveLength(2);
      expect(messageText(rig.posts()[1] ?? ({} as never))).toContain('vs 2026-11-20');
      expect(rig.pagesFetched()).toBe(2);
    });

    it('catches a missed run up at start-up the same local day, but not a day that has passed', async () => {
      rig = await startDigestRig({ engine, start: START });
      const sub = await rig.subscribe();
      // Down from before 09:00 until 11:30.
      rig.clock.advanceTo(DUE + 150 * MINUTE);
      rig.scheduler.start();
      await rig.idle();
      expect(rig.posts()).toHaveLength(1);
      expect((await rig.store.digests.scheduledRun(sub.id, '2026-11-20'))?.windowEnd.getTime()).toBe(DUE);
      await rig.scheduler.stop();

      // Down the whole next day, back on the day after at 08:00: nothing to catch up before 09:00.
      const back = await rig.instance('instance-b', { store: rig.store });
      rig.clock.advanceTo(DUE + 47 * HOUR);
      back.scheduler.start();
      await rig.idle();
      expect(rig.posts()).toHaveLength(1);
      expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-21')).toBeNull();
      await rig.advance(HOUR);
      expect(rig.posts()).toHaveLength(2);
      expect((await rig.store.digests.scheduledRun(sub.id, '2026-11-22'))?.state).toBe('posted');
    });

    it('a subscription added after its time today starts tomorrow', async () => {
      rig = await startDigestRig({ engine, start: DUE + HOUR });
      await rig.subscribe();
      rig.scheduler.start();
      await rig.advance(22 * HOUR);
      expect(rig.posts()).toHaveLength(0);
      await rig.advance(2 * HOUR);
      expect(rig.posts()).toHaveLength(1);
    });

    it('America/New_York 02:30 across spring forward: 02:30 EST, 03:30 EDT (02:30 does not exist), 02:30 EDT', async () => {
      const start = Date.parse('2026-03-07T05:00:00Z'); // Saturday 00:00 EST
      rig = await startDigestRig({ engine, start });
      const sub = await rig.subscribe({ localTime: '02:30', timeZone: 'America/New_York' });
      rig.scheduler.start();
      await rig.advance(72 * HOUR);
      const runs = await Promise.all(
        ['2026-03-07', '2026-03-08', '2026-03-09'].map((d) => rig?.store.digests.scheduledRun(sub.id, d)),
      );
      expect(runs.map((r) => r?.createdAt.toISOString())).toEqual([
        '2026-03-07T07:30:00.000Z',
        '2026-03-08T07:30:00.000Z',
        '2026-03-09T06:30:00.000Z',
      ]);
      // Each window runs from yesterday's due time to today's, so they tile with no gap or overlap:
      // 24 h, 24 h (02:30 EST → 03:30 EDT), 23 h (03:30 EDT → 02:30 EDT).
      expect(runs.map((r) => (r ? (r.windowEnd.getTime() - r.windowStart.getTime()) / HOUR : null))).toEqual([
        24, 24, 23,
      ]);
      expect(rig.posts()).toHaveLength(3);
    });
  });

  describe('exactly once across restarts and instances', () => {
    it('a run left running by a crashed instance is taken over once its lease expires: one post', async () => {
      rig = await startDigestRig({ engine, start: START });
      const sub = await rig.subscribe();
      rig.clock.advanceTo(DUE);
      const crashed = await rig.store.digests.claimScheduled(
        {
          subscriptionId: sub.id,
          localDate: '2026-11-20',
          windowStart: new Date(DUE - 24 * HOUR),
          windowEnd: new Date(DUE),
          requestedBy: null,
        },
        { owner: 'crashed-instance', ms: 10 * MINUTE },
      );
      expect(crashed.claimed).toBe(true);
      rig.clock.advanceTo(DUE + 2 * MINUTE);
      rig.scheduler.start();
      await rig.idle();
      // The lease still holds: nothing yet, and the scheduler wakes by the lease's expiry.
      expect(rig.posts()).toHaveLength(0);
      expect(rig.scheduler.nextWakeAt()).toBeLessThanOrEqual(DUE + 10 * MINUTE);
      await rig.advance(8 * MINUTE);
      expect(rig.posts()).toHaveLength(1);
      expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
        state: 'posted',
        attempts: 2,
        leaseOwner: null,
      });
      await rig.advance(HOUR);
      expect(rig.posts()).toHaveLength(1);
    });

    it('a stop in the middle of a fetch releases the run; the restarted instance takes it over at once', async () => {
      rig = await startDigestRig({ engine, start: START });
      const sub = await rig.subscribe({ ownerId: SANDBOX_FIXTURES.owners.busy });
      // Slow pages, so the stop lands between two pages of the busy owner's digest.
      rig.plat.sandbox.setFaults([{ kind: 'latency', ms: 150 }]);
      rig.clock.advanceTo(DUE);
      rig.scheduler.start();
      while (rig.plat.sandbox.stats().callsByOperation['paging-orders'] < 1)
        await new Promise((r) => setTimeout(r, 5));
      await rig.scheduler.stop();
      const left = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');
      expect(left).toMatchObject({ state: 'running', attempts: 1 });
      expect(left?.leaseExpiresAt?.getTime()).toBe(DUE);
      expect(rig.posts()).toHaveLength(0);

      rig.plat.sandbox.setFaults([]);
      const restarted = await rig.instance('restarted', { store: rig.store });
      restarted.scheduler.start();
      await rig.idle();
      expect(rig.posts()).toHaveLength(1);
      expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
        state: 'posted',
        attempts: 2,
      });
    });

    it('a stop between posting and its record, the post never reached Slack: the history says so, posted once', async () => {
      rig = await startDigestRig({ engine, start: START });
      const sub = await rig.subscribe();
      rig.clock.advanceTo(DUE);
      const claim = await rig.store.digests.claimScheduled(
        {
          subscriptionId: sub.id,
          localDate: '2026-11-20',
          windowStart: new Date(DUE - 24 * HOUR),
          windowEnd: new Date(DUE),
          requestedBy: null,
        },
        { owner: 'crashed-instance', ms: MINUTE },
      );
      const lease = { owner: 'crashed-instance', ms: MINUTE, epoch: claim.run.epoch };
      const summary = summarize([], {
        window: { from: new Date(DUE - 24 * HOUR), to: new Date(DUE) },
        at: new Date(DUE),
      });
      expect(await rig.store.digests.markPosting(claim.run.id, lease, JSON.stringify(summary))).toBe(true);
      rig.scheduler.start();
      await rig.advance(10 * MINUTE);
      // Read the history (posted-once.test.ts: what it finds is recorded), found nothing: posted once.
      expect(rig.fake.callsTo('conversations.history')).toHaveLength(1);
      expect(rig.posts()).toHaveLength(1);
      expect(rig.posts(ADMIN)).toHaveLength(0);
      expect(rig.pagesFetched()).toBe(0);
      expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
        state: 'posted',
        messageTs: rig.fake.messages(CHANNEL)[0]?.ts,
      });
    });

    it('three instances, each with its own store on one database, at once: exactly one chat.postMessage', async () => {
      rig = await startDigestRig({ engine, start: START, shared: true });
      const sub = await rig.subscribe({ ownerId: SANDBOX_FIXTURES.owners.busy });
      const b = await rig.instance('instance-b');
      const c = await rig.instance('instance-c');
      rig.scheduler.start();
      b.scheduler.start();
      c.scheduler.start();
      await rig.advance(DUE - START);
      await rig.advance(2 * HOUR);
      // One digest, and one chart in its thread (issue 26): the losers posted neither.
      expect(rig.posts()).toHaveLength(1);
      expect(rig.charts()).toHaveLength(1);
      expect(rig.fake.callsTo('chat.postMessage')).toHaveLength(2);
      const run = await b.store.digests.scheduledRun(sub.id, '2026-11-20');
      expect(run).toMatchObject({ state: 'posted', attempts: 1 });
      // Every page once: the losers fetched nothing.
      expect(rig.pagesFetched()).toBe(run?.calls);
      // And the three instances agree the next day too.
      await rig.advance(22 * HOUR);
      expect(rig.posts()).toHaveLength(2);
      expect(rig.charts()).toHaveLength(2);
    }, 60_000); // A day for three schedulers, each its own pool on PostgreSQL: slow on a loaded host.
  });

  describe('failures', () => {
    const cases = [
      {
        name: '302 shop unauthorized',
        fault: { kind: 'code', code: 302 } as const,
        reason: 'has not authorized',
        alert: 'failed (attempt 1)',
      },
      {
        name: '401 token refused',
        fault: { kind: 'code', code: 401 } as const,
        reason: 'access token is not valid',
        alert: 'access token was refused',
      },
      {
        name: '204 no calls left',
        fault: { kind: 'code', code: 204, msg: 'not enough calls left' } as const,
        reason: 'out of balance',
        alert: 'out of calls or balance',
      },
      {
        name: 'a timeout',
        fault: { kind: 'hang' } as const,
        reason: 'did not answer in time',
        alert: 'failed (attempt 1)',
      },
    ];
    for (const c of cases) {
      it(`${c.name}: one notice in the channel with the reason, one admin alert, then a retry in 5 min posts`, async () => {
        rig = await startDigestRig({ engine, start: START, plat: { timeouts: { deadlineMs: 300 } } });
        const sub = await rig.subscribe();
        rig.plat.sandbox.setFaults([{ ...c.fault, count: 1, operations: ['paging-orders'] }]);
        rig.scheduler.start();
        await rig.advance(DUE - START);
        const notices = rig.posts();
        expect(notices).toHaveLength(1);
        expect(messageText(notices[0] ?? ({} as never))).toContain(c.reason);
        expect(messageText(notices[0] ?? ({} as never))).toContain('Trying again at 09:05');
        const alerts = rig.posts(ADMIN);
        expect(alerts).toHaveLength(1);
        expect(messageText(alerts[0] ?? ({} as never))).toContain(c.alert);
        expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
          state: 'failed',
          attempts: 1,
        });

        await rig.advance(4 * MINUTE);
        expect(rig.posts()).toHaveLength(1);
        await rig.advance(MINUTE);
        const posts = rig.posts();
        expect(posts).toHaveLength(2);
        expect(messageText(posts[1] ?? ({} as never))).toContain('Daily orders · tea');
        // The notice now says the digest was posted; no second notice, no second alert.
        expect(messageText(rig.updates().at(-1) ?? ({} as never))).toContain('was posted after a retry');
        expect(rig.posts(ADMIN)).toHaveLength(1);
        expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
          state: 'posted',
          attempts: 2,
        });
      });
    }

    it('backs off 5, 15, 45 min, updates its one notice, and gives up for the day with a second alert', async () => {
      rig = await startDigestRig({ engine, start: START });
      const sub = await rig.subscribe({ ownerId: SANDBOX_FIXTURES.owners.unauthorized });
      rig.scheduler.start();
      await rig.advance(DUE - START);
      const times = [0, 5, 15, 45];
      const attemptsAt: number[] = [];
      for (const wait of times) {
        await rig.advance(wait * MINUTE);
        attemptsAt.push(rig.pagesFetched());
      }
      expect(attemptsAt).toEqual([1, 2, 3, 4]);
      await rig.advance(12 * HOUR);
      expect(rig.pagesFetched()).toBe(4);
      const run = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');
      expect(run).toMatchObject({ state: 'failed', attempts: 4, nextAttemptAt: null });
      expect(rig.posts()).toHaveLength(1);
      expect(rig.updates()).toHaveLength(3);
      expect(messageText(rig.updates().at(-1) ?? ({} as never))).toContain('No more attempts today');
      const alerts = rig.posts(ADMIN).map((a) => messageText(a));
      expect(alerts).toHaveLength(2);
      expect(alerts[1]).toContain('No more attempts today');
      // The next day starts afresh (now 22:05; 09:01 tomorrow).
      await rig.advance(11 * HOUR - 4 * MINUTE);
      expect(rig.pagesFetched()).toBe(5);
    });

    it('a post Slack refuses is retried from the stored summary, without fetching (or paying) again', async () => {
      rig = await startDigestRig({ engine, start: START });
      const sub = await rig.subscribe();
      rig.fake.failNext('chat.postMessage', { error: 'not_in_channel' });
      rig.scheduler.start();
      await rig.advance(DUE - START);
      expect(rig.pagesFetched()).toBe(1);
      expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
        state: 'failed',
        attempts: 1,
      });
      expect(messageText(rig.posts(ADMIN)[0] ?? ({} as never))).toContain(
        'Slack refused the message: platdesk is not a member of the channel (invite it)',
      );
      await rig.advance(5 * MINUTE);
      expect(rig.pagesFetched()).toBe(1);
      expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
        state: 'posted',
        attempts: 2,
        chargedPoints: 2,
      });
      // The refused post (recorded by the fake Slack), the notice, the digest.
      expect(rig.posts().map((p) => messageText(p).includes('Daily orders'))).toEqual([true, false, true]);
    });

    it('a retry that would fall after local midnight is not planned', async () => {
      rig = await startDigestRig({ engine, start: Date.parse('2026-11-20T15:00:00Z') });
      await rig.subscribe({ ownerId: SANDBOX_FIXTURES.owners.unauthorized, localTime: '23:50' });
      rig.scheduler.start();
      await rig.advance(2 * HOUR);
      // 23:50 fails, 23:55 fails; the next would be 00:10, the next day: given up.
      expect(rig.pagesFetched()).toBe(2);
      expect(messageText(rig.updates().at(-1) ?? ({} as never))).toContain('No more attempts today');
    });
  });

  describe('cost cap', () => {
    it('over the cap by the configured price: no call, the admins are asked; Run anyway posts once', async () => {
      rig = await startDigestRig({ engine, start: START, price: async () => 2 });
      await rig.store.settings.set(MAX_POINTS_SETTING, 1, ADMIN);
      const sub = await rig.subscribe();
      rig.scheduler.start();
      await rig.advance(DUE - START + HOUR);
      expect(rig.pagesFetched()).toBe(0);
      expect(rig.posts()).toHaveLength(0);
      const asks = rig.posts(ADMIN);
      expect(asks).toHaveLength(1);
      const ask = asks[0]?.body as { blocks: { elements?: { action_id: string; value: string }[] }[] };
      const buttonEl = ask.blocks
        .flatMap((b) => b.elements ?? [])
        .find((e) => e.action_id === 'platdesk.digest.run_anyway');
      const run = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');
      expect(run).toMatchObject({ state: 'awaiting_approval', estimatePoints: 2 });
      expect(buttonEl?.value).toBe(String(run?.id));
      expect(messageText(asks[0] ?? ({} as never))).toContain('over the cap of 1 point');

      const approved = await rig.scheduler.approve(run?.id ?? 0, ADMIN);
      expect(approved.kind).toBe('posted');
      expect(rig.posts()).toHaveLength(1);
      expect(rig.pagesFetched()).toBe(1);
      // A second click (or another admin's) does nothing.
      expect((await rig.scheduler.approve(run?.id ?? 0, ADMIN)).kind).toBe('already_handled');
      expect(rig.posts()).toHaveLength(1);
      expect(rig.pagesFetched()).toBe(1);
    });

    it('price unknown: the first page tells the size; over the cap, the rest is not fetched', async () => {
      // Orders up to a minute before the due time: the window holds a full day of the busy owner's.
      rig = await startDigestRig({ engine, start: DUE - MINUTE });
      await rig.store.settings.set(MAX_POINTS_SETTING, 3, ADMIN);
      const sub = await rig.subscribe({ ownerId: SANDBOX_FIXTURES.owners.busy });
      rig.scheduler.start();
      await rig.advance(MINUTE);
      // ~117 orders: 2 pages × 2 points = 4 > 3.
      expect(rig.pagesFetched()).toBe(1);
      expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
        state: 'awaiting_approval',
        estimatePoints: 4,
        chargedPoints: 2,
      });
      expect(rig.posts(ADMIN)).toHaveLength(1);
    });
  });
});
