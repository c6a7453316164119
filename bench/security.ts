/**
 * `npm run bench:security` (issue 34): platdesk in a process of its own (HTTP mode, npm start's
 * Node flags, the in-process sandbox, a local Slack stand-in in this process), under two kinds of
 * abuse, printing what they cost it:
 *   M2. 50 unsigned 4 MB posts at once to /slack/events: the rise of platdesk's RSS (sampled from
 *       /proc every 5 ms) and the ack times of signed slash commands sent meanwhile.
 *   M3. a message of 40,000 characters (a run of link-like text, the shape that made the old
 *       regexes quadratic) looked up by three message-shortcut clicks at once: the ack times of
 *       signed slash commands sent meanwhile, beside the same commands with no shortcut.
 * `--only M2` or `--only M3` runs one section.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type FakeSlack, startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { postAction, postCommand } from '../test/helpers/slack-http.js';
import { messageShortcut, slashCommand } from '../test/helpers/slack-payloads.js';
import { unsignedFlood } from '../test/helpers/unsigned-flood.js';
import { startTarget } from './ack-side-by-side.js';

const { values: args } = parseArgs({ options: { only: { type: 'string' } } });
if (args.only !== undefined && args.only !== 'M2' && args.only !== 'M3')
  throw new Error('--only takes M2 or M3');

const SECRET = 'bench-secret';
const MB = 1024 * 1024;
const NODE_FLAGS = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start
  .split(' ')
  .filter((word) => word.startsWith('--'));
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const spread = (ms: number[]) =>
  `p50 ${round(percentile(ms, 50))} ms, p99 ${round(percentile(ms, 99))} ms, max ${round(Math.max(...ms))} ms (${ms.length})`;

/** The resident set of a process, from /proc (bytes). */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

let seq = 0;
/** Signed `/item help` commands, one after the other for `forMs` (at least `atLeast`): their ack times. */
async function commandsDuring(eventsUrl: string, fake: FakeSlack, until: () => boolean, atLeast: number) {
  const ms: number[] = [];
  while (ms.length < atLeast || !until()) {
    const sent = await postCommand(
      eventsUrl,
      SECRET,
      slashCommand({ command: '/item', text: 'help', responseUrl: fake.responseUrl(`c${++seq}`) }),
    );
    if (sent.status !== 200) throw new Error(`a signed command got ${sent.status}`);
    ms.push(sent.ms);
  }
  return ms;
}

async function m2(eventsUrl: string, pid: number, fake: FakeSlack) {
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 5);
  let flooding = true;
  const started = performance.now();
  const flood = unsignedFlood(eventsUrl, 50, 4 * MB).finally(() => {
    flooding = false;
  });
  const acks = await commandsDuring(eventsUrl, fake, () => !flooding, 10);
  const statuses = await flood;
  const floodMs = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(String(s), (counts.get(String(s)) ?? 0) + 1);
  console.log('M2. 50 unsigned 4 MB posts at once to /slack/events (from a process of their own)');
  console.log(
    `  answered: ${[...counts].map(([s, n]) => `${n} × ${s === 'null' ? 'connection closed' : s}`).join(', ')} within ${round(floodMs)} ms`,
  );
  console.log(
    `  platdesk RSS: ${round(before / MB)} MB before, peak ${round(peak / MB)} MB: rise ${round((peak - before) / MB)} MB (goal < 30 MB)`,
  );
  console.log(`  signed commands meanwhile, ack: ${spread(acks)} (goal < 1000 ms)`);
}

async function m3(eventsUrl: string, fake: FakeSlack) {
  // Link-like text with no link in it: every position started a scan to the end of the run.
  const text = `${'shop.taobao.example.notalink.'.repeat(1400)}`.slice(0, 40_000);
  const quiet = await commandsDuring(eventsUrl, fake, () => true, 30);
  let clicking = true;
  const clicks = Promise.all(
    ['platdesk.shortcut.items', 'platdesk.shortcut.waybills', 'platdesk.shortcut.shops'].map(
      (callbackId, i) =>
        postAction(
          eventsUrl,
          SECRET,
          messageShortcut({
            callbackId,
            responseUrl: fake.responseUrl(`m3-${i}`),
            triggerId: `trigger-${i}`,
            message: { text },
          }),
        ),
    ),
  );
  // The commands start with the clicks, so they meet the shortcuts' parsing.
  const during = commandsDuring(eventsUrl, fake, () => !clicking, 30);
  const clicked = await clicks;
  await fake.waitFor('response_url', (c) => c.id?.startsWith('m3-') === true, 10_000).catch(() => undefined);
  clicking = false;
  const loaded = await during;
  console.log('M3. a 40,000-character message, three message-shortcut clicks at once');
  console.log(`  shortcut acks: ${clicked.map((c) => `${c.status} in ${round(c.ms)} ms`).join(', ')}`);
  console.log(`  signed commands, no shortcut:      ${spread(quiet)}`);
  console.log(`  signed commands, with the clicks:  ${spread(loaded)}`);
  console.log(
    `  delay added: p50 ${round(percentile(loaded, 50) - percentile(quiet, 50))} ms, max ${round(Math.max(...loaded) - Math.max(...quiet))} ms (goal < 100 ms)`,
  );
}

async function main() {
  const fake = await startSlackApiServer();
  const dir = mkdtempSync(join(tmpdir(), 'platdesk-bench-security-'));
  const target = await startTarget('platdesk', fake, SECRET, dir, 'security', {}, NODE_FLAGS);
  try {
    const pid = target.proc.pid ?? 0;
    // Warm: the first commands compile what a command runs through.
    await commandsDuring(target.eventsUrl, fake, () => true, 30);
    console.log(`platdesk (pid ${pid}, Node flags ${NODE_FLAGS.join(' ')}), Node ${process.versions.node}`);
    if (args.only !== 'M3') await m2(target.eventsUrl, pid, fake);
    if (args.only !== 'M2') await m3(target.eventsUrl, fake);
  } finally {
    await target.stop();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
