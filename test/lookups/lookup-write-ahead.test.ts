/**
 * A lookup's calls are written ahead (issue 33 findings 6 and 16), with real processes on both
 * store engines: a platdesk lookup process (test/helpers/charged-lookup-worker.ts) against the
 * sandbox and a SQLite file or a PostgreSQL database this test shares, killed with SIGKILL; this
 * test's process is the replica that sweeps up after it (lookups/interrupted.ts).
 *
 * - Its charge kept in memory while the store is unreachable (PostgreSQL cut off by a TCP proxy;
 *   SQLite locked by another connection past its busy timeout), then killed: the charge is lost
 *   with it, but the call is not: its write-ahead record, marked sent, becomes a ledger row
 *   (code -1, cost unknown), and the ledger's calls equal the sandbox's.
 * - Killed after its call was written ahead and before it was sent: the row says "may not have
 *   been sent" (code -2); the sandbox saw nothing, and no count adds it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { currentInstance } from '../../src/instance.js';
import { interruptedTruth, interruptGoneClaims } from '../../src/lookups/interrupted.js';
import { ledgerCsv } from '../../src/lookups/reports.js';
import type { Pending } from '../../src/lookups/types.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import type { Store } from '../../src/store/store.js';
import type {
  ChargedLookupWorkerCommand,
  ChargedLookupWorkerInput,
  ChargedLookupWorkerMessage,
} from '../helpers/charged-lookup-worker.js';
import {
  createPostgresDatabase,
  dropPostgresDatabase,
  ENGINES,
  type EngineName,
} from '../helpers/store-engines.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const WORKER = fileURLToPath(new URL('../helpers/charged-lookup-worker.ts', import.meta.url));
const TOKEN = 'write-ahead';
const USER = 'U0WRITEAHEAD';
const DAY = 86_400_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Worker {
  child: ChildProcess;
  next<T extends ChargedLookupWorkerMessage['type']>(
    type: T,
    timeoutMs?: number,
  ): Promise<Extract<ChargedLookupWorkerMessage, { type: T }>>;
}

function startWorker(input: ChargedLookupWorkerInput): Worker {
  const child = fork(WORKER, [JSON.stringify(input)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const seen: ChargedLookupWorkerMessage[] = [];
  const waiting: { type: string; resolve: (m: ChargedLookupWorkerMessage) => void }[] = [];
  child.on('message', (m: ChargedLookupWorkerMessage) => {
    seen.push(m);
    for (const w of waiting.filter((x) => x.type === m.type)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(m);
    }
  });
  return {
    child,
    next: (type, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const already = seen.find((m) => m.type === type);
        if (already) return resolve(already as never);
        const timer = setTimeout(
          () => reject(new Error(`worker sent no '${type}' in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiting.push({
          type,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m as never);
          },
        });
      }),
  };
}

/** The shared database: where the worker reaches it (through the proxy on PostgreSQL) and how it is cut off. */
interface SharedDatabase {
  forWorker: string;
  store: Store;
  /** The worker's store writes fail from now on (this test's own store still works). */
  cutWorkerOff(): Promise<void>;
  restore(): Promise<void>;
  dispose(): Promise<void>;
}

