/**
 * Stranded runs (issue 33 finding 12), on both store engines: what a holder that died leaves
 * open is claimed again by the stranded-runs sweep (src/digest/stranded.ts) of another process,
 * whatever its kind and day:
 *  - a "Run now" run is taken over and finished (its progress message becomes the digest);
 *  - a scheduled run stranded past local midnight is ended: its sent calls settled, the channel's
 *    notice and the admins told, nothing bought for a day gone by;
 *  - a "Run now" run stranded past its day ends its progress message instead of "page k of n";
 *  - an unclear post whose history check falls after midnight is still checked;
 *  - a check of a ship-by alert removed meanwhile is ended and its sent call settled.
 * The holder's death is the state it leaves in the store and in the Slack stand-in (its lease,
 * its progress message, a call written ahead whose answer never reached the ledger);
 * test/replicas/stranded-posts.test.ts kills a real process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAlertScheduler } from '../../src/alerts/scheduler.js';
import { digestPostKey } from '../../src/digest/posted-once.js';
import { summarize } from '../../src/digest/summarize.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { metadataOf } from '../../src/slack/scheduled-posts.js';
import { chargeIdOf, createChargeRecorder } from '../../src/store/ledger.js';
import type { LeasedRun, Store } from '../../src/store/store.js';
import { ENGINES } from '../helpers/store-engines.js';
import { ADMIN, CHANNEL, type DigestRig, messageText, quietLogger, startDigestRig } from './digest-rig.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** 08:00 in Shanghai on 2026-11-20; the digest is due at 09:00 (01:00Z). */
const START = Date.parse('2026-11-20T00:00:00Z');
const DUE = Date.parse('2026-11-20T01:00:00Z');
/** 00:05 in Shanghai on 2026-11-21: the day of 2026-11-20 has ended. */
const AFTER_MIDNIGHT = Date.parse('2026-11-20T16:05:00Z');
const LEASE_MS = 22_000;

let rig: DigestRig | null = null;
afterEach(async () => {
  await rig?.close();
  rig = null;
});

/** The lease a holder that died had taken (stamped by the store's clock, the rig's). */
const deadLease = () => ({ owner: 'dead-instance', ms: LEASE_MS });

/** A call the dead holder wrote ahead and sent, whose answer never reached the ledger. */
async function sentUnanswered(store: Store, runKey: string, run: LeasedRun, at: number): Promise<string> {
  const chargeId = chargeIdOf(`${runKey}:${run.epoch}`, 0, 0);
  await store.sentCalls.record({
    chargeId,
    runKey,
    epoch: run.epoch,
    source: runKey.startsWith('alert') ? 'alert' : 'digest',
    operation: 'paging-orders',
    edition: 1,
    channelId: CHANNEL,
    correlationId: runKey.replace(':', '-'),
    attempt: 0,
    sentAt: new Date(at),
  });
  // Its request was written to the service (marked sent): settled as sent with no answer (-1).
  await store.sentCalls.markSent(chargeId);
  return chargeId;
}

const ledgerRow = async (store: Store, chargeId: string) =>
  (await store.ledger.list({ from: new Date(0), to: new Date(8.64e15) })).find(
    (e) => e.chargeId === chargeId,
  );

