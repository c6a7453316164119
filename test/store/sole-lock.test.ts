/**
 * The database lock that keeps a process without REDIS_URL alone on its PostgreSQL database and
 * lets replicas with REDIS_URL share it (store/sole-lock.ts), on the run's real test server: who
 * may join whom, its independence from the migration lock, and what happens when its connection
 * is lost (retaken when the database answers; reported, never ignored, when another process took
 * it meanwhile). The server restart case runs on a server of its own.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/engine.js';
import { DatabaseInUseError } from '../../src/store/errors.js';
import { type SoleLock, type SoleLockMode, takeSoleLock } from '../../src/store/sole-lock.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

interface Logged {
  level: 'info' | 'warn' | 'error';
  msg: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await sleep(50);
  return ok();
}

function recordingLogger(into: Logged[]) {
  const at = (level: Logged['level']) => (_obj: object, msg: string) => void into.push({ level, msg });
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

/** Ends the server sessions that hold the lock of `mode` (as a server restart or a dropped link would). */
async function cutLockConnections(url: string, mode: SoleLockMode): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = $1`,
      [`platdesk lock (${mode})`],
    );
    return rows.filter((r) => r.ended).length;
  } finally {
    await admin.end();
  }
}

describe('the database lock (PostgreSQL)', () => {
  let url: string;
  let locks: SoleLock[];
  let logged: Logged[];
  const take = async (mode: SoleLockMode, extra: { retryMs?: number } = {}) => {
    const lock = await takeSoleLock({ url, mode, logger: recordingLogger(logged), ...extra });
    locks.push(lock);
    return lock;
  };
  const refusal = (mode: SoleLockMode) =>
    take(mode).then(
      () => {
        throw new Error(`the ${mode} lock was granted`);
      },
      (error: unknown) => error,
    );

  beforeEach(async () => {
    url = await createPostgresDatabase();
    locks = [];
    logged = [];
  });
  afterEach(async () => {
    await Promise.all(locks.map((l) => l.release()));
    await dropPostgresDatabase(url);
  });

  it('without Redis a process is alone: a second one, with or without Redis, is refused with a clear line', async () => {
    const first = await take('exclusive');
    expect(first.health()).toEqual({ mode: 'exclusive', held: true, problem: null });
    const location = url;
    const second = await refusal('exclusive');
    expect(second).toBeInstanceOf(DatabaseInUseError);
    expect((second as Error).message).toBe(
      `another platdesk process uses this database (${location}) without REDIS_URL; two such processes would each allow the full plat rate limit: stop the other one, or give every process the same REDIS_URL`,
    );
    const replica = await refusal('shared');
    expect(replica).toBeInstanceOf(DatabaseInUseError);
    expect((replica as Error).message).toBe(
      `another platdesk process uses this database (${location}) without REDIS_URL, so it must run alone; stop it, or restart it with the same REDIS_URL as this one`,
    );
    // Once it is gone, the database is free again.
    await first.release();
    expect((await take('exclusive')).health().held).toBe(true);
  });

  it('replicas with Redis share it; a process without Redis is then refused', async () => {
    const [a, b, c] = [await take('shared'), await take('shared'), await take('shared')];
    for (const lock of [a, b, c])
      expect(lock?.health()).toEqual({ mode: 'shared', held: true, problem: null });
    const alone = await refusal('exclusive');
    expect(alone).toBeInstanceOf(DatabaseInUseError);
    expect((alone as Error).message).toMatch(
      /^replicas with REDIS_URL use this database \(postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_\w+\); set REDIS_URL here too \(the same one\), or point DATABASE_URL at another database$/,
    );
    // Still refused while any one replica remains.
    await a?.release();
    await b?.release();
    expect(await refusal('exclusive')).toBeInstanceOf(DatabaseInUseError);
    await c?.release();
    expect((await take('exclusive')).health().held).toBe(true);
  });

  it('is not the migration lock: a store opens and migrates while a process holds it alone', async () => {
    await take('exclusive');
    const store = await openStore({ url });
    try {
      expect(await store.ping()).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('a lost connection: the lock is retaken by itself, and reported on health() meanwhile', async () => {
    const lock = await take('exclusive', { retryMs: 300 });
    expect(await cutLockConnections(url, 'exclusive')).toBe(1);
    expect(await until(() => !lock.health().held, 3000)).toBe(true);
    expect(lock.health().problem).toMatch(/^the database lock of this process was lost with its connection/);
    expect(await until(() => lock.health().held, 5000)).toBe(true);
    expect(lock.health().problem).toBeNull();
    expect(logged.map((l) => l.level)).toEqual(['warn', 'info']);
    // Held for real: another process without Redis is refused again.
    expect(await refusal('exclusive')).toBeInstanceOf(DatabaseInUseError);
  });

  it('taken by another process while the connection was lost: an error and a health problem until it is free again', async () => {
    const lock = await take('exclusive', { retryMs: 500 });
    await cutLockConnections(url, 'exclusive');
    expect(await until(() => !lock.health().held, 3000)).toBe(true);
    // Another process without Redis starts in the gap and gets the database.
    const intruder = await take('exclusive');
    await sleep(1500);
    const health = lock.health();
    expect(health.held).toBe(false);
    expect(health.problem).toMatch(
      /^the database lock was lost and another process took it: another platdesk process uses this database \(.*\) without REDIS_URL/,
    );
    // Said once as an error, not once per retry.
    expect(logged.filter((l) => l.level === 'error')).toHaveLength(1);
    await intruder.release();
    expect(await until(() => lock.health().held, 5000)).toBe(true);
    expect(lock.health().problem).toBeNull();
  });
});

describe('the database lock when its server session stops answering (SIGSTOP of its backend)', () => {
  let url: string;
  let stopped: number | null = null;
  afterAll(async () => {
    if (stopped !== null) process.kill(stopped, 'SIGCONT');
    if (url) await dropPostgresDatabase(url);
  });

  it('is not held past heartbeat + query timeout, whatever the socket says; taken again once the session is gone', async () => {
    url = await createPostgresDatabase();
    const logged: Logged[] = [];
    const heartbeatMs = 300;
    const lock = await takeSoleLock({
      url,
      mode: 'exclusive',
      logger: recordingLogger(logged),
      heartbeatMs,
      retryMs: 200,
    });
    try {
      expect(lock.held()).toBe(true);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'platdesk lock (exclusive)'`,
      );
      const pid = rows[0]?.pid;
      if (pid === undefined) throw new Error('no lock session');
      // The link goes silent: the session neither answers nor ends (as in a partition).
      process.kill(pid, 'SIGSTOP');
      stopped = pid;
      const cutAt = Date.now();
      expect(await until(() => !lock.held(), 8000)).toBe(true);
      // Within the heartbeat, the heartbeat's query timeout (5 s) and timer slack.
      expect(Date.now() - cutAt).toBeLessThan(heartbeatMs + 5000 + 1500);
      expect(lock.health()).toMatchObject({ held: false });
      expect(lock.health().problem).toMatch(/plat calls are refused until it is held again$/);
      // The frozen session still holds the lock on the server: a retake is refused meanwhile.
      await sleep(600);
      expect(lock.held()).toBe(false);
      // The session wakes and finds its client gone: the server releases the lock, which is retaken.
      process.kill(pid, 'SIGCONT');
      stopped = null;
      expect(await until(() => lock.held(), 10_000)).toBe(true);
      expect(lock.health()).toEqual({ mode: 'exclusive', held: true, problem: null });
      await admin.end();
    } finally {
      await lock.release();
    }
  }, 30_000);
});

describe('the database lock across a PostgreSQL restart', () => {
  let server: PostgresServer;
  afterAll(async () => {
    await server?.remove();
  });

  it('is retaken when the server is back', async () => {
    server = await startPostgres();
    const url = await server.createDatabase('sole');
    const logged: Logged[] = [];
    const lock = await takeSoleLock({ url, mode: 'shared', logger: recordingLogger(logged), retryMs: 200 });
    try {
      await server.stop();
      expect(await until(() => !lock.health().held, 8000)).toBe(true);
      await sleep(500);
      expect(lock.health().held).toBe(false);
      await server.start();
      expect(await until(() => lock.health().held, 10_000)).toBe(true);
      expect(logged.map((l) => l.level)).toEqual(['warn', 'info']);
    } finally {
      await lock.release();
    }
  }, 60_000);
});
