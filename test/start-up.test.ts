/**
 * The first run (issue 10, points 15 and 16): when Slack cannot be reached or rejects a token at
 * start, platdesk says so in one line, exits non-zero and prints no stack (the stack is logged at
 * debug level only). Driven through a real child process running src/main.ts (what `npm start`
 * runs, via tsx so no build is needed) against the local Slack-compatible server, and through
 * startPlatdesk for Socket Mode's own failures. The child also proves that `.env` is read, the
 * real environment winning.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPlatdesk } from '../src/main.js';
import { isSlackStartError, type SlackStartError } from '../src/slack/start-check.js';
import { freePort } from './helpers/free-port.js';
import { quickStartEnv } from './helpers/readme.js';
import { type MainRun, runMain as runMainProcess } from './helpers/run-main.js';
import { type FakeSlack, startSlackApiServer } from './helpers/slack-api-server.js';
import { socketModeConfig } from './helpers/socket-mode-config.js';

const EMPTY_DIR = mkdtempSync(join(tmpdir(), 'platdesk-start-'));
afterAll(() => rmSync(EMPTY_DIR, { recursive: true, force: true }));
/** The settings README's Quick start command line sets (its placeholder tokens), read from README. */
const QUICK_START = quickStartEnv();

/**
 * Runs platdesk's entry point as `npm start` does, with only the given environment, in `cwd`
 * (by default an empty directory, so a developer's own .env cannot change the outcome).
 */
function runMain(env: Record<string, string>, cwd = EMPTY_DIR): Promise<MainRun> {
  return runMainProcess({ DATABASE_PATH: ':memory:', ...env }, { cwd, killAfterMs: 15_000 });
}

/** Exactly one line on stderr, no stack anywhere, nothing on stdout at the default log level. */
function expectOneLine(run: MainRun): string {
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr).not.toContain('WebAPIRequestError');
  return lines[0] ?? '';
}

