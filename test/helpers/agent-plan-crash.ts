/**
 * A confirmed agent plan whose process is killed (issue 36: "a crash mid-plan is told truthfully,
 * as for commands"). platdesk runs as a real child process (test/helpers/platdesk-child.ts) on a
 * SQLite file or a PostgreSQL database, against this test's plat sandbox and Slack stand-in; a
 * person asks in their DM, confirms a plan of three paid steps (a waybill, then two days of
 * orders), and the test kills the process with SIGKILL where it chooses. platdesk then starts
 * again in this test's process (another pid on the same host, as a restart is) on the same
 * database, through the harness, whose own Slack stand-in receives what the restarted app says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import type { LedgerEntry, Store } from '../../src/store/store.js';
import { askForPlan } from './agent-dm.js';
import { type PlatdeskChild, startPlatdeskChild } from './platdesk-child.js';
import { type PlatdeskHarness, SIGNING_SECRET, startPlatdeskHarness } from './platdesk-harness.js';
import { type FakeSlack, startSlackApiServer } from './slack-api-server.js';
import { postAction } from './slack-http.js';
import { blockAction, SLACK } from './slack-payloads.js';
import { createPostgresDatabase, dropPostgresDatabase, type EngineName } from './store-engines.js';

const TOKEN = 'agent-crash';
/** The prices the plan is offered at (points per call). */
export const PRICES = 'platdzmd:1=4,paging-orders=5';
/** Three paid steps: the waybill (platdzmd), then today's and yesterday's orders (paging-orders). */
export const QUESTION = `where is ZTO 773012345678901 owner:${SANDBOX_FIXTURES.owners.busy}, and orders of ${SANDBOX_FIXTURES.owners.busy} in the last 2 days`;

export interface Offered {
  threadTs: string;
  /** The Confirm's value: the plan's id. */
  planId: string;
  label: string;
}

export interface CrashRig {
  fake: FakeSlack;
  sandbox: Sandbox;
  child: PlatdeskChild;
  /** The person's question in their DM; resolves with the plan's Confirm once it is offered. */
  ask(): Promise<Offered>;
  /** The person clicks Confirm (on the child). */
  confirm(offered: Offered, actionTs: string): Promise<void>;
  /**
   * SIGKILL, then platdesk again on the same database (this process), told apart by its own Slack
   * stand-in; `sameSlack`: on this rig's stand-in instead, which holds the thread as the killed
   * process left it. `beforeRestart`: run between the kill and the restart.
   */
  killAndRestart(options?: {
    sameSlack?: boolean;
    beforeRestart?: () => Promise<void>;
  }): Promise<PlatdeskHarness>;
  /** Raw SQL on the rig's database, through a connection of this test's own (a trigger, a lookup). */
  sql(statement: string): Promise<void>;
  /** The ledger's rows for the plan's steps (read through a store of this test's own). */
  ledgerOf(planId: string): Promise<LedgerEntry[]>;
  /** The pending lookup ids of the plan's paid steps, in order. */
  stepsOf(planId: string): Promise<string[]>;
  store(): Promise<Store>;
  dispose(): Promise<void>;
}

let seq = 0;

async function stepsOf(store: Store, planId: string): Promise<string[]> {
  const batch = await store.shortcutBatches.get(planId);
  const stored = JSON.parse(batch?.payloadJson ?? '{"steps":[]}') as { steps: { pendingId: string }[] };
  return stored.steps.map((s) => s.pendingId);
}

export async function startCrashRig(engine: EngineName): Promise<CrashRig> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const fake = await startSlackApiServer();
  cleanups.push(() => fake.close());
  const sandbox = createSandbox({ token: TOKEN });
  const platUrl = await sandbox.listen(0);
  cleanups.push(() => sandbox.close());
  let dbEnv: Record<string, string>;
  let storeOptions: { url: string } | { path: string };
  if (engine === 'postgres') {
    const url = await createPostgresDatabase();
    cleanups.push(() => dropPostgresDatabase(url));
    dbEnv = { DATABASE_URL: url };
    storeOptions = { url };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-agent-crash-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'platdesk.sqlite');
    dbEnv = { DATABASE_PATH: path };
    storeOptions = { path };
  }
  const env = {
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    PLAT_BASE_URL: platUrl,
    PLAT_TOKEN: TOKEN,
    PLAT_PRICES: PRICES,
    ...dbEnv,
  };
  const child = await startPlatdeskChild({ ...env, SLACK_API_URL: fake.apiUrl });
  cleanups.push(() => child.kill());
  let own: Store | null = null;
  const store = async () => {
    own ??= await openStore(storeOptions);
    return own;
  };

  return {
    fake,
    sandbox,
    child,
    ask: () =>
      askForPlan(
        { eventsUrl: child.eventsUrl, fake },
        `1700000200.${String(++seq).padStart(6, '0')}`,
        QUESTION,
        20_000,
      ),
    async confirm(offered, actionTs) {
      await postAction(
        child.eventsUrl,
        SIGNING_SECRET,
        blockAction({
          actionId: 'platdesk.agent.confirm',
          value: offered.planId,
          text: offered.label,
          actionTs,
          channelId: SLACK.imChannelId,
          messageTs: offered.threadTs,
          isEphemeral: false,
          responseUrl: fake.responseUrl(`confirm-${actionTs}`),
        }),
      );
    },
    async killAndRestart(options = {}) {
      await child.kill();
      await options.beforeRestart?.();
      const h = await startPlatdeskHarness({
        env: {
          ...env,
          LOG_LEVEL: 'silent',
          ...(options.sameSlack ? { SLACK_API_URL: fake.apiUrl } : {}),
        },
      });
      cleanups.push(() => h.close());
      return h;
    },
    async ledgerOf(planId) {
      const s = await store();
      const rows: LedgerEntry[] = [];
      for (const id of await stepsOf(s, planId)) rows.push(...(await s.ledger.byPending(id)));
      return rows;
    },
    stepsOf: async (planId) => stepsOf(await store(), planId),
    async sql(statement) {
      if ('url' in storeOptions) {
        const client = new pg.Client({ connectionString: storeOptions.url });
        await client.connect();
        try {
          await client.query(statement);
        } finally {
          await client.end();
        }
        return;
      }
      const db = new Database(storeOptions.path);
      try {
        db.pragma('busy_timeout = 5000');
        db.exec(statement);
      } finally {
        db.close();
      }
    },
    store,
    async dispose() {
      await own?.close();
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
    },
  };
}