async function sharedDatabase(engine: EngineName): Promise<SharedDatabase> {
  if (engine === 'postgres') {
    const url = await createPostgresDatabase();
    const store = await openStore({ url });
    const target = new URL(url);
    const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    return {
      forWorker: viaProxy.toString(),
      store,
      cutWorkerOff: () => proxy.cut(),
      restore: () => proxy.restore(),
      async dispose() {
        await proxy.close();
        await store.close();
        await dropPostgresDatabase(url);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'platdesk-write-ahead-'));
  const path = join(dir, 'platdesk.sqlite');
  const store = await openStore({ path });
  let lock: Database.Database | null = null;
  const restore = async () => {
    lock?.exec('ROLLBACK');
    lock?.close();
    lock = null;
  };
  return {
    forWorker: path,
    store,
    async cutWorkerOff() {
      // Another connection holds the write lock: the worker's writes wait out their busy timeout, then fail.
      lock = new Database(path, { timeout: 5000 });
      lock.exec('BEGIN EXCLUSIVE');
    },
    restore,
    async dispose() {
      await restore();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.each(ENGINES)('a lookup’s calls written ahead, its process killed (%s)', (engine) => {
  const open: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close().catch(() => undefined);
  });

  async function setup(pauseAfterPrepare: boolean) {
    const sandbox: Sandbox = createSandbox({ token: TOKEN });
    const baseUrl = await sandbox.listen(0);
    open.push(() => sandbox.close());
    const db = await sharedDatabase(engine);
    open.push(() => db.dispose());
    const worker = startWorker({
      database: db.forWorker,
      baseUrl,
      token: TOKEN,
      deadlineMs: 10_000,
      leaseMs: 2_000,
      pauseAfterPrepare,
    });
    open.push(async () => {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
        await once(worker.child, 'exit');
      }
    });
    await worker.next('ready', 60_000);
    const command: ChargedLookupWorkerCommand = {
      type: 'go',
      request: { kind: 'shop-id', wwid: SANDBOX_FIXTURES.wwids.known },
      userId: USER,
    };
    worker.child.send(command);
    return { sandbox, db, worker };
  }

  async function kill(worker: Worker): Promise<void> {
    worker.child.kill('SIGKILL');
    await once(worker.child, 'exit');
  }

  /** This process's sweep, as the claim watch runs it: the worker's pid is gone from this host. */
  async function sweep(store: Store): Promise<Pending[]> {
    return interruptGoneClaims(store, currentInstance(), 10_000);
  }

  it('its charge kept in memory through a store outage, then SIGKILL: its call is in the ledger once (code -1, cost unknown), as the sandbox counted it', async () => {
    const { sandbox, db, worker } = await setup(false);
    // The answer comes late: the store is cut off after the call was written ahead and marked sent.
    sandbox.setFaults([{ kind: 'latency', ms: 2_500, operations: ['get-shop-id'] }]);
    let pendingId = '';
    for (;;) {
      const claims = await db.store.pending.runningClaims();
      pendingId = claims[0]?.id ?? '';
      const written = pendingId
        ? await db.store.sentCalls.unanswered(`lookup:${pendingId}`, Number.MAX_SAFE_INTEGER)
        : [];
      if (written[0]?.sent === true && sandbox.stats().calls === 1) break;
      await sleep(20);
    }
    await db.cutWorkerOff();
    // The answer is read; its charge cannot be written: the worker keeps it in memory.
    const done = await worker.next('done', 60_000);
    expect(done).toMatchObject({ ok: true, kept: 1, pendingId });
    await kill(worker);
    await db.restore();

    const [interrupted, ...more] = await sweep(db.store);
    expect(more).toEqual([]);
    expect(interrupted?.id).toBe(pendingId);
    const rows = await db.store.ledger.byPending(pendingId);
    expect(
      rows.map((r) => ({ chargeId: r.chargeId, code: r.code, points: r.points, userId: r.userId })),
    ).toEqual([{ chargeId: `${pendingId}:0:0`, code: -1, points: 0, userId: USER }]);
    const totals = await db.store.ledger.totals({ from: new Date(0), to: new Date(Date.now() + DAY) });
    expect(totals.calls).toBe(sandbox.stats().calls);
    expect(totals.calls).toBe(1);
    const truth = await interruptedTruth(db.store, interrupted as Pending);
    expect(truth).toMatchObject({ sent: true, costUnknown: 1, maybeNotSent: 0, charged: { calls: 1 } });
    // Nothing is left written ahead: the row is settled.
    expect(await db.store.sentCalls.unanswered(`lookup:${pendingId}`, Number.MAX_SAFE_INTEGER)).toEqual([]);
  }, 120_000);

  it('SIGKILL after its call was written ahead, before it was sent: the ledger says "may not have been sent" (code -2), the sandbox saw nothing, no count adds it', async () => {
    const { sandbox, db, worker } = await setup(true);
    const { pendingId } = await worker.next('prepared', 60_000);
    await kill(worker);

    const [interrupted] = await sweep(db.store);
    expect(interrupted?.id).toBe(pendingId);
    expect(sandbox.stats().calls).toBe(0);
    const range = { from: new Date(0), to: new Date(Date.now() + DAY) };
    const rows = await db.store.ledger.list(range);
    expect(
      rows.map((r) => ({ chargeId: r.chargeId, code: r.code, points: r.points, quota: r.quotaCalls })),
    ).toEqual([{ chargeId: `${pendingId}:0:0`, code: -2, points: 0, quota: 0 }]);
    expect(await db.store.ledger.totals(range)).toEqual({ points: 0, quotaCalls: 0, calls: 0 });
    expect(await db.store.ledger.groupTotals('operation', range)).toEqual([
      { key: 'get-shop-id', points: 0, quotaCalls: 0, calls: 0 },
    ]);
    expect(ledgerCsv(rows)).toContain(',-2,maybe_not_sent,');
    const truth = await interruptedTruth(db.store, interrupted as Pending);
    expect(truth).toMatchObject({ sent: true, costUnknown: 0, maybeNotSent: 1, charged: { calls: 0 } });
  }, 120_000);
});
