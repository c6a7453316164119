/**
 * Redis-engine-only tests (beside the shared contract suite): several processes with their own
 * connections against one real Redis and the sandbox, a holder killed with SIGKILL, and Redis
 * killed (every key lost) and restarted. The sandbox's own sliding-window counter is the judge of
 * "at most 10 calls in any second".
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PlatUnavailableError } from '../../src/plat/errors.js';
import type { Limiter } from '../../src/plat/limiter.js';
import { createRedisLimiter, type RedisLimiterOptions } from '../../src/plat/redis-limiter.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { freePort } from '../helpers/free-port.js';
import type { WorkerInput, WorkerMessage } from '../helpers/redis-limiter-worker.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type Call, maxCallsMeetingAnyWindow } from './limiter-contract.js';

const WORKER = fileURLToPath(new URL('../helpers/redis-limiter-worker.ts', import.meta.url));
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Worker {
  child: ChildProcess;
  messages: (WorkerMessage & { receivedAt: number })[];
  next(type: WorkerMessage['type'], timeoutMs?: number): Promise<WorkerMessage>;
}

const workers: Worker[] = [];
const limiters: Limiter[] = [];

function startWorker(input: WorkerInput): Worker {
  const child = fork(WORKER, [JSON.stringify(input)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const messages: Worker['messages'] = [];
  const waiting: { type: string; resolve: (m: WorkerMessage) => void }[] = [];
  child.on('message', (m: WorkerMessage) => {
    messages.push({ ...m, receivedAt: now() });
    for (const w of waiting.filter((x) => x.type === m.type)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(m);
    }
  });
  const worker: Worker = {
    child,
    messages,
    next: (type, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`worker sent no '${type}' in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiting.push({
          type,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      }),
  };
  workers.push(worker);
  return worker;
}

function limiter(options: RedisLimiterOptions): Limiter {
  const l = createRedisLimiter(options);
  limiters.push(l);
  return l;
}

const results = (w: Worker) => w.messages.filter((m) => m.type === 'result');

let redis: RedisServer;
let sandbox: Sandbox;
let baseUrl: string;

beforeAll(async () => {
  redis = await startRedisServer();
  sandbox = createSandbox();
  baseUrl = await sandbox.listen(0);
});
afterEach(async () => {
  for (const w of workers.splice(0)) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await Promise.all(limiters.splice(0).map((l) => l.stop()));
  // A fresh, empty Redis for the next test.
  await redis.kill();
  await redis.start();
  sandbox.reset();
});
afterAll(async () => {
  await sandbox?.close();
  await redis?.close();
});

/** Settles the epoch of a fresh key set (its fence) so the workers join a running limiter. */
async function primed(options: RedisLimiterOptions): Promise<void> {
  const primer = limiter(options);
  await primer.ready();
  await primer.stop();
}

