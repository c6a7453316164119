/**
 * Single flight across replicas (issue 13), Redis-engine-only tests beside the contract suite:
 * separate platdesk processes (test/helpers/lookup-worker.ts: own lookup service, store, plat
 * client and Redis connections) against ONE sandbox and one real Redis. The sandbox's own
 * counters are the judge of "one call"; each process's ledger is the judge of who was charged.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLookupService, summarize } from '../../src/lookups/lookup-service.js';
import { decodeOutcome, lookupOutcomeCodec } from '../../src/lookups/outcome-codec.js';
import { createRedisSingleFlight } from '../../src/lookups/redis-single-flight.js';
import type { SingleFlight } from '../../src/lookups/single-flight.js';
import type { LookupOutcome, LookupRequest } from '../../src/lookups/types.js';
import { PlatUnavailableError } from '../../src/plat/errors.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import type {
  LookupWorkerCommand,
  LookupWorkerInput,
  LookupWorkerMessage,
} from '../helpers/lookup-worker.js';
import { createClientRig, type PlatClientRig } from '../helpers/plat-harness.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const WORKER = fileURLToPath(new URL('../helpers/lookup-worker.ts', import.meta.url));
const { owners } = SANDBOX_FIXTURES;
const LEASE_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const orders = (ownerId: string): LookupRequest => ({
  kind: 'orders',
  ownerId,
  page: 0,
  pageSize: 20,
  filters: {},
});

let redis: RedisServer;
let sandbox: Sandbox;
let baseUrl: string;
let keyPrefix: string;

beforeAll(async () => {
  redis = await startRedisServer();
  sandbox = createSandbox();
  baseUrl = await sandbox.listen(0);
});
afterAll(async () => {
  await sandbox?.close();
  await redis?.close();
});
beforeEach(() => {
  sandbox.reset();
  keyPrefix = `test:${randomUUID()}`;
});

interface Worker {
  child: ChildProcess;
  next<T extends LookupWorkerMessage['type']>(
    type: T,
    timeoutMs?: number,
  ): Promise<Extract<LookupWorkerMessage, { type: T }>>;
  go(request: LookupRequest, users: string[]): void;
}

const workers: Worker[] = [];
afterEach(() => {
  for (const w of workers.splice(0))
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
});

async function startWorker(options: Partial<LookupWorkerInput> = {}): Promise<Worker> {
  const input: LookupWorkerInput = {
    redisUrl: redis.url,
    keyPrefix,
    leaseMs: LEASE_MS,
    baseUrl,
    deadlineMs: 5000,
    ...options,
  };
  const child = fork(WORKER, [JSON.stringify(input)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const received: LookupWorkerMessage[] = [];
  const waiting: { type: string; resolve: (m: LookupWorkerMessage) => void }[] = [];
  child.on('message', (m: LookupWorkerMessage) => {
    const w = waiting.find((x) => x.type === m.type);
    if (w) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(m);
    } else received.push(m);
  });
  const worker: Worker = {
    child,
    next: (type, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const early = received.findIndex((m) => m.type === type);
        if (early >= 0) {
          resolve(received.splice(early, 1)[0] as never);
          return;
        }
        const timer = setTimeout(
          () => reject(new Error(`worker sent no '${type}' in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiting.push({
          type,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m as never);
          },
        });
      }),
    go: (request, users) => child.send({ type: 'go', request, users } satisfies LookupWorkerCommand),
  };
  workers.push(worker);
  await worker.next('ready');
  return worker;
}

const users = (from: number, count: number) => Array.from({ length: count }, (_, i) => `U${from + i}`);

describe('identical lookups confirmed at once on different replicas', () => {
  it('ten lookups over three processes: one call at the sandbox, every caller answered, one charge in the leader’s ledger', async () => {
    const replicas = await Promise.all([startWorker(), startWorker(), startWorker()]);
    // The leader's call stays in flight while the other replicas confirm theirs.
    sandbox.setFaults([{ kind: 'latency', ms: 1500 }]);
    const request = orders(owners.busy);
    const plan = [users(0, 4), users(4, 3), users(7, 3)];
    replicas.forEach((w, i) => {
      w.go(request, plan[i] ?? []);
    });
    const done = await Promise.all(replicas.map((w) => w.next('done')));

    const stats = sandbox.stats();
    expect(stats.calls).toBe(1);
    expect(stats.charges.count).toBe(1);
    const price = stats.charges.points;
    expect(price).toBeGreaterThan(0);

    const results = done.flatMap((d) => d.results);
    expect(results).toHaveLength(10);
    expect(results.every((r) => r.ok)).toBe(true);
    const leaders = results.filter((r) => !r.shared);
    expect(leaders).toHaveLength(1);
    expect(leaders[0]?.chargedPoints).toBe(price);
    for (const r of results.filter((x) => x.shared)) expect(r.chargedPoints).toBe(0);

    // Every caller got the same answer, down to the orders' Dates.
    const answers = results.map((r) => ({ ...decodeOutcome(r.outcome ?? ''), chargedPoints: 0 }));
    const first = answers[0] as LookupOutcome;
    expect(first.kind === 'orders' && first.page.orders.length).toBeGreaterThan(0);
    for (const a of answers) expect(a).toStrictEqual(first);

    // Only the leader's process has a ledger row: one, for the leader, with the sandbox's charge.
    const leaderProcess = done.findIndex((d) => d.results.some((r) => !r.shared));
    done.forEach((d, i) => {
      expect(d.ledger).toHaveLength(i === leaderProcess ? 1 : 0);
    });
    expect(done[leaderProcess]?.ledger[0]).toMatchObject({
      userId: leaders[0]?.userId,
      operation: 'paging-orders',
      points: price,
      code: 0,
    });
  });

  it("the leader's failure reaches the followers in other processes as the same error, charged to none of them", async () => {
    const replicas = await Promise.all([startWorker(), startWorker()]);
    sandbox.setFaults([{ kind: 'latency', ms: 1000 }]);
    // The sandbox answers 302 (shop not authorized) for this owner's orders.
    replicas.forEach((w, i) => {
      w.go(orders(owners.unauthorized), users(10 * i, 3));
    });
    const done = await Promise.all(replicas.map((w) => w.next('done')));
    expect(sandbox.stats().calls).toBe(1);
    const results = done.flatMap((d) => d.results);
    expect(results).toHaveLength(6);
    for (const r of results) expect(r).toMatchObject({ ok: false, error: { code: 'shop_unauthorized' } });
    // The leader's own ledger has the call (a row per call that reached the service); nobody else's.
    expect(done.map((d) => d.ledger.length).sort()).toEqual([0, 1]);
    expect(done.flatMap((d) => d.ledger)[0]).toMatchObject({ operation: 'paging-orders', code: 302 });
    // Five followers are told nothing was charged: their copy of the error carries no charge.
    expect(results.filter((r) => r.error?.chargePoints === 0).length).toBeGreaterThanOrEqual(5);
  });

  it('the leader is killed mid-call (kill -9): after its lock expires a follower in another process leads, makes the call and is charged', async () => {
    // The first call never answers: the leader is stuck in it when it dies.
    sandbox.setFaults([{ kind: 'hang', count: 1 }]);
    const [a, b] = [await startWorker({ deadlineMs: 60_000 }), await startWorker()];
    a.go(orders(owners.small), ['UA']);
    for (let i = 0; sandbox.stats().calls < 1; i++) {
      if (i > 200) throw new Error('the leader never called');
      await sleep(25);
    }
    b.go(orders(owners.small), ['UB']);
    await sleep(300);
    expect(sandbox.stats().calls).toBe(1); // B follows: it has not called
    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    const done = await b.next('done');
    const [result] = done.results;
    expect(result).toMatchObject({ userId: 'UB', ok: true, shared: false });
    // Not before the lock could expire (renewed every third of the lease), and soon after.
    expect((result?.at ?? 0) - killedAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
    expect((result?.at ?? 0) - killedAt).toBeLessThan(LEASE_MS + 2000);
    const stats = sandbox.stats();
    expect(stats.calls).toBe(2);
    // The hung call was never answered, so never charged: B's charge is the one the sandbox made.
    expect(stats.charges.count).toBe(1);
    expect(result?.chargedPoints).toBe(stats.charges.points);
    expect(stats.charges.points).toBeGreaterThan(0);
    expect(done.ledger).toEqual([
      { userId: 'UB', operation: 'paging-orders', points: result?.chargedPoints, code: 0 },
    ]);
  });
});

describe('the Redis engine itself', () => {
  const engines: SingleFlight<LookupOutcome>[] = [];
  const engine = (options: { pollMs?: number; url?: string } = {}) => {
    const e = createRedisSingleFlight({ url: redis.url, codec: lookupOutcomeCodec, keyPrefix, ...options });
    engines.push(e);
    return e;
  };
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.stop()));
  });
  const answer = (ownerId: string): LookupOutcome => ({
    kind: 'orders',
    ownerId,
    filters: {},
    page: { orders: [], page: 0, pageSize: 20, totalElements: 0, totalPages: 0 },
    chargedPoints: 2,
  });

  it("a follower is woken by the leader's message, not by its poll", async () => {
    const [a, b] = [engine({ pollMs: 60_000 }), engine({ pollMs: 60_000 })];
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const work = async () => {
      await gate;
      return answer('owner-w');
    };
    const leader = a.run('orders:owner-w', work);
    await sleep(200);
    const follower = b.run('orders:owner-w', work);
    await sleep(200);
    const openedAt = Date.now();
    open();
    await expect(follower).resolves.toMatchObject({ shared: true });
    expect(Date.now() - openedAt).toBeLessThan(1000);
    await expect(leader).resolves.toMatchObject({ shared: false });
  });

  it('keys and messages hold no request in clear (a hash of it)', async () => {
    const client = new Redis(redis.url);
    await client.subscribe(`${keyPrefix}:done`);
    const messages: string[] = [];
    client.on('message', (_c: string, m: string) => messages.push(m));
    const seen: string[] = [];
    const key = JSON.stringify(orders('secret-owner-4711'));
    await engine().run(key, async () => {
      const probe = new Redis(redis.url);
      seen.push(...(await probe.keys(`${keyPrefix}*`)));
      probe.disconnect();
      return answer('x');
    });
    await sleep(100);
    const probe = new Redis(redis.url);
    seen.push(...(await probe.keys(`${keyPrefix}*`)));
    probe.disconnect();
    client.disconnect();
    expect(seen.some((k) => k.endsWith(':lock'))).toBe(true);
    expect(seen.some((k) => k.includes(':result:'))).toBe(true);
    expect(messages).toHaveLength(1);
    for (const text of [...seen, ...messages]) {
      expect(text).not.toContain('secret-owner');
      expect(text).toMatch(/[0-9a-f]{64}/);
    }
  });
});

describe('Redis unreachable', () => {
  let rig: PlatClientRig;
  let own: RedisServer;
  beforeAll(async () => {
    own = await startRedisServer();
  });
  afterAll(async () => {
    await own?.close();
  });
  afterEach(async () => {
    await rig?.close();
  });

  it('no plat call, "unavailable" within seconds; lookups resume once Redis is back, without a restart', async () => {
    rig = createClientRig({ baseUrl });
    const store = await openStore({ path: ':memory:' });
    const singleFlight = createRedisSingleFlight({ url: own.url, codec: lookupOutcomeCodec, keyPrefix });
    const lookups = createLookupService({ client: rig.client, store, prices: {}, singleFlight });
    const confirmed = async (userId: string) => {
      const request = orders(owners.small);
      const actor = { userId, channelId: 'C1234', teamId: 'T1234', responseUrl: null };
      const prepared = await lookups.prepare(request, actor, summarize(request), { useCache: false });
      if (prepared.kind !== 'confirm') throw new Error(prepared.kind);
      const claimed = await lookups.claim(prepared.pending.id, userId);
      if (!claimed.ok) throw new Error(claimed.reason);
      return claimed.pending;
    };
    try {
      await own.kill();
      const pending = await confirmed('U1');
      const startedAt = Date.now();
      await expect(lookups.run(pending)).rejects.toBeInstanceOf(PlatUnavailableError);
      expect(Date.now() - startedAt).toBeLessThan(4000);
      expect(sandbox.stats().calls).toBe(0);
      expect((await store.pending.get(pending.id))?.state).toBe('failed');
      expect(await store.ledger.list({ from: new Date(0), to: new Date(Date.now() + 60_000) })).toHaveLength(
        0,
      );

      await own.start();
      const returnedAt = Date.now();
      let outcome: (LookupOutcome & { shared?: boolean }) | null = null;
      while (outcome === null && Date.now() - returnedAt < 5000) {
        outcome = await lookups.run(await confirmed('U2')).catch(async (error: unknown) => {
          if (!(error instanceof PlatUnavailableError)) throw error;
          await sleep(100);
          return null;
        });
      }
      expect(outcome).toMatchObject({ kind: 'orders' });
      expect(sandbox.stats().calls).toBe(1);
    } finally {
      await singleFlight.stop();
      await store.close();
    }
  });
});
