/**
 * Kubernetes' probes (issue 38, point 2) through the real app on real servers: `/livez` says the
 * process and its event loop answer, and nothing else, so a database or Redis outage never makes
 * a kubelet restart a healthy fleet; `/readyz` says whether this replica can take Slack traffic
 * now: the store answers, Redis answers (with REDIS_URL), the database lock is held (PostgreSQL),
 * a Socket Mode connection is open. `/healthz` stays as it was (Docker, compose).
 *
 * PostgreSQL here is a server of this file's own (test/helpers/postgres-server.ts), so it can be
 * stopped and started again; Redis likewise.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { type Platdesk, startPlatdesk } from '../src/main.js';
import { freePort } from './helpers/free-port.js';
import { type PlatdeskHarness, startPlatdeskHarness } from './helpers/platdesk-harness.js';
import { type PostgresServer, startPostgres } from './helpers/postgres-server.js';
import { type RedisServer, startRedisServer } from './helpers/redis-server.js';
import { type FakeSlack, startSlackApiServer } from './helpers/slack-api-server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Probe {
  status: number;
  body: Record<string, unknown>;
}

async function probe(base: string, path: '/livez' | '/readyz' | '/healthz'): Promise<Probe> {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Reads `path` until `ok` holds (or `ms` pass) and returns the last answer. */
async function until(base: string, path: '/livez' | '/readyz', ok: (p: Probe) => boolean, ms: number) {
  const end = Date.now() + ms;
  for (;;) {
    const answer = await probe(base, path);
    if (ok(answer) || Date.now() > end) return answer;
    await sleep(100);
  }
}

describe('/livez and /readyz in HTTP mode on PostgreSQL and Redis', () => {
  let postgres: PostgresServer;
  let redis: RedisServer;
  let h: PlatdeskHarness;

  beforeAll(async () => {
    postgres = await startPostgres();
    redis = await startRedisServer();
    h = await startPlatdeskHarness({
      env: { DATABASE_URL: await postgres.createDatabase('probes'), REDIS_URL: redis.url },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await redis?.close();
    await postgres?.remove();
  });

  it('both answer 200 once started, and say no more than that', async () => {
    expect(await probe(h.platdesk.url, '/livez')).toEqual({ status: 200, body: { live: true } });
    // Readiness is eventual by nature (the kubelet polls): the limiter's first heartbeat may run
    // before its Redis connection is open, and the next one a second later says ready.
    const ready = await until(h.platdesk.url, '/readyz', (p) => p.status === 200, 10_000);
    expect(ready).toEqual({ status: 200, body: { ready: true } });
  });

  it('PostgreSQL stopped: /readyz 503 naming the store, /livez stays 200; back: ready again', async () => {
    await postgres.stop();
    try {
      const down = await until(h.platdesk.url, '/readyz', (p) => p.status === 503, 10_000);
      expect(down.status).toBe(503);
      expect(down.body.ready).toBe(false);
      expect(down.body.failing).toEqual(expect.arrayContaining(['store']));
      // Names only: no address, user or driver message of the database on a public port.
      expect(JSON.stringify(down.body)).not.toMatch(/127\.0\.0\.1|postgres:|ECONN/);
      for (let i = 0; i < 5; i++) {
        expect(await probe(h.platdesk.url, '/livez')).toEqual({ status: 200, body: { live: true } });
        await sleep(200);
      }
    } finally {
      await postgres.start();
    }
    const back = await until(h.platdesk.url, '/readyz', (p) => p.status === 200, 20_000);
    expect(back).toEqual({ status: 200, body: { ready: true } });
  }, 60_000);

  it('Redis stopped: /readyz 503 naming the limiter, /livez stays 200; back: ready again', async () => {
    await redis.kill();
    try {
      const down = await until(h.platdesk.url, '/readyz', (p) => p.status === 503, 10_000);
      expect(down.status).toBe(503);
      expect(down.body.failing).toEqual(['limiter']);
      expect(await probe(h.platdesk.url, '/livez')).toEqual({ status: 200, body: { live: true } });
    } finally {
      await redis.start();
    }
    const back = await until(h.platdesk.url, '/readyz', (p) => p.status === 200, 20_000);
    expect(back).toEqual({ status: 200, body: { ready: true } });
  }, 60_000);
});

describe('/readyz in Socket Mode', () => {
  let fake: FakeSlack | undefined;
  let platdesk: Platdesk | undefined;
  afterEach(async () => {
    await platdesk?.stop();
    await fake?.close();
    platdesk = undefined;
    fake = undefined;
  });

  it('is 503 the moment no connection is open (while /healthz waits out its bound) and /livez stays 200', async () => {
    fake = await startSlackApiServer();
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_APP_TOKEN: 'xapp-test',
      SLACK_API_URL: fake.apiUrl,
      PORT: String(await freePort()),
      PLAT_SANDBOX: '1',
      DATABASE_PATH: ':memory:',
    });
    platdesk = await startPlatdesk(config, { logger: createLogger('silent') });
    await fake.socket.waitForConnection();
    const base = platdesk.url;
    expect(await until(base, '/readyz', (p) => p.status === 200, 5000)).toEqual({
      status: 200,
      body: { ready: true },
    });

    fake.socket.requestDisconnect('warning', 'all');
    await fake.socket.waitForDisconnect(3000);
    const down = await until(base, '/readyz', (p) => p.status === 503, 3000);
    expect(down).toEqual({ status: 503, body: { ready: false, failing: ['socket'] } });
    expect((await probe(base, '/healthz')).status).toBe(200);
    expect(await probe(base, '/livez')).toEqual({ status: 200, body: { live: true } });

    // @slack/socket-mode reconnects after its 5 s ping timeout.
    await fake.socket.waitForConnection(8000);
    expect(await until(base, '/readyz', (p) => p.status === 200, 3000)).toEqual({
      status: 200,
      body: { ready: true },
    });
  }, 30_000);
});