describe('start-up against Slack (child process of src/main.ts)', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startSlackApiServer();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    fake.reset();
    fake.setResponse('auth.test', { ok: false, error: 'invalid_auth' });
  });

  it("README's Quick start placeholders: Slack rejects the bot token, one line, exit 1, no stack", async () => {
    const run = await runMain({ ...QUICK_START, SLACK_API_URL: fake.apiUrl });
    const line = expectOneLine(run);
    expect(line).toMatch(
      /^platdesk cannot start: Slack rejected SLACK_BOT_TOKEN \(invalid_auth\): set it to the Bot User OAuth Token .*created from manifest\.yml/,
    );
    const checks = fake.callsTo('auth.test');
    expect(checks).toHaveLength(1);
    expect(checks[0]?.headers.authorization).toBe('Bearer xoxb-your-bot-token');
    // Nothing else was tried: no socket, no message.
    expect(fake.calls.map((c) => c.method)).toEqual(['auth.test']);
  });

  it('keeps the stack for LOG_LEVEL=debug, in the JSON log, not on stderr', async () => {
    const run = await runMain({ ...QUICK_START, SLACK_API_URL: fake.apiUrl, LOG_LEVEL: 'debug' });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    const failed = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg?: string; err?: { stack?: string } })
      .find((l) => l.msg === 'start-up failed');
    expect(failed?.err?.stack).toContain('SlackStartError: Slack rejected SLACK_BOT_TOKEN');
    expect(run.stdout).not.toContain('xoxb-your-bot-token');
  });

  it('an unreachable SLACK_API_URL (connection refused): Slack cannot be reached, one line', async () => {
    const port = await freePort();
    const run = await runMain({ ...QUICK_START, SLACK_API_URL: `http://127.0.0.1:${port}/api/` });
    expect(expectOneLine(run)).toBe(
      `platdesk cannot start: Slack cannot be reached at 127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}): check the network connection, DNS and any proxy or firewall, and SLACK_API_URL.`,
    );
  });

  it('a host that does not resolve (DNS failure): Slack cannot be reached, one line', async () => {
    // .invalid never resolves (RFC 2606).
    const run = await runMain({ ...QUICK_START, SLACK_API_URL: 'http://slack-api.invalid/api/' });
    expect(expectOneLine(run)).toMatch(
      /^platdesk cannot start: Slack cannot be reached at slack-api\.invalid \(getaddrinfo (ENOTFOUND|EAI_AGAIN) slack-api\.invalid\): check the network connection, DNS/,
    );
  });

  it('reads .env from the working directory; the real environment wins over it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-dotenv-'));
    try {
      writeFileSync(
        join(dir, '.env'),
        [
          `SLACK_API_URL=${fake.apiUrl}`,
          'SLACK_BOT_TOKEN=xoxb-from-dotenv',
          'SLACK_APP_TOKEN=xapp-from-dotenv',
          'PLAT_SANDBOX=1',
          '',
        ].join('\n'),
      );
      const run = await runMain({ SLACK_BOT_TOKEN: 'xoxb-from-environment' }, dir);
      expect(expectOneLine(run)).toContain('Slack rejected SLACK_BOT_TOKEN (invalid_auth)');
      // SLACK_API_URL came from .env (the call reached the fake); the token from the environment.
      expect(fake.callsTo('auth.test').map((c) => c.headers.authorization)).toEqual([
        'Bearer xoxb-from-environment',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bad token shape in .env is listed with the other problems (exit 78), before any call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-dotenv-'));
    try {
      writeFileSync(join(dir, '.env'), `SLACK_API_URL=${fake.apiUrl}\nSLACK_BOT_TOKEN=xoxb-…\nPORT=x\n`);
      const run = await runMain({ PLAT_SANDBOX: '1', SLACK_APP_TOKEN: 'xapp-your-app-token' }, dir);
      expect(run.code).toBe(78);
      expect(run.stderr).toContain(
        '  - SLACK_BOT_TOKEN may hold printable ASCII only (no spaces, no "…"): character 6 is U+2026',
      );
      expect(run.stderr).toContain('  - PORT: must be a whole number from 0 to 65535');
      expect(run.stderr).not.toContain('ByteString');
      expect(fake.calls).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('start-up in Socket Mode (startPlatdesk)', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startSlackApiServer();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  async function startFailure(): Promise<{ error: SlackStartError; port: number }> {
    const port = await freePort();
    const config = socketModeConfig(fake, port);
    const error: unknown = await startPlatdesk(config).then(
      async (p) => {
        await p.stop();
        return new Error('platdesk started');
      },
      (e: unknown) => e,
    );
    if (!isSlackStartError(error)) throw error;
    return { error, port };
  }

  it('Slack rejects the app token (apps.connections.open invalid_auth): a clear SLACK_APP_TOKEN error, nothing left running', async () => {
    fake.setResponse('apps.connections.open', { ok: false, error: 'invalid_auth' });
    const { error, port } = await startFailure();
    expect(error.code).toBe('token_rejected');
    expect(error.message).toMatch(
      /^Slack rejected SLACK_APP_TOKEN \(invalid_auth\): set it to an app-level token \(xapp-\.\.\.\) with connections:write/,
    );
    expect(fake.callsTo('apps.connections.open')).toHaveLength(1);
    // The health server is closed again: the port is free.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('the Socket Mode WebSocket is refused: a clear socket error instead of reconnecting forever', async () => {
    const wsPort = await freePort();
    fake.setResponse('apps.connections.open', { url: `ws://127.0.0.1:${wsPort}/socket` });
    const { error, port } = await startFailure();
    expect(error.code).toBe('socket_failed');
    // The WebSocket's error carries its cause (scripts/build/ws-socket-entry.cjs): the refused port.
    expect(error.message).toMatch(
      /^The Socket Mode connection to Slack failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\): check that outgoing WebSocket/,
    );
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    // No reconnect after the failure.
    const opens = fake.callsTo('apps.connections.open').length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.callsTo('apps.connections.open')).toHaveLength(opens);
  });
});
