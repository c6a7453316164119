/**
 * A holder cut from PostgreSQL mid-call (issue 20 pt 3), with real parts: two platdesk apps
 * (replicas with Redis) on one real PostgreSQL database; replica A reaches it through a loopback
 * TCP forwarder that the test cuts while A's confirmed call is in flight (the first attempt is slow
 * and answers 101, which the client would retry). A sends nothing more (its fence and its lost
 * database lock both refuse), and tells its user what happened; replica B marks the claim
 * interrupted only after its lease plus the longest call, reads that a call was sent, and tells
 * the user so without offering to pay again; once A is reconnected its kept charge reaches the
 * ledger, and a later click says what the ledger holds. One call at the sandboxes in all.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { longestCallMs } from '../../src/plat/client.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  confirmationOf,
  type HarnessOptions,
  type PlatdeskHarness,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const link = SANDBOX_FIXTURES.links.firstMarketplace;
const RETRY = { maxRetries: 2, baseDelayMs: 50, maxDelayMs: 50 };
const DEADLINE_MS = 2000;
const LEASE_MS = 1500;

describe('a holder cut from PostgreSQL mid-call (two replicas, real PostgreSQL and Redis)', () => {
  let redis: RedisServer | undefined;
  let proxy: TcpProxy | undefined;
  let url: string | undefined;
  const apps: PlatdeskHarness[] = [];
  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    for (const app of apps) await app.close().catch(() => undefined);
    await proxy?.close();
    await redis?.close();
    if (url) await dropPostgresDatabase(url);
  });

  it('makes no second call anywhere and tells the user the truth', async () => {
    redis = await startRedisServer();
    url = await createPostgresDatabase();
    const direct = new URL(url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const proxied = new URL(url);
    proxied.port = String(proxy.port);
    // Replicas on two hosts (in one test process: named so, or each would take the other's claims
    // for an earlier start of itself).
    const options = (databaseUrl: string, host: string): HarnessOptions => ({
      instance: { id: `${host}/1/replica`, host, pid: 1, pidNs: null, bootId: null },
      env: { DATABASE_URL: databaseUrl, REDIS_URL: redis?.url ?? '' },
      now: () => new Date(),
      platRetry: RETRY,
      platTimeouts: { deadlineMs: DEADLINE_MS },
      claims: { leaseMs: LEASE_MS, renewEveryMs: 200 },
    });
    const a = await startPlatdeskHarness(options(proxied.toString(), 'host-a'));
    apps.push(a);
    const b = await startPlatdeskHarness(options(url, 'host-b'));
    apps.push(b);
    await a.platdesk.limiter.ready();
    await b.platdesk.limiter.ready();
    const calls = () => a.calls() + b.calls();

    const { confirmation } = await a.ask('/shop', link);
    const pendingId = confirmation.confirm.value ?? '';
    a.sandbox.setFaults([
      { kind: 'latency', ms: 800, count: 1 },
      { kind: 'code', code: 101, count: 1 },
    ]);
    const sent = await a.click('platdesk.confirm', pendingId, { label: confirmation.confirm.label });
    expect(sent.status).toBe(200);
    while (calls() === 0) await sleep(5);
    // The first attempt is at the sandbox: A is cut from PostgreSQL now.
    await proxy.cut();
    const cutAt = Date.now();

    // A: "Looking up…", then its answer: the lookup stopped, nothing sent after the first attempt.
    expect(textOf(await a.nextResponse(sent.responseUrlId))).toContain('Looking up');
    const told = textOf(await a.nextResponse(sent.responseUrlId, 10_000));
    expect(told).toMatch(/The lookup was stopped|platdesk is temporarily unavailable/);
    expect(told).not.toContain('Shop id:');
    await a.settle(300);
    expect(calls()).toBe(1);

    // B: the claim is left alone until its lease and the longest call have passed, then marked
    // interrupted once, and its user told that a call was sent; no offer to pay again.
    const grace = longestCallMs(DEADLINE_MS, RETRY);
    const dm = await b.fake.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === SLACK.userId && textOf(c.body).includes('interrupted'),
      LEASE_MS + grace + 10_000,
    );
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(grace);
    const notice = textOf(dm.body);
    expect(notice).toContain(
      'after its call was sent, before its answer was read, and it was not run again (nor will it be)',
    );
    expect(notice).toContain('what it charged is not known to platdesk');
    expect((await b.platdesk.store.pending.get(pendingId))?.state).toBe('interrupted');

    const click = await b.click('platdesk.confirm', pendingId);
    const answer = await b.nextResponse(click.responseUrlId);
    expect(textOf(answer)).toContain('was not run again (nor will it be)');
    await b.settle(200);
    expect(b.responses(click.responseUrlId)).toHaveLength(1);
    expect(() => confirmationOf(answer)).toThrow();

    // A reconnects: the charge it kept reaches the ledger; a later click states it.
    await proxy.restore();
    const end = Date.now() + 15_000;
    // Until the sweep's placeholder (-1: sent, no answer read) is upgraded by A's real charge.
    const charged = async () => (await b.platdesk.store.ledger.byPending(pendingId)).some((r) => r.code >= 0);
    while (!(await charged()) && Date.now() < end) await sleep(100);
    const ledger = await b.platdesk.store.ledger.chargesOf(pendingId);
    expect(ledger.calls).toBe(1);
    const later = await b.click('platdesk.confirm', pendingId);
    const laterText = textOf(await b.nextResponse(later.responseUrlId));
    expect(laterText).toContain(
      ledger.points > 0 ? `Charged ${ledger.points} points` : 'which reported no charge for it',
    );
    // What A told at once agrees with the ledger: the first attempt was answered; its charge stated.
    expect(told).toContain(ledger.points > 0 ? `Charged ${ledger.points} points` : 'no charge');
    await b.settle(200);
    expect(b.responses(later.responseUrlId)).toHaveLength(1);
    expect(calls()).toBe(1);
    // Told once by direct message, by one replica.
    const dms = [...a.fake.callsTo('chat.postMessage'), ...b.fake.callsTo('chat.postMessage')].filter(
      (c) => c.body.channel === SLACK.userId && textOf(c.body).includes('interrupted'),
    );
    expect(dms).toHaveLength(1);
  }, 90_000);
});
