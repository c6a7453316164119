/**
 * `npm run bench:start`: how fast platdesk starts, before (the tsc build, `node dist/main.js` as it
 * was) and after (the esbuild bundle behind the version-checking entry, compile cache on), side by
 * side, in HTTP mode and in Socket Mode: SQLite (an existing file), sandbox off, a local
 * Slack-compatible server answering auth.test and Socket Mode.
 *
 * Per run: the child's CPU (user + system, from /proc, 10 ms ticks) and wall time from spawn to the
 * first `/healthz` 200, then its RSS (and CPU, so work put off until after /healthz shows) after
 * 2 s idle. In Socket Mode a run counts only if the `/healthz` 200 meant ready: a slash command
 * pushed over the socket right then is acked over it and answered at its response_url (the idle
 * CPU includes that command). One warm-up run per variant (it creates the database file and fills the compile cache)
 * is not counted; then RUNS runs: min and median. The bundle runs with the Node flags of
 * package.json's `start` script (what `npm start` and the image run).
 *
 * `BENCH_BASELINE=<git ref>` (e.g. `main`) adds that commit's bundle, built from `git archive`, as
 * a third variant run side by side (its own `start` flags), so a branch is compared with its base
 * in one run on the same load. Figures are noisy on a shared machine: run it on an idle one for
 * the README.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { type FakeSlack, startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { slashCommand } from '../test/helpers/slack-payloads.js';

const ROOT = resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const IDLE_MS = 2000;
const TICK_MS = 1000 / 100; // USER_HZ

interface Run {
  cpuMs: number;
  wallMs: number;
  rssMb: number;
  idleCpuMs: number;
}

interface Variant {
  name: string;
  entry: string;
  /** Node's flags before the entry. */
  flags: string[];
}

/** The Node flags of a package.json's `start` script (`node [flags] dist/main.js`). */
function startFlags(packageJson: string): string[] {
  const start = (JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts: { start: string } }).scripts
    .start;
  return start.split(' ').filter((word) => word.startsWith('--'));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject()));
    });
  });
}

function cpuMsOf(pid: number): number {
  // /proc/PID/stat: fields 14 and 15 (utime, stime) after the ")" that ends the command name.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function rssMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
}

let commands = 0;

/** Socket Mode: a command pushed over the socket is acked over it and answered (throws if not). */
async function answersOverSocket(fake: FakeSlack): Promise<void> {
  const id = `start-${++commands}`;
  const envelopeId = fake.socket.send({
    type: 'slash_commands',
    payload: slashCommand({ command: '/item', text: 'help', responseUrl: fake.responseUrl(id) }),
    accepts_response_payload: true,
  });
  await fake.socket.waitForAck(envelopeId, 5000);
  await fake.waitFor('response_url', (c) => c.id === id, 5000);
}

async function startOnce(
  variant: Variant,
  env: Record<string, string>,
  fake: FakeSlack,
  socketMode: boolean,
): Promise<Run> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...variant.flags, variant.entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ...env,
      PORT: String(port),
      METRICS_PORT: '0',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`exited ${code} before /healthz: ${stderr}`))),
  );
  exited.catch(() => undefined);
  try {
    const pid = child.pid ?? 0;
    for (;;) {
      const ok = await Promise.race([
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.status === 200,
          () => false,
        ),
        exited,
      ]);
      if (ok) break;
      if (performance.now() - started > 30_000) throw new Error(`no /healthz 200 within 30 s: ${stderr}`);
      await sleep(5);
    }
    const wallMs = performance.now() - started;
    const cpuMs = cpuMsOf(pid);
    if (socketMode) await answersOverSocket(fake);
    await sleep(IDLE_MS);
    const rssMb = rssMbOf(pid);
    return { cpuMs, wallMs, rssMb, idleCpuMs: cpuMsOf(pid) };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const closed = new Promise((r) => child.once('close', r));
      child.kill('SIGTERM');
      await closed;
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? (s[(s.length - 1) / 2] ?? 0)
    : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2;
};

