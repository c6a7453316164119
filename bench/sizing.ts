/**
 * `npm run bench:sizing`: what one replica needs, as deploy/kubernetes runs it: the built app
 * (dist/main.js with npm start's Node flags, as the image) in HTTP mode on PostgreSQL and Redis
 * (real servers started here), the plat sandbox and a local Slack-compatible server in this
 * process. It prints the replica's RSS and CPU (user + system, from /proc):
 *   - idle: after start, IDLE_S seconds with no request;
 *   - busy: BUSY_S seconds of paid lookups (command, Confirm, plat call, answer), each followed by
 *     a `help` command, paced at most at the plat API's own limit, 10 a second (no replica can
 *     do more: the limit is the account's): the CPU per lookup, and what 10 a second need;
 *   - peak: the largest RSS seen (VmHWM).
 * deploy/kubernetes/base/deployment.yaml's requests and limits are set from these figures
 * (docs/kubernetes.md, "Sizing"). `--busy S`, `--idle S` change the windows.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createSandbox } from '../src/sandbox/index.js';
import { startPostgres } from '../test/helpers/postgres-server.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { startReplicaCluster } from '../test/helpers/replica-cluster.js';
import { replicaSlack } from '../test/helpers/replica-slack.js';
import { startSlackApiServer } from '../test/helpers/slack-api-server.js';

const ROOT = resolve(import.meta.dirname, '..');
const TICK_MS = 1000 / 100; // USER_HZ
const SECRET = 'sizing-secret';
const { values } = parseArgs({ options: { busy: { type: 'string' }, idle: { type: 'string' } } });
const IDLE_S = Number(values.idle ?? 20);
const BUSY_S = Number(values.busy ?? 60);
/** Lookups in flight at once. */
const LANES = 4;

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(status.match(new RegExp(`${name}:\\s+(\\d+)`))?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
const out = mkdtempSync(join(ROOT, 'node_modules/.cache/platdesk-sizing-'));
const postgres = await startPostgres();
const redis = await startRedisServer();
const sandbox = createSandbox({ token: 'sizing' });
const fake = await startSlackApiServer();
try {
  const { buildApp } = (await import(join(ROOT, 'scripts/build.mjs'))) as {
    buildApp: (out: string) => Promise<unknown>;
  };
  await buildApp(out);
  const cluster = await startReplicaCluster(1, {
    built: out,
    env: {
      SLACK_BOT_TOKEN: 'xoxb-sizing',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: fake.apiUrl,
      PLAT_BASE_URL: await sandbox.listen(0),
      PLAT_TOKEN: 'sizing',
      DATABASE_URL: await postgres.createDatabase('sizing'),
      REDIS_URL: redis.url,
    },
  });
  const replica = cluster.at(0);
  const slack = replicaSlack(fake, SECRET, 'sizing');
  try {
    const startMem = memoryMb(replica.pid);
    const idleFrom = cpuMs(replica.pid);
    await sleep(IDLE_S * 1000);
    const idleCpu = (cpuMs(replica.pid) - idleFrom) / (IDLE_S * 1000);
    const idleMem = memoryMb(replica.pid);

    // Paced at most 10 lookups a second (the plat limit), at most LANES in flight: on a loaded
    // machine the replica gets less CPU than it asks for, so the figure that travels is its CPU per
    // lookup, and from it what 10 a second would need.
    const busyFrom = cpuMs(replica.pid);
    const started = performance.now();
    let n = 0;
    let done = 0;
    let failed = 0;
    const rss: number[] = [];
    const lane = async () => {
      while (performance.now() - started < BUSY_S * 1000) {
        const i = n++;
        const due = started + i * 100;
        if (due > performance.now()) await sleep(due - performance.now());
        try {
          await slack.lookup(replica, replica, '/shop', `ww sizing${i}`, {
            userId: `U${3000 + (i % 20)}`,
            timeoutMs: 60_000,
          });
          await slack.command(replica, '/item', 'help');
          done++;
        } catch (error) {
          if (failed++ < 3) process.stderr.write(`lookup ${i} failed: ${String(error)}\n`);
        }
        if (i % 10 === 0) rss.push(memoryMb(replica.pid).rss);
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    const busyMs = performance.now() - started;
    const busyCpuMs = cpuMs(replica.pid) - busyFrom;
    const busyCpu = busyCpuMs / busyMs;
    const perLookup = busyCpuMs / Math.max(1, done);
    const after = memoryMb(replica.pid);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    process.stdout.write(
      [
        `One replica, built app (npm start's flags), HTTP mode, PostgreSQL + Redis, Node ${process.versions.node}, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
        `  at start:            RSS ${startMem.rss.toFixed(1)} MB`,
        `  idle ${IDLE_S} s:           RSS ${idleMem.rss.toFixed(1)} MB, CPU ${(idleCpu * 1000).toFixed(0)} millicores`,
        `  busy ${(busyMs / 1000).toFixed(0)} s: ${done} paid lookups answered (each with a help command; ${failed} failed): CPU ${(busyCpu * 1000).toFixed(0)} millicores used, ${perLookup.toFixed(1)} ms a lookup, so ${(perLookup * 10).toFixed(0)} millicores at 10 lookups a second; RSS median ${median(rss).toFixed(1)} / max ${Math.max(...rss).toFixed(1)} MB`,
        `  after:               RSS ${after.rss.toFixed(1)} MB, peak (VmHWM) ${after.peak.toFixed(1)} MB`,
        '',
      ].join('\n'),
    );
  } finally {
    await cluster.stop();
  }
} finally {
  await fake.close();
  await sandbox.close();
  await redis.close();
  await postgres.remove();
  rmSync(out, { recursive: true, force: true });
}
