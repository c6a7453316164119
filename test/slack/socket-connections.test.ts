/**
 * Socket Mode with several connections (src/slack/socket-connections.ts), against the local
 * Socket Mode server of the fake Slack: Slack recycling one connection (`refresh_requested`) leaves
 * no moment without a connection and every command sent meanwhile is acked; losing all of them is
 * reported on /healthz (503 after the liveness bound) and counted in /metrics; routine reconnects
 * log warnings/info with the reason, never error-level lines.
 *
 * @slack/socket-mode 3.1.0 (the newest release; `npm view @slack/socket-mode versions`) still
 * closes at once on a `disconnect` message and reconnects after its 5 s ping timeout, so one
 * connection alone leaves a ~5 s gap on every refresh (measured by `npm run bench:socket`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { type Platdesk, startPlatdesk } from '../../src/main.js';
import { Metrics } from '../../src/metrics.js';
import { createSocketConnections } from '../../src/slack/socket-connections.js';
import { freePort } from '../helpers/free-port.js';
import { type FakeSlack, startSlackApiServer } from '../helpers/slack-api-server.js';
import { slashCommand } from '../helpers/slack-payloads.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const RECONNECT_WAIT_MS = 5000; // @slack/socket-mode's clientPingTimeout, its delay before reconnecting

let fake: FakeSlack | undefined;
let platdesk: Platdesk | undefined;
afterEach(async () => {
  await platdesk?.stop();
  await fake?.close();
  platdesk = undefined;
  fake = undefined;
});

async function start(socketLivenessMs?: number, onSocketDeaf?: (downForMs: number) => void) {
  fake = await startSlackApiServer();
  const logs: { level: number; msg: string; reason?: string }[] = [];
  const logger = createLogger('info', { write: (line: string) => void logs.push(JSON.parse(line)) });
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_APP_TOKEN: 'xapp-test',
    SLACK_API_URL: fake.apiUrl,
    PORT: String(await freePort()),
    METRICS_PORT: '0',
    PLAT_SANDBOX: '1',
    DATABASE_PATH: ':memory:',
  });
  platdesk = await startPlatdesk(config, {
    logger,
    ...(socketLivenessMs ? { socketLivenessMs } : {}),
    ...(onSocketDeaf ? { onSocketDeaf } : {}),
  });
  await fake.socket.waitForConnection();
  // The details of /healthz and /metrics are on the internal port.
  const url = platdesk.metricsUrl;
  const health = async () => {
    const res = await fetch(`${url}/healthz`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const metrics = async () => (await fetch(`${url}/metrics`)).text();
  return { fake, logs, health, metrics };
}

describe('Socket Mode with two connections', () => {
  it('refresh_requested on one connection: the other keeps taking commands, never zero connections', async () => {
    const { fake, logs, metrics } = await start();
    expect(fake.socket.openConnections).toBe(2);
    const opensBefore = fake.callsTo('apps.connections.open').length;

    fake.socket.requestDisconnect('refresh_requested', 'oldest');
    let fewestOpen = Number.POSITIVE_INFINITY;
    const sampler = setInterval(() => {
      fewestOpen = Math.min(fewestOpen, fake.socket.openConnections);
    }, 5);
    const acked: number[] = [];
    const end = Date.now() + RECONNECT_WAIT_MS + 1500;
    let n = 0;
    try {
      while (Date.now() < end) {
        const sentAt = Date.now();
        const envelopeId = fake.socket.send({
          type: 'slash_commands',
          payload: slashCommand({ command: '/item', text: 'help', responseUrl: fake.responseUrl(`r${n++}`) }),
          accepts_response_payload: true,
        });
        const ack = await fake.socket.waitForAck(envelopeId, 3000);
        acked.push(ack.at - sentAt);
        await sleep(100);
      }
    } finally {
      clearInterval(sampler);
    }

    expect(fewestOpen).toBe(1);
    expect(acked.length).toBeGreaterThan(40);
    expect(Math.max(...acked)).toBeLessThan(1000);
    // The recycled connection came back.
    expect(fake.callsTo('apps.connections.open').length).toBe(opensBefore + 1);
    expect(fake.socket.openConnections).toBe(2);
    expect(await metrics()).toMatch(/^platdesk_socket_reconnects_total\{reason="refresh_requested"\} 1$/m);
    expect(await metrics()).toMatch(/^platdesk_socket_connections_open 2$/m);
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
    expect(logs.some((l) => l.msg === 'Socket Mode reconnecting' && l.reason === 'refresh_requested')).toBe(
      true,
    );
  });

  it('/healthz reports the socket state and fails (503 naming it) after the liveness bound without a connection', async () => {
    const { fake, logs, health, metrics } = await start(500);
    expect(await health()).toMatchObject({ status: 200, body: { socket: { open: 2, connections: 2 } } });

    fake.socket.requestDisconnect('warning', 'all');
    await fake.socket.waitForDisconnect(3000);
    const early = await health();
    expect(early).toMatchObject({ status: 200, body: { ok: true, socket: { open: 0 } } });
    await sleep(600);
    const late = await health();
    expect(late.status).toBe(503);
    expect(late.body).toMatchObject({ ok: false, socket: { open: 0 } });
    expect((late.body.problems as string[])[0]).toMatch(/^Slack Socket Mode: no connection open for \d+ s$/);

    await fake.socket.waitForConnection(RECONNECT_WAIT_MS + 3000);
    await sleep(200);
    expect(await health()).toMatchObject({ status: 200, body: { ok: true, socket: { downForMs: 0 } } });
    expect(await metrics()).toMatch(/^platdesk_socket_reconnects_total\{reason="warning"\} 2$/m);
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('/healthz is 503 until a first connection opens: a starting process is not ready yet', async () => {
    const sockets = createSocketConnections({
      appToken: 'xapp-test',
      connections: 2,
      port: await freePort(),
      routes: [],
      apiUrl: 'http://127.0.0.1:9/api/',
      logger: createLogger('silent'),
      metrics: new Metrics({ processMetrics: false }),
      livenessMs: 60_000,
    });
    expect(await sockets.health.check()).toEqual({
      ok: false,
      detail: { open: 0, connections: 2, downForMs: expect.any(Number) },
      problem: 'Slack Socket Mode: not connected yet (starting)',
    });
    // Once connected (startPlatdesk waits for it), the same process reports ok (the tests above).
    sockets.clients[0]?.emit('connected');
    expect(await sockets.health.check()).toMatchObject({ ok: true, detail: { open: 1, downForMs: 0 } });
  });

  it('a replica deaf past the liveness bound is told once (main() then exits non-zero), not before', async () => {
    const deaf: number[] = [];
    const { fake } = await start(800, (downForMs) => deaf.push(downForMs));
    await sleep(1200);
    expect(deaf).toEqual([]); // connected: never deaf, however long
    fake.socket.requestDisconnect('warning', 'all');
    await fake.socket.waitForDisconnect(3000);
    await sleep(400);
    expect(deaf).toEqual([]); // down, but not yet for the bound
    await sleep(1000);
    expect(deaf).toHaveLength(1);
    expect(deaf[0]).toBeGreaterThanOrEqual(800);
    await sleep(600);
    expect(deaf).toHaveLength(1);
  });

  it('a cut link (no close handshake) logs warnings with the reason, not error lines with empty text', async () => {
    const { fake, logs } = await start();
    fake.socket.cut();
    await fake.socket.waitForDisconnect(100).catch(() => undefined);
    await sleep(300);
    expect(fake.socket.openConnections).toBe(1);
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
    const warnings = logs.filter(
      (l) => l.level === 40 && l.msg === 'Socket Mode link closed; the client reconnects',
    );
    expect(warnings.length).toBeGreaterThan(0);
    for (const w of warnings) expect(w.reason).toMatch(/\S/);
  });
});
