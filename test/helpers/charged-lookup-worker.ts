/**
 * One platdesk lookup process for the write-ahead fault tests (test/lookups/lookup-write-ahead.test.ts):
 * its own store (a SQLite file or a PostgreSQL database the test shares, possibly through a TCP
 * proxy it can cut), in-process limiter, plat client and lookup service, against the test's
 * sandbox. Forked with `--import tsx`, driven over IPC, killed with SIGKILL by the test.
 *
 *   { type: 'go', request, userId } → prepares, claims and runs the lookup → 'done' with the
 *   outcome and how many charges it still keeps in memory (the store refused them).
 *   `pauseAfterPrepare`: the call's preparation (its claim fenced, its charge id written ahead)
 *   completes, 'prepared' is sent, and the call is never sent: the test kills it right there.
 */
import { currentInstance } from '../../src/instance.js';
import { createLookupService, summarize } from '../../src/lookups/lookup-service.js';
import type { LookupRequest } from '../../src/lookups/types.js';
import { createPlatClient } from '../../src/plat/client.js';
import { isPlatError } from '../../src/plat/errors.js';
import { createPlatHttp } from '../../src/plat/http.js';
import type { Limiter } from '../../src/plat/limiter.js';
import { createLocalLimiter } from '../../src/plat/local-limiter.js';
import { openStore } from '../../src/store/engine.js';
import { createChargeRecorder } from '../../src/store/ledger.js';

export interface ChargedLookupWorkerInput {
  /** postgres://… (PostgreSQL) or a SQLite file path. */
  database: string;
  baseUrl: string;
  token: string;
  deadlineMs: number;
  leaseMs: number;
  pauseAfterPrepare: boolean;
}

export type ChargedLookupWorkerMessage =
  | { type: 'ready'; instanceId: string }
  | { type: 'prepared'; pendingId: string }
  | { type: 'done'; ok: boolean; code: string | null; kept: number; pendingId: string };

export interface ChargedLookupWorkerCommand {
  type: 'go';
  request: LookupRequest;
  userId: string;
}

const send = (message: ChargedLookupWorkerMessage) => process.send?.(message);
const input = JSON.parse(process.argv[2] ?? '{}') as ChargedLookupWorkerInput;

const store = await openStore(
  input.database.startsWith('postgres') ? { url: input.database, poolMax: 2 } : { path: input.database },
);
const local = createLocalLimiter();
let pendingId = '';
const limiter: Limiter = input.pauseAfterPrepare
  ? {
      ...local,
      schedule: (task, options = {}) =>
        local.schedule(task, {
          ...options,
          // The process "dies" here: prepared (written ahead), never sent.
          prepare: async () => {
            await options.prepare?.();
            send({ type: 'prepared', pendingId });
            await new Promise<never>(() => {});
          },
        }),
    }
  : local;
const http = createPlatHttp({
  baseUrl: input.baseUrl,
  token: input.token,
  timeouts: { deadlineMs: input.deadlineMs },
});
const client = createPlatClient({ http, limiter, retry: { maxRetries: 0 } });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const charges = createChargeRecorder({ ledger: store.ledger, logger: silent, retryMs: 60_000 });
// This process's id as the app makes it (host, boot, pid namespace, pid): the sweep can tell it is gone.
const instanceId = currentInstance().id;
const lookups = createLookupService({
  client,
  store,
  prices: {},
  charges,
  holder: { instanceId, leaseMs: input.leaseMs },
});

process.on('message', (command: ChargedLookupWorkerCommand) => {
  if (command.type !== 'go') return;
  void (async () => {
    const actor = { userId: command.userId, channelId: 'C1234', teamId: 'T1234', responseUrl: null };
    const prepared = await lookups.prepare(command.request, actor, summarize(command.request), {
      useCache: false,
    });
    if (prepared.kind !== 'confirm') throw new Error(`expected a confirmation, got ${prepared.kind}`);
    pendingId = prepared.pending.id;
    const claimed = await lookups.claim(pendingId, command.userId);
    if (!claimed.ok) throw new Error(`claim refused: ${claimed.reason}`);
    try {
      await lookups.run(claimed.pending);
      send({ type: 'done', ok: true, code: null, kept: charges.backlog(), pendingId });
    } catch (error) {
      const code = isPlatError(error) ? error.code : String(error);
      send({ type: 'done', ok: false, code, kept: charges.backlog(), pendingId });
    }
  })();
});
send({ type: 'ready', instanceId });
