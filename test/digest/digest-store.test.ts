/**
 * The digest run records: one scheduled run per subscription and local date, claimed under a
 * lease by exactly one of several connections (two threads racing on one file), taken over only
 * after the lease expires, retried only when due, approved once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewDigestRun } from '../../src/store/digests.js';
import type { Lease } from '../../src/store/runs.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { type DigestRaceInput, raceClaims } from './claim-race.js';
import type { DigestRaceMessage } from './claim-race-worker.js';

const T0 = Date.parse('2026-11-20T01:00:00Z');
const MINUTE = 60_000;
const dirs: string[] = [];
const stores: Store[] = [];

function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'platdesk-digest-store-'));
  dirs.push(dir);
  return join(dir, 'platdesk.sqlite');
}
function open(path = ':memory:'): Store {
  const store = openSqliteStore(path, { now: () => new Date(T0) });
  stores.push(store);
  return store;
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const lease = (owner: string, at: number, ms = 10 * MINUTE): Lease => ({ owner, now: new Date(at), ms });
const runInput = (subscriptionId: number, localDate = '2026-11-20'): NewDigestRun => ({
  subscriptionId,
  localDate,
  windowStart: new Date(T0 - 24 * 60 * MINUTE),
  windowEnd: new Date(T0),
  requestedBy: null,
});
function subscribe(store: Store) {
  return store.digests.add({
    ownerId: '2200001002',
    shopLabel: 'tea',
    channelId: 'C1234',
    localTime: '09:00',
    timeZone: 'Asia/Shanghai',
    createdBy: 'UADMIN',
  });
}

describe('digest subscriptions', () => {
  it('add, list, remove (soft, audited)', () => {
    const store = open();
    const a = subscribe(store);
    const b = subscribe(store);
    expect(store.digests.list().map((s) => s.id)).toEqual([a.id, b.id]);
    expect(store.digests.remove(a.id, 'UADMIN')).toBe(true);
    expect(store.digests.remove(a.id, 'UADMIN')).toBe(false);
    expect(store.digests.get(a.id)).toBeNull();
    expect(store.digests.list().map((s) => s.id)).toEqual([b.id]);
    expect(store.audit.list(10).map((r) => r.action)).toEqual(['digest.remove', 'digest.add', 'digest.add']);
  });
});

describe('digest runs', () => {
  it('one scheduled run per local date; a live lease cannot be taken, an expired one can', () => {
    const store = open();
    const sub = subscribe(store);
    const first = store.digests.claimScheduled(runInput(sub.id), lease('a', T0));
    expect(first).toMatchObject({ claimed: true, how: 'new' });
    expect(store.digests.claimScheduled(runInput(sub.id), lease('b', T0 + 9 * MINUTE))).toMatchObject({
      claimed: false,
      orphaned: false,
    });
    // Manual runs do not count against the day.
    store.digests.createManual(runInput(sub.id), lease('a', T0));
    const takeover = store.digests.claimScheduled(runInput(sub.id), lease('b', T0 + 10 * MINUTE));
    expect(takeover).toMatchObject({ claimed: true, how: 'takeover' });
    expect(takeover.run).toMatchObject({ leaseOwner: 'b', attempts: 2 });
    // The old holder can no longer renew, post or fail it.
    const id = takeover.run.id;
    expect(store.digests.renew(id, lease('a', T0 + 11 * MINUTE))).toBe(false);
    expect(store.digests.markPosting(id, lease('a', T0 + 11 * MINUTE), '{}')).toBe(false);
    expect(store.digests.markFailed(id, 'a', { error: 'x', nextAttemptAt: null, now: new Date(T0) })).toBe(
      false,
    );
    expect(store.digests.markPosting(id, lease('b', T0 + 11 * MINUTE), '{"v":1}')).toBe(true);
    expect(store.digests.markPosted(id, 'b', '1700000000.000001', new Date(T0 + 11 * MINUTE))).toBe(true);
    expect(store.digests.claimScheduled(runInput(sub.id), lease('c', T0 + 99 * MINUTE)).claimed).toBe(false);
    expect(store.digests.previousPosted(sub.id, '2026-11-21')?.id).toBe(id);
    expect(store.digests.previousPosted(sub.id, '2026-11-20')).toBeNull();
    // Another date is another run.
    expect(store.digests.claimScheduled(runInput(sub.id, '2026-11-21'), lease('c', T0)).claimed).toBe(true);
  });

  it('a failed run is claimed again only when its retry is due, and never once given up', () => {
    const store = open();
    const sub = subscribe(store);
    const { run } = store.digests.claimScheduled(runInput(sub.id), lease('a', T0));
    const next = new Date(T0 + 5 * MINUTE);
    expect(
      store.digests.markFailed(run.id, 'a', { error: '302', nextAttemptAt: next, now: new Date(T0) }),
    ).toBe(true);
    expect(store.digests.claimScheduled(runInput(sub.id), lease('b', T0 + 4 * MINUTE)).claimed).toBe(false);
    const retry = store.digests.claimScheduled(runInput(sub.id), lease('b', T0 + 5 * MINUTE));
    expect(retry).toMatchObject({ claimed: true, how: 'retry' });
    expect(retry.run).toMatchObject({ attempts: 2, nextAttemptAt: null, lastError: '302' });
    store.digests.markFailed(run.id, 'b', { error: '302', nextAttemptAt: null, now: new Date(T0) });
    expect(store.digests.claimScheduled(runInput(sub.id), lease('c', T0 + 999 * MINUTE)).claimed).toBe(false);
  });

  it('awaiting approval: one approval wins; release hands a run over at once', () => {
    const store = open();
    const sub = subscribe(store);
    const { run } = store.digests.claimScheduled(runInput(sub.id), lease('a', T0));
    expect(store.digests.awaitApproval(run.id, 'a', 240, new Date(T0))).toBe(true);
    expect(store.digests.claimApproved(run.id, lease('b', T0), 'UADMIN')).toMatchObject({
      state: 'running',
      requestedBy: 'UADMIN',
      estimatePoints: 240,
    });
    expect(store.digests.claimApproved(run.id, lease('c', T0), 'UADMIN2')).toBeNull();
    expect(store.digests.release(run.id, 'b', new Date(T0 + MINUTE))).toBe(true);
    expect(store.digests.claimScheduled(runInput(sub.id), lease('c', T0 + MINUTE))).toMatchObject({
      claimed: true,
      how: 'takeover',
    });
  });

  it('two threads on one file claiming the same runs at once: exactly one wins each', async () => {
    const path = tempPath();
    const store = open(path);
    const sub = subscribe(store);
    const dates = Array.from({ length: 30 }, (_, i) => `2026-12-${String(i + 1).padStart(2, '0')}`);
    const input: DigestRaceInput = {
      path,
      subscriptionId: sub.id,
      dates,
      contenders: 2,
      arrivals: new Int32Array(new SharedArrayBuffer(4)),
    };
    const [ours, theirs] = await raceAgainstWorker(open(path), input);
    dates.forEach((date, i) => {
      expect([ours?.[i], theirs?.[i]].filter(Boolean), `claims of ${date} that won`).toHaveLength(1);
      expect(store.digests.scheduledRun(sub.id, date)?.attempts).toBe(1);
    });
  });
});

async function raceAgainstWorker(store: Store, input: DigestRaceInput): Promise<boolean[][]> {
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const script = new URL('./claim-race-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script)}); });`;
  const worker = new Worker(bootstrap, { eval: true, workerData: { ...input, owner: 'worker' } });
  try {
    let ready: () => void = () => {};
    const isReady = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const theirs = new Promise<boolean[]>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('exit', (code) =>
        reject(new Error(`digest race worker exited with ${code} before answering`)),
      );
      worker.on('message', (message: DigestRaceMessage) => {
        if (message.type === 'ready') ready();
        else resolve(message.wins);
      });
    });
    await Promise.race([isReady, theirs]);
    const ours = raceClaims(store, input, 'main');
    return [ours, await theirs];
  } finally {
    await worker.terminate();
  }
}
