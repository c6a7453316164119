/**
 * `npm run bench:replicas`: three platdesk processes (`npm start`'s entry point, HTTP mode, each a
 * child process: test/helpers/replica-cluster.ts) on one PostgreSQL database and one Redis, on
 * loopback, driven over signed HTTP like Slack; the plat API is the sandbox in this process at its
 * default latency (no delay injected), which counts and timestamps every call; Slack is one local
 * fake Web API server. The database is a fresh one, dropped at the end: on a throwaway PostgreSQL
 * server the bench starts (test/helpers/postgres-server.ts), or on the server of DATABASE_URL
 * when it is set (its user must be allowed to CREATE DATABASE).
 *
 *   0. first call on an empty Redis (a new key set is fenced for the call deadline + a window);
 *   1. saturation: 300 distinct lookups confirmed at once over the three replicas: aggregate
 *      calls/s and the largest count in any sliding second at the sandbox;
 *   2. interactive wait (Confirm click → answer) on two replicas while a 50-page digest runs on
 *      the third (bulk priority), against the same lookups on an idle cluster;
 *   3. kill -9 of a replica holding all ten slots with calls in flight: time until another
 *      replica's call reaches the sandbox;
 *   4. Redis killed (keys lost) under load and restarted 3 s later: time to the first
 *      "temporarily unavailable" answer, and from its return to the next call;
 *   5. N Confirms (default 1,000) each clicked twice at once: double charges at the sandbox and
 *      in the shared ledger. `--clicks random` (default: each click on a random replica, so a
 *      Confirm shown by one replica is often clicked on another) or `--clicks same` (both clicks on
 *      the replica that showed it).
 *
 * `--only cold` runs instead, on the empty Redis: once every replica answers `/healthz`, 60 lookups
 * (20 a replica) asked, then their Confirms clicked at once: click → each call's arrival at the
 * sandbox, click → answer, and the time from launch to the first call (issue 33 finding 17).
 *
 * Options: `--confirms N`, `--clicks same|random`, `--only cold`. With REDIS_URL set, that Redis is used (its
 * `platdesk:limiter` keys: not a production one) and phase 4 is skipped (the bench restarts only
 * a server it started). Prints a labelled summary, then the figures as one JSON line.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createSandbox, SANDBOX_FIXTURES } from '../src/sandbox/index.js';
import { openStore } from '../src/store/engine.js';
import { arrivalsBetween, largestInAnyWindow, sustainedRate } from '../test/helpers/arrivals.js';
import { textOf } from '../test/helpers/platdesk-harness.js';
import { type PostgresServer, startPostgres } from '../test/helpers/postgres-server.js';
import { type RedisServer, startRedisServer } from '../test/helpers/redis-server.js';
import { type Replica, startReplicaCluster } from '../test/helpers/replica-cluster.js';
import { type ConfirmedLookup, replicaSlack } from '../test/helpers/replica-slack.js';
import { startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { SLACK } from '../test/helpers/slack-payloads.js';

const REPLICAS = 3;
const SECRET = 'bench-secret';
const PLAT_TOKEN = 'bench-replicas';
/** Orders of the busy shop over the sandbox's 72 h: about 5,000 in a manual digest's last 24 h. */
const DIGEST_ORDERS = 14_900;

const { values: args } = parseArgs({
  options: {
    confirms: { type: 'string', default: '1000' },
    clicks: { type: 'string', default: 'random' },
    only: { type: 'string' },
  },
});
const only = args.only;
if (only !== undefined && only !== 'cold') throw new Error('--only takes cold');
const confirms = Number(args.confirms);
const clicks = args.clicks;
if (!Number.isInteger(confirms) || confirms < 1) throw new Error('--confirms takes a whole number ≥ 1');
if (clicks !== 'same' && clicks !== 'random') throw new Error('--clicks takes same or random');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round = (n: number, digits = 0) => Number(n.toFixed(digits));
const seconds = (ms: number) => round(ms / 1000, 2);
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}
/** Runs fn over items with at most `limit` at a time. */
async function pool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
const shopOf = (wwid: string) => `No shop was found for messaging account *${wwid}*`;
const UNAVAILABLE = 'platdesk is temporarily unavailable';
const userOf = (i: number) => `U${3000 + (i % 20)}`;

