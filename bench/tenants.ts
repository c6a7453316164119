/**
 * `npm run bench:tenants` (issue 39 point 4): many installed workspaces on three replicas, against
 * one workspace on three replicas, side by side. Each replica is the build `npm start` runs (its
 * Node flags included: test/helpers/replica-cluster.ts `built`), in distributed mode, on one
 * PostgreSQL server (a database per cluster; a throwaway server, or DATABASE_URL's, whose user may
 * CREATE DATABASE) and one Redis, the plat API the sandbox in this process, Slack one local
 * stand-in. The big cluster's database holds `--workspaces` installations (default 10,000), of
 * which `--scheduled` (default 2,000) have a daily digest or a ship-by alert (half each) planned
 * outside the bench's hours, and `--due` of the digests (default 100) fall due in one minute
 * during the bench. It prints, for both clusters:
 *
 *  1. start → `/healthz` 200 of each replica, started one at a time, alternating the clusters;
 *  2. idle RSS of each replica (`/proc/<pid>/status` VmRSS) after `--idle-s` seconds of idle,
 *     and the workspaces' parts kept (`platdesk_workspace_parts`);
 *  3. store queries at idle: each database's committed transactions per minute over those
 *     seconds (`pg_stat_database.xact_commit`; every statement outside a transaction is one);
 *  4. ack latency (signed request → HTTP 200) of `/item help` (no plat call) sent one at a time,
 *     interleaved round by round: from the one workspace of the small cluster, from one workspace
 *     of the big cluster, and each from another workspace of the big cluster (cold: its parts
 *     are built by that request); p50 and p99 of each;
 *  5. RSS growth per active workspace: the big cluster's RSS after those commands, less its idle
 *     RSS, over the workspaces each replica served;
 *  6. due runs: how long after their minute the `--due` digests' runs were claimed (the run's
 *     `created_at`), p50, p99 and max, and how many started.
 *
 * Options: `--workspaces N --scheduled N --due N --replicas N --commands N --idle-s N`. Scaled runs
 * (e.g. `--workspaces 2000`) print the same figures for their size. Prints a labelled summary,
 * then the figures as one JSON line. Run it on a machine as quiet as can be had (`uptime`).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createSandbox, SANDBOX_FIXTURES } from '../src/sandbox/index.js';
import { openStore } from '../src/store/engine.js';
import { parseEncryptionKeys } from '../src/store/secrets.js';
import type { Store } from '../src/store/store.js';
import { type PostgresServer, startPostgres } from '../test/helpers/postgres-server.js';
import { type RedisServer, startRedisServer } from '../test/helpers/redis-server.js';
import { type ReplicaCluster, startReplicaCluster } from '../test/helpers/replica-cluster.js';
import { startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { postCommand } from '../test/helpers/slack-http.js';
import { slashCommand } from '../test/helpers/slack-payloads.js';

const ROOT = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    workspaces: { type: 'string', default: '10000' },
    scheduled: { type: 'string', default: '2000' },
    due: { type: 'string', default: '100' },
    replicas: { type: 'string', default: '3' },
    commands: { type: 'string', default: '300' },
    'idle-s': { type: 'string', default: '60' },
  },
});
const WORKSPACES = Number(args.workspaces);
const SCHEDULED = Math.min(WORKSPACES, Number(args.scheduled));
const DUE = Math.min(Math.ceil(SCHEDULED / 2), Number(args.due));
const REPLICAS = Number(args.replicas);
const COMMANDS = Number(args.commands);
const IDLE_MS = Number(args['idle-s']) * 1000;
const SECRET = 'bench-tenants-secret';
const PLAT_TOKEN = 'bench-tenants';
const KEY = randomBytes(32).toString('base64');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const CHANNEL = 'C0BENCHDIGEST';
const teamOf = (i: number) => `TBT${String(i).padStart(6, '0')}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

const median = (values: number[]) => quantile(values, 0.5);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
}

/** Runs `work` over `items`, `lanes` at a time. */
async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let i = next++; i < items.length; i = next++) await work(items[i] as T, i);
    }),
  );
}

