/**
 * The MCP server on two replicas (issue 37): two platdesk processes on one PostgreSQL database
 * and one Redis. A paid tool call made on replica 0 is confirmed by a click that lands on
 * replica 1 and completes on replica 0 (the outcome travels through the pending row); a call
 * waiting on replica 0 when it is killed is retried on replica 1, which joins it: one DM, one
 * plat call, one ledger row, the answer. One client's session (initialized once) is served by
 * either replica behind a balancer. A token's request rate holds across both replicas
 * (counted in Redis). The SDK's client over real HTTP; calls counted at the sandbox.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashMcpToken, newMcpToken } from '../../src/lookups/mcp-tokens.js';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/engine.js';
import type { Store } from '../../src/store/store.js';
import { buttonsOf } from '../helpers/platdesk-harness.js';
import { createLimiterKeys, type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replica-cluster.js';
import { type FakeSlack, type SlackCall, startSlackApiServer } from '../helpers/slack-api-server.js';
import { postAction } from '../helpers/slack-http.js';
import { blockAction, SLACK } from '../helpers/slack-payloads.js';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/store-engines.js';

const SECRET = 'mcp-replicas-secret';
const PLAT_TOKEN = 'mcp-replicas';
/** MCP_RATE_PER_MINUTE of the cluster: above what the other tests' token uses (about 10). */
const RATE = 20;

