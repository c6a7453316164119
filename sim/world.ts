/**
 * The world a schedule runs in: real processes on loopback, and the levers the faults pull.
 *
 * - `pg`: three replicas of the BUILT app (dist/main.js, `npm start`'s entry; replica-cluster.ts)
 *   on one PostgreSQL database and one Redis, each reaching them through its own TCP proxies
 *   (tcp-proxy.ts: a partition of one replica; pg-commit-cutter.ts: a COMMIT that succeeded but
 *   whose answer is lost), each reaching the plat API through its own port of the recorder
 *   (plat-recorder.ts).
 * - `sqlite`: one process on a SQLite file (no Redis: the in-process limiter).
 *
 * Every process runs under libfaketime (Debian's `faketime` library through LD_PRELOAD) with its
 * own offset file, re-read every second: the clock of one replica can be moved while it runs,
 * and its monotonic clock (timers) is left alone. The database's clock is never moved.
 *
 * One PostgreSQL server serves a whole `npm run sim` (or the test run's server): each schedule
 * gets a fresh database copied from a template migrated once, and a fresh Redis, sandbox and
 * Slack stand-in, so a seed replays without what earlier schedules left behind.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createSandbox, platPrices, SANDBOX_FIXTURES, type Sandbox } from '../src/sandbox/index.js';
import { openStore } from '../src/store/engine.js';
import { type CommitCutter, startCommitCutter } from '../test/helpers/pg-commit-cutter.js';
import { type PostgresServer, startPostgres } from '../test/helpers/postgres-server.js';
import { createLimiterKeys, type RedisServer, startRedisServer } from '../test/helpers/redis-server.js';
import { type Replica, type ReplicaCluster, startReplicaCluster } from '../test/helpers/replica-cluster.js';
import { type FakeSlack, startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { startTcpProxy, type TcpProxy } from '../test/helpers/tcp-proxy.js';
import { type PlatRecorder, startPlatRecorder } from './plat-recorder.js';
import type { Schedule } from './schedule.js';
import { type SlackDriver, type SlackTarget, slackDriver } from './slack-driver.js';
import { ADMINS, DIGEST_CHANNELS, USERS } from './workload.js';

/** The checkout: the replicas run its build, dist/ (`npm run sim` builds it when stale). */
const ROOT = resolve(import.meta.dirname, '..');

export const SIGNING_SECRET = 'sim-signing-secret';
const PLAT_TOKEN = 'sim-plat-token';
/** Debian's libfaketime (package `faketime`), under the machine's multiarch directory. */
function faketimeLibrary(): string {
  const root = '/usr/lib';
  for (const dir of existsSync(root) ? readdirSync(root) : []) {
    const path = join(root, dir, 'faketime', 'libfaketime.so.1');
    if (existsSync(path)) return path;
  }
  throw new Error(
    "libfaketime is not installed: the simulator moves replicas' clocks with it (Debian: apt-get install -y faketime; .ci/run does this)",
  );
}
/** Orders over the sandbox's 72 h: about 4 pages (of 100) a day for the busy shop, 1 for the small. */
const ORDER_COUNTS = { [SANDBOX_FIXTURES.owners.busy]: 1200, [SANDBOX_FIXTURES.owners.small]: 240 };
const DAY_MS = 86_400_000;

