/**
 * A real Redis server for tests: Debian's `redis-server` binary (installed by .ci/run when
 * missing), on a free loopback port, with its files in a temporary directory removed afterwards,
 * no persistence (a restart loses every key, as a restart without AOF/RDB does).
 *
 * A missing binary is an error, never a skip: the limiter's Redis engine must be tested.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedisLimiter } from '../../src/plat/redis-limiter.js';
import { freePort } from './free-port.js';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGKILL: no save, no goodbye to clients). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

const BINARY = process.env.REDIS_SERVER_BIN ?? 'redis-server';

function checkBinary(): void {
  const probe = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `${BINARY} is not installed: the Redis limiter tests need it (Debian: apt-get install -y redis-server; .ci/run does this)`,
    );
  }
}

export async function startRedisServer(): Promise<RedisServer> {
  checkBinary();
  const dir = mkdtempSync(join(tmpdir(), 'platdesk-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    const proc = spawn(
      BINARY,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
      proc.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
  }

  async function kill(): Promise<void> {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A new Redis key set starts fenced for a replica's call deadline + window (15 s + 1 s): calls
 * granted before a loss could still arrive. This empty server has granted nothing, so a limiter
 * with a short deadline creates the key set and its fence is spent before the replicas join; the
 * replicas' own behaviour (joining, granting, losing the keys) is unchanged.
 * `npm run bench:replicas` measures the full fence on an empty Redis.
 */
export async function createLimiterKeys(url: string): Promise<void> {
  const limiter = createRedisLimiter({ url, deadlineMs: 200 });
  try {
    await limiter.ready();
  } finally {
    await limiter.stop();
  }
}
