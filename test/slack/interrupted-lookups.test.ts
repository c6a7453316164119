/**
 * A confirmed lookup cut by a crash (issue 10): platdesk runs as a real child process (`npm start`'s
 * entry point) on a SQLite file, a user confirms a lookup, the process is killed with SIGKILL while
 * the call is in flight, and platdesk starts again on the same file. The user is told within
 * seconds of the restart (not after a 5-minute wait); nothing runs twice; Confirm clicked again
 * (and Slack's retry of that click) says what happened and, its call having been sent, offers no
 * second charge (issue 20 pt 3).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import {
  confirmationOf,
  type PlatdeskHarness,
  SIGNING_SECRET,
  type SlackMessage,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { postAction, postCommand } from '../helpers/slack-http.js';
import { blockAction, SLACK, slashCommand } from '../helpers/slack-payloads.js';
import { openTestStore } from '../helpers/store-engines.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'platdesk-crash-'));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** platdesk as `npm start` runs it (src/main.ts), in HTTP mode; resolves with its events URL. */
async function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; eventsUrl: string }> {
  const child = spawn(join(ROOT, 'node_modules/.bin/node'), ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`platdesk did not start: ${stderr}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`platdesk exited (${code}): ${stderr}`)));
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === 'platdesk started' && entry.port) {
        clearTimeout(timer);
        resolvePort(entry.port);
      }
    });
  });
  return { child, eventsUrl: `http://127.0.0.1:${port}/slack/events` };
}

describe('a lookup cut by a crash', () => {
  let fake: FakeSlack | undefined;
  let sandbox: Sandbox | undefined;
  let child: ChildProcess | undefined;
  let h: PlatdeskHarness | undefined;

  afterAll(async () => {
    child?.kill('SIGKILL');
    await h?.close();
    await fake?.close();
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is told to its user within seconds of the restart, never runs twice, and a click on it says what happened', async () => {
    const db = join(dir, 'platdesk.sqlite');
    fake = await startSlackApiServer();
    sandbox = createSandbox({ token: 'crash-test' });
    const platUrl = await sandbox.listen(0);
    const first = await startChild({
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      PORT: '0',
      PLAT_BASE_URL: platUrl,
      PLAT_TOKEN: 'crash-test',
      DATABASE_PATH: db,
      LOG_LEVEL: 'info',
    });
    child = first.child;

    // The user asks and confirms; the plat call then hangs (in flight).
    const item = SANDBOX_FIXTURES.items.basic;
    const ask = await postCommand(
      first.eventsUrl,
      SIGNING_SECRET,
      slashCommand({ command: '/item', text: item, responseUrl: fake.responseUrl('ask') }),
    );
    expect(ask.status).toBe(200);
    const asked = await fake.waitFor('response_url', (c) => c.id === 'ask', 10_000);
    const confirmation = confirmationOf(asked.body as SlackMessage);
    const pendingId = confirmation.confirm.value ?? '';
    sandbox.setFaults([{ kind: 'hang' }]);
    const click = await postAction(
      first.eventsUrl,
      SIGNING_SECRET,
      blockAction({
        actionId: 'platdesk.confirm',
        value: pendingId,
        responseUrl: fake.responseUrl('confirm'),
      }),
    );
    expect(click.status).toBe(200);
    await fake.waitFor('response_url', (c) => c.id === 'confirm' && textOf(c.body).includes('Looking up'));
    while (sandbox.stats().calls === 0) await sleep(10);
    // Its write ahead marked sent (just after its request was written), as the file holds it.
    const file = new Database(db, { readonly: true, timeout: 5000 });
    try {
      const marked = () =>
        file.prepare('SELECT sent FROM sent_calls WHERE pending_id = ?').get(pendingId) as
          | { sent: number }
          | undefined;
      while (marked()?.sent !== 1) await sleep(10);
    } finally {
      file.close();
    }

    // Killed mid-call: no shutdown code runs.
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    child = undefined;
    const left = await openTestStore(db);
    expect((await left.pending.get(pendingId))?.state).toBe('running');
    await left.close();

    // Restart at once on the same file (this test's process: the same host, another pid).
    const restartedAt = performance.now();
    h = await startPlatdeskHarness({ env: { DATABASE_PATH: db } });
    const notice = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === SLACK.userId && textOf(c.body).includes('interrupted'),
      5000,
    );
    expect(performance.now() - restartedAt).toBeLessThan(10_000);
    const told = textOf(notice.body);
    expect(told).toContain(`item ${item}`);
    // The call was written ahead and marked sent before the kill: the restart's sweep wrote its
    // ledger row (code -1, cost unknown), so the user is told what the ledger holds.
    expect(told).toContain('after its call was sent, before its answer was read');
    expect(told).toContain('what it charged is not known to platdesk');
    expect(told).toContain('If its answer has not reached you, it was lost');
    expect((await h.platdesk.store.pending.get(pendingId))?.state).toBe('interrupted');
    const rows = await h.platdesk.store.ledger.byPending(pendingId);
    expect(
      rows.map((r) => ({ chargeId: r.chargeId, code: r.code, points: r.points, quota: r.quotaCalls })),
    ).toEqual([{ chargeId: `${pendingId}:0:0`, code: -1, points: 0, quota: 1 }]);

    // Confirm clicked again, and Slack's retry of that click: what happened; its call was sent, so
    // no second confirmation is offered (it could charge twice); no call.
    for (const attempt of ['again', 'retry']) {
      const sent = await h.click('platdesk.confirm', pendingId);
      expect(sent.status, attempt).toBe(200);
      const answer = await h.nextResponse(sent.responseUrlId);
      expect(answer.replace_original, attempt).toBe(true);
      expect(textOf(answer), attempt).toContain('was not run again (nor will it be)');
      expect(textOf(answer), attempt).toContain('what it charged is not known to platdesk');
      expect(textOf(answer), attempt).not.toContain('already used');
      await h.settle(100);
      expect(h.responses(sent.responseUrlId), attempt).toHaveLength(1);
      expect(() => confirmationOf(answer), attempt).toThrow();
    }
    await h.settle(100);
    expect(h.calls()).toBe(0);
    expect(sandbox.stats().calls).toBe(1);
    // Told once, by the one process that marked it.
    const notices = h.fake
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === SLACK.userId && textOf(c.body).includes('interrupted'));
    expect(notices).toHaveLength(1);
  }, 60_000);
});