/** What every schedule of one `npm run sim` shares: the PostgreSQL server and its template. */
export interface SharedServers {
  /** Maintenance URL of the server (database `postgres`), or null without PostgreSQL. */
  readonly postgresUrl: string | null;
  /** A fresh database copied from the migrated template; its URL. */
  createDatabase(name: string): Promise<string>;
  dropDatabase(url: string): Promise<void>;
  close(): Promise<void>;
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Starts (or, given `postgresUrl`, uses) a PostgreSQL server and migrates a template database. */
export async function startShared(options: {
  postgres: boolean;
  postgresUrl?: string;
}): Promise<SharedServers> {
  let server: PostgresServer | null = null;
  let url: string | null = options.postgresUrl ?? null;
  if (options.postgres && url === null) {
    server = await startPostgres();
    url = server.url;
  }
  const template = `sim_template_${process.pid}_${Date.now().toString(36)}`;
  if (url !== null) {
    await admin(url, `CREATE DATABASE ${template}`);
    const store = await openStore({ url: withDatabase(url, template) });
    await store.close();
  }
  return {
    postgresUrl: url,
    async createDatabase(name) {
      if (url === null) throw new Error('no PostgreSQL server');
      await admin(url, `CREATE DATABASE ${name} TEMPLATE ${template}`);
      return withDatabase(url, name);
    },
    async dropDatabase(dbUrl) {
      if (url === null) return;
      await admin(url, `DROP DATABASE IF EXISTS ${new URL(dbUrl).pathname.slice(1)} WITH (FORCE)`);
    },
    async close() {
      if (url !== null)
        await admin(url, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => undefined);
      await server?.remove();
    },
  };
}

/** One injected fault, as it happened (for the report and the checker's exemptions). */
export interface FaultRecord {
  kind: string;
  /** performance.now() when it was applied. */
  at: number;
  replica?: number;
  detail?: string;
}

export interface World {
  readonly schedule: Schedule;
  readonly sandbox: Sandbox;
  readonly recorder: PlatRecorder;
  readonly fake: FakeSlack;
  readonly slack: SlackDriver;
  readonly cluster: ReplicaCluster;
  /** Where the store is: a PostgreSQL URL (direct, not through the proxies) or a SQLite file. */
  readonly database: { url: string } | { path: string };
  /** Subscription ids made in setup: scheduled (due at start) and for "Run now". */
  readonly digests: { scheduled: number[]; manual: number[] };
  /** Every fault applied, in order. */
  readonly faults: FaultRecord[];
  /** kill -9 of each replica, in performance.now() time (the checker's "killed before it recorded"). */
  readonly kills: { replica: number; at: number }[];
  /** When a replica (null: every replica) could not write to the store: paused, cut off, a table locked. */
  readonly outages: { replica: number | null; from: number; to: number }[];
  /** performance.now() when the workload started. */
  startedAt: number;
  /** Where Slack delivers a request meant for replica `replica` (modulo their number). */
  target(replica: number): SlackTarget;
  record(fault: Omit<FaultRecord, 'at'>): void;

  // ---- the levers ----
  kill(replica: number): Promise<void>;
  respawn(replica: number): Promise<void>;
  pause(replica: number): void;
  resume(replica: number): void;
  /** Cuts one replica off the store (PostgreSQL) until restoreStore. */
  cutStore(replica: number): Promise<void>;
  restoreStore(replica: number): Promise<void>;
  /** The next COMMIT of this replica commits, and its answer is lost with the connection. */
  armCommitCut(replica: number): void;
  /** Holds an exclusive lock on a table (SQLite: the database) for `ms`. */
  lockTable(table: string, ms: number): Promise<void>;
  cutRedis(replica: number): Promise<void>;
  restoreRedis(replica: number): Promise<void>;
  /** Kills Redis (SIGKILL) after saving its keys or not, and starts it again after `downMs`. */
  restartRedis(keepData: boolean, downMs: number): Promise<void>;
  /** Moves one replica's wall clock by `offsetS` seconds from true time. */
  setClock(replica: number, offsetS: number): void;

  /** Ends the transient faults (paused processes, cuts, dead processes): the drain begins. */
  heal(): Promise<void>;
  /** Stops every process and removes what the schedule made. */
  close(): Promise<void>;
}

/** The local HH:MM of `ms` in `zone`. */
function hhmm(ms: number, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(ms));
}

/** A zone where 30 minutes ago was still today (so a digest due then is due now, not tomorrow). */
function zoneWithPastSlot(now: number): { zone: string; time: string } {
  for (const zone of ['UTC', 'Asia/Shanghai', 'America/New_York', 'Pacific/Auckland']) {
    const time = hhmm(now - 30 * 60_000, zone);
    if (time < hhmm(now, zone)) return { zone, time };
  }
  return { zone: 'UTC', time: '00:00' };
}

/** Worlds not closed yet: `npm run sim` closes them when it is interrupted (Ctrl-C). */
const openWorlds = new Set<World>();