/** Runs one statement on the maintenance connection `url` (CREATE/DROP DATABASE). */
async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const results: Record<string, unknown> = { clicks };
console.log(
  `mode: --clicks ${clicks} (${clicks === 'same' ? 'both clicks of phase 5 on the replica that showed the Confirm' : 'each click of phase 5 on a random replica'}), --confirms ${confirms}`,
);
const givenDatabase = process.env.DATABASE_URL;
const postgres: PostgresServer | null = givenDatabase ? null : await startPostgres();
const serverUrl = postgres?.url ?? givenDatabase ?? '';
const databaseName = `platdesk_bench_replicas_${process.pid}_${Date.now().toString(36)}`;
await admin(serverUrl, `CREATE DATABASE ${databaseName}`);
const databaseUrl = (() => {
  const u = new URL(serverUrl);
  u.pathname = `/${databaseName}`;
  return u.toString();
})();
// The bench's own view of the shared database (ledger counts); it migrates it before the replicas start.
const store = await openStore({ url: databaseUrl });
const givenRedis = process.env.REDIS_URL;
const redis: RedisServer | null = givenRedis ? null : await startRedisServer();
const redisUrl = redis?.url ?? givenRedis ?? '';
const sandbox = createSandbox({
  token: PLAT_TOKEN,
  orderCounts: { [SANDBOX_FIXTURES.owners.busy]: DIGEST_ORDERS },
});
const platUrl = await sandbox.listen(0);
const fake = await startSlackApiServer();
const slack = replicaSlack(fake, SECRET, 'bench');
const launchedAt = performance.now();
const cluster = await startReplicaCluster(REPLICAS, {
  env: {
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.apiUrl,
    PLAT_BASE_URL: platUrl,
    PLAT_TOKEN,
    REDIS_URL: redisUrl,
    DATABASE_URL: databaseUrl,
    PLATDESK_ADMINS: SLACK.adminId,
    // Above phase 1's 100 lookups a replica, so none is refused as busy.
    PLAT_QUEUE_MAX: '2000',
  },
});

/** Ledger rows in the shared store. */
async function ledgerRows(): Promise<number> {
  return (await store.ledger.totals({ from: new Date(0), to: new Date(Date.now() + 3_600_000) })).calls;
}

/** Asks one distinct /shop ww lookup per item on the replica chosen for it. */
function ask(prefix: string, n: number, replicaOf: (i: number) => Replica) {
  return pool(
    Array.from({ length: n }, (_, i) => i),
    50,
    async (i) => {
      const replica = replicaOf(i);
      const wwid = `${prefix}-${i}`;
      const { confirmation } = await slack.ask(replica, '/shop', `ww ${wwid}`, { userId: userOf(i) });
      return { replica, wwid, confirmation, userId: userOf(i) };
    },
  );
}
type Asked = Awaited<ReturnType<typeof ask>>[number];
const confirm = (a: Asked, timeoutMs = 120_000) =>
  slack.confirm(a.replica, a.confirmation, { userId: a.userId, timeoutMs });
function expectAnswered(a: Asked, done: ConfirmedLookup | undefined): void {
  const said = textOf(done?.answer);
  if (!said.includes(shopOf(a.wwid)))
    throw new Error(`${a.wwid} on ${a.replica.name}: ${said.slice(0, 300)}\n${cluster.output()}`);
}
async function healthy(replica: Replica, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const res = await fetch(`${replica.url}/healthz`).catch(() => null);
    if (res?.status === 200) return true;
    await sleep(50);
  }
  return false;
}