describe('MCP on two replicas (PostgreSQL, Redis)', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let fake: FakeSlack;
  let cluster: ReplicaCluster;
  let databaseUrl: string;
  let store: Store;
  let token: string;

  beforeAll(async () => {
    redis = await startRedisServer();
    await createLimiterKeys(redis.url);
    databaseUrl = await createPostgresDatabase();
    store = await openStore({ url: databaseUrl });
    token = newMcpToken();
    await store.mcpTokens.create({
      id: 'replicas',
      userId: SLACK.userId,
      name: 'replicas',
      hash: hashMcpToken(token),
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    sandbox = createSandbox({ token: PLAT_TOKEN });
    const platUrl = await sandbox.listen(0);
    fake = await startSlackApiServer();
    cluster = await startReplicaCluster(2, {
      env: {
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        PLAT_BASE_URL: platUrl,
        PLAT_TOKEN,
        PLAT_PRICES: 'platdzmd:1=4',
        MCP_RATE_PER_MINUTE: String(RATE),
        REDIS_URL: redis.url,
        DATABASE_URL: databaseUrl,
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await fake?.close();
    await sandbox?.close();
    await redis?.close();
    await store?.close();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  }, 30_000);

  async function connect(index: number): Promise<Client> {
    const client = new Client({ name: 'Claude Desktop', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${cluster.at(index).url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }
  const dms = () =>
    fake.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === SLACK.userId);
  async function nextDm(before: number): Promise<SlackCall> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const all = dms();
      if (all.length > before) return all[all.length - 1] as SlackCall;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no DM');
  }
  const confirmValue = (dm: SlackCall) =>
    buttonsOf({ blocks: dm.body.blocks as unknown[] }).find((b) => b.actionId === 'platdesk.mcp.confirm')
      ?.value ?? '';
  let clicks = 0;
  const click = (index: number, value: string) =>
    postAction(
      cluster.at(index).eventsUrl,
      SECRET,
      blockAction({
        actionId: 'platdesk.mcp.confirm',
        value,
        responseUrl: fake.responseUrl(`mcp-replica-${++clicks}`),
        actionTs: `1700000009.${String(clicks).padStart(6, '0')}`,
      }),
    );
  const waybill = (n: string) => ({ waybills: n, owner_id: SANDBOX_FIXTURES.owners.busy, carrier: 'ZTO' });

  it('a call waiting on replica 0 completes after a Confirm that lands on replica 1', async () => {
    const client = await connect(0);
    const before = sandbox.stats().calls;
    const n = dms().length;
    const result = client.callTool({ name: 'lookup_waybill', arguments: waybill('773012345670001') });
    const value = confirmValue(await nextDm(n));
    expect((await click(1, value)).status).toBe(200);
    const r = await result;
    expect(r.isError).toBeFalsy();
    expect(sandbox.stats().calls).toBe(before + 1);
    const ledger = await store.ledger.byPending(value);
    expect(ledger.map((e) => e.source)).toEqual(['mcp']);
    await client.close();
  }, 60_000);

  it('one client’s session lands on either replica: initialized through replica 0, its calls served by replica 1', async () => {
    // A load balancer in front of the replicas, sending each request where the test says.
    let target = 0;
    const served = [0, 0];
    const balancer = createServer((req, res) => {
      served[target] = (served[target] ?? 0) + 1;
      const upstream = new URL(req.url ?? '/', cluster.at(target).url);
      const forward = request(upstream, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => balancer.listen(0, '127.0.0.1', resolve));
    const { port } = balancer.address() as AddressInfo;
    try {
      const client = new Client({ name: 'Claude Desktop', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      expect(client.getServerVersion()?.name).toBe('platdesk');
      // initialize and notifications/initialized (and the SDK's try at a standalone stream: 405).
      const onZero = served[0] ?? 0;
      expect(onZero).toBeGreaterThanOrEqual(2);
      expect(served[1]).toBe(0);
      // The same client, no new initialize: the next requests land on the other replica.
      target = 1;
      expect((await client.listTools()).tools.length).toBe(7);
      const spend = await client.callTool({ name: 'spend', arguments: { period: 'today' } });
      expect(spend.isError).toBeFalsy();
      expect(spend.structuredContent).toMatchObject({ calls: expect.any(Number) });
      expect(served[0]).toBe(onZero);
      expect(served[1]).toBeGreaterThanOrEqual(2);
      await client.close();
    } finally {
      balancer.closeAllConnections();
      await new Promise<void>((resolve) => balancer.close(() => resolve()));
    }
  });

  it('the per-token rate holds across replicas: MCP_RATE_PER_MINUTE requests in total, not per replica', async () => {
    const limited = newMcpToken();
    await store.mcpTokens.create({
      id: 'rate',
      userId: SLACK.userId,
      name: 'rate',
      hash: hashMcpToken(limited),
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    const answers: { replica: number; status: number; retryAfter: string | null; body: string }[] = [];
    for (let i = 0; i < RATE + 10; i++) {
      const replica = i % 2;
      const res = await fetch(`${cluster.at(replica).url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${limited}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
      });
      answers.push({
        replica,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: await res.text(),
      });
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(RATE);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(10);
    // Both replicas refuse: each had let only its half through.
    expect(new Set(refused.map((a) => a.replica))).toEqual(new Set([0, 1]));
    for (const r of refused) {
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(r.retryAfter)).toBeLessThanOrEqual(60);
      expect(r.body).toContain('Too many requests');
    }
  }, 30_000);

  it('replica 0 killed while its call waits: the retry on replica 1 joins it; one DM, one call', async () => {
    const params = {
      name: 'lookup_waybill',
      arguments: waybill('773012345670002'),
      _meta: { 'platdesk/call-id': 'replica-retry' },
    };
    const first = await connect(0);
    const before = sandbox.stats().calls;
    const n = dms().length;
    // Lost with its replica: the client's own reconnection attempts are not waited for.
    void first.callTool(params).catch(() => undefined);
    const value = confirmValue(await nextDm(n));
    await cluster.kill(0);
    const second = await connect(1);
    const retry = second.callTool(params);
    await new Promise((r) => setTimeout(r, 300));
    expect(dms().length).toBe(n + 1);
    expect((await click(1, value)).status).toBe(200);
    const r = await retry;
    expect(r.isError).toBeFalsy();
    expect(sandbox.stats().calls).toBe(before + 1);
    expect((await store.ledger.byPending(value)).length).toBe(1);
    await second.close();
    await first.close().catch(() => undefined);
  }, 60_000);
});