/** Stops the processes of every world still open. */
export async function closeOpenWorlds(): Promise<void> {
  await Promise.all([...openWorlds].map((w) => w.close().catch(() => undefined)));
}

export async function createWorld(schedule: Schedule, shared: SharedServers): Promise<World> {
  const { topology, replicas, setup } = schedule;
  const tag = `sim_${schedule.seed}_${process.pid}_${Date.now().toString(36)}`;
  const dir = mkdtempSync(join(tmpdir(), 'platdesk-sim-'));
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    // Each step once, newest first, whoever calls (the run's end, or an interrupt meanwhile).
    for (let c = cleanups.pop(); c; c = cleanups.pop()) await c().catch(() => undefined);
  };
  // Redis starts while the database is made (a fresh key set is fenced for a second or two).
  const redisReady: Promise<RedisServer | null> =
    topology === 'pg'
      ? (async () => {
          const r = await startRedisServer();
          cleanups.push(() => r.close());
          // Without this a fresh Redis fences every grant for ~17 s (issue 33 finding 17), which
          // the "Redis restarted without its data" fault exercises; the start of each run does not.
          await createLimiterKeys(r.url);
          return r;
        })()
      : Promise.resolve(null);
  try {
    // ---- the store, with what exists before anyone starts --------------------------------------
    const database: World['database'] =
      topology === 'pg' ? { url: await shared.createDatabase(tag) } : { path: join(dir, 'platdesk.sqlite') };
    if ('url' in database) cleanups.push(() => shared.dropDatabase(database.url));
    const store = await openStore('url' in database ? { url: database.url } : { path: database.path });
    const digests = { scheduled: [] as number[], manual: [] as number[] };
    try {
      await store.settings.set(
        'budgets',
        {
          timezone: 'Asia/Shanghai',
          workspace: { daily: setup.workspaceDaily, monthly: null },
          perUser: { daily: null, monthly: null },
          users: Object.fromEntries(
            setup.userDaily.map((u) => [USERS[u.user] ?? USERS[0], { daily: u.points, monthly: null }]),
          ),
        },
        ADMINS[0],
      );
      const now = Date.now();
      const owners = [SANDBOX_FIXTURES.owners.busy, SANDBOX_FIXTURES.owners.small];
      let channel = 0;
      for (let i = 0; i < setup.scheduledDigests; i++) {
        const { zone, time } = zoneWithPastSlot(now);
        const sub = await store.digests.add({
          ownerId: owners[i % owners.length] ?? SANDBOX_FIXTURES.owners.busy,
          shopLabel: `scheduled-${i}`,
          channelId: DIGEST_CHANNELS[channel++] ?? 'CSIMDGX',
          localTime: time,
          timeZone: zone,
          createdBy: ADMINS[0],
        });
        digests.scheduled.push(sub.id);
      }
      for (let i = 0; i < setup.manualDigests; i++) {
        const zone = 'UTC';
        const sub = await store.digests.add({
          ownerId: owners[(i + 1) % owners.length] ?? SANDBOX_FIXTURES.owners.small,
          shopLabel: `manual-${i}`,
          channelId: DIGEST_CHANNELS[channel++] ?? 'CSIMDGY',
          // Passed already today (and created now): no scheduled run of its own during the run.
          localTime: hhmm(now - 2 * 3_600_000, zone),
          timeZone: zone,
          createdBy: ADMINS[0],
        });
        digests.manual.push(sub.id);
      }
    } finally {
      await store.close();
    }
    if (digests.scheduled.length > 0) {
      // Created two days ago: today's slot (30 minutes ago) is due and was never run.
      const ids = digests.scheduled.join(',');
      const sql = `UPDATE digest_subscriptions SET created_at = created_at - ${2 * DAY_MS} WHERE id IN (${ids})`;
      if ('url' in database) await admin(database.url, sql);
      else {
        const db = new Database(database.path);
        db.exec(sql);
        db.close();
      }
    }

    // ---- the plat API, Slack and Redis ---------------------------------------------------------
    const sandbox = createSandbox({ token: PLAT_TOKEN, orderCounts: ORDER_COUNTS, seed: schedule.seed });
    const sandboxUrl = await sandbox.listen(0);
    cleanups.push(() => sandbox.close());
    const recorder = await startPlatRecorder(sandboxUrl, replicas);
    cleanups.push(() => recorder.close());
    const fake = await startSlackApiServer();
    cleanups.push(() => fake.close());
    let redis: RedisServer | null = null;
    const redisProxies: TcpProxy[] = [];
    const storeProxies: TcpProxy[] = [];
    const cutters: CommitCutter[] = [];
    redis = await redisReady;
    if (redis && 'url' in database) {
      const r = redis;
      const pgUrl = new URL(database.url);
      for (let i = 0; i < replicas; i++) {
        const redisProxy = await startTcpProxy({ host: '127.0.0.1', port: r.port });
        redisProxies.push(redisProxy);
        const storeProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(pgUrl.port) });
        storeProxies.push(storeProxy);
        const viaProxy = new URL(database.url);
        viaProxy.port = String(storeProxy.port);
        cutters.push(await startCommitCutter(viaProxy.toString()));
      }
      cleanups.push(async () => {
        for (const p of [...redisProxies, ...storeProxies]) await p.close();
        for (const c of cutters) await c.close();
      });
    }
    const clockFiles = Array.from({ length: replicas }, (_, i) => join(dir, `clock-${i}`));
    for (const f of clockFiles) writeFileSync(f, '+0s\n');

    const prices = Object.fromEntries(
      Object.entries(sandbox.prices).filter(
        ([op]) => !(setup.unknownShopInfoPrice && op === 'get-shop-info'),
      ),
    ) as Sandbox['prices'];
    const cluster = await startReplicaCluster(replicas, {
      built: join(ROOT, 'dist'),
      startTimeoutMs: 60_000,
      env: {
        SLACK_BOT_TOKEN: 'xoxb-sim',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
        PLAT_TOKEN,
        PLAT_PRICES: platPrices(prices),
        PLATDESK_ADMINS: ADMINS.join(','),
        PLAT_QUEUE_MAX: '500',
        LD_PRELOAD: faketimeLibrary(),
        FAKETIME_CACHE_DURATION: '1',
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
      },
      envOf: (i) => ({
        PLAT_BASE_URL: recorder.urlOf(i),
        FAKETIME_TIMESTAMP_FILE: clockFiles[i] ?? '',
        ...(redis && cutters[i] && redisProxies[i]
          ? { DATABASE_URL: cutters[i].url, REDIS_URL: `redis://127.0.0.1:${redisProxies[i].port}` }
          : { DATABASE_PATH: 'path' in database ? database.path : '' }),
      }),
    });
    const paused = new Set<number>();
    cleanups.push(async () => {
      for (const r of cluster.replicas) if (r.alive) process.kill(r.pid, 'SIGCONT');
      await cluster.stop(5000);
    });

    const slack = slackDriver(fake, SIGNING_SECRET, tag);
    const faults: FaultRecord[] = [];
    const kills: World['kills'] = [];
    const outages: World['outages'] = [];
    const respawning = new Map<number, Promise<void>>();
    const locks = new Set<Promise<void>>();
    let redisRestart: Promise<void> | null = null;
    const storeCut = new Set<number>();
    const redisCut = new Set<number>();

    const at = (i: number): Replica => cluster.at(i);
    const world: World = {
      schedule,
      sandbox,
      recorder,
      fake,
      slack,
      cluster,
      database,
      digests,
      faults,
      kills,
      outages,
      startedAt: performance.now(),
      target(replica) {
        const wanted = cluster.replicas[replica % cluster.replicas.length];
        if (wanted?.alive) return wanted;
        // A load balancer sends it to a live replica (a paused one still looks alive).
        return cluster.replicas.find((r) => r.alive) ?? at(replica % cluster.replicas.length);
      },
      record(fault) {
        faults.push({ ...fault, at: performance.now() });
      },
      async kill(replica) {
        if (!at(replica).alive) return;
        paused.delete(replica);
        await cluster.kill(replica);
        // When it is known dead: an answer written into its socket between the signal and its
        // death was never read (the checker's "killed after it was answered"; seed 1092).
        kills.push({ replica, at: performance.now() });
      },
      async respawn(replica) {
        if (at(replica).alive) return;
        const pending = respawning.get(replica);
        if (pending) return pending;
        const started = cluster
          .respawn(replica)
          .then(() => undefined)
          .finally(() => respawning.delete(replica));
        respawning.set(replica, started);
        return started;
      },
      pause(replica) {
        const r = at(replica);
        if (!r.alive || paused.has(replica)) return;
        process.kill(r.pid, 'SIGSTOP');
        paused.add(replica);
      },
      resume(replica) {
        const r = at(replica);
        if (!paused.delete(replica) || !r.alive) return;
        process.kill(r.pid, 'SIGCONT');
      },
      async cutStore(replica) {
        const proxy = storeProxies[replica];
        if (!proxy || storeCut.has(replica)) return;
        storeCut.add(replica);
        await proxy.cut();
      },
      async restoreStore(replica) {
        const proxy = storeProxies[replica];
        if (!proxy || !storeCut.delete(replica)) return;
        await proxy.restore();
      },
      armCommitCut(replica) {
        cutters[replica]?.arm();
      },
      lockTable(table, ms) {
        const held = (async () => {
          if ('url' in database) {
            const client = new pg.Client({ connectionString: database.url });
            await client.connect();
            try {
              await client.query('BEGIN');
              await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
              await new Promise((r) => setTimeout(r, ms));
              await client.query('ROLLBACK');
            } finally {
              await client.end();
            }
          } else {
            // A short busy timeout, retried: better-sqlite3 waits on this thread, and a long
            // wait here would stall the recorder and the Slack stand-in with it.
            const db = new Database(database.path, { timeout: 20 });
            try {
              for (let tries = 0; ; tries++) {
                try {
                  db.exec('BEGIN EXCLUSIVE');
                  break;
                } catch (error) {
                  if (tries > 250) throw error;
                  await new Promise((r) => setTimeout(r, 20));
                }
              }
              await new Promise((r) => setTimeout(r, ms));
              db.exec('ROLLBACK');
            } finally {
              db.close();
            }
          }
        })().catch(() => undefined);
        locks.add(held);
        void held.finally(() => locks.delete(held));
        return Promise.resolve();
      },
      async cutRedis(replica) {
        const proxy = redisProxies[replica];
        if (!proxy || redisCut.has(replica)) return;
        redisCut.add(replica);
        await proxy.cut();
      },
      async restoreRedis(replica) {
        const proxy = redisProxies[replica];
        if (!proxy || !redisCut.delete(replica)) return;
        await proxy.restore();
      },
      restartRedis(keepData, downMs) {
        const server = redis;
        if (!server || redisRestart) return Promise.resolve();
        redisRestart = (async () => {
          if (keepData) {
            // A snapshot taken at the moment of the crash: restarted, Redis loads it.
            const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
            try {
              await client.connect();
              await client.call('SAVE');
            } finally {
              client.disconnect();
            }
          }
          await server.kill();
          await new Promise((r) => setTimeout(r, downMs));
          await server.start();
        })()
          .catch(() => undefined)
          .finally(() => {
            redisRestart = null;
          });
        return Promise.resolve();
      },
      setClock(replica, offsetS) {
        const file = clockFiles[replica];
        if (file) writeFileSync(file, `${offsetS >= 0 ? '+' : ''}${offsetS}s\n`);
      },
      async heal() {
        for (const replica of [...paused]) world.resume(replica);
        for (const replica of [...storeCut]) await world.restoreStore(replica);
        for (const replica of [...redisCut]) await world.restoreRedis(replica);
        recorder.clearFaults();
        sandbox.setFaults([]);
        await Promise.all(locks);
        await redisRestart;
        await Promise.all([...respawning.values()].map((p) => p.catch(() => undefined)));
        for (let i = 0; i < replicas; i++) if (!at(i).alive) await world.respawn(i).catch(() => undefined);
      },
      async close() {
        openWorlds.delete(world);
        await cleanup();
      },
    };
    openWorlds.add(world);
    return world;
  } catch (error) {
    await redisReady.catch(() => undefined);
    await cleanup();
    throw error;
  }
}
