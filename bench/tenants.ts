/**
 * `npm run bench:tenants` (issue 39 figures): one replica in distributed mode, in this process, on
 * loopback, on SQLite:
 *
 * - BENCH_WORKSPACES installed workspaces (default 2,000), a fifth of them with a daily digest
 *   whose due time is planned (spread over the day, none due during the bench);
 * - start → /healthz 200 with them, against the same with one workspace;
 * - RSS and live heap (after a full GC) at idle after start, then after BENCH_ACTIVE workspaces
 *   (default 200) each sent one command (`/item help`: no plat call), and again once their parts
 *   were evicted (idle bound shortened for the bench);
 * - ack p99 of those commands spread over the workspaces against the same number from one.
 *
 * Not measured here: PostgreSQL, three replicas behind it and Redis, due runs' start delay at
 * 2,000 schedules, store queries per minute at idle (see docs/benchmarks.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startPlatdesk } from '../src/main.js';
import { createSandbox } from '../src/sandbox/index.js';
import { openStore } from '../src/store/engine.js';
import { parseEncryptionKeys } from '../src/store/secrets.js';
import { startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { postCommand } from '../test/helpers/slack-http.js';
import { installFakeOAuth } from '../test/helpers/slack-oauth.js';
import { slashCommand } from '../test/helpers/slack-payloads.js';

const WORKSPACES = Number(process.env.BENCH_WORKSPACES ?? 2000);
const ACTIVE = Number(process.env.BENCH_ACTIVE ?? 200);
const SIGNING_SECRET = 'bench-secret';
const KEY = randomBytes(32).toString('base64');
const MB = 1024 * 1024;
const teamOf = (i: number) => `TBT${String(i).padStart(5, '0')}`;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
const p99 = (ms: number[]) =>
  Math.round(
    quantile(
      [...ms].sort((a, b) => a - b),
      0.99,
    ) * 10,
  ) / 10;

function memory() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rssMb: Math.round((m.rss / MB) * 10) / 10, heapMb: Math.round((m.heapUsed / MB) * 10) / 10 };
}

async function seed(database: { url?: string; path?: string }, workspaces: number): Promise<void> {
  const store = await openStore({ ...database, encryptionKeys: parseEncryptionKeys(KEY).keys });
  try {
    const now = Date.now();
    for (let i = 0; i < workspaces; i++) {
      const tenant = teamOf(i);
      await store.installations.save({
        tenant,
        enterpriseId: null,
        enterpriseName: null,
        teamId: tenant,
        teamName: `bench ${i}`,
        isEnterpriseInstall: false,
        appId: 'A1',
        botId: `B${i}`,
        botUserId: `UB${i}`,
        botScopes: ['commands', 'chat:write'],
        botToken: `xoxb-bench-${i}`,
        botRefreshToken: null,
        botExpiresAt: null,
        installerUserId: 'U1',
      });
      if (i % 5 === 0) {
        await store.forTenant(tenant).digests.add({
          ownerId: 'owner',
          shopLabel: 'shop',
          channelId: 'CBENCH',
          localTime: '03:00',
          timeZone: 'UTC',
          createdBy: 'U1',
        });
        // As after its first plan: due later today or tomorrow (not during the bench).
        await store.scheduleWakes.set(tenant, 'digest', now + 3_600_000 + i * 1000, 0);
      }
    }
  } finally {
    await store.close();
  }
}

async function run(database: { url?: string; path?: string }, workspaces: number, active: number) {
  await seed(database, workspaces);
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
  const started = performance.now();
  const platdesk = await startPlatdesk(config, {
    logger: createLogger('silent'),
    tenantParts: { idleMs: 5_000 },
  });
  while ((await fetch(`${platdesk.url}/healthz`)).status !== 200) await new Promise((r) => setTimeout(r, 20));
  const startMs = Math.round(performance.now() - started);
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const idle = memory();
    const builtAtIdle = platdesk.tenants.size();
    const command = async (teamId: string, i: number) => {
      const payload = {
        ...slashCommand({
          command: '/item',
          text: 'help',
          responseUrl: fake.responseUrl(`r-${teamId}-${i}`),
        }),
        team_id: teamId,
      };
      const t = performance.now();
      const sent = await postCommand(`${platdesk.url}/slack/events`, SIGNING_SECRET, payload);
      if (sent.status !== 200) throw new Error(`command answered ${sent.status}`);
      return performance.now() - t;
    };
    const oneAck: number[] = [];
    for (let i = 0; i < active; i++) oneAck.push(await command(teamOf(1), i));
    const spreadAck: number[] = [];
    for (let i = 0; i < active; i++) spreadAck.push(await command(teamOf((i * 7919) % workspaces), 0));
    const afterActive = memory();
    const builtActive = platdesk.tenants.size();
    // Idle past the (bench's) idle bound: the parts go.
    await new Promise((r) => setTimeout(r, 7_000));
    await platdesk.tenants.trim();
    const afterEvicted = memory();
    return {
      workspaces,
      startToHealthzMs: startMs,
      idle: { ...idle, partsBuilt: builtAtIdle },
      afterActive: { ...afterActive, partsBuilt: builtActive },
      afterEvicted: { ...afterEvicted, partsBuilt: platdesk.tenants.size() },
      rssKbPerActiveWorkspace: Math.round(((afterActive.rssMb - idle.rssMb) * 1024) / active),
      heapKbPerActiveWorkspace: Math.round(((afterActive.heapMb - idle.heapMb) * 1024) / active),
      ackP99Ms: { oneWorkspace: p99(oneAck), spread: p99(spreadAck) },
    };
  } finally {
    await platdesk.stop();
    await sandbox.close();
    await fake.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'platdesk-bench-tenants-'));
try {
  const one = await run({ path: join(dir, 'one.sqlite') }, 1, ACTIVE);
  const many = await run({ path: join(dir, 'many.sqlite') }, WORKSPACES, ACTIVE);
  for (const r of [one, many])
    console.log(
      `${r.workspaces} workspaces: start → /healthz ${r.startToHealthzMs} ms; idle RSS ${r.idle.rssMb} MB, heap ${r.idle.heapMb} MB (${r.idle.partsBuilt} parts built); after ${ACTIVE} commands RSS ${r.afterActive.rssMb} MB, heap ${r.afterActive.heapMb} MB (${r.afterActive.partsBuilt} parts); evicted: RSS ${r.afterEvicted.rssMb} MB, heap ${r.afterEvicted.heapMb} MB (${r.afterEvicted.partsBuilt} parts); ack p99 one workspace ${r.ackP99Ms.oneWorkspace} ms, spread ${r.ackP99Ms.spread} ms`,
    );
  console.log(JSON.stringify({ one, many }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
