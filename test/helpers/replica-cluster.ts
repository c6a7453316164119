/**
 * Several platdesk app processes side by side, as an orchestrator runs replicas: each is
 * `npm start`'s entry point (src/main.ts, through tsx; or, with `built`, a build's dist/main.js
 * with npm start's Node flags, as the image runs it) in its own child process, in HTTP mode on
 * a port of its own (PORT=0; the port comes from its `platdesk started` log line).
 *
 * The helper knows no engine: the caller gives the environment every replica shares (REDIS_URL,
 * PLAT_BASE_URL, SLACK_API_URL, DATABASE_URL…) and what each has of its own (DATABASE_PATH for a
 * per-replica SQLite file). `kill(i)` is kill -9: no shutdown code runs, as when a host dies.
 * Every replica's stderr and its warnings and errors are kept for failure messages (`output()`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '../..');
/** Pino's level numbers: warn and above are kept for output(). */
const WARN = 40;
/** Log lines kept per replica (a replica logs every request at info). */
const LINES_KEPT = 500;

export interface ReplicaClusterOptions {
  /** What every replica's environment holds (PATH and HOME are added; PORT and LOG_LEVEL are set here). */
  env: Record<string, string>;
  /** Each replica's own variables, by index (e.g. its DATABASE_PATH). */
  envOf?: (index: number) => Record<string, string>;
  /**
   * What each replica's command runs under, by index (e.g. `['faketime', '-f', '+2s']`, a clock
   * of its own); default nothing.
   */
  wrapperOf?: (index: number) => string[];
  /** How long a replica may take to log `platdesk started` (default 45 s: tsx compiles on start). */
  startTimeoutMs?: number;
  /** A build's directory (scripts/build.mjs `buildApp(out)`): run its main.js instead of src/. */
  built?: string;
}

/** One pino log line of a replica. */
export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

export interface Replica {
  readonly index: number;
  /** `replica-<index>`, or `replica-<index>'` once respawned. */
  readonly name: string;
  readonly pid: number;
  /** http://127.0.0.1:PORT (health, metrics). */
  readonly url: string;
  /** http://127.0.0.1:PORT/slack/events: where Slack's signed requests go. */
  readonly eventsUrl: string;
  /** False once the process has exited (killed or on its own). */
  readonly alive: boolean;
  /** Resolves with the exit code (null after a signal) once the process has exited. */
  readonly exited: Promise<number | null>;
  /** The newest log lines (at most LINES_KEPT), parsed. */
  logs(): LogLine[];
  /** stderr and the warnings and errors logged, for a failure message. */
  output(): string;
}

export interface ReplicaCluster {
  /** The replicas, by index (a respawned one replaces its predecessor). */
  readonly replicas: readonly Replica[];
  at(index: number): Replica;
  /** The replicas still running. */
  alive(): Replica[];
  /** kill -9 of one replica; resolves once it has exited. */
  kill(index: number): Promise<void>;
  /** Starts a new process in place of replica `index` (after kill), with the same environment. */
  respawn(index: number): Promise<Replica>;
  /** Starts one more replica (index replicas.length), as a rollout's new pod; resolves once started. */
  add(): Promise<Replica>;
  /** SIGTERM to one replica (as Kubernetes ends a pod); resolves with its exit code once it has exited. */
  terminate(index: number): Promise<number | null>;
  /** `GET /healthz` of one replica. */
  health(index: number): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Every replica's output(), labelled: pass it as an assertion's message. */
  output(): string;
  /** SIGTERM to every live replica (platdesk drains, then exits); SIGKILL past `graceMs` (default 10 s). */
  stop(graceMs?: number): Promise<void>;
}

