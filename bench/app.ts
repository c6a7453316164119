/**
 * `npm run bench`: one run of the whole app (real Bolt app over signed HTTP, the in-process
 * sandbox, a local Slack-compatible Web API server) that prints:
 *   A. ack latency p50/p99 for 3 × 200 concurrent slash commands, beside a bare Bolt app's;
 *   B. plat calls/s and the largest count in any sliding second under saturation (300 confirmed
 *      lookups at once), measured at the sandbox;
 *   C. interactive wait while a digest-sized bulk job pages through orders;
 *   D. RSS after 10,000 lookups (a second instance with a raised rate limit, so the run is
 *      about memory, not the 10/s limit).
 *   E. Confirm → answer p50/p99 at 10 confirmations a second.
 * Everything runs in this one process, so RSS includes the sandbox and the fake Slack.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, LogLevel } from '@slack/bolt';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { type Platdesk, startPlatdesk } from '../src/main.js';
import { createPlatClient } from '../src/plat/client.js';
import { createPlatHttp } from '../src/plat/http.js';
import { createLocalLimiter } from '../src/plat/local-limiter.js';
import { createSandbox, SANDBOX_FIXTURES } from '../src/sandbox/index.js';
import { type FakeSlack, startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { postAction, postCommand } from '../test/helpers/slack-http.js';
import { blockAction, slashCommand } from '../test/helpers/slack-payloads.js';

const SECRET = 'bench-secret';
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const mb = (bytes: number) => round(bytes / 1024 / 1024);

async function start(fake: FakeSlack, dir: string, name: string, env: Record<string, string> = {}) {
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.apiUrl,
    PORT: '0',
    PLAT_SANDBOX: '1',
    DATABASE_PATH: join(dir, `${name}.sqlite`),
    PLATDESK_ADMINS: 'UADMIN',
    ...env,
  });
  return startPlatdesk(config, { logger: createLogger('silent') });
}

/** Sends a slash command and returns its ack latency and the confirm button value. */
async function ask(
  app: Platdesk,
  fake: FakeSlack,
  id: string,
  command: string,
  text: string,
  userId: string,
) {
  const responseUrl = fake.responseUrl(id);
  const res = await postCommand(
    `${app.url}/slack/events`,
    SECRET,
    slashCommand({ command, text, responseUrl, userId }),
  );
  if (res.status !== 200) throw new Error(`${command} ${text}: HTTP ${res.status}`);
  const call = await fake.waitFor('response_url', (c) => c.id === id, 10_000);
  return { ackMs: res.ms, confirmValue: confirmValueOf(call.body) };
}

function confirmValueOf(body: Record<string, unknown>): string | undefined {
  const blocks = (body.blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[];
  return blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'platdesk.confirm')?.value;
}

/** Runs bench/command-load.ts in its own process and returns its statuses and latencies. */
function commandLoad(url: string, responseBase: string, count: number, prefix: string) {
  return new Promise<{ statuses: number[]; ms: number[] }>((resolve, reject) => {
    execFile(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, 'command-load.ts'),
        url,
        SECRET,
        responseBase,
        String(count),
        prefix,
      ],
      { maxBuffer: 10 * 1024 * 1024 },
      (error, stdout) => {
        if (error) reject(error);
        else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}'));
      },
    );
  });
}

