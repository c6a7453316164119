/**
 * An answer that came in time is read even when this process could not run when its deadline
 * passed (issue 33, fault simulator seed 1023): a process stopped (SIGSTOP, a suspended host) or
 * stuck in a long synchronous stretch runs its timers that came due before it reads its sockets,
 * so a plain AbortSignal.timeout would drop an answer already received, one the service charged
 * for, and the ledger would hold "sent, no answer" in place of the real charge.
 *
 * The sandbox runs as its own process (`src/sandbox/cli.ts`): this test blocks its own event loop,
 * which must not stop the service from answering meanwhile.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES as F } from '../../src/sandbox/index.js';
import { createClientRig, type PlatClientRig } from '../helpers/plat-harness.js';

const TOKEN = 'stalled-loop-test';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Stops this process (SIGSTOP) after `afterMs` and lets it go on (SIGCONT) `forMs` later, from
 * outside, as a suspended host or an operator's `kill -STOP` does: the process is waiting for its
 * sockets when it stops, and Linux ends that wait with EINTR when it goes on (signal(7)).
 */
function stopFromOutside(afterMs: number, forMs: number): Promise<void> {
  const s = (ms: number) => (ms / 1000).toFixed(3);
  const pid = process.pid;
  const stopper = spawn(
    'sh',
    ['-c', `sleep ${s(afterMs)}; kill -STOP ${pid}; sleep ${s(forMs)}; kill -CONT ${pid}`],
    {
      stdio: 'ignore',
    },
  );
  return new Promise((resolve) => stopper.once('exit', () => resolve()));
}

/**
 * The sandbox as its own process (this test stops its own), and a client of it whose connection
 * and undici are ready (one call made): the measured call is written at once.
 */
async function startSandboxAndRig(faults: unknown[]): Promise<{ sandbox: ChildProcess; rig: PlatClientRig }> {
  const port = await freePort();
  const sandbox = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts'], {
    env: {
      ...process.env,
      SANDBOX_PORT: String(port),
      SANDBOX_TOKEN: TOKEN,
      SANDBOX_FAULTS: JSON.stringify(faults),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    sandbox.once('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
    sandbox.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes(String(port))) resolve();
    });
  });
  const rig = createClientRig({
    baseUrl: `http://127.0.0.1:${port}`,
    token: TOKEN,
    timeouts: { deadlineMs: 400 },
  });
  await rig.client.shopInfo({ url: F.links.firstMarketplace });
  return { sandbox, rig };
}

describe('a call whose deadline passes while the process cannot run', () => {
  let sandbox: ChildProcess;
  let rig: PlatClientRig;

  beforeAll(async () => {
    // Every answer 150 ms after its request: it arrives while this process is stopped.
    ({ sandbox, rig } = await startSandboxAndRig([{ kind: 'latency', ms: 150 }]));
  }, 30_000);

  afterAll(async () => {
    await rig?.close();
    sandbox?.kill('SIGTERM');
  });

  it('reads the answer that arrived while it was stopped past its deadline, and records its real charge', async () => {
    const stopped = stopFromOutside(50, 900);
    // Written at once; stopped at 50 ms; its answer arrives at 150 ms and its deadline passes at
    // 400 ms while the process is stopped; it runs again at 950 ms with both waiting for it.
    const answer = await rig.client.shopInfo({ url: F.links.firstMarketplace });
    await stopped;
    expect(answer).toMatchObject({ operation: 'get-shop-info', data: { shopId: expect.any(String) } });
    const measured = rig.charges.at(-1);
    expect(measured).toMatchObject({ operation: 'get-shop-info', code: 0 });
    expect(measured?.points).toBeGreaterThan(0);
  });
});
