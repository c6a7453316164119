/**
 * `npm run bench`, phase A: ack latency of platdesk beside a bare Bolt app, measured fairly.
 *
 * Each app runs in its own process (bench/ack-target.ts), the load generator in a third
 * (bench/command-load.ts) and the Slack stand-in in this one: no app shares its event loop with
 * the client, the stand-in or the other app. Both get the same requests (the same 200 signed
 * slash commands, byte for byte but for their ids, each over a new connection), the same HTTP
 * server (Bolt's HTTPReceiver, default options) and the same stand-in for their response_url
 * posts. Runs are interleaved, the order flipping each round (bare first, then platdesk first…),
 * and each round waits until the app has posted all 200 answers, so neither leaves work behind
 * for the other's round. Each app's first burst after its start is kept apart (reported as the
 * cold burst): the measured rounds compare the two apps warm.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { FakeSlack } from '../test/helpers/slack-api-server.js';
import type { LoadRequest, LoadResult } from './command-load.js';

type Kind = 'platdesk' | 'bare';

export interface AckSideBySide {
  /** Client-side latencies (connect → first response byte), every measured round, per app. */
  clientMs: Record<Kind, number[]>;
  /** The same for each app's first burst after its start (not in clientMs: JIT, first statements). */
  coldMs: Record<Kind, number[]>;
  /** Server-side: the request event → the response written, per app. */
  serverMs: Record<Kind, number[]>;
  non200: number;
  /** The load generator's CPU per burst (ms), to show the client is not the bottleneck. */
  clientCpuMs: number[];
  /** Each app's CPU per measured burst, from its first request to its last answer (ms). */
  appCpuMs: Record<Kind, number[]>;
}

function child(script: string, args: string[], nodeFlags: string[] = []): ChildProcess {
  return fork(join(import.meta.dirname, script), args, {
    execArgv: ['--expose-gc', '--import', 'tsx', ...nodeFlags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function nextMessage<T>(process: ChildProcess, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${what} exited (${code})`));
    process.once('exit', onExit);
    process.once('message', (message) => {
      process.off('exit', onExit);
      resolve(message as T);
    });
  });
}

export interface TargetReport {
  serverAcks: number[];
  rssBytes: number;
  /** After a GC. */
  heapUsedBytes: number;
  /** process.memoryUsage() after a GC, and the RSS by kind of mapping (bench/ack-target.ts). */
  memory: NodeJS.MemoryUsage & {
    brkHeap: number;
    anon: number;
    file: number;
    other: number;
    /** V8's heap spaces: committed size and used bytes. */
    heapSpaces: Record<string, { size: number; used: number }>;
  };
  sandbox: { calls: number; maxInWindow: number; violations: number } | null;
}

/** An app under test in its own process (bench/ack-target.ts): its URLs, a report, stop. */
export async function startTarget(
  kind: Kind,
  fake: FakeSlack,
  secret: string,
  dir: string,
  name = 'ack',
  env: Record<string, string> = {},
  /** Node flags for the app's process (e.g. npm start's), after the bench's own. */
  nodeFlags: string[] = [],
) {
  const proc = child('ack-target.ts', [kind, fake.apiUrl, secret, dir, name, JSON.stringify(env)], nodeFlags);
  const { url } = await nextMessage<{ url: string }>(proc, kind);
  return {
    proc,
    /** http://host:port */
    url,
    eventsUrl: `${url}/slack/events`,
    async cpuMs(): Promise<number> {
      const answered = nextMessage<{ cpuMs: number }>(proc, kind);
      proc.send('cpu');
      return (await answered).cpuMs;
    },
    report(): Promise<TargetReport> {
      const reported = nextMessage<TargetReport>(proc, kind);
      proc.send('report');
      return reported;
    },
    async stop(): Promise<void> {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.send('stop');
      await exited;
    },
  };
}

export async function ackSideBySide(
  fake: FakeSlack,
  options: { secret: string; dir: string; rounds: number; count: number },
): Promise<AckSideBySide> {
  const load = child('command-load.ts', []);
  await nextMessage(load, 'command-load');
  const targets = {
    platdesk: await startTarget('platdesk', fake, options.secret, options.dir),
    bare: await startTarget('bare', fake, options.secret, options.dir),
  };
  const result: AckSideBySide = {
    clientMs: { platdesk: [], bare: [] },
    coldMs: { platdesk: [], bare: [] },
    serverMs: { platdesk: [], bare: [] },
    non200: 0,
    clientCpuMs: [],
    appCpuMs: { platdesk: [], bare: [] },
  };
  try {
    // Round -1 is each app's cold burst.
    for (let round = -1; round < options.rounds; round++) {
      const order: Kind[] = round % 2 === 0 ? ['bare', 'platdesk'] : ['platdesk', 'bare'];
      for (const kind of order) {
        const prefix = `${kind}${round < 0 ? 'cold' : round}`;
        const request: LoadRequest = {
          url: targets[kind].eventsUrl,
          secret: options.secret,
          responseBase: fake.responseUrl(''),
          count: options.count,
          prefix,
        };
        const cpuBefore = await targets[kind].cpuMs();
        const answered = nextMessage<LoadResult & { error?: string }>(load, 'command-load');
        load.send(request);
        const burst = await answered;
        if (burst.error) throw new Error(burst.error);
        (round < 0 ? result.coldMs : result.clientMs)[kind].push(...burst.ms);
        if (round >= 0) result.clientCpuMs.push(burst.clientCpuMs);
        result.non200 += burst.statuses.filter((s) => s !== 200).length;
        // Every command of the round answered (platdesk: its confirmation) before the next burst.
        const ours = () => fake.callsTo('response_url').filter((c) => c.id?.startsWith(`${prefix}-`)).length;
        await fake.waitFor('response_url', () => ours() >= options.count, 120_000);
        if (round >= 0) result.appCpuMs[kind].push((await targets[kind].cpuMs()) - cpuBefore);
      }
    }
    for (const kind of ['platdesk', 'bare'] as const)
      result.serverMs[kind].push(...(await targets[kind].report()).serverAcks.slice(options.count));
  } finally {
    await targets.platdesk.stop();
    await targets.bare.stop();
    const exited = new Promise((resolve) => load.once('exit', resolve));
    load.send('stop');
    await exited;
    fake.reset();
  }
  return result;
}