async function confirm(app: Platdesk, fake: FakeSlack, id: string, value: string, userId: string) {
  const responseUrl = fake.responseUrl(id);
  const res = await postAction(
    `${app.url}/slack/events`,
    SECRET,
    blockAction({ actionId: 'platdesk.confirm', value, responseUrl, userId }),
  );
  if (res.status !== 200) throw new Error(`confirm: HTTP ${res.status}`);
  // The second post to this response_url is the answer (the first is "Looking up…").
  await fake.waitFor(
    'response_url',
    (c) => c.id === id && fake.callsTo('response_url').filter((x) => x.id === id).length >= 2,
    120_000,
  );
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'platdesk-bench-'));
  const fake = await startSlackApiServer();
  const results: Record<string, unknown> = {};
  try {
    // A queue bound above the 300 confirmations of phase B, so all of them run (none refused as busy).
    const app = await start(fake, dir, 'main', { PLAT_QUEUE_MAX: '1000' });
    const sandbox = app.sandbox;
    if (!sandbox) throw new Error('sandbox expected');

    // A. 200 slash commands at once, from a separate process (bench/command-load.ts) so the load
    // generator does not share this event loop; each is validated, quoted and answered with a
    // confirmation. Side by side with a bare Bolt app (HTTPReceiver, one listener that acks and
    // responds) in this same process, alternating, 3 rounds each: the machine's noise falls on both.
    // Client-side: until the HTTP response; server-side: request in → ack out.
    const serverAcks: number[] = [];
    const server = (app.app as unknown as { receiver: { server?: Server } }).receiver.server;
    server?.on('request', (_req, res) => {
      const t = performance.now();
      res.once('finish', () => serverAcks.push(performance.now() - t));
    });
    const bare = await startBareBolt(fake);
    const ours: number[] = [];
    const theirs: number[] = [];
    let non200 = 0;
    for (let round = 0; round < 3; round++) {
      const b = await commandLoad(`${bare.url}/slack/events`, fake.responseUrl(''), 200, `bare${round}`);
      theirs.push(...b.ms);
      const load = await commandLoad(
        `${app.url}/slack/events`,
        fake.responseUrl(''),
        200,
        round === 0 ? 'a' : `a${round}`,
      );
      ours.push(...load.ms);
      non200 += [...b.statuses, ...load.statuses].filter((st) => st !== 200).length;
      // platdesk answers every command of the round before the next one starts.
      const ourAnswers = () => fake.callsTo('response_url').filter((c) => c.id?.startsWith('a')).length;
      await fake.waitFor('response_url', () => ourAnswers() >= 200 * (round + 1), 120_000);
    }
    await bare.stop();
    const acks = ours;
    results.ack = {
      commands: 600,
      non200,
      p50Ms: round(percentile(acks, 50)),
      p99Ms: round(percentile(acks, 99)),
      maxMs: round(Math.max(...acks)),
      bareBoltP50Ms: round(percentile(theirs, 50)),
      bareBoltP99Ms: round(percentile(theirs, 99)),
      p99VsBareBolt: round(percentile(acks, 99) / percentile(theirs, 99), 2),
      serverP50Ms: round(percentile(serverAcks, 50)),
      serverP99Ms: round(percentile(serverAcks, 99)),
    };
    console.log(
      `A ack latency   3 × 200 simultaneous commands: platdesk p50 ${round(percentile(acks, 50))} ms, p99 ${round(percentile(acks, 99))} ms; bare Bolt p50 ${round(percentile(theirs, 50))} ms, p99 ${round(percentile(theirs, 99))} ms; p99 ratio ${round(percentile(acks, 99) / percentile(theirs, 99), 2)}× (goal ≤ 0.8×) (server-side, request to ack: p50 ${round(percentile(serverAcks, 50))} ms, p99 ${round(percentile(serverAcks, 99))} ms)`,
    );
    const a = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const call = await fake.waitFor('response_url', (c) => c.id === `a-${i}`, 30_000);
        return { confirmValue: confirmValueOf(call.body) };
      }),
    );

    // B. Saturation: confirm 300 distinct lookups at once (100 of the confirmations above + 200 more).
    const more = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        ask(app, fake, `b${i}`, '/shop', `ww bench-b-${i}`, `U${2000 + (i % 20)}`),
      ),
    );
    const pendings = [...a, ...more].map((r, i) => ({
      value: r.confirmValue ?? '',
      userId: `U${i < 200 ? 1000 + (i % 20) : 2000 + ((i - 200) % 20)}`,
    }));
    sandbox.reset();
    const t0 = performance.now();
    await Promise.all(pendings.map((p, i) => confirm(app, fake, `c${i}`, p.value, p.userId)));
    const seconds = (performance.now() - t0) / 1000;
    const stats = sandbox.stats();
    results.saturation = {
      calls: stats.calls,
      seconds: round(seconds, 2),
      callsPerS: round((stats.calls - 1) / seconds, 2),
      maxInWindow: stats.maxInWindow,
      violations: stats.violations,
    };
    console.log(
      `B saturation    ${stats.calls} plat calls in ${round(seconds, 2)} s: ${round((stats.calls - 1) / seconds, 2)} calls/s, largest count in any sliding second ${stats.maxInWindow}, violations ${stats.violations}`,
    );

    // E. Confirm → answer at 10 calls/s with the plat answering at once: 100 confirmations, one
    // every 100 ms, each timed from the click to the answer's post.
    const paced = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        ask(app, fake, `e${i}`, '/shop', `ww bench-e-${i}`, `U${3000 + (i % 20)}`),
      ),
    );
    const answerMs: number[] = [];
    await Promise.all(
      paced.map(async (p, i) => {
        await new Promise((r) => setTimeout(r, i * 100));
        const t = performance.now();
        await confirm(app, fake, `ce${i}`, p.confirmValue ?? '', `U${3000 + (i % 20)}`);
        answerMs.push(performance.now() - t);
      }),
    );
    results.confirmToAnswer = {
      confirms: 100,
      perSecond: 10,
      p50Ms: round(percentile(answerMs, 50)),
      p99Ms: round(percentile(answerMs, 99)),
    };
    console.log(
      `E confirm → answer at 10/s, plat answering at once: p50 ${round(percentile(answerMs, 50))} ms, p99 ${round(percentile(answerMs, 99))} ms (goal p99 < 50 ms)`,
    );

    // C. A digest-sized bulk job (50 order pages at bulk priority) while people look things up.
    await app.stop();
    await runBulkWhileInteractive(results);

    // D. Memory after 10,000 lookups.
    await runMemory(fake, dir, results);
    console.log(JSON.stringify(results));
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** C: the shared limiter with a digest-sized bulk job (50 pages of 100 orders) and 20 people's lookups. */
async function runBulkWhileInteractive(results: Record<string, unknown>) {
  const sandbox = createSandbox();
  const url = await sandbox.listen(0);
  const waits: { priority: string; waitedMs: number }[] = [];
  const limiter = createLocalLimiter({
    onStarted: (i) => waits.push({ priority: i.priority, waitedMs: i.waitedMs }),
  });
  const http = createPlatHttp({ baseUrl: url, token: 'sandbox' });
  const client = createPlatClient({ http, limiter });
  const bulkStart = performance.now();
  const bulk = Promise.all(
    Array.from({ length: 50 }, (_, page) =>
      client.orders(
        { ownerId: SANDBOX_FIXTURES.owners.busy, page: page % 4, pageSize: 100 },
        { priority: 'bulk' },
      ),
    ),
  ).then(() => (performance.now() - bulkStart) / 1000);
  const interactive: Promise<unknown>[] = [];
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 150 + ((i * 7919) % 13) * 20));
    interactive.push(client.shopId({ wwid: `bench-c-${i}` }));
  }
  await Promise.all(interactive);
  const bulkSeconds = await bulk;
  const iw = waits.filter((w) => w.priority === 'interactive').map((w) => w.waitedMs);
  const stats = sandbox.stats();
  results.interactiveWhileDigest = {
    bulkPages: 50,
    bulkSeconds: round(bulkSeconds, 2),
    interactive: iw.length,
    p50Ms: round(percentile(iw, 50)),
    p99Ms: round(percentile(iw, 99)),
    maxInWindow: stats.maxInWindow,
    violations: stats.violations,
  };
  console.log(
    `C priorities    50 bulk order pages in ${round(bulkSeconds, 2)} s; ${iw.length} interactive lookups waited p50 ${round(percentile(iw, 50))} ms, p99 ${round(percentile(iw, 99))} ms; largest count in any sliding second ${stats.maxInWindow}`,
  );
  limiter.stop();
  await http.close();
  await sandbox.close();
}

