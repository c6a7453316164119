/**
 * `npm run bench:limiter -- --redis`: the Redis limiter shared by several processes, each with its
 * own connections (test/helpers/redis-limiter-worker.ts, forked), against one redis-server (started
 * here on a free loopback port, removed afterwards) and the sandbox in this process. Production
 * settings: 10 calls per 1000 ms + 10 ms margin, 15 s call deadline, 1 s heartbeat, 5 s lease TTL.
 *
 *   0. fresh Redis: time until the first process may take a slot (the fence of a new key set:
 *      deadline + window, plus the join delay);
 *   a. saturation: 3 processes × 60 calls, 10 at a time each: the sandbox's largest count in any
 *      sliding second, violations, and the sustained rate;
 *   b. priorities: a 50-call bulk batch in one process while another sends 20 interactive calls at
 *      random moments within 5 s: interactive wait p50/p99;
 *   c. kill -9: a process holding all 10 slots with calls in flight is killed; time until another
 *      process gets a slot;
 *   d. Redis killed (keys lost) for 3 s under load and restarted: time from its return to the next
 *      call answered, and the sandbox's largest count in any second throughout.
 *
 * Prints a labeled summary and, last, the same figures as one JSON line.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createRedisLimiter } from '../src/plat/redis-limiter.js';
import { createSandbox } from '../src/sandbox/index.js';
import type { WorkerInput, WorkerMessage } from '../test/helpers/redis-limiter-worker.js';
import { startRedisServer } from '../test/helpers/redis-server.js';

const WORKER = fileURLToPath(new URL('../test/helpers/redis-limiter-worker.ts', import.meta.url));
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n: number, digits = 0) => Number(n.toFixed(digits));

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

interface Worker {
  child: ChildProcess;
  results: Extract<WorkerMessage, { type: 'result' }>[];
  next<T extends WorkerMessage['type']>(type: T): Promise<Extract<WorkerMessage, { type: T }>>;
}

function startWorker(input: WorkerInput): Worker {
  const child = fork(WORKER, [JSON.stringify(input)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const results: Worker['results'] = [];
  const waiting: { type: string; resolve: (m: WorkerMessage) => void }[] = [];
  child.on('message', (m: WorkerMessage) => {
    if (m.type === 'result') results.push(m);
    for (const w of waiting.filter((x) => x.type === m.type)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(m);
    }
  });
  return {
    child,
    results,
    next: (type) =>
      new Promise((resolve) => {
        waiting.push({ type, resolve: resolve as (m: WorkerMessage) => void });
      }),
  };
}

const redis = await startRedisServer();
const sandbox = createSandbox();
const baseUrl = await sandbox.listen(0);
const limiter = { url: redis.url, keyPrefix: `bench:${randomUUID()}`, deadlineMs: 15_000 };
const workers: Worker[] = [];
const spawn = (input: Omit<WorkerInput, 'limiter' | 'baseUrl'>) => {
  const w = startWorker({ ...input, limiter, baseUrl });
  workers.push(w);
  return w;
};

try {
  // ---- 0. fresh Redis --------------------------------------------------------------------------
  const began = now();
  const primer = createRedisLimiter(limiter);
  await primer.ready();
  const freshS = round((now() - began) / 1000, 1);
  console.log(
    `0 fresh Redis     first slot may be taken after ${freshS} s (fence: deadline + window; join delay)`,
  );

  // ---- a. saturation ---------------------------------------------------------------------------
  const three = [0, 1, 2].map(() => spawn({ mode: 'calls', count: 60, concurrency: 10 }));
  await Promise.all(three.map((w) => w.next('ready')));
  sandbox.reset();
  for (const w of three) w.child.send('go');
  await Promise.all(three.map((w) => w.next('done')));
  const all = three.flatMap((w) => w.results);
  const ats = all.map((r) => r.at).sort((x, y) => x - y);
  const spanS = ((ats.at(-1) ?? 0) - (ats[0] ?? 0)) / 1000;
  const saturation = {
    processes: 3,
    calls: sandbox.stats().calls,
    failed: all.filter((r) => !r.ok).length,
    // The first 10 answers come in one burst; every later call waited for a slot.
    sustainedCallsPerS: round((all.length - 10) / spanS, 2),
    maxInWindow: sandbox.stats().maxInWindow,
    violations: sandbox.stats().violations,
  };
  console.log(
    `a saturation      ${saturation.calls} calls from 3 processes: sustained ${saturation.sustainedCallsPerS} calls/s, ` +
      `largest count in any sliding second ${saturation.maxInWindow}, violations ${saturation.violations}, failed ${saturation.failed}`,
  );
  await sleep(1100);

  // ---- b. priorities across processes ------------------------------------------------------------
  sandbox.reset();
  const bulk = spawn({ mode: 'calls', count: 50, concurrency: 50, priority: 'bulk' });
  const people = spawn({ mode: 'calls', count: 20, spreadMs: 5000, priority: 'interactive' });
  await Promise.all([bulk.next('ready'), people.next('ready')]);
  const bulkDone = bulk.next('done');
  const peopleDone = people.next('done');
  bulk.child.send('go');
  await sleep(200);
  people.child.send('go');
  const [bulkEnd, peopleEnd] = await Promise.all([bulkDone, peopleDone]);
  const priorities = {
    interactiveWaitMs: {
      p50: round(percentile(peopleEnd.waits, 50)),
      p99: round(percentile(peopleEnd.waits, 99)),
      max: round(Math.max(...peopleEnd.waits)),
    },
    bulkCalls: bulkEnd.waits.length,
    bulkTotalS: round(bulkEnd.ms / 1000, 1),
    maxInWindow: sandbox.stats().maxInWindow,
    violations: sandbox.stats().violations,
  };
  console.log(
    `b priorities      ${priorities.bulkCalls}-call bulk batch in ${priorities.bulkTotalS} s in one process; ` +
      `20 interactive calls in another waited p50 ${priorities.interactiveWaitMs.p50} ms, p99 ${priorities.interactiveWaitMs.p99} ms ` +
      `(max ${priorities.interactiveWaitMs.max}); largest count in any second ${priorities.maxInWindow}`,
  );
  await sleep(1100);

  // ---- c. kill -9 of a holder --------------------------------------------------------------------
  const holder = spawn({ mode: 'hold', holds: 10 });
  await holder.next('holding');
  await sleep(2000); // past a few lease renewals
  const killedAt = now();
  holder.child.kill('SIGKILL');
  const recoveredAt = await primer.schedule(async () => now());
  const killRecoveryS = round((recoveredAt - killedAt) / 1000, 2);
  console.log(`c kill -9         a slot came back ${killRecoveryS} s after its holder was killed`);

  // ---- d. Redis lost and back --------------------------------------------------------------------
  sandbox.reset();
  const two = [0, 1].map(() => spawn({ mode: 'calls', count: 0, concurrency: 8 }));
  await Promise.all(two.map((w) => w.next('ready')));
  for (const w of two) w.child.send('go');
  await sleep(3000);
  await redis.kill();
  const downAt = now();
  await sleep(3000);
  await redis.start();
  const upAt = now();
  await sleep(6000);
  for (const w of two) w.child.send('stop');
  await Promise.all(two.map((w) => w.next('done')));
  const after = two.flatMap((w) => w.results);
  const firstRefusal = after.filter((r) => !r.ok && r.at > downAt).map((r) => r.at);
  const firstOkAfter = after.filter((r) => r.ok && r.at > upAt).map((r) => r.at);
  const redisLoss = {
    refusedAfterS: round((Math.min(...firstRefusal) - downAt) / 1000, 2),
    refusalCode: after.find((r) => !r.ok && r.at > downAt)?.code ?? null,
    resumedAfterS: round((Math.min(...firstOkAfter) - upAt) / 1000, 2),
    maxInWindow: sandbox.stats().maxInWindow,
    violations: sandbox.stats().violations,
  };
  console.log(
    `d Redis lost      first refusal (${redisLoss.refusalCode}) ${redisLoss.refusedAfterS} s after Redis died; ` +
      `calls resumed ${redisLoss.resumedAfterS} s after it returned empty; largest count in any second ${redisLoss.maxInWindow}, ` +
      `violations ${redisLoss.violations}`,
  );
  await primer.stop();
  console.log(JSON.stringify({ freshS, saturation, priorities, killRecoveryS, redisLoss }));
} finally {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await sandbox.close();
  await redis.close();
}
