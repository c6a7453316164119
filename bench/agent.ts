/**
 * `npm run bench:agent`: the agent (issue 36) with the built-in planner, through the real Bolt app
 * (HTTP mode, signed events) against the local Slack stand-in and the in-process sandbox.
 *
 * Printed: the first streamed chunk after the person's message (ms from sending the signed event
 * to chat.startStream arriving at the Slack stand-in) p50/p95/p99/max over every phrasing of the
 * table, asked one after the other; the planner's accuracy on the phrasing table (test/agent/
 * phrasings.ts, exact plan or question back); and the plat calls made before any Confirm (must be
 * 0: nothing is confirmed here). Last line: the same figures as JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { EMPTY_CONTEXT, planDeterministic } from '../src/agent/planner.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startPlatdesk } from '../src/main.js';
import { NOW, PHRASINGS } from '../test/agent/phrasings.js';
import { startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { postEvent } from '../test/helpers/slack-http.js';
import { eventCallback, SLACK } from '../test/helpers/slack-payloads.js';

const SECRET = 'bench-secret';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const correct = PHRASINGS.filter((p) =>
  isDeepStrictEqual(
    planDeterministic({ text: p.text, now: NOW, shops: p.shops ?? [], context: p.context ?? EMPTY_CONTEXT }),
    p.expect,
  ),
).length;

const dir = mkdtempSync(join(tmpdir(), 'platdesk-bench-agent-'));
const fake = await startSlackApiServer();
const config = loadConfig({
  SLACK_BOT_TOKEN: 'xoxb-bench',
  SLACK_SIGNING_SECRET: SECRET,
  SLACK_API_URL: fake.apiUrl,
  PORT: '0',
  PLAT_SANDBOX: '1',
  DATABASE_PATH: join(dir, 'agent.sqlite'),
  LOG_LEVEL: 'silent',
});
const platdesk = await startPlatdesk(config, { logger: createLogger('silent') });
const eventsUrl = `${platdesk.url}/slack/events`;
const sandboxCalls = () => platdesk.sandbox?.stats().calls ?? 0;
const callsBefore = sandboxCalls();

const firstChunkMs: number[] = [];
let seq = 0;
for (let round = 0; round < ROUNDS; round++)
  for (const p of PHRASINGS) {
    const ts = `1700000300.${String(++seq).padStart(6, '0')}`;
    const event = {
      type: 'message',
      channel: SLACK.imChannelId,
      channel_type: 'im',
      user: SLACK.userId,
      text: p.text,
      ts,
      event_ts: ts,
    };
    const started = performance.now();
    const arrived = fake
      .waitFor('chat.startStream', (c) => c.body.thread_ts === ts, 10_000)
      .then(() => performance.now());
    await postEvent(eventsUrl, SECRET, eventCallback(event));
    firstChunkMs.push((await arrived) - started);
    // The reply is finished before the next question (one person asking one after the other).
    await fake.waitFor(
      'chat.stopStream',
      (c) => fake.replies(SLACK.imChannelId, ts).some((m) => m.ts === c.body.ts),
      10_000,
    );
  }

const sorted = [...firstChunkMs].sort((a, b) => a - b);
const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
const figures = {
  questions: firstChunkMs.length,
  firstChunkMs: { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: Math.round(sorted.at(-1) ?? 0) },
  plannerAccuracy: {
    correct,
    rows: PHRASINGS.length,
    percent: Math.round((1000 * correct) / PHRASINGS.length) / 10,
  },
  platCallsBeforeConfirm: sandboxCalls() - callsBefore,
};
console.log(
  `first streamed chunk after the message: p50 ${figures.firstChunkMs.p50} ms, p95 ${figures.firstChunkMs.p95} ms, p99 ${figures.firstChunkMs.p99} ms, max ${figures.firstChunkMs.max} ms (${figures.questions} questions)`,
);
console.log(
  `planner accuracy on the phrasing table: ${correct}/${PHRASINGS.length} (${figures.plannerAccuracy.percent} %)`,
);
console.log(`plat calls before any Confirm: ${figures.platCallsBeforeConfirm}`);
console.log(JSON.stringify(figures));
await platdesk.stop();
await fake.close();
rmSync(dir, { recursive: true, force: true });
