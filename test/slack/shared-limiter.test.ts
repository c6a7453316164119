/**
 * REDIS_URL through the whole app: startPlatdesk picks the Redis limiter, a confirmed lookup takes
 * its slot from Redis, and when Redis goes away the user gets a clear "temporarily unavailable"
 * answer with no plat call, /healthz answers 503 naming Redis, and lookups resume when Redis is
 * back, without a restart.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { expectClearMessage } from '../faults/fault-checks.js';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const { owners } = SANDBOX_FIXTURES;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('REDIS_URL: the shared limiter in the app', () => {
  let redis: RedisServer;
  let h: PlatdeskHarness;
  let page = 0;
  const ordersRequest = () => `${owners.busy} page:${++page}`;

  async function health(): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${h.platdesk.metricsUrl}/healthz`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms: number): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const value = await read();
      if (ok(value) || Date.now() > end) return value;
      await sleep(50);
    }
  }

  beforeAll(async () => {
    redis = await startRedisServer();
    // REDIS_URL needs DATABASE_URL: the harness makes a fresh database on the test PostgreSQL.
    h = await startPlatdeskHarness({
      engine: 'postgres',
      env: { REDIS_URL: redis.url },
      platTimeouts: { deadlineMs: 500 },
    });
    // A fresh Redis: the first grants wait out the fence of a new key set and the join delay.
    await h.platdesk.limiter.ready();
  });
  afterAll(async () => {
    await h?.close();
    await redis?.close();
  });

  it('takes each call’s slot from Redis and reports the engine on /healthz', async () => {
    const { answer, calls } = await h.lookup('/orders', ordersRequest());
    expect(calls).toBe(1);
    expect(textOf(answer)).not.toContain('unavailable');
    const inspect = new Redis(redis.url);
    try {
      // The settled call's lease rests in Redis for a window + margin.
      expect(await inspect.zcard('{platdesk:limiter}:resting')).toBe(1);
    } finally {
      inspect.disconnect();
    }
    expect(await health()).toMatchObject({ status: 200, body: { ok: true, limiter: 'redis' } });

    // Every series README lists that a lookup feeds, now through prom-client.
    const metrics = await (await fetch(`${h.platdesk.metricsUrl}/metrics`)).text();
    for (const name of [
      'platdesk_plat_calls_total',
      'platdesk_plat_call_ms',
      'platdesk_plat_points_total',
      'platdesk_limiter_queued',
      'platdesk_limiter_started_total',
      'platdesk_limiter_wait_ms_total',
      'platdesk_slack_requests_total',
      'platdesk_slack_ack_ms',
      'nodejs_eventloop_lag_seconds',
    ])
      expect(metrics).toContain(`# TYPE ${name} `);
    expect(metrics).toMatch(/^platdesk_limiter_started_total\{priority="interactive"\} 1$/m);
  });

  it('Redis down: a clear temporarily-unavailable answer, no plat call, /healthz 503 naming Redis; back: lookups resume', async () => {
    await redis.kill();
    const down = await until(health, (r) => r.status === 503, 5000);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ ok: false, limiter: 'redis' });
    const problem = String((down.body.problems as string[])[0]);
    expect(problem).toMatch(/^Redis unreachable: \S/);
    // /healthz may be public: no address of the Redis server.
    expect(problem).not.toContain(String(redis.port));

    const before = h.calls();
    const { confirmation } = await h.ask('/orders', ordersRequest());
    const asked = Date.now();
    const { answer } = await h.confirm(confirmation);
    expect(Date.now() - asked).toBeLessThan(5000);
    const said = expectClearMessage(answer, 'platdesk is temporarily unavailable', 'nothing was sent');
    expect(said).toContain('Nothing was charged.');
    expect(h.calls()).toBe(before);

    const metrics = await (await fetch(`${h.platdesk.metricsUrl}/metrics`)).text();
    // Single flight asks Redis first (one lock per lookup) and refuses the lookup before the limiter.
    expect(metrics).toMatch(/^platdesk_single_flight_unavailable_total [1-9]/m);

    await redis.start();
    const back = Date.now();
    const up = await until(health, (r) => r.status === 200, 5000);
    expect(up.status).toBe(200);
    const { calls } = await h.lookup('/orders', ordersRequest());
    expect(calls).toBe(1);
    expect(Date.now() - back).toBeLessThan(5000);
    // An outage is a warning for operators (and a 503), not an error line per lookup.
    const levels = h.logs().map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(levels.filter((l) => l.level >= 50)).toEqual([]);
    expect(levels.some((l) => l.level === 40 && l.msg.startsWith('Redis unreachable'))).toBe(true);
  });
});