describe('Redis limiter across processes', () => {
  it('three processes with their own connections: the sandbox counts at most 10 calls in any second', async () => {
    const options = { url: redis.url, keyPrefix: `t:${randomUUID()}`, deadlineMs: 3000, heartbeatMs: 200 };
    await primed(options);
    const three = [0, 1, 2].map(() =>
      startWorker({ mode: 'calls', limiter: options, baseUrl, count: 20, concurrency: 10 }),
    );
    await Promise.all(three.map((w) => w.next('ready')));
    const began = now();
    for (const w of three) w.child.send('go');
    await Promise.all(three.map((w) => w.next('done', 30_000)));
    const elapsed = now() - began;

    for (const w of three) expect(results(w).every((r) => r.type === 'result' && r.ok)).toBe(true);
    const stats = sandbox.stats();
    expect(stats.calls).toBe(60);
    expect(stats.maxInWindow).toBeLessThanOrEqual(10);
    expect(stats.violations).toBe(0);
    // Shared, not three limits of 10/s side by side: 60 calls need five more rounds of ≥ 1010 ms.
    expect(elapsed).toBeGreaterThanOrEqual(5 * 1010);
  });

  it('a holder killed with SIGKILL: its slots come back a call deadline + window + margin after their grant, not before', async () => {
    const options = {
      url: redis.url,
      keyPrefix: `t:${randomUUID()}`,
      deadlineMs: 600,
      heartbeatMs: 100,
      maxCalls: 2,
      windowMs: 200,
      safetyMarginMs: 20,
    };
    const mine = limiter(options);
    await mine.ready();
    const holder = startWorker({ mode: 'hold', limiter: options, holds: 2 });
    const holding = (await holder.next('holding')) as Extract<WorkerMessage, { type: 'holding' }>;
    holder.child.kill('SIGKILL');

    const asked = now();
    let startedAt = Number.NaN;
    await mine.schedule(async () => {
      startedAt = now();
    });
    const expiry = Math.max(...holding.grantedAt) + 600 + 220;
    expect(asked).toBeLessThan(expiry);
    expect(startedAt).toBeGreaterThanOrEqual(Math.min(...holding.grantedAt) + 600 + 220 - 5);
    expect(startedAt - expiry).toBeLessThan(1500);
  });

  it('a holder killed with SIGKILL mid-call under a long deadline: its renewed leases lapse a lease TTL + window after its death', async () => {
    const options = {
      url: redis.url,
      keyPrefix: `t:${randomUUID()}`,
      deadlineMs: 20_000,
      leaseTtlMs: 1000,
      heartbeatMs: 100,
      maxCalls: 2,
      windowMs: 200,
      safetyMarginMs: 20,
    };
    // A new key set is fenced for a deadline + window: let a short-deadline process start it.
    await primed({ ...options, deadlineMs: 500 });
    const mine = limiter(options);
    await mine.ready();
    const holder = startWorker({ mode: 'hold', limiter: options, holds: 2 });
    await holder.next('holding');
    // Held well past the first lease TTL: the heartbeats renewed the leases.
    await sleep(2000);
    const probe = mine.schedule(async () => now(), { priority: 'interactive' });
    let early = true;
    void probe.then(() => {
      early = false;
    });
    await sleep(300);
    expect(early).toBe(true);
    const killedAt = now();
    holder.child.kill('SIGKILL');
    const startedAt = await probe;
    // Its last renewal was at most a heartbeat before the kill: TTL + window + margin after that.
    expect(startedAt - killedAt).toBeGreaterThanOrEqual(1000 + 220 - 100 - 5);
    expect(startedAt - killedAt).toBeLessThan(1000 + 220 + 1500);
  });

  it('a preparation stalled past its lease’s cap (a row lock, a pool connection): its call is not sent on that lease, so another process’s calls never make maxCalls + 1 in a window', async () => {
    const options = {
      url: redis.url,
      keyPrefix: `t:${randomUUID()}`,
      deadlineMs: 300,
      heartbeatMs: 50,
      maxCalls: 2,
      windowMs: 200,
      safetyMarginMs: 20,
    };
    // The lease's cap: granted + 110 (stale grant) + 300 (deadline), then a window + margin.
    const stalled = limiter(options);
    const other = limiter(options);
    await Promise.all([stalled.ready(), other.ready()]);
    const calls: Call[] = [];
    const task = (label: string) => async () => {
      const call: Call = { label, priority: 'interactive', start: now(), settle: Number.NaN };
      calls.push(call);
      await sleep(10);
      call.settle = now();
      return label;
    };
    const preparations: number[] = [];
    let granted: () => void = () => undefined;
    const firstGrant = new Promise<void>((resolve) => {
      granted = resolve;
    });
    const late = stalled.schedule(task('late'), {
      prepare: async () => {
        preparations.push(now());
        granted();
        // The first preparation outlives the lease (1200 ms against 630); the next is quick.
        if (preparations.length === 1) await sleep(1200);
      },
    });
    await firstGrant;
    const busy = Array.from({ length: 16 }, (_, i) => other.schedule(task(`o${i}`)));
    await Promise.all([late, ...busy]);

    expect(calls).toHaveLength(17);
    expect(maxCallsMeetingAnyWindow(calls, options.windowMs)).toBeLessThanOrEqual(2);
    expect(preparations.length).toBeGreaterThanOrEqual(2);
    const sent = calls.find((c) => c.label === 'late')?.start ?? Number.NaN;
    expect(sent - (preparations.at(-1) ?? 0)).toBeLessThan(110 + 150);
  });

  it('interactive jobs of one process go ahead of bulk jobs waiting in another', async () => {
    const options = {
      url: redis.url,
      keyPrefix: `t:${randomUUID()}`,
      deadlineMs: 1000,
      heartbeatMs: 100,
      maxCalls: 3,
      interactiveReserve: 1,
      windowMs: 200,
      safetyMarginMs: 20,
    };
    const digests = limiter(options);
    const people = limiter(options);
    await Promise.all([digests.ready(), people.ready()]);
    const starts: { label: string; at: number }[] = [];
    const job = (label: string) => async () => {
      starts.push({ label, at: now() });
      await sleep(30);
    };
    const bulk = Array.from({ length: 10 }, (_, i) => digests.schedule(job(`b${i}`), { priority: 'bulk' }));
    await sleep(50);
    const interactive = ['i0', 'i1', 'i2'].map((label) => people.schedule(job(label)));
    await Promise.all([...bulk, ...interactive]);

    const at = (label: string) => starts.find((s) => s.label === label)?.at ?? Number.NaN;
    // i0 takes the reserved slot at once; i1 and i2 wait, and no bulk job starts before them.
    expect(at('i0') - at('b0')).toBeLessThan(50 + 300);
    const lastInteractive = Math.max(at('i1'), at('i2'));
    const bulkBetween = starts.filter(
      (s) => s.label.startsWith('b') && s.at > at('i0') && s.at < lastInteractive,
    );
    expect(bulkBetween).toEqual([]);
    expect(starts.filter((s) => s.label.startsWith('b') && s.at < at('i0'))).toHaveLength(2);
  });
});