/** Hours of a ship-by alert's day that the bench (a few minutes from now) falls outside of. */
function alertHours(now: number): { hoursFrom: string; hoursTo: string } {
  let from = (new Date(now).getUTCHours() + 3) % 24;
  if (from > 21) from = (from + 3) % 24;
  const pad = (h: number) => `${String(h).padStart(2, '0')}:00`;
  return { hoursFrom: pad(from), hoursTo: pad(from + 2) };
}

/** The digests due at the bench's minute (subscription ids, with their tenants). */
type DueDigests = { tenant: string; id: number }[];

/** Every `every`-th workspace is scheduled; the due digests are on others (k·every + 1). */
const everyOf = (workspaces: number, scheduled: number) =>
  Math.max(2, Math.floor(workspaces / Math.max(1, scheduled)));

/**
 * `workspaces` installations; `scheduled` of them with a digest (even) or an alert (odd) whose next
 * look is planned after the bench, as their schedulers leave it.
 */
async function seed(url: string, workspaces: number, scheduled: number): Promise<void> {
  const store: Store = await openStore({ url, encryptionKeys: parseEncryptionKeys(KEY).keys });
  const now = Date.now();
  const quiet = hhmm(now + 6 * HOUR);
  const hours = alertHours(now);
  const every = everyOf(workspaces, scheduled);
  try {
    await inLanes(
      Array.from({ length: workspaces }, (_, i) => i),
      16,
      async (i) => {
        const tenant = teamOf(i);
        await store.installations.save({
          tenant,
          enterpriseId: null,
          enterpriseName: null,
          teamId: tenant,
          teamName: `bench ${i}`,
          isEnterpriseInstall: false,
          appId: 'A0BENCH',
          botId: `B${i}`,
          botUserId: `UB${i}`,
          botScopes: ['commands', 'chat:write'],
          botToken: `xoxb-bench-${i}`,
          botRefreshToken: null,
          botExpiresAt: null,
          installerUserId: 'U0BENCHADMIN',
        });
        const k = i / every;
        if (i % every !== 0 || k >= scheduled) return;
        const t = store.forTenant(tenant);
        if (k % 2 === 0) {
          await t.digests.add({
            ownerId: SANDBOX_FIXTURES.owners.small,
            shopLabel: 'shop',
            channelId: CHANNEL,
            localTime: quiet,
            timeZone: 'UTC',
            createdBy: 'U0BENCHADMIN',
          });
          // As its scheduler's plan leaves it: looked at again at its time.
          await store.scheduleWakes.set(tenant, 'digest', now + 6 * HOUR, 0);
        } else {
          await t.alerts.add({
            ownerId: SANDBOX_FIXTURES.owners.small,
            shopLabel: 'shop',
            channelId: CHANNEL,
            withinHours: 6,
            everyMinutes: 60,
            ...hours,
            timeZone: 'UTC',
            capPoints: 200,
            createdBy: 'U0BENCHADMIN',
          });
          await store.scheduleWakes.set(tenant, 'alert', now + 3 * HOUR, 0);
        }
      },
    );
  } finally {
    await store.close();
  }
}

/** `due` daily digests at `dueAt`, on workspaces with no schedule, their next look planned then. */
async function seedDue(
  url: string,
  workspaces: number,
  scheduled: number,
  due: number,
  dueAt: number,
): Promise<DueDigests> {
  const store: Store = await openStore({ url, encryptionKeys: parseEncryptionKeys(KEY).keys });
  const every = everyOf(workspaces, scheduled);
  const subs: DueDigests = [];
  try {
    for (let k = 0; k < due; k++) {
      const tenant = teamOf((k * every + 1) % workspaces);
      const sub = await store.forTenant(tenant).digests.add({
        ownerId: SANDBOX_FIXTURES.owners.small,
        shopLabel: 'shop',
        channelId: CHANNEL,
        localTime: hhmm(dueAt),
        timeZone: 'UTC',
        createdBy: 'U0BENCHADMIN',
      });
      await store.scheduleWakes.set(tenant, 'digest', dueAt, 0);
      subs.push({ tenant, id: sub.id });
    }
  } finally {
    await store.close();
  }
  return subs;
}