async function runMemory(fake: FakeSlack, dir: string, results: Record<string, unknown>) {
  const app = await start(fake, dir, 'memory', { PLAT_RATE_LIMIT: '1000', PLAT_QUEUE_MAX: '5000' });
  const total = 10_000;
  const batch = 50;
  global.gc?.();
  const before = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  for (let i = 0; i < total; i += batch) {
    await Promise.all(
      Array.from({ length: batch }, async (_, j) => {
        const n = i + j;
        const userId = `U${3000 + (n % 50)}`;
        const asked = await ask(app, fake, `m${n}`, '/shop', `ww bench-m-${n}`, userId);
        await confirm(app, fake, `mc${n}`, asked.confirmValue ?? '', userId);
      }),
    );
    // The fake Slack keeps every call; drop them so only platdesk's memory grows.
    fake.reset();
  }
  global.gc?.();
  const after = process.memoryUsage().rss;
  const seconds = (performance.now() - t0) / 1000;
  results.memory = {
    lookups: total,
    seconds: round(seconds, 1),
    rssBeforeMb: mb(before),
    rssAfterMb: mb(after),
    heapBeforeMb: mb(heapBefore),
    heapAfterMb: mb(process.memoryUsage().heapUsed),
  };
  console.log(
    `D memory        ${total} lookups (command + confirm + call + answer) in ${round(seconds, 1)} s: RSS ${mb(before)} MB before, ${mb(after)} MB after; heap after GC ${mb(heapBefore)} → ${mb(process.memoryUsage().heapUsed)} MB`,
  );
  await app.stop();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

/** A bare Bolt app in HTTP mode: one command listener that acks and then responds, as a baseline. */
/**
 * The baseline: a bare Bolt app as Bolt's docs write it — `new App({ signingSecret, token })` on
 * its own (default) HTTPReceiver, one listener that acks and responds — with only what this
 * machine needs: its Web API at the local Slack server (the start-up auth.test goes there once),
 * and quiet logs, as platdesk's are here.
 *
 * (It was built with `tokenVerificationEnabled: false` and no API URL: Bolt then calls auth.test
 * on EVERY request before any listener runs, here against an unreachable slack.com, and each ack
 * waited for that call to fail: the baseline's p50 of 3.2 s.)
 */
async function startBareBolt(fake: FakeSlack): Promise<{ url: string; stop: () => Promise<void> }> {
  const bolt = new App({
    signingSecret: SECRET,
    token: 'xoxb-bare',
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: fake.apiUrl },
  });
  bolt.command(/.*/, async ({ ack, command, respond }) => {
    await ack();
    await respond({ response_type: 'ephemeral', text: `received ${command.text}` });
  });
  const server = (await bolt.start(0)) as Server;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await bolt.stop();
    },
  };
}