/** npm start's Node flags (package.json "start"), for a built replica. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((part) => part.startsWith('--'));
}

function startReplica(
  index: number,
  name: string,
  env: Record<string, string>,
  startTimeoutMs: number,
  built: string | undefined,
  wrapper: string[],
): Promise<Replica> {
  const [command, ...args] = [
    ...wrapper,
    join(ROOT, 'node_modules/.bin/node'),
    ...(built ? [...startFlags(), join(built, 'main.js')] : ['--import', 'tsx', 'src/main.ts']),
  ];
  const child: ChildProcess = spawn(command as string, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ...env,
      // The port is read from the `platdesk started` line, logged at info.
      PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let stderr = '';
  let alive = true;
  const exited = new Promise<number | null>((resolveExit) => {
    child.once('exit', (code) => {
      alive = false;
      resolveExit(code);
    });
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const output = () =>
    [stderr.trim(), ...lines.filter((l) => l.level >= WARN).map((l) => JSON.stringify(l))]
      .filter(Boolean)
      .join('\n');

  return new Promise<Replica>((resolveStart, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within ${startTimeoutMs} ms:\n${output()}`));
    }, startTimeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before it started:\n${output()}`));
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        line = { level: WARN, msg: text };
      }
      lines.push(line);
      if (lines.length > LINES_KEPT) lines.shift();
      if (line.msg === 'platdesk started' && typeof line.port === 'number') {
        clearTimeout(timer);
        const url = `http://127.0.0.1:${line.port}`;
        resolveStart({
          index,
          name,
          pid: child.pid ?? -1,
          url,
          eventsUrl: `${url}/slack/events`,
          get alive() {
            return alive;
          },
          exited,
          logs: () => [...lines],
          output,
        });
      }
    });
  });
}

/** Starts `count` replicas at once; if any fails to start, the others are killed and it throws. */
export async function startReplicaCluster(
  count: number,
  options: ReplicaClusterOptions,
): Promise<ReplicaCluster> {
  const startTimeoutMs = options.startTimeoutMs ?? 45_000;
  const envOf = (index: number) => ({ ...options.env, ...options.envOf?.(index) });
  const launch = (index: number, name: string) =>
    startReplica(index, name, envOf(index), startTimeoutMs, options.built, options.wrapperOf?.(index) ?? []);
  const settled = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => launch(i, `replica-${i}`)),
  );
  const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  const replicas = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  if (failed.length > 0) {
    await Promise.all(replicas.map((r) => killPid(r)));
    throw new Error(
      failed.map((f) => String(f.reason instanceof Error ? f.reason.message : f.reason)).join('\n'),
    );
  }

  const at = (index: number): Replica => {
    const replica = replicas[index];
    if (!replica) throw new Error(`no replica ${index} (the cluster has ${replicas.length})`);
    return replica;
  };

  return {
    replicas,
    at,
    alive: () => replicas.filter((r) => r.alive),
    kill: (index) => killPid(at(index)),
    async respawn(index) {
      const previous = at(index);
      if (previous.alive) throw new Error(`${previous.name} is still running: kill it first`);
      const replica = await launch(index, `${previous.name}'`);
      replicas[index] = replica;
      return replica;
    },
    async add() {
      const index = replicas.length;
      const replica = await launch(index, `replica-${index}`);
      replicas[index] = replica;
      return replica;
    },
    async terminate(index) {
      const replica = at(index);
      if (replica.alive) process.kill(replica.pid, 'SIGTERM');
      return replica.exited;
    },
    async health(index) {
      const response = await fetch(`${at(index).url}/healthz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    output: () => replicas.map((r) => `--- ${r.name} (pid ${r.pid}):\n${r.output()}`).join('\n'),
    async stop(graceMs = 10_000) {
      await Promise.all(
        replicas
          .filter((r) => r.alive)
          .map(async (r) => {
            process.kill(r.pid, 'SIGTERM');
            const timer = setTimeout(() => {
              if (r.alive) process.kill(r.pid, 'SIGKILL');
            }, graceMs);
            await r.exited;
            clearTimeout(timer);
          }),
      );
    },
  };
}

async function killPid(replica: Replica): Promise<void> {
  if (!replica.alive) return;
  process.kill(replica.pid, 'SIGKILL');
  await replica.exited;
}
