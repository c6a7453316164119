/**
 * No stale database lock (issue 20 pt 4), through the whole app on the run's real PostgreSQL:
 * platdesk without REDIS_URL holds the database lock alone. When its lock connection is ended on
 * the server (pg_terminate_backend, as a server restart or a dropped link would) and another
 * process takes the lock in the gap, the limiter refuses every plat call (the user is told
 * platdesk is temporarily unavailable, nothing is sent to the sandbox) and /healthz says so; once
 * the other process lets go, platdesk retakes the lock and calls resume.
 */
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { SOLE_LOCK } from '../../src/store/sole-lock.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(ok: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok()) return true;
    await sleep(50);
  }
  return ok();
}

async function health(h: PlatdeskHarness): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${h.platdesk.metricsUrl}/healthz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the database lock lost (PostgreSQL, no Redis)', () => {
  let h: PlatdeskHarness | undefined;
  let intruder: pg.Client | undefined;
  afterAll(async () => {
    await intruder?.end().catch(() => undefined);
    await h?.close();
  });

  it('refuses every call while another process holds it, says so on /healthz, and resumes once it is retaken', async () => {
    h = await startPlatdeskHarness({ engine: 'postgres' });
    const harness = h;
    const item = SANDBOX_FIXTURES.items.basic;
    expect((await health(harness)).body.databaseLock).toEqual({
      mode: 'exclusive',
      held: true,
      callsRefused: false,
    });
    // The harness's own database, reached as its owner.
    const database = new URL(h.platdesk.store.location).pathname.slice(1);
    const url = inject('postgresUrl').replace(/\/postgres$/, `/${database}`);

    // A confirmation shown while the lock is held; confirmed once it is gone.
    const { confirmation } = await harness.ask('/item', item);
    intruder = new pg.Client({ connectionString: url });
    await intruder.connect();
    const ended = await intruder.query<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'platdesk lock (exclusive)'`,
    );
    expect(ended.rows.filter((r) => r.ended)).toHaveLength(1);
    // Another process without Redis takes the database in the gap (before platdesk retries).
    const client = intruder;
    expect(
      await until(async () => {
        const { rows } = await client.query<{ ok: boolean }>(
          'SELECT pg_try_advisory_lock($1::bigint) AS ok',
          [SOLE_LOCK.toString()],
        );
        return rows[0]?.ok === true;
      }, 3000),
    ).toBe(true);

    const lost = await health(harness);
    expect(lost.status).toBe(503);
    expect(lost.body.databaseLock).toEqual({ mode: 'exclusive', held: false, callsRefused: true });
    expect(String((lost.body.problems as string[]).join('\n'))).toMatch(
      /database lock .*; plat calls are refused until it is held again/,
    );

    const { answer } = await harness.confirm(confirmation);
    const said = textOf(answer);
    expect(said).toContain('platdesk is temporarily unavailable');
    expect(said).toContain('lost its database lock');
    expect(said).toContain('Nothing was charged');
    await harness.settle(200);
    expect(harness.calls()).toBe(0);

    // The other process lets go: platdesk retakes the lock by itself, and calls resume.
    await intruder.query('SELECT pg_advisory_unlock($1::bigint)', [SOLE_LOCK.toString()]);
    expect(await until(async () => (await health(harness)).status === 200, 10_000)).toBe(true);
    expect((await health(harness)).body.databaseLock).toEqual({
      mode: 'exclusive',
      held: true,
      callsRefused: false,
    });
    const again = await harness.lookup('/item', item, { settle: true });
    expect(textOf(again.answer)).not.toContain('temporarily unavailable');
    expect(again.calls).toBe(1);
  }, 60_000);
});