try {
  if (only === 'cold') {
    await coldBurst();
    console.log(JSON.stringify(results));
  }
  // ---- 0. first call on an empty Redis -------------------------------------------------------
  if (only === undefined) {
    const [first] = await ask('cold', 1, () => cluster.at(0));
    if (!first) throw new Error('no lookup asked');
    const done = await confirm(first, 60_000);
    expectAnswered(first, done);
    const sinceStarted = performance.now() - launchedAt;
    results.coldStart = { secondsFromLaunch: seconds(sinceStarted), freshRedis: givenRedis === undefined };
    console.log(
      `0 cold start    first call answered ${seconds(sinceStarted)} s after the three replicas were launched${givenRedis ? ' (REDIS_URL given: its key set may already exist)' : ' on an empty Redis (a new key set is fenced for the 15 s call deadline + a window; then a 2 s join delay)'}`,
    );
  }

  if (only === undefined) await otherPhases();
} finally {
  await cluster.stop();
  await fake.close();
  await sandbox.close();
  await redis?.close();
  await store.close();
  await admin(serverUrl, `DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await postgres?.remove();
}
// Calls hung at the sandbox in phase 3 leave nothing behind, but do not wait on stray timers.
process.exit(0);

/**
 * 60 Confirms at once on 3 replicas a few seconds after start, on an empty Redis: until this
 * change the new key set's fence held every one back for the call span + window (about 16.5 s).
 */
async function coldBurst(): Promise<void> {
  for (const replica of cluster.replicas) {
    if (!(await healthy(replica, 60_000)))
      throw new Error(`${replica.name} not healthy\n${cluster.output()}`);
  }
  const healthyAt = performance.now();
  const asked = await ask('cold-burst', 60, (i) => cluster.at(i % REPLICAS));
  const clickAt = performance.now();
  const done = await Promise.all(asked.map((a) => confirm(a)));
  for (const [i, a] of asked.entries()) expectAnswered(a, done[i]);
  const arrivals = arrivalsBetween(sandbox.arrivals(), clickAt).sort((a, b) => a - b);
  const nth = (n: number) => round((arrivals[n - 1] ?? Number.NaN) - clickAt);
  const answers = done.map((d) => d.ms);
  results.coldBurst = {
    clickSecondsFromLaunch: seconds(clickAt - launchedAt),
    clickSecondsFromHealthy: seconds(clickAt - healthyAt),
    clickToArrivalMs: { first: nth(1), tenth: nth(10), twentieth: nth(20), last: nth(arrivals.length) },
    clickToAnswerMs: { p50: round(percentile(answers, 50)), p99: round(percentile(answers, 99)) },
    calls: arrivals.length,
    largestInAnySecond: largestInAnyWindow(arrivals),
  };
  console.log(
    `cold burst      60 Confirms clicked at once ${seconds(clickAt - launchedAt)} s after launch (${seconds(clickAt - healthyAt)} s after every /healthz 200), empty Redis: click → 1st call at the sandbox ${nth(1)} ms, 10th ${nth(10)} ms, 20th ${nth(20)} ms, last ${nth(arrivals.length)} ms; click → answer p50 ${round(percentile(answers, 50))} ms, p99 ${round(percentile(answers, 99))} ms; largest count in any sliding second ${largestInAnyWindow(arrivals)}`,
  );
}

async function otherPhases(): Promise<void> {
  // ---- 1. saturation ---------------------------------------------------------------------------
  {
    const asked = await ask('sat', 300, (i) => cluster.at(i % REPLICAS));
    await sleep(1100); // phase 0's slot rests a window
    const from = performance.now();
    const done = await Promise.all(asked.map((a) => confirm(a)));
    for (const [i, a] of asked.entries()) expectAnswered(a, done[i]);
    const calls = arrivalsBetween(sandbox.arrivals(), from);
    const span = Math.max(...calls) - Math.min(...calls);
    results.saturation = {
      lookups: asked.length,
      calls: calls.length,
      seconds: seconds(span),
      callsPerS: round(sustainedRate(calls), 2),
      largestInAnySecond: largestInAnyWindow(calls),
    };
    console.log(
      `1 saturation    ${calls.length} calls from 300 lookups confirmed at once on 3 replicas in ${seconds(span)} s: sustained ${round(sustainedRate(calls), 2)} calls/s (after the first second's burst); largest count in any sliding second ${largestInAnyWindow(calls)}`,
    );
  }

  // ---- 2. interactive wait while a 50-page digest runs on another replica ----------------------
  {
    const interactiveOf = (i: number) => cluster.at(i % 2);
    const idleAsked = await ask('idle', 20, interactiveOf);
    await sleep(1100);
    // 20 people at random moments over about 5 s (a fixed pseudo-random spread, as bench/app.ts),
    // once on an idle cluster and once while the digest runs.
    const spread = (i: number) => 150 * i + ((i * 7919) % 13) * 20;
    const idle = await Promise.all(
      idleAsked.map(async (a, i) => {
        await sleep(spread(i));
        const done = await confirm(a);
        expectAnswered(a, done);
        return done.ms;
      }),
    );
    const asked = await ask('digest-time', 20, interactiveOf);
    const bulk = cluster.at(2);
    const say = async (text: string) => {
      const sent = await slack.command(bulk, '/platdesk', text, { userId: SLACK.adminId });
      return textOf(await slack.response(sent.responseUrlId));
    };
    await say('digest-cap 100000');
    const addSent = await slack.command(
      bulk,
      '/orders',
      `digest add ${SANDBOX_FIXTURES.owners.busy} <#${SLACK.channelId}|${SLACK.channelName}> 09:00`,
      { userId: SLACK.adminId },
    );
    const added = textOf(await slack.response(addSent.responseUrlId));
    const id = /Digest #(\d+) added/.exec(added)?.[1];
    if (!id) throw new Error(`digest not added: ${added}`);
    await sleep(1100);
    const pagesBefore = sandbox.stats().callsByOperation['paging-orders'];
    const runSent = await slack.command(bulk, '/orders', `digest run ${id}`, { userId: SLACK.adminId });
    const posted = slack.response(runSent.responseUrlId, (m) => textOf(m).includes('Digest posted'), 120_000);
    const digestFrom = performance.now();
    while (sandbox.stats().callsByOperation['paging-orders'] === pagesBefore) await sleep(5);
    const waits = await Promise.all(
      asked.map(async (a, i) => {
        await sleep(spread(i));
        const done = await confirm(a);
        expectAnswered(a, done);
        return done.ms;
      }),
    );
    await posted;
    const digestMs = performance.now() - digestFrom;
    const pages = sandbox.stats().callsByOperation['paging-orders'] - pagesBefore;
    results.interactiveWhileDigest = {
      digestPages: pages,
      digestSeconds: seconds(digestMs),
      lookups: waits.length,
      p50Ms: round(percentile(waits, 50)),
      p99Ms: round(percentile(waits, 99)),
      idleP50Ms: round(percentile(idle, 50)),
      idleP99Ms: round(percentile(idle, 99)),
    };
    console.log(
      `2 priorities    a ${pages}-page digest on one replica took ${seconds(digestMs)} s; 20 lookups on the two others, Confirm click → answer: p50 ${round(percentile(waits, 50))} ms, p99 ${round(percentile(waits, 99))} ms (idle cluster: p50 ${round(percentile(idle, 50))} ms, p99 ${round(percentile(idle, 99))} ms)`,
    );
  }

  // ---- 3. kill -9 of a replica holding every slot --------------------------------------------
  {
    await sleep(1100);
    sandbox.setFaults([{ kind: 'hang', operations: ['get-shop-id'], count: 10 }]);
    const before = sandbox.stats().calls;
    const hung = await ask('kill-hung', 10, () => cluster.at(0));
    await Promise.all(
      hung.map((a) =>
        slack.click(a.replica, 'platdesk.confirm', a.confirmation.confirm.value, { userId: a.userId }),
      ),
    );
    while (sandbox.stats().calls < before + 10) await sleep(10);
    const waiting = await ask('kill-waiting', 2, (i) => cluster.at(i + 1));
    const answered = waiting.map((a) => confirm(a, 60_000));
    await sleep(500);
    const killedAt = performance.now();
    await cluster.kill(0);
    const done = await Promise.all(answered);
    for (const [i, a] of waiting.entries()) expectAnswered(a, done[i]);
    const recovery = Math.min(...arrivalsBetween(sandbox.arrivals(), killedAt)) - killedAt;
    sandbox.setFaults([]);
    results.killRecovery = { seconds: seconds(recovery) };
    console.log(
      `3 kill -9       a replica holding all 10 slots (calls hung at the sandbox) killed: the next call from another replica arrived ${seconds(recovery)} s later`,
    );
    await cluster.respawn(0);
  }

  // ---- 4. Redis killed (keys lost) under load, restarted 3 s later ----------------------------
  if (redis) {
    const server = redis;
    for (const replica of cluster.replicas) await healthy(replica, 30_000);
    let stopLoad = false;
    let n = 0;
    const refusals: number[] = [];
    const answers: number[] = [];
    const loop = async (replica: Replica) => {
      while (!stopLoad) {
        const i = n++;
        const wwid = `redis-${i}`;
        const { confirmation } = await slack.ask(replica, '/shop', `ww ${wwid}`, { userId: userOf(i) });
        const done = await slack.confirm(replica, confirmation, { userId: userOf(i), timeoutMs: 60_000 });
        const said = textOf(done.answer);
        if (said.includes(UNAVAILABLE)) {
          refusals.push(performance.now());
          await sleep(250);
        } else if (said.includes(shopOf(wwid))) answers.push(performance.now());
        else throw new Error(`${wwid}: ${said.slice(0, 300)}`);
      }
    };
    const from = performance.now();
    const load = cluster.replicas.flatMap((replica) => Array.from({ length: 4 }, () => loop(replica)));
    await sleep(3000);
    await server.kill();
    const killedAt = performance.now();
    await sleep(3000);
    await server.start();
    const backAt = performance.now();
    await sleep(8000);
    stopLoad = true;
    await Promise.all(load);
    const all = arrivalsBetween(sandbox.arrivals(), from);
    const firstCall = Math.min(...arrivalsBetween(all, backAt)) - backAt;
    const firstAnswer = Math.min(...answers.filter((t) => t >= backAt)) - backAt;
    const firstRefusal = Math.min(...refusals.filter((t) => t >= killedAt)) - killedAt;
    // A grant taken just before the kill may still be used for half a window.
    const whileDown = arrivalsBetween(all, killedAt + 1000, backAt).length;
    results.redisRestart = {
      downSeconds: seconds(backAt - killedAt),
      firstUnavailableS: seconds(firstRefusal),
      callsWhileDown: whileDown,
      firstCallAfterReturnS: seconds(firstCall),
      firstAnswerAfterReturnS: seconds(firstAnswer),
      largestInAnySecond: largestInAnyWindow(all),
    };
    console.log(
      `4 Redis restart Redis killed under load (12 lookups at a time) for ${seconds(backAt - killedAt)} s, keys lost: first "temporarily unavailable" answer ${seconds(firstRefusal)} s after it died, ${whileDown} calls while it was down; first call ${seconds(firstCall)} s and first answer ${seconds(firstAnswer)} s after it returned; largest count in any sliding second ${largestInAnyWindow(all)}`,
    );
  } else {
    results.redisRestart = 'skipped: REDIS_URL given';
    console.log(
      '4 Redis restart skipped: REDIS_URL was given, and the bench restarts only a Redis it started',
    );
  }

  // ---- 5. N Confirms each clicked twice ------------------------------------------------------
  {
    for (const replica of cluster.replicas) await healthy(replica, 30_000);
    await sleep(1100);
    const random = () => cluster.at(Math.floor(Math.random() * REPLICAS));
    const ledgerBefore = await ledgerRows();
    const from = performance.now();
    let alreadyUsed = 0;
    const outcomes = await pool(
      Array.from({ length: confirms }, (_, i) => i),
      60,
      async (i) => {
        const asker = random();
        const wwid = `double-${i}`;
        const userId = userOf(i);
        const { confirmation } = await slack.ask(asker, '/shop', `ww ${wwid}`, { userId });
        const targets = clicks === 'same' ? [asker, asker] : [random(), random()];
        const sent = await Promise.all(
          targets.map((t) =>
            slack.click(t, 'platdesk.confirm', confirmation.confirm.value, {
              userId,
              label: confirmation.confirm.label,
            }),
          ),
        );
        // Each click's first word that is not "Looking up…": the answer, or why it did not run.
        const said = await Promise.all(
          sent.map(async (s) =>
            textOf(await slack.response(s.responseUrlId, (m) => !textOf(m).includes('Looking up'), 300_000)),
          ),
        );
        alreadyUsed += said.filter((t) => t.includes('already used')).length;
        return said.some((t) => t.includes(shopOf(wwid)));
      },
    );
    await sleep(500);
    const calls = arrivalsBetween(sandbox.arrivals(), from).length;
    const ran = outcomes.filter(Boolean).length;
    const ledger = (await ledgerRows()) - ledgerBefore;
    results.doubleClicks = {
      confirms,
      mode: clicks,
      lookupsAnswered: ran,
      calls,
      ledgerRows: ledger,
      doubleCharges: calls - ran,
      secondClicksAlreadyUsed: alreadyUsed,
    };
    const mode =
      clicks === 'same'
        ? 'both clicks on the replica that showed the Confirm'
        : 'each click on a random replica';
    console.log(
      `5 double clicks ${confirms} Confirms clicked twice at once, ${mode}: ${ran} lookups answered, ${calls} calls at the sandbox, ${ledger} ledger rows, double charges ${calls - ran}; ${alreadyUsed} second clicks answered "already used"`,
    );
  }

  // ---- the whole run ---------------------------------------------------------------------------
  const latency = await platCallLatency(cluster.replicas);
  const stats = sandbox.stats();
  results.whole = {
    calls: stats.calls,
    largestInAnySecond: stats.maxInWindow,
    violations: stats.violations,
    platCallMeanMs: latency,
  };
  console.log(
    `  whole run     ${stats.calls} calls; largest count in any sliding second at the sandbox ${stats.maxInWindow}, ${stats.violations} violations; sandbox latency: its default (no delay injected outside phase 3), mean plat call ${latency} ms as the replicas measured it (since their last start)`,
  );
  console.log(JSON.stringify(results));
}

/** Mean plat call duration over every replica's platdesk_plat_call_ms histogram. */
async function platCallLatency(replicas: readonly Replica[]): Promise<number> {
  let sum = 0;
  let count = 0;
  for (const replica of replicas) {
    const text = await (await fetch(`${replica.metricsUrl}/metrics`)).text();
    for (const m of text.matchAll(/^platdesk_plat_call_ms_(sum|count)\{[^}]*\} (\S+)$/gm)) {
      if (m[1] === 'sum') sum += Number(m[2]);
      else count += Number(m[2]);
    }
  }
  return round(sum / count, 1);
}