describe('Redis limiter when Redis fails', () => {
  it('never reached Redis (nothing listens): refuses within seconds without running the task', async () => {
    const l = limiter({ url: `redis://127.0.0.1:${await freePort()}`, deadlineMs: 500, heartbeatMs: 100 });
    let ran = false;
    const asked = now();
    await expect(
      l.schedule(async () => {
        ran = true;
      }),
    ).rejects.toBeInstanceOf(PlatUnavailableError);
    expect(now() - asked).toBeLessThan(4000);
    expect(ran).toBe(false);
    expect(l.health()).toEqual({ ok: false, component: 'redis', reason: 'ECONNREFUSED' });
  });

  it('refuses at once with PlatUnavailableError while Redis is unreachable, and reports it', async () => {
    const options = { url: redis.url, keyPrefix: `t:${randomUUID()}`, deadlineMs: 500, heartbeatMs: 100 };
    const l = limiter(options);
    await l.ready();
    await redis.kill();
    const queuedAt = now();
    const queued = l.schedule(async () => 'sent');
    await expect(queued).rejects.toBeInstanceOf(PlatUnavailableError);
    expect(now() - queuedAt).toBeLessThan(4000);
    expect(l.health()).toMatchObject({ ok: false, component: 'redis' });
    const task = async () => 'sent';
    const refusedAt = now();
    await expect(l.schedule(task)).rejects.toMatchObject({ code: 'unavailable' });
    expect(now() - refusedAt).toBeLessThan(250);

    await redis.start();
    const back = now();
    await l.ready();
    expect(await l.schedule(task)).toBe('sent');
    expect(now() - back).toBeLessThan(5000);
    expect(l.health()).toEqual({ ok: true });
  });

  it('Redis killed (keys lost) and restarted under load: no call while down, resume within 5 s, never 11 in a second', async () => {
    const options = { url: redis.url, keyPrefix: `t:${randomUUID()}`, deadlineMs: 2000, heartbeatMs: 200 };
    await primed(options);
    const two = [0, 1].map(() =>
      startWorker({ mode: 'calls', limiter: options, baseUrl, count: 0, concurrency: 8 }),
    );
    await Promise.all(two.map((w) => w.next('ready')));
    for (const w of two) w.child.send('go');
    await sleep(2500);

    await redis.kill();
    const downAt = now();
    await sleep(300); // calls in flight at the kill settle
    const callsWhenDown = sandbox.stats().calls;
    await sleep(2700);
    expect(sandbox.stats().calls).toBe(callsWhenDown);
    for (const w of two) {
      const refusal = results(w).find((r) => r.type === 'result' && !r.ok && r.at > downAt);
      expect(refusal).toMatchObject({ code: 'unavailable' });
      expect((refusal?.receivedAt ?? Number.POSITIVE_INFINITY) - downAt).toBeLessThan(3000);
    }

    await redis.start();
    const upAt = now();
    await sleep(5000);
    for (const w of two) {
      const resumed = results(w).find((r) => r.type === 'result' && r.ok && r.at > upAt);
      expect(resumed?.at ?? Number.POSITIVE_INFINITY).toBeLessThan(upAt + 5000);
    }
    for (const w of two) w.child.send('stop');
    await Promise.all(two.map((w) => w.next('done')));

    const stats = sandbox.stats();
    expect(stats.calls).toBeGreaterThan(callsWhenDown + 20);
    expect(stats.maxInWindow).toBeLessThanOrEqual(10);
    expect(stats.violations).toBe(0);
    // 10.5 s of it is waiting on purpose; two worker processes and a Redis start under load.
  }, 45_000);

  it('keys lost without a restart (FLUSHALL) under load: slots re-registered, never 11 in a second, calls go on', async () => {
    const options = { url: redis.url, keyPrefix: `t:${randomUUID()}`, deadlineMs: 2000, heartbeatMs: 200 };
    await primed(options);
    const two = [0, 1].map(() =>
      startWorker({ mode: 'calls', limiter: options, baseUrl, count: 0, concurrency: 10 }),
    );
    await Promise.all(two.map((w) => w.next('ready')));
    for (const w of two) w.child.send('go');
    await sleep(2500);
    const admin = new Redis(redis.url);
    try {
      // Mid-window: ten slots are taken or resting, their calls just arrived at the sandbox.
      await admin.flushall();
    } finally {
      admin.disconnect();
    }
    const flushedAt = now();
    await sleep(3000);
    for (const w of two) w.child.send('stop');
    await Promise.all(two.map((w) => w.next('done')));

    const after = two.flatMap((w) => results(w)).filter((r) => r.type === 'result' && r.at > flushedAt);
    expect(after.some((r) => r.type === 'result' && r.ok && r.at < flushedAt + 2000)).toBe(true);
    expect(after.every((r) => r.type === 'result' && r.ok)).toBe(true);
    const stats = sandbox.stats();
    expect(stats.maxInWindow).toBeLessThanOrEqual(10);
    expect(stats.violations).toBe(0);
  });

  it('a fresh Redis (no limiter keys) with no call written ahead lately: the fence ends once that is read, not after a whole call span + window', async () => {
    // Call span 500 + 3000, window + margin 1001: a fence of 4.5 s without the calls written ahead.
    const options = { url: redis.url, keyPrefix: `t:${randomUUID()}`, deadlineMs: 3000, heartbeatMs: 100 };
    const read: number[] = [];
    const createdAt = now();
    const l = limiter({
      ...options,
      earlierCalls: async () => {
        read.push(now());
        return [];
      },
    });
    const startedAt = await l.schedule(async () => now());
    // Read once every call granted before the epoch is written ahead or never sent (500 ms after
    // this process learned of it), then granted: the join delay (2 heartbeats) is the rest.
    expect(read).toHaveLength(1);
    expect((read[0] ?? 0) - createdAt).toBeGreaterThanOrEqual(500 - 5);
    expect(startedAt - createdAt).toBeLessThan(2_500);
  });

  it('lost keys with a process that died with Redis, its call written ahead and unanswered: grants wait until that call surely arrived and its slot rested, not the whole fence', async () => {
    const options = {
      url: redis.url,
      keyPrefix: `t:${randomUUID()}`,
      deadlineMs: 3000,
      heartbeatMs: 100,
      maxCalls: 2,
    };
    // One store for every process: the holder's call, written ahead when it was granted.
    let writtenAt = Number.NaN;
    const earlierCalls = async () =>
      Number.isNaN(writtenAt) ? [] : [{ writtenAgoMs: now() - writtenAt, answeredAgoMs: null }];
    const mine = limiter({ ...options, earlierCalls });
    await mine.ready();
    const holder = startWorker({ mode: 'hold', limiter: options, holds: 1 });
    const holding = (await holder.next('holding')) as Extract<WorkerMessage, { type: 'holding' }>;
    writtenAt = holding.grantedAt[0] ?? Number.NaN;
    // 1.5 s into its call, the holder and Redis die together: it stays pending in the new epoch.
    await sleep(1500);
    holder.child.kill('SIGKILL');
    await redis.kill();
    await redis.start();
    const upAt = now();
    const startedAt = await mine.schedule(async () => now());
    // Its call may arrive until written + 500 + 3000; its slot rests a window + margin after that.
    expect(startedAt).toBeGreaterThanOrEqual(writtenAt + 500 + 3000 + 1001 - 5);
    // The whole fence would have lasted 4.5 s from when the loss was noticed (after upAt).
    expect(startedAt - upAt).toBeLessThan(4500 - 1000);
  });

  it('after lost keys, a process that may still have calls in flight and never rejoins holds grants back a full deadline + window', async () => {
    const options = {
      url: redis.url,
      keyPrefix: `t:${randomUUID()}`,
      deadlineMs: 1500,
      heartbeatMs: 100,
      maxCalls: 2,
      windowMs: 200,
      safetyMarginMs: 20,
    };
    const mine = limiter(options);
    await mine.ready();
    const holder = startWorker({ mode: 'hold', limiter: { ...options, maxCalls: 2 }, holds: 1 });
    await holder.next('holding');
    // Redis and the holder die together; the holder's call could still reach the API.
    holder.child.kill('SIGKILL');
    await redis.kill();
    await redis.start();
    const upAt = now();
    let startedAt = Number.NaN;
    await mine.schedule(async () => {
      startedAt = now();
    });
    // Fenced from the moment the loss was noticed (after upAt) for 1500 + 220 ms.
    expect(startedAt - upAt).toBeGreaterThanOrEqual(1500 + 220 - 5);
    expect(startedAt - upAt).toBeLessThan(1500 + 220 + 1500);
  });
});
