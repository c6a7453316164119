/**
 * A run in 'posting' never goes to 'failed' on an unclear end (issue 33 finding 4): once a holder
 * may have sent its post, anything that ends the attempt short of a recorded outcome (the store
 * failing to record the post Slack accepted, an error while rendering, a lost lease) goes to the
 * history check, which finds the message and records it. Only Slack's sure refusal of the
 * holder's own post fails the run (nothing of it can be in the channel). Counted at the Slack
 * stand-in, on both store engines, for digests and ship-by alerts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAlertScheduler } from '../../src/alerts/scheduler.js';
import { CLOCK_SKEW_BUDGET_MAX_MS } from '../../src/config.js';
import { POST_SETTLE_MS } from '../../src/digest/posted-once.js';
import { RUN_LEASE_DEFAULTS } from '../../src/digest/run-fence.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/fixtures.js';
import { KEYED_POST_TIMEOUT_MS } from '../../src/slack/scheduled-posts.js';
import { createChargeRecorder } from '../../src/store/ledger.js';
import { ENGINES } from '../helpers/store-engines.js';
import { ADMIN, CHANNEL, type DigestRig, quietLogger, startDigestRig } from './digest-rig.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** 08:00 in Shanghai on 2026-11-20; the digest is due at 09:00 (01:00Z). */
const START = Date.parse('2026-11-20T00:00:00Z');
const DUE = Date.parse('2026-11-20T01:00:00Z');

let rig: DigestRig | null = null;
afterEach(async () => {
  await rig?.close();
  rig = null;
});

/** Channel-level messages in the stand-in carrying a key of this event type. */
const keyed = (r: DigestRig, eventType: string) =>
  r.fake.messages(CHANNEL).filter((m) => m.metadata?.event_type === eventType);

/** Makes the next call of `method` on `target` reject (a store write failing after the side effect). */
function failOnce<T extends object>(target: T, method: keyof T & string, message: string): () => number {
  const original = target[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  let failures = 0;
  (target as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    if (failures === 0) {
      failures += 1;
      throw new Error(message);
    }
    return original.apply(target, args);
  };
  return () => failures;
}

it('the settle delay before a post left open is looked for is longer than a lease, a post timeout and the skew budget together (finding 5)', () => {
  expect(POST_SETTLE_MS).toBeGreaterThan(
    RUN_LEASE_DEFAULTS.leaseMs + KEYED_POST_TIMEOUT_MS + CLOCK_SKEW_BUDGET_MAX_MS,
  );
});

describe.each(ENGINES)('a post whose record fails (%s)', (engine) => {
  it('digest: Slack accepts the post, the markPosted UPDATE fails: the history check finds it, posted once', async () => {
    rig = await startDigestRig({ start: START, engine });
    const sub = await rig.subscribe();
    const failures = failOnce(rig.store.digests, 'markPosted', 'connection terminated unexpectedly');
    rig.scheduler.start();
    await rig.advance(DUE - START);
    expect(failures()).toBe(1);
    expect(keyed(rig, 'platdesk_digest')).toHaveLength(1);
    const left = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');

    // Every retry and check the day could bring.
    await rig.advance(3 * HOUR);
    expect(keyed(rig, 'platdesk_digest')).toHaveLength(1);
    // Not failed (a retry would have posted without looking): its history was read first.
    expect(left?.state).toBe('unknown');
    expect(left?.nextAttemptAt?.getTime()).toBe(DUE + POST_SETTLE_MS);
    expect(rig.posts().filter((c) => c.body.thread_ts === undefined)).toHaveLength(1);
    expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
      state: 'posted',
      messageTs: keyed(rig, 'platdesk_digest')[0]?.ts,
      calls: 1,
    });
    // Nothing to tell anyone: the digest is in its channel; and no page was bought twice.
    expect(rig.posts(ADMIN)).toHaveLength(0);
    expect(rig.pagesFetched()).toBe(1);
  });

  it('digest: an error after markPosting, before the post was sent, goes to the history check, not to failed', async () => {
    rig = await startDigestRig({ start: START, engine });
    const sub = await rig.subscribe();
    const digests = rig.store.digests;
    // The run record is read again right after markPosting: that read fails once.
    const markPosting = digests.markPosting.bind(digests);
    let armed = false;
    digests.markPosting = async (...args) => {
      const moved = await markPosting(...args);
      armed = moved;
      return moved;
    };
    const read = digests.run.bind(digests);
    let failed = 0;
    digests.run = async (id) => {
      if (armed) {
        armed = false;
        failed += 1;
        throw new Error('read timeout');
      }
      return read(id);
    };
    rig.scheduler.start();
    await rig.advance(DUE - START);
    expect(failed).toBe(1);
    expect(keyed(rig, 'platdesk_digest')).toHaveLength(0);
    const left = await rig.store.digests.scheduledRun(sub.id, '2026-11-20');
    expect(left?.state).toBe('unknown');
    expect(left?.nextAttemptAt?.getTime()).toBe(DUE + POST_SETTLE_MS);
    await rig.advance(3 * HOUR);
    expect(keyed(rig, 'platdesk_digest')).toHaveLength(1);
    expect(await rig.store.digests.scheduledRun(sub.id, '2026-11-20')).toMatchObject({
      state: 'posted',
      calls: 1,
    });
    expect(rig.pagesFetched()).toBe(1);
  });

  it('ship-by alert: Slack accepts the alert, the markPosted UPDATE fails: found by the history check, posted once', async () => {
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
    const logger = quietLogger();
    const failures = failOnce(r.store.alerts, 'markPosted', 'connection terminated unexpectedly');
    const scheduler = createAlertScheduler({
      client: r.plat.client,
      store: r.store,
      publisher: r.alertPublisher,
      priceOf: async () => null,
      charges: createChargeRecorder({ ledger: r.store.ledger, logger }),
      clock: r.clock,
      instanceId: 'alerts-a',
      logger,
    });
    const stop = r.close;
    r.close = async () => {
      await scheduler.stop();
      await stop();
    };
    scheduler.start();
    await expect.poll(() => failures(), { timeout: 10_000 }).toBe(1);
    await expect
      .poll(async () => (await r.store.alerts.checkAt(sub.id, new Date(START)))?.state, { timeout: 10_000 })
      .toSatisfy((state) => state !== 'running' && state !== 'posting');
    const left = await r.store.alerts.checkAt(sub.id, new Date(START));
    expect(keyed(r, 'platdesk_ship_by_alert')).toHaveLength(1);
    // Minute by minute through the check and the retries a failure would have brought.
    for (let i = 0; i < 30; i++) {
      await r.clock.advanceToAsync(r.clock.now() + MINUTE);
      for (let k = 0; k < 3; k++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        await scheduler.idle();
      }
    }
    expect(keyed(r, 'platdesk_ship_by_alert')).toHaveLength(1);
    expect(left?.state).toBe('unknown');
    const check = await r.store.alerts.checkAt(sub.id, new Date(START));
    expect(check).toMatchObject({ state: 'posted', messageTs: keyed(r, 'platdesk_ship_by_alert')[0]?.ts });
    const orders = await r.store.alerts.orders(sub.id, ['alerted', 'pending', 'unknown']);
    expect(orders.length).toBeGreaterThan(0);
    expect(orders.every((o) => o.state === 'alerted' && o.messageTs === check?.messageTs)).toBe(true);
  });
});