const postgres: PostgresServer | null = process.env.DATABASE_URL ? null : await startPostgres();
const serverUrl = postgres?.url ?? process.env.DATABASE_URL ?? '';
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const created: string[] = [];
async function createDatabase(name: string): Promise<string> {
  const db = `bench_tenants_${name}_${process.pid}`;
  await admin.query(`CREATE DATABASE ${db}`);
  created.push(db);
  const u = new URL(serverUrl);
  u.pathname = `/${db}`;
  return u.toString();
}
async function commits(): Promise<Record<string, number>> {
  const { rows } = await admin.query<{ datname: string; n: string }>(
    'SELECT datname, xact_commit AS n FROM pg_stat_database WHERE datname = ANY($1)',
    [created],
  );
  return Object.fromEntries(rows.map((r) => [r.datname, Number(r.n)]));
}

const redis: RedisServer = await startRedisServer();
const sandbox = createSandbox({ token: PLAT_TOKEN });
const platUrl = await sandbox.listen(0);
const fake = await startSlackApiServer();
mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
const out = mkdtempSync(join(ROOT, 'node_modules/.cache/platdesk-bench-tenants-'));
const clusters: ReplicaCluster[] = [];

try {
  const { buildApp } = (await import(join(ROOT, 'scripts/build.mjs'))) as {
    buildApp: (out: string) => Promise<unknown>;
  };
  await buildApp(out);
  console.log(
    `load average at start: ${loadavg()
      .map((l) => round(l, 2))
      .join(', ')}`,
  );
  const seedStarted = Date.now();
  const oneUrl = await createDatabase('one');
  const manyUrl = await createDatabase('many');
  await seed(oneUrl, 1, 0);
  await seed(manyUrl, WORKSPACES, SCHEDULED - DUE);
  // The due minute: after the replicas have started and the idle and ack phases are over.
  const dueAt =
    Math.ceil((Date.now() + 2 * REPLICAS * 20_000 + 10_000 + IDLE_MS + COMMANDS * 3 * 60) / MINUTE) * MINUTE;
  const many = { due: await seedDue(manyUrl, WORKSPACES, SCHEDULED, DUE, dueAt) };
  console.log(
    `seeded ${WORKSPACES} workspaces (${SCHEDULED} scheduled, ${DUE} of them digests due at ${new Date(dueAt).toISOString()}) in ${Math.round((Date.now() - seedStarted) / 1000)} s`,
  );

  const envOf = (url: string) => ({
    SLACK_CLIENT_ID: '1234.5678',
    SLACK_CLIENT_SECRET: 'bench-client-secret',
    SLACK_STATE_SECRET: 'bench-state-secret-0123456789',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.apiUrl,
    PLATDESK_ENCRYPTION_KEY: KEY,
    PLATDESK_ADMINS: '',
    PLATDESK_DEFAULT_ACCOUNT_FOR: '*',
    PLAT_BASE_URL: platUrl,
    PLAT_TOKEN,
    DATABASE_URL: url,
    REDIS_URL: redis.url,
  });

  // 1. Start → /healthz 200, one replica at a time, alternating the clusters.
  const startMs: { one: number[]; many: number[] } = { one: [], many: [] };
  const timedStart = async (which: 'one' | 'many', index: number): Promise<void> => {
    const t0 = performance.now();
    const env = envOf(which === 'one' ? oneUrl : manyUrl);
    const cluster =
      index === 0
        ? await startReplicaCluster(1, { built: out, env, startTimeoutMs: 120_000 })
        : (clusters[which === 'one' ? 0 : 1] as ReplicaCluster);
    const replica = index === 0 ? cluster.at(0) : await cluster.add();
    while (
      (await fetch(`${replica.url}/healthz`)
        .then((r) => r.status)
        .catch(() => 0)) !== 200
    )
      await sleep(10);
    startMs[which].push(Math.round(performance.now() - t0));
    if (index === 0) clusters.push(cluster);
  };
  for (let i = 0; i < REPLICAS; i++) {
    await timedStart('one', i);
    await timedStart('many', i);
  }
  const [oneCluster, manyCluster] = clusters as [ReplicaCluster, ReplicaCluster];
  const partsKept = async (cluster: ReplicaCluster) =>
    Promise.all(
      cluster.replicas.map(async (r) => {
        const text = await (await fetch(`${r.metricsUrl}/metrics`)).text();
        return Number(text.match(/^platdesk_workspace_parts (\S+)/m)?.[1] ?? Number.NaN);
      }),
    );
  const partsAtStart = await partsKept(manyCluster);

  // 2, 3. Idle: RSS and store transactions per minute.
  await sleep(10_000);
  const before = await commits();
  await sleep(IDLE_MS);
  const after = await commits();
  const perMinute = (db: string | undefined) =>
    db ? round((((after[db] ?? 0) - (before[db] ?? 0)) * MINUTE) / IDLE_MS, 0) : Number.NaN;
  const idleRss = {
    one: oneCluster.replicas.map((r) => round(rssMb(r.pid))),
    many: manyCluster.replicas.map((r) => round(rssMb(r.pid))),
  };
  const queriesPerMinute = { one: perMinute(created[0]), many: perMinute(created[1]) };
  const partsAtIdle = await partsKept(manyCluster);

  // 4. Ack latency, interleaved: one workspace (small cluster), one workspace (big cluster),
  // spread over the big cluster's workspaces (each a workspace not asked before).
  let seq = 0;
  const ack = async (url: string, teamId: string): Promise<number> => {
    const payload = {
      ...slashCommand({ command: '/item', text: 'help', responseUrl: fake.responseUrl(`b-${++seq}`) }),
      team_id: teamId,
    };
    const t = performance.now();
    const sent = await postCommand(url, SECRET, payload);
    if (sent.status !== 200) throw new Error(`/item help from ${teamId} answered ${sent.status}`);
    return performance.now() - t;
  };
  const acks = { oneCluster: [] as number[], manyOne: [] as number[], manySpread: [] as number[] };
  const served = manyCluster.replicas.map(() => new Set<string>());
  const stride = Math.max(1, Math.floor(WORKSPACES / Math.max(1, COMMANDS)));
  for (let i = 0; i < COMMANDS; i++) {
    const r = i % REPLICAS;
    acks.oneCluster.push(await ack(oneCluster.at(r).eventsUrl, teamOf(0)));
    acks.manyOne.push(await ack(manyCluster.at(r).eventsUrl, teamOf(1)));
    const spreadTeam = teamOf((i * stride + 3) % WORKSPACES);
    served[r]?.add(spreadTeam).add(teamOf(1));
    acks.manySpread.push(await ack(manyCluster.at(r).eventsUrl, spreadTeam));
    await sleep(5);
  }
  const ackFigures = Object.fromEntries(
    Object.entries(acks).map(([k, v]) => [k, { p50: round(median(v)), p99: round(quantile(v, 0.99)) }]),
  ) as Record<keyof typeof acks, { p50: number; p99: number }>;

  // 5. RSS growth per active workspace (the answers posted, their parts built).
  await sleep(3_000);
  const activeRss = manyCluster.replicas.map((r) => round(rssMb(r.pid)));
  const partsActive = await partsKept(manyCluster);
  const growthKb = manyCluster.replicas.map((_, i) =>
    Math.round((((activeRss[i] ?? 0) - (idleRss.many[i] ?? 0)) * 1024) / Math.max(1, served[i]?.size ?? 1)),
  );

  // 6. Due runs: claimed how long after their minute.
  const waitMs = dueAt + 45_000 - Date.now();
  if (waitMs > 0) await sleep(waitMs);
  const store = await openStore({ url: manyUrl, encryptionKeys: parseEncryptionKeys(KEY).keys });
  const delays: number[] = [];
  try {
    for (const { tenant, id } of many.due) {
      const run = await store.forTenant(tenant).digests.lastRun(id);
      if (run) delays.push(run.createdAt.getTime() - dueAt);
    }
  } finally {
    await store.close();
  }
  const dueLate =
    dueAt + 45_000 < Date.now() - 60_000 ? ' (the due minute passed before the replicas were up)' : '';

  const figures = {
    workspaces: WORKSPACES,
    scheduled: SCHEDULED,
    replicas: REPLICAS,
    startToHealthzMs: startMs,
    idleRssMb: idleRss,
    partsKept: { atStart: partsAtStart, atIdle: partsAtIdle, afterCommands: partsActive },
    idleTransactionsPerMinute: queriesPerMinute,
    ackMs: ackFigures,
    rssAfterCommandsMb: activeRss,
    rssGrowthKbPerActiveWorkspace: growthKb,
    dueRuns: {
      due: many.due.length,
      started: delays.length,
      minMs: delays.length ? Math.min(...delays) : Number.NaN,
      p50Ms: round(median(delays), 0),
      p99Ms: round(quantile(delays, 0.99), 0),
      maxMs: delays.length ? Math.max(...delays) : Number.NaN,
    },
    loadAverage: loadavg().map((l) => round(l, 2)),
  };
  const f = figures;
  console.log(`
${REPLICAS} replicas, PostgreSQL + Redis, built as npm start runs it; ${WORKSPACES} workspaces (${SCHEDULED} scheduled) against 1
start → /healthz (ms, per replica): ${WORKSPACES}: ${f.startToHealthzMs.many.join(', ')} (median ${median(f.startToHealthzMs.many)}); 1: ${f.startToHealthzMs.one.join(', ')} (median ${median(f.startToHealthzMs.one)}); ratio ${round(median(f.startToHealthzMs.many) / median(f.startToHealthzMs.one), 2)}
idle RSS (MB, per replica): ${WORKSPACES}: ${f.idleRssMb.many.join(', ')}; 1: ${f.idleRssMb.one.join(', ')}; parts kept at start ${partsAtStart.join(', ')}, at idle ${partsAtIdle.join(', ')}
store transactions per minute at idle (all replicas): ${WORKSPACES}: ${f.idleTransactionsPerMinute.many}; 1: ${f.idleTransactionsPerMinute.one}
ack (ms) p50 / p99 over ${COMMANDS} commands each: 1 workspace (small cluster) ${f.ackMs.oneCluster.p50} / ${f.ackMs.oneCluster.p99}; 1 workspace (big) ${f.ackMs.manyOne.p50} / ${f.ackMs.manyOne.p99}; spread over ${COMMANDS} workspaces (big) ${f.ackMs.manySpread.p50} / ${f.ackMs.manySpread.p99}; p99 spread / one ${round(f.ackMs.manySpread.p99 / f.ackMs.oneCluster.p99, 2)}
RSS after the commands (MB): ${activeRss.join(', ')} (parts kept ${partsActive.join(', ')}); growth per active workspace (KB): ${growthKb.join(', ')}
due runs at ${many.due.length} digests due in one minute among ${SCHEDULED} schedules: ${delays.length} started; claimed after their minute min ${f.dueRuns.minMs} ms, p50 ${f.dueRuns.p50Ms} ms, p99 ${f.dueRuns.p99Ms} ms, max ${f.dueRuns.maxMs} ms${dueLate}
load average at the end: ${f.loadAverage.join(', ')}`);
  console.log(JSON.stringify(figures));
} finally {
  for (const c of clusters) await c.stop().catch(() => undefined);
  await fake.close();
  await sandbox.close();
  await redis.close();
  for (const db of created)
    await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  await postgres?.remove();
  rmSync(out, { recursive: true, force: true });
}
