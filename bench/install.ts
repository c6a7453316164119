/**
 * `npm run bench:install` (issue 24 figures), on loopback with SQLite (PostgreSQL too when
 * BENCH_DATABASE_URL names an empty database):
 *
 * 1. install → first answered command: the real app in distributed mode, a browser-free OAuth
 *    install against the local Slack stand-in (GET /slack/install, the redirect back with code and
 *    state cookie, oauth.v2.access, auth.test, the installation stored sealed), then a signed
 *    `/item help` from the new workspace until its answer reaches the response_url. N workspaces,
 *    one after another; min / median / p99 ms.
 * 2. what one command costs for its installation: Bolt's authorize (slack/installs.ts) for an
 *    installed workspace, 2000 times: store reads per command (cached in process for 30 s: one
 *    read for the first, none after) and the p99 of authorize itself, warm (cached) and cold
 *    (every call reads the store: cache TTL 0).
 *
 * Timings on a shared machine are noisy; compare runs side by side.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startPlatdesk } from '../src/main.js';
import { createSandbox } from '../src/sandbox/index.js';
import { createSlackInstalls } from '../src/slack/installs.js';
import { authorizeFrom } from '../src/slack/tenant.js';
import { openStore } from '../src/store/engine.js';
import { parseEncryptionKeys } from '../src/store/secrets.js';
import type { Installations } from '../src/store/store.js';
import { startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { postCommand } from '../test/helpers/slack-http.js';
import { installFakeOAuth, installThroughOAuth } from '../test/helpers/slack-oauth.js';
import { slashCommand } from '../test/helpers/slack-payloads.js';

const INSTALLS = Number(process.env.BENCH_INSTALLS ?? 20);
const AUTHORIZES = 2000;
const SIGNING_SECRET = 'bench-secret';
const KEY = randomBytes(32).toString('base64');

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const r = (n: number) => Math.round(n * 1000) / 1000;
  return { n: s.length, min: r(s[0] ?? 0), median: r(quantile(s, 0.5)), p99: r(quantile(s, 0.99)) };
};

async function installToAnswer(database: { url?: string; path?: string }) {
  const fake = await startSlackApiServer();
  const oauth = installFakeOAuth(fake);
  const sandbox = createSandbox({ token: 'sandbox' });
  const config = loadConfig({
    SLACK_CLIENT_ID: oauth.clientId,
    SLACK_CLIENT_SECRET: oauth.clientSecret,
    SLACK_STATE_SECRET: 'bench-state-secret-0123456789',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    PLATDESK_ENCRYPTION_KEY: KEY,
    PLAT_BASE_URL: await sandbox.listen(0),
    PLAT_TOKEN: 'sandbox',
    PORT: '0',
    ...(database.url ? { DATABASE_URL: database.url } : { DATABASE_PATH: database.path ?? ':memory:' }),
    LOG_LEVEL: 'silent',
  });
  const platdesk = await startPlatdesk(config, { logger: createLogger('silent') });
  const times: number[] = [];
  try {
    for (let i = 0; i < INSTALLS; i++) {
      const teamId = `TBENCH${String(i).padStart(4, '0')}`;
      const started = performance.now();
      const installed = await installThroughOAuth(platdesk.url, oauth, { teamId, installerUserId: `UI${i}` });
      if (installed.status !== 200) throw new Error(`install ${i} answered ${installed.status}`);
      const responseId = `bench-${i}`;
      const answered = fake.waitFor('response_url', (c) => c.id === responseId, 10_000);
      const payload = {
        ...slashCommand({ command: '/item', text: 'help', responseUrl: fake.responseUrl(responseId) }),
        team_id: teamId,
      };
      await postCommand(`${platdesk.url}/slack/events`, SIGNING_SECRET, payload);
      await answered;
      times.push(performance.now() - started);
    }
  } finally {
    await platdesk.stop();
    await sandbox.close();
    await fake.close();
  }
  return summary(times);
}

async function authorizeCost(database: { url?: string; path?: string }) {
  const keys = parseEncryptionKeys(KEY).keys;
  const store = await openStore({ ...database, encryptionKeys: keys });
  try {
    await store.installations.save({
      tenant: 'TAUTH',
      enterpriseId: null,
      enterpriseName: null,
      teamId: 'TAUTH',
      teamName: 'bench',
      isEnterpriseInstall: false,
      appId: 'A1',
      botId: 'B1',
      botUserId: 'UB1',
      botScopes: ['commands'],
      botToken: 'xoxb-bench',
      botRefreshToken: null,
      botExpiresAt: null,
      installerUserId: 'U1',
    });
    const measure = async (cacheTtlMs: number) => {
      let reads = 0;
      const counted: Installations = {
        ...store.installations,
        get: (tenant) => {
          reads++;
          return store.installations.get(tenant);
        },
      };
      const installs = createSlackInstalls({
        distribution: {
          clientId: 'c',
          clientSecret: 's',
          stateSecret: 'state-secret-0123456789',
          installAllow: null,
          defaultAccountFor: 'all',
        },
        installations: counted,
        apiUrl: null,
        logger: createLogger('silent'),
        nowMs: Date.now,
        onInstalled: async () => {},
        cacheTtlMs,
      });
      // Bolt's authorize as main.ts builds it (slack/tenant.ts) over the installations.
      const authorize = authorizeFrom(installs.installation);
      const ms: number[] = [];
      for (let i = 0; i < AUTHORIZES; i++) {
        const started = performance.now();
        await authorize(
          { teamId: 'TAUTH', enterpriseId: undefined, isEnterpriseInstall: false },
          {} as never,
        );
        ms.push(performance.now() - started);
      }
      return { ...summary(ms), storeReadsPerCommand: reads / AUTHORIZES, firstCommandReads: 1 };
    };
    return { warm: await measure(30_000), cold: await measure(0) };
  } finally {
    await store.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'platdesk-bench-install-'));
const results: Record<string, unknown> = {};
try {
  const engines: [string, { url?: string; path?: string }, { url?: string; path?: string }][] = [
    ['sqlite', { path: join(dir, 'app.sqlite') }, { path: join(dir, 'auth.sqlite') }],
  ];
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (pgUrl) engines.push(['postgres', { url: pgUrl }, { url: pgUrl }]);
  for (const [engine, app, auth] of engines) {
    const install = await installToAnswer(app);
    const cost = await authorizeCost(auth);
    results[engine] = { installToFirstAnswerMs: install, authorizeMs: cost };
    console.log(
      `${engine}: install → first answered command (${install.n} workspaces): min ${install.min} ms, median ${install.median} ms, p99 ${install.p99} ms`,
    );
    console.log(
      `${engine}: authorize per command, warm cache: ${cost.warm.storeReadsPerCommand} store reads (1 for a workspace's first command in 30 s), p99 ${cost.warm.p99} ms; cold (a store read each): p99 ${cost.cold.p99} ms`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(results));
