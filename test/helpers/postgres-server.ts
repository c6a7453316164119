/**
 * A real PostgreSQL server for the tests: a fresh cluster in a temporary directory, listening on
 * a free loopback port, removed afterwards. Debian's binaries (/usr/lib/postgresql/<v>/bin, the
 * `postgresql` package that .ci/run installs when missing). initdb and postgres refuse to run as
 * root, so as root they run as the `postgres` OS user (runuser), in a directory it may write.
 *
 * Missing binaries are an error, loud and fatal: the PostgreSQL engine is never skipped.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export class PostgresMissingError extends Error {
  constructor(detail: string) {
    super(
      `\n\n*** PostgreSQL server binaries not found (${detail}).\n` +
        '*** The store tests run every case on PostgreSQL too and cannot be skipped.\n' +
        '*** Install them: apt-get update && apt-get install -y postgresql (bash .ci/run does this).\n',
    );
    this.name = 'PostgresMissingError';
  }
}

/** The newest installed server's bin directory. */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter(
          (v) => existsSync(join(root, v, 'bin', 'postgres')) && existsSync(join(root, v, 'bin', 'initdb')),
        )
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) throw new PostgresMissingError(`no ${root}/<version>/bin/postgres`);
  return join(root, newest, 'bin');
}

const asRoot = process.getuid?.() === 0;

/** The command line, run as the postgres user when we are root. */
function command(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:port/postgres (trust authentication, loopback only). */
  readonly url: string;
  readonly port: number;
  /** A new empty database on this server; its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Fast shutdown (the server is unreachable until start()). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  remove(): Promise<void>;
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'platdesk-pg-'));
  // The postgres user must be able to create the cluster and its socket here.
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const [initCmd, initArgs] = command(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  try {
    execFileSync(initCmd, initArgs, { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
    throw new Error(`initdb failed: ${stderr}`);
  }
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    const [cmd, args] = command(join(bin, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-h',
      '127.0.0.1',
      '-k',
      dir,
      // A test cluster: durability is not what is tested (a clean stop still writes everything).
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=300',
    ]);
    const proc = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    proc.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });
    child = proc;
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`postgres exited at start: ${log}`);
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline) throw new Error(`postgres did not accept connections: ${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = once(proc, 'exit');
    // SIGINT to the postmaster itself ("fast" shutdown: disconnects clients, checkpoints); as root
    // the child is runuser, which need not pass the signal on.
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGINT');
    await exited;
  }

  await start();
  let n = 0;
  return {
    url,
    port,
    async createDatabase(prefix = 't') {
      n += 1;
      const name = `${prefix}_${process.pid}_${n}_${Math.random().toString(36).slice(2, 8)}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
    start,
    async remove() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