async function main(): Promise<void> {
  // Inside the project, so both builds find node_modules (the bundle keeps better-sqlite3 there).
  mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
  // Its real path: node_modules may be a symlink, and an entry started through a link would not
  // see itself as the main module (import.meta.url is the real path).
  const dir = realpathSync(mkdtempSync(join(ROOT, 'node_modules/.cache/platdesk-bench-start-')));
  // Deployed, the builds sit below platdesk's package.json ("type": "module": the repository for
  // npm start, /app in the image). Node looks for it no higher than a node_modules directory, so
  // here each build would be a file of no known type: Node would detect ESM by compiling every
  // chunk as CommonJS first. The scratch directory says what the deployed layout says.
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
  const fake = await startSlackApiServer();
  try {
    process.stderr.write('building: tsc (before) and esbuild (after)…\n');
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        'tsconfig.build.json',
        '--outDir',
        join(dir, 'tsc'),
      ],
      { cwd: ROOT, stdio: 'inherit' },
    );
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--out', join(dir, 'bundle')], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    const variants: Variant[] = [
      { name: 'before (tsc dist)', entry: join(dir, 'tsc/main.js'), flags: [] },
      {
        name: 'after (bundle)',
        entry: join(dir, 'bundle/main.js'),
        flags: startFlags(join(ROOT, 'package.json')),
      },
    ];
    const baseline = process.env.BENCH_BASELINE;
    if (baseline) {
      // That commit's tree (what its build reads), built with its own scripts/build.mjs; node_modules
      // are this checkout's (found from inside it).
      const tree = join(dir, 'baseline-src');
      mkdirSync(tree);
      execFileSync(
        'sh',
        ['-c', `git archive ${JSON.stringify(baseline)} | tar -x -C ${JSON.stringify(tree)}`],
        {
          cwd: ROOT,
          stdio: 'inherit',
        },
      );
      execFileSync(process.execPath, [join(tree, 'scripts/build.mjs'), '--out', join(dir, 'baseline')], {
        cwd: tree,
        stdio: 'inherit',
      });
      variants.push({
        name: `${baseline} (bundle)`.slice(0, 17),
        entry: join(dir, 'baseline/main.js'),
        flags: startFlags(join(tree, 'package.json')),
      });
    }
    const modes = {
      http: { SLACK_SIGNING_SECRET: 'bench-secret' },
      socket: { SLACK_APP_TOKEN: 'xapp-bench' },
    };
    const rows: string[] = [];
    for (const [mode, modeEnv] of Object.entries(modes)) {
      const runs = new Map<Variant, Run[]>(variants.map((v) => [v, []]));
      const envOf = (variant: Variant) => ({
        SLACK_BOT_TOKEN: 'xoxb-bench',
        SLACK_API_URL: fake.apiUrl,
        PLAT_BASE_URL: 'http://127.0.0.1:9',
        PLAT_TOKEN: 'bench',
        DATABASE_PATH: join(dir, `${mode}-${variants.indexOf(variant)}.sqlite`),
        LOG_LEVEL: 'warn',
        ...modeEnv,
      });
      // warm-up: database file, compile cache
      const socketMode = mode === 'socket';
      for (const variant of variants) await startOnce(variant, envOf(variant), fake, socketMode);
      // Interleaved, so a change in the machine's load falls on every variant alike.
      for (let i = 0; i < RUNS; i++)
        for (const variant of variants)
          runs.get(variant)?.push(await startOnce(variant, envOf(variant), fake, socketMode));
      for (const variant of variants) {
        const done = runs.get(variant) ?? [];
        const cpu = done.map((r) => r.cpuMs);
        const wall = done.map((r) => r.wallMs);
        const rss = done.map((r) => r.rssMb);
        const idleCpu = done.map((r) => r.idleCpuMs);
        rows.push(
          `| ${mode.padEnd(6)} | ${variant.name.padEnd(17)} | ${Math.min(...cpu)
            .toFixed(0)
            .padStart(4)} / ${median(cpu).toFixed(0).padStart(4)} | ${Math.min(...wall)
            .toFixed(0)
            .padStart(
              4,
            )} / ${median(wall).toFixed(0).padStart(4)} | ${median(rss).toFixed(1).padStart(6)} | ${median(
            idleCpu,
          )
            .toFixed(0)
            .padStart(5)} |`,
        );
        process.stderr.write(`${rows.at(-1)}\n`);
      }
    }
    process.stdout.write(
      [
        `Start → /healthz 200, ${RUNS} runs each after one warm-up (SQLite file, sandbox off, Node ${process.versions.node})`,
        '',
        '| mode   | build             | CPU ms min / median | wall ms min / median | idle RSS MB (median) | CPU ms after 2 s idle (median) |',
        '|--------|-------------------|---------------------|----------------------|----------------------|--------------------------------|',
        ...rows,
        '',
      ].join('\n'),
    );
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
