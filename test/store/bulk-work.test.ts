/**
 * Bulk store work (store/bulk-work.ts, issue 39) on the run's real PostgreSQL: a burst of digest
 * runs' queries holds at most seven of the pool's ten connections, so a claim, a lease renewal
 * or a Slack request's query meets a free connection at once instead of queueing behind them;
 * a connection that comes free goes to such work before bulk work waiting; bulk work past its
 * share waits its turn and runs; one that waits past the bound fails as an unreachable store
 * does. And a run's body is bulk while its fence's renewals are not.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../src/clock.js';
import { withRunFence } from '../../src/digest/run-fence.js';
import { asBulkStoreWork, bulkConnections, isBulkStoreWork } from '../../src/store/bulk-work.js';
import { connectDatabase, type OpenedDatabase } from '../../src/store/engine.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const sleepQuery = (db: OpenedDatabase['db'], s: number) => sql`SELECT pg_sleep(${s})`.execute(db);

describe('bulk store work on PostgreSQL', () => {
  let url: string;
  let opened: OpenedDatabase;

  beforeAll(async () => {
    url = await createPostgresDatabase();
    opened = await connectDatabase({ url, poolMax: 10 });
  });
  afterAll(async () => {
    await opened?.db.destroy();
    if (url) await dropPostgresDatabase(url);
  });

  it('takes at most 7 of 10 connections: a query of other work runs at once beside 20 bulk ones', async () => {
    expect(bulkConnections(10)).toBe(7);
    const db = opened.db;
    let running = 0;
    let most = 0;
    const bulk = Array.from({ length: 20 }, () =>
      asBulkStoreWork(async () => {
        // Counted while holding a connection: inside one transaction.
        await db.transaction().execute(async (trx) => {
          running++;
          most = Math.max(most, running);
          await sleepQuery(trx as unknown as OpenedDatabase['db'], 0.25);
          running--;
        });
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    await sql`SELECT 1`.execute(db);
    const otherMs = performance.now() - t0;
    await Promise.all(bulk);
    expect(most).toBe(7);
    // With all ten taken by bulk work it would wait for the first of them (≥ 150 ms more).
    expect(otherMs).toBeLessThan(120);
  });

  it('a connection that comes free goes to other work waiting before bulk work that waited longer', async () => {
    const small = await connectDatabase({ url, poolMax: 2 });
    const started: string[] = [];
    const hold = (name: string, ms: number) =>
      small.db.transaction().execute(async (trx) => {
        await sql`SELECT 1`.execute(trx);
        started.push(name);
        await new Promise((r) => setTimeout(r, ms));
      });
    try {
      const first = [asBulkStoreWork(() => hold('bulk 1', 200)), hold('other 1', 600)];
      await new Promise((r) => setTimeout(r, 50));
      const bulkWaiting = asBulkStoreWork(() => hold('bulk 2', 10));
      await new Promise((r) => setTimeout(r, 20));
      const otherWaiting = hold('other 2', 10);
      await Promise.all([...first, bulkWaiting, otherWaiting]);
      expect(started.slice(2)).toEqual(['other 2', 'bulk 2']);
    } finally {
      await small.db.destroy();
    }
  });

  it('bulk work past its bound fails as an unreachable store does; the pool serves on', async () => {
    const small = await connectDatabase({ url, poolMax: 2, queryTimeoutMs: 400 });
    try {
      expect(bulkConnections(2)).toBe(1);
      // Bulk work holding its one connection longer than the bound (a transaction, not one
      // query: a query is bounded by the same 400 ms).
      const holding = asBulkStoreWork(() =>
        small.db.transaction().execute(async (trx) => {
          await sql`SELECT 1`.execute(trx);
          await new Promise((r) => setTimeout(r, 900));
        }),
      );
      await new Promise((r) => setTimeout(r, 50));
      const waited = await asBulkStoreWork(() => sql`SELECT 1`.execute(small.db)).then(
        () => null,
        (error: unknown) => error,
      );
      expect(waited).toBeInstanceOf(StoreUnavailableError);
      expect(String((waited as Error).cause)).toMatch(/bulk store work waited 400 ms/);
      // The other connection was never bulk's to take.
      await expect(sql`SELECT 1 AS one`.execute(small.db)).resolves.toMatchObject({ rows: [{ one: 1 }] });
      await holding;
      // Its turn ended with its query: the next bulk query runs.
      await expect(asBulkStoreWork(() => sql`SELECT 2 AS two`.execute(small.db))).resolves.toMatchObject({
        rows: [{ two: 2 }],
      });
    } finally {
      await small.db.destroy();
    }
  });
});

describe("a run's fence", () => {
  it("marks the run's work as bulk and not its lease renewals", async () => {
    const renewedAsBulk: boolean[] = [];
    let workAsBulk = false;
    await withRunFence(
      {
        instanceId: 'test',
        clock: realClock,
        leaseMs: 22_000,
        renewEveryMs: 20,
        callSpanMs: 16_000,
        skewBudgetMs: 0,
      },
      { id: 1, epoch: 1, leaseExpiresAt: null },
      async () => {
        renewedAsBulk.push(isBulkStoreWork());
        return true;
      },
      undefined,
      async () => {
        workAsBulk = isBulkStoreWork();
        await new Promise((r) => setTimeout(r, 100));
      },
    );
    expect(workAsBulk).toBe(true);
    expect(renewedAsBulk.length).toBeGreaterThan(0);
    expect(renewedAsBulk.every((b) => !b)).toBe(true);
    expect(isBulkStoreWork()).toBe(false);
  });
});
