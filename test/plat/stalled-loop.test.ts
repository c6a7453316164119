/**
 * Calls whose deadline passes while their process cannot run (issue 33, fault simulator seed
 * 1023): a process stopped (SIGSTOP, a suspended host) runs its timers that came due before it
 * reads its sockets (Linux ends its wait for them with EINTR when it goes on, signal(7)), and a
 * request queued for a connection can be written as it goes on.
 *
 *  - An answer that arrived while the process was stopped is read, and its real charge recorded:
 *    before, the deadline aborted the call first and the ledger held "sent, no answer" in place of
 *    a charge the service had made.
 *  - A request whose deadline passed before it was written is not written, and is known not to
 *    have reached the service: before, it went out as the process went on (charged, its answer
 *    never read) or, aborted while queued, was booked as a call that may have reached it.
 *
 * The client runs in a process of its own (test/plat/fixtures/stopped-client.ts), which this test
 * stops and resumes; the sandbox runs here and counts the calls that reach it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';

const TOKEN = 'stalled-loop-test';

interface Outcome {
  ok: boolean;
  code?: string;
  reachedService?: boolean | null;
}
interface Report {
  outcomes: Outcome[];
  charges: { code: number; points: number }[];
}

let sandbox: Sandbox | null = null;
let child: ChildProcess | null = null;
afterEach(async () => {
  child?.kill('SIGKILL');
  child = null;
  await sandbox?.close();
  sandbox = null;
});

/**
 * The client process, ready (one call made). `go` makes its calls, stops it (SIGSTOP) `stopAfterMs`
 * later for `stopForMs`, and resolves with what it reports once its calls have ended.
 */
async function startClient(
  platUrl: string,
  settings: { calls: number; connections: number },
): Promise<{ go(stopAfterMs: number, stopForMs: number): Promise<Report> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/plat/fixtures/stopped-client.ts'], {
    env: {
      ...process.env,
      PLAT_URL: platUrl,
      PLAT_TOKEN: TOKEN,
      DEADLINE_MS: '400',
      CALLS: String(settings.calls),
      CONNECTIONS: String(settings.connections),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child = proc;
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      proc.once('exit', (code) => reject(new Error(`the client exited (${code})`)));
    });
  expect(await next()).toBe('ready');
  return {
    async go(stopAfterMs, stopForMs) {
      const report = next();
      proc.stdin?.write('go\n');
      await new Promise((resolve) => setTimeout(resolve, stopAfterMs));
      proc.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, stopForMs));
      proc.kill('SIGCONT');
      return JSON.parse(await report) as Report;
    },
  };
}

describe('calls whose deadline passes while their process is stopped', () => {
  it('an answer that arrived while it was stopped is read when it goes on, with its real charge', async () => {
    sandbox = createSandbox({ token: TOKEN });
    const client = await startClient(await sandbox.listen(0), { calls: 1, connections: 16 });
    // Every answer 150 ms after its request: it arrives while the client is stopped.
    sandbox.setFaults([{ kind: 'latency', ms: 150 }]);
    const before = sandbox.stats().calls;
    // Sent at once; stopped at 60 ms; answered at 150 ms; its deadline passes at 400 ms; the
    // client runs again at 1,060 ms with the answer and the expired timer both waiting.
    const report = await client.go(60, 1_000);
    expect(sandbox.stats().calls - before).toBe(1);
    expect(report.outcomes).toEqual([{ ok: true }]);
    expect(report.charges).toEqual([{ code: 0, points: expect.any(Number) }]);
    expect(report.charges[0]?.points).toBeGreaterThan(0);
  }, 30_000);

  it('a request queued past its deadline is not written when the process goes on, and is booked as never sent', async () => {
    sandbox = createSandbox({ token: TOKEN });
    // One connection: the second call waits for the first's to be free. The first is answered
    // while the client is stopped; as it goes on, the connection is free and both deadlines
    // have passed.
    const client = await startClient(await sandbox.listen(0), { calls: 2, connections: 1 });
    sandbox.setFaults([{ kind: 'latency', ms: 150 }]);
    const before = sandbox.stats().calls;
    const report = await client.go(60, 1_000);
    // The service saw the first call only.
    expect(sandbox.stats().calls - before).toBe(1);
    expect(report.outcomes).toEqual([{ ok: true }, { ok: false, code: 'timeout', reachedService: false }]);
    // One charge, the first's: no "sent, no answer" row for a request that never left.
    expect(report.charges).toEqual([{ code: 0, points: expect.any(Number) }]);
  }, 30_000);
});
