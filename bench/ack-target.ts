/**
 * One app under test for `npm run bench`'s phase A, in a process of its own (forked with an IPC
 * channel by bench/ack-side-by-side.ts): `platdesk` (the real app, HTTP mode, its sandbox in this
 * process as in every other phase) or `bare` (a bare Bolt app). Both answer through the parent's
 * Slack stand-in at SLACK_API_URL, so neither shares its event loop with the load generator, the
 * stand-in or the other app.
 *
 * Messages: it sends `{ url }` once listening; on `'report'` it answers with its server-side
 * request → ack times, its memory (RSS, heap after a GC) and (platdesk) its sandbox's rate accounting; on `'cpu'`
 * with its CPU time so far; on `'stop'` it stops and exits. Phases D and E run platdesk here too.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import { App, LogLevel } from '@slack/bolt';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startPlatdesk } from '../src/main.js';

const [kind = '', apiUrl = '', secret = '', dir = '', name = 'ack', envJson = '{}'] = process.argv.slice(2);
/** Settings added for one phase (D raises the rate limit). */
const extraEnv = JSON.parse(envJson) as Record<string, string>;

interface Target {
  server: Server;
  stop: () => Promise<void>;
  /** platdesk: its sandbox's rate accounting (the largest count of arrivals in a sliding second). */
  sandboxStats?: () => unknown;
}

async function startTarget(): Promise<Target> {
  if (kind === 'platdesk') {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: apiUrl,
      PORT: '0',
      PLAT_SANDBOX: '1',
      DATABASE_PATH: join(dir, `${name}.sqlite`),
      PLATDESK_ADMINS: 'UADMIN',
      ...extraEnv,
    });
    const app = await startPlatdesk(config, { logger: createLogger('silent') });
    const server = (app.app as unknown as { receiver: { server: Server } }).receiver.server;
    const { sandbox } = app;
    return { server, stop: () => app.stop(), ...(sandbox ? { sandboxStats: () => sandbox.stats() } : {}) };
  }
  if (kind === 'bare') {
    // The baseline: a bare Bolt app as Bolt's docs write it — `new App({ signingSecret, token })`
    // on its own (default) HTTPReceiver, one listener that acks and responds — with only what this
    // machine needs: its Web API at the local Slack server (the start-up auth.test goes there
    // once) and quiet logs, as platdesk's are here.
    const bolt = new App({
      signingSecret: secret,
      token: 'xoxb-bare',
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: apiUrl },
    });
    bolt.command(/.*/, async ({ ack, command, respond }) => {
      await ack();
      await respond({ response_type: 'ephemeral', text: `received ${command.text}` });
    });
    const server = (await bolt.start(0)) as Server;
    return {
      server,
      stop: async () => {
        await bolt.stop();
      },
    };
  }
  throw new Error(`unknown target ${kind}`);
}

const { server, stop, sandboxStats } = await startTarget();
const serverAcks: number[] = [];
// Server-side: the request event → the response finished (written to the socket).
server.on('request', (_req, res) => {
  const t = performance.now();
  res.once('finish', () => serverAcks.push(performance.now() - t));
});
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.send?.({ url: `http://127.0.0.1:${port}` });
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMs: (user + system) / 1000 });
  } else if (message === 'report') {
    global.gc?.();
    const memory = process.memoryUsage();
    process.send?.({
      heapUsedBytes: memory.heapUsed,
      serverAcks: serverAcks.splice(0),
      rssBytes: memory.rss,
      memory: {
        ...memory,
        ...rssByMapping(),
        heapSpaces: Object.fromEntries(
          getHeapSpaceStatistics().map((s) => [
            s.space_name,
            { size: s.space_size, used: s.space_used_size },
          ]),
        ),
      },
      sandbox: sandboxStats?.() ?? null,
    });
  } else if (message === 'stop') {
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  }
});

/**
 * Where the RSS is (Linux, /proc/self/smaps): malloc's main heap ([heap]), anonymous mappings
 * (V8's heap spaces, malloc's thread arenas, buffers), file-backed mappings (code, SQLite's
 * files) and the rest ([stack], vdso). Bytes; all zero where /proc is not there.
 */
function rssByMapping(): { brkHeap: number; anon: number; file: number; other: number } {
  const out = { brkHeap: 0, anon: 0, file: 0, other: 0 };
  let smaps: string;
  try {
    smaps = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return out;
  }
  let kind: keyof typeof out = 'other';
  for (const line of smaps.split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      const name = header[1] ?? '';
      kind = name === '' ? 'anon' : name === '[heap]' ? 'brkHeap' : name.startsWith('/') ? 'file' : 'other';
    } else if (line.startsWith('Rss:')) out[kind] += Number(line.split(/\s+/)[1]) * 1024;
  }
  return out;
}