describe.each(ENGINES)('stranded runs (%s)', (engine) => {
  it('"Run now" whose holder died mid-fetch: taken over within a lease, finished once, its sent call settled, its progress message becomes the digest', async () => {
    rig = await startDigestRig({ start: START, engine });
    const sub = await rig.subscribe();
    const created = START + 10 * MINUTE;
    rig.clock.advanceTo(created);
    const run = await rig.store.digests.createManual(
      {
        subscriptionId: sub.id,
        localDate: '2026-11-20',
        windowStart: new Date(created - 24 * HOUR),
        windowEnd: new Date(created),
        requestedBy: ADMIN,
      },
      deadLease(),
    );
    if (!run) throw new Error('no manual run');
    // Its progress message, and the call it had sent when it died.
    const progress = await rig.slack.chat.postMessage({ channel: CHANNEL, text: 'Preparing… page 1 of 1' });
    await rig.store.digests.setMessageTs(run.id, progress.ts ?? '');
    const chargeId = await sentUnanswered(rig.store, `digest:${run.id}`, run, created);

    const other = await rig.instance('instance-b', { leaseMs: LEASE_MS });
    other.scheduler.start();
    await rig.advance(LEASE_MS + 1000);
    const done = await rig.store.digests.run(run.id);
    expect(done).toMatchObject({ state: 'posted', messageTs: progress.ts, attempts: 2 });
    // The dead holder's call in the ledger once (sent, cost unknown), and counted in the run.
    expect(await ledgerRow(rig.store, chargeId)).toMatchObject({ code: -1, points: 0, source: 'digest' });
    expect(done?.calls).toBe(1 + rig.pagesFetched());
    // One message in the channel: the progress message, now the digest.
    const messages = rig.fake.messages(CHANNEL);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.metadata?.event_type).toBe('platdesk_digest');
    expect(messageText(rig.updates().at(-1) ?? ({} as never))).toContain('Orders digest');
    expect(rig.posts()).toHaveLength(1);
  });

  it('a scheduled run stranded past local midnight: ended, its sent call settled, the channel and the admins told, nothing bought', async () => {
    rig = await startDigestRig({ start: START, engine });
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
      deadLease(),
    );
    const chargeId = await sentUnanswered(rig.store, `digest:${claim.run.id}`, claim.run, DUE);

    // Every process was down until after local midnight.
    rig.clock.advanceTo(AFTER_MIDNIGHT);
    const restarted = await rig.instance('restarted', { leaseMs: LEASE_MS });
    restarted.scheduler.start();
    await rig.advance(MINUTE);
    const ended = await rig.store.digests.run(claim.run.id);
    expect(ended).toMatchObject({ state: 'failed', nextAttemptAt: null, calls: 1 });
    expect(ended?.lastError).toContain('its day has ended');
    expect(await ledgerRow(rig.store, chargeId)).toMatchObject({ code: -1, points: 0 });
    expect(rig.pagesFetched()).toBe(0);
    // The channel's notice says why; the admins are told once.
    const notices = rig.posts().filter((c) => !c.body.metadata);
    expect(notices).toHaveLength(1);
    expect(messageText(notices[0] ?? ({} as never))).toContain('its day is over');
    expect(rig.posts(ADMIN)).toHaveLength(1);
    expect(
      rig.fake.messages(CHANNEL).filter((m) => m.metadata?.event_type === 'platdesk_digest'),
    ).toHaveLength(0);
    // Ended once: later wake-ups leave it.
    await rig.advance(HOUR);
    expect(rig.posts()).toHaveLength(1);
    expect(rig.posts(ADMIN)).toHaveLength(1);
  });

  it('"Run now" stranded past its day ends its progress message instead of "page k of n" for ever', async () => {
    rig = await startDigestRig({ start: START, engine });
    const sub = await rig.subscribe();
    const created = START + 10 * MINUTE;
    rig.clock.advanceTo(created);
    const run = await rig.store.digests.createManual(
      {
        subscriptionId: sub.id,
        localDate: '2026-11-20',
        windowStart: new Date(created - 24 * HOUR),
        windowEnd: new Date(created),
        requestedBy: ADMIN,
      },
      deadLease(),
    );
    if (!run) throw new Error('no manual run');
    const progress = await rig.slack.chat.postMessage({ channel: CHANNEL, text: 'Preparing… page 4 of 9' });
    await rig.store.digests.setMessageTs(run.id, progress.ts ?? '');
    rig.clock.advanceTo(AFTER_MIDNIGHT);
    const restarted = await rig.instance('restarted', { leaseMs: LEASE_MS });
    restarted.scheduler.start();
    await rig.advance(MINUTE);
    expect(await rig.store.digests.run(run.id)).toMatchObject({ state: 'failed', nextAttemptAt: null });
    const ended = rig.updates().filter((c) => c.body.ts === progress.ts);
    expect(ended).toHaveLength(1);
    expect(messageText(ended[0] ?? ({} as never))).toContain('its day is over');
    expect(rig.fake.messages(CHANNEL)[0]?.text).not.toContain('page 4 of 9');
    expect(rig.pagesFetched()).toBe(0);
  });

  it('an unclear post whose history check falls after midnight is still checked: found, recorded, not posted again', async () => {
    rig = await startDigestRig({ start: START, engine });
    const sub = await rig.subscribe();
    const lastCall = Date.parse('2026-11-20T15:55:00Z');
    rig.clock.advanceTo(lastCall);
    const claim = await rig.store.digests.claimScheduled(
      {
        subscriptionId: sub.id,
        localDate: '2026-11-20',
        windowStart: new Date(DUE - 24 * HOUR),
        windowEnd: new Date(DUE),
        requestedBy: null,
      },
      { owner: 'a', ms: LEASE_MS },
    );
    const holder = { owner: 'a', epoch: claim.run.epoch };
    const summary = summarize([], {
      window: { from: new Date(DUE - 24 * HOUR), to: new Date(DUE) },
      at: new Date(DUE),
    });
    await rig.store.digests.markPosting(
      claim.run.id,
      { owner: 'a', ms: LEASE_MS, epoch: claim.run.epoch },
      JSON.stringify(summary),
    );
    const accepted = await rig.slack.chat.postMessage({
      channel: CHANNEL,
      text: 'the digest',
      metadata: metadataOf(digestPostKey(claim.run)),
    });
    // Its check is due at 00:10 the next local day (a check backed off, or platdesk down meanwhile).
    const checkAt = Date.parse('2026-11-20T16:10:00Z');
    await rig.store.digests.markUnknown(claim.run.id, holder, {
      error: 'post outcome unknown',
      checkAt: new Date(checkAt),
      now: new Date(lastCall),
    });
    rig.clock.advanceTo(AFTER_MIDNIGHT);
    const restarted = await rig.instance('restarted', { leaseMs: LEASE_MS });
    restarted.scheduler.start();
    await rig.advance(10 * MINUTE);
    expect(await rig.store.digests.run(claim.run.id)).toMatchObject({
      state: 'posted',
      messageTs: accepted.ts,
    });
    expect(rig.fake.messages(CHANNEL)).toHaveLength(1);
    expect(rig.fake.callsTo('conversations.history')).toHaveLength(1);
    expect(rig.posts(ADMIN)).toHaveLength(0);
  });

  it('a check of a ship-by alert removed while its holder was dead: ended, its sent call settled', async () => {
    rig = await startDigestRig({ start: START, engine });
    const r = rig;
    const sub = await r.store.alerts.add({
      ownerId: SANDBOX_FIXTURES.owners.dueSoon,
      shopLabel: 'snacks',
      channelId: CHANNEL,
      withinHours: 6,
      everyMinutes: 60,
      hoursFrom: '00:00',
      hoursTo: '23:59',
      timeZone: 'Asia/Shanghai',
      capPoints: 10_000,
      createdBy: ADMIN,
    });
    const claim = await r.store.alerts.claimCheck(
      { subscriptionId: sub.id, slotAt: new Date(START), localDate: '2026-11-20' },
      deadLease(),
    );
    const chargeId = await sentUnanswered(r.store, `alert:${claim.check.id}`, claim.check, START);
    await r.store.alerts.remove(sub.id, ADMIN);
    const logger = quietLogger();
    const scheduler = createAlertScheduler({
      client: r.plat.client,
      store: r.store,
      publisher: r.alertPublisher,
      priceOf: async () => null,
      charges: createChargeRecorder({ ledger: r.store.ledger, logger }),
      clock: r.clock,
      instanceId: 'alerts-b',
      leaseMs: LEASE_MS,
      logger,
    });
    const stop = r.close;
    r.close = async () => {
      await scheduler.stop();
      await stop();
    };
    scheduler.start();
    for (let i = 0; i < 3; i++) {
      await r.clock.advanceToAsync(r.clock.now() + LEASE_MS);
      for (let k = 0; k < 3; k++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        await scheduler.idle();
      }
    }
    expect(await r.store.alerts.check(claim.check.id)).toMatchObject({
      state: 'failed',
      nextAttemptAt: null,
      calls: 1,
    });
    expect(await ledgerRow(r.store, chargeId)).toMatchObject({ code: -1, source: 'alert' });
    expect(r.pagesFetched()).toBe(0);
    expect(r.posts()).toHaveLength(0);
  });
});
