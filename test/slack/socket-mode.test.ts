/**
 * Socket Mode end to end, without Slack: `startPlatdesk` with SLACK_APP_TOKEN (and no signing
 * secret) runs Bolt's REAL SocketModeReceiver. Its SocketModeClient calls `apps.connections.open` on
 * the fake Slack server (SLACK_API_URL), connects to the fake's `ws` WebSocket, gets `hello`, and from
 * then on slash commands, button clicks and events arrive as envelopes over that socket and are acked
 * over it; the answers still go to response_urls and the Web API on the fake. The plat API is the
 * in-process sandbox, whose call counter proves "exactly one call".
 */

import { type AddressInfo, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Platdesk, startPlatdesk } from '../../src/main.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { freePort } from '../helpers/free-port.js';
import { confirmationOf, type SlackMessage, textOf } from '../helpers/platdesk-harness.js';
import { type FakeSlack, type SocketAck, startSlackApiServer } from '../helpers/slack-api-server.js';
import { appHomeOpened, blockAction, eventCallback, SLACK, slashCommand } from '../helpers/slack-payloads.js';
import { socketModeConfig } from '../helpers/socket-mode-config.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Socket Mode (SLACK_APP_TOKEN)', () => {
  let fake: FakeSlack;
  let platdesk: Platdesk;
  let port: number;
  let base: string;

  const responsesTo = (id: string) => fake.callsTo('response_url').filter((c) => c.id === id);
  /** The `index`-th message posted to a response_url on the fake (waits for it). */
  async function response(id: string, index: number): Promise<SlackMessage> {
    const call = await fake.waitFor(
      'response_url',
      (c) => c.id === id && responsesTo(id).indexOf(c) === index,
      5000,
    );
    return call.body as SlackMessage;
  }
  /** Pushes an envelope and waits for its ack over the socket, with the ack latency. */
  async function push(envelope: Parameters<FakeSlack['socket']['send']>[0]) {
    const sentAt = Date.now();
    const envelopeId = fake.socket.send(envelope);
    const ack: SocketAck = await fake.socket.waitForAck(envelopeId, 3000);
    return { envelopeId, ack, ms: ack.at - sentAt };
  }

  beforeAll(async () => {
    fake = await startSlackApiServer();
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const config = socketModeConfig(fake, port);
    expect(config.slack.mode).toBe('socket');
    expect(config.slack.signingSecret).toBeNull();
    let timer: NodeJS.Timeout | undefined;
    try {
      // start() resolves on `hello`; fail clearly (not at the 20 s hook timeout) when it never comes.
      const started = startPlatdesk(config);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const opens = fake.callsTo('apps.connections.open').length;
          reject(
            new Error(
              `Socket Mode did not connect in 5 s (apps.connections.open calls at the fake: ${opens})`,
            ),
          );
        }, 5000);
      });
      platdesk = await Promise.race([started, timeout]);
    } finally {
      // On failure, afterAll still closes the fake.
      clearTimeout(timer);
    }
  });

  afterAll(async () => {
    await platdesk?.stop();
    await fake?.close();
  });

  it('needs no signing secret, opens two connections (SLACK_SOCKET_CONNECTIONS default) with the app-level token and gets hello', async () => {
    const opens = fake.callsTo('apps.connections.open');
    expect(opens).toHaveLength(2);
    for (const open of opens) expect(open.headers.authorization).toBe('Bearer xapp-test');
    expect(fake.socket.connectionCount).toBe(2);
    expect(fake.socket.openConnections).toBe(2);
    expect(platdesk.url).toBe(base);
  });

  it('serves /healthz on PORT (ok, nothing more) and its details and /metrics on METRICS_PORT', async () => {
    const open = await fetch(`${base}/healthz`);
    expect(open.status).toBe(200);
    expect(await open.json()).toEqual({ ok: true });
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    const internal = platdesk.metricsUrl;
    const health = await fetch(`${internal}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      ok: true,
      mode: 'socket',
      sandbox: true,
      store: { engine: 'sqlite', reachable: true, ledgerBacklog: 0 },
      limiter: 'in-process',
      socket: { open: 2, connections: 2, downForMs: 0 },
      database: {
        clockSkewMs: expect.any(Number),
        clockSkewBudgetMs: 500,
        schema: { build: MIGRATIONS.length, database: MIGRATIONS.length },
        paidWorkRefused: null,
      },
    });

    const metrics = await fetch(`${internal}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    expect(text).toMatch(/^# (HELP|TYPE) platdesk_/m);

    // Slack requests do not come over HTTP in Socket Mode.
    const events = await fetch(`${base}/slack/events`, { method: 'POST', body: '{}' });
    expect(events.status).toBe(404);
  });

  it('acks a slash command over the socket at once, then confirms at the response_url, then one call on Confirm', async () => {
    const calls = () => platdesk.sandbox?.stats().calls ?? -1;
    const before = calls();

    const command = await push({
      type: 'slash_commands',
      payload: slashCommand({
        command: '/item',
        text: SANDBOX_FIXTURES.items.basic,
        responseUrl: fake.responseUrl('sock-cmd'),
      }),
      accepts_response_payload: true,
    });
    expect(command.ms).toBeLessThan(1000);
    expect(command.ack).toMatchObject({ envelope_id: command.envelopeId, payload: {} });

    const message = await response('sock-cmd', 0);
    expect(message.response_type).toBe('ephemeral');
    const confirmation = confirmationOf(message);
    expect(confirmation.confirm.label).toMatch(/^Confirm/);
    expect(confirmation.text).toContain(`item ${SANDBOX_FIXTURES.items.basic}`);
    expect(confirmation.text).toContain(': 1 quota call.');
    expect(calls()).toBe(before);

    const click = await push({
      type: 'interactive',
      payload: blockAction({
        actionId: 'platdesk.confirm',
        ...(confirmation.confirm.value !== undefined ? { value: confirmation.confirm.value } : {}),
        text: confirmation.confirm.label,
        responseUrl: fake.responseUrl('sock-act'),
      }),
      accepts_response_payload: false,
    });
    expect(click.ms).toBeLessThan(1000);
    expect(click.ack.envelope_id).toBe(click.envelopeId);

    const progress = await response('sock-act', 0);
    expect(progress.text).toContain('Looking up');
    const answer = await response('sock-act', 1);
    expect(answer.replace_original).toBe(true);
    expect(textOf(answer)).toContain(SANDBOX_FIXTURES.items.basic);
    expect(calls()).toBe(before + 1);

    // Slack redelivering the same click (new envelope, same payload: same action_ts and
    // response_url) after the answer: dropped without a word, no second call.
    const again = await push({
      type: 'interactive',
      payload: blockAction({
        actionId: 'platdesk.confirm',
        ...(confirmation.confirm.value !== undefined ? { value: confirmation.confirm.value } : {}),
        text: confirmation.confirm.label,
        responseUrl: fake.responseUrl('sock-act'),
      }),
      retry_attempt: 1,
      retry_reason: 'timeout',
    });
    expect(again.ms).toBeLessThan(1000);
    await sleep(300);
    expect(responsesTo('sock-act')).toHaveLength(2);
    expect(calls()).toBe(before + 1);
  });

  it('a Confirm delivered twice while it runs (a reconnect): one call, one answer, no "already used"; a later genuine click is told "already used"', async () => {
    const calls = () => platdesk.sandbox?.stats().calls ?? -1;
    await push({
      type: 'slash_commands',
      payload: slashCommand({
        command: '/shop',
        text: `ww ${SANDBOX_FIXTURES.wwids.known}`,
        responseUrl: fake.responseUrl('sock-dup-cmd'),
      }),
    });
    const confirmation = confirmationOf(await response('sock-dup-cmd', 0));
    const before = calls();
    const click = blockAction({
      actionId: 'platdesk.confirm',
      ...(confirmation.confirm.value !== undefined ? { value: confirmation.confirm.value } : {}),
      text: confirmation.confirm.label,
      responseUrl: fake.responseUrl('sock-dup'),
      actionTs: '1700000009.000100',
    });
    // The call takes 600 ms: the second delivery arrives while the first one's lookup runs.
    platdesk.sandbox?.setFaults([{ kind: 'latency', ms: 600, operations: ['get-shop-id'] }]);
    try {
      const [first, second] = await Promise.all([
        push({ type: 'interactive', payload: click }),
        push({ type: 'interactive', payload: click, retry_attempt: 1, retry_reason: 'warning' }),
      ]);
      expect(first.ms).toBeLessThan(1000);
      expect(second.ms).toBeLessThan(1000);
      expect((await response('sock-dup', 0)).text).toContain('Looking up');
      expect(textOf(await response('sock-dup', 1))).toContain(SANDBOX_FIXTURES.shops.clothing);
      await sleep(300);
    } finally {
      platdesk.sandbox?.setFaults([]);
    }
    const said = responsesTo('sock-dup').map((c) => textOf(c.body));
    expect(said).toHaveLength(2);
    expect(said.join('\n')).not.toContain('already used');
    expect(calls()).toBe(before + 1);

    // A genuine click later (its own action_ts) on the used confirmation: the clear answer.
    await push({
      type: 'interactive',
      payload: { ...click, actions: click.actions.map((a) => ({ ...a, action_ts: '1700000019.000100' })) },
    });
    expect(textOf(await response('sock-dup', 2))).toContain('already used');
    expect(calls()).toBe(before + 1);
  });

  it('handles an events_api envelope: app_home_opened publishes the Home tab', async () => {
    const event = await push({
      type: 'events_api',
      payload: eventCallback(appHomeOpened(SLACK.userId)),
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: '',
    });
    expect(event.ms).toBeLessThan(1000);
    expect(event.ack.envelope_id).toBe(event.envelopeId);
    const publish = await fake.waitFor('views.publish', (c) => c.body.user_id === SLACK.userId, 5000);
    expect((publish.body.view as { type?: string }).type).toBe('home');
    expect(publish.headers.authorization).toBe('Bearer xoxb-test');
  });

  it('stop() closes the socket and the health server', async () => {
    await platdesk.stop();
    await fake.socket.waitForDisconnect(3000);
    expect(fake.socket.openConnections).toBe(0);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    // No reconnection after a deliberate stop.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.callsTo('apps.connections.open')).toHaveLength(2);
  });
});

describe('Socket Mode start-up and the health port', () => {
  it('PORT=0 reports the port the health server really listens on', async () => {
    const fake = await startSlackApiServer();
    const platdesk = await startPlatdesk(socketModeConfig(fake, 0));
    try {
      expect(platdesk.url).not.toMatch(/:0$/);
      const health = await fetch(`${platdesk.url}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      await platdesk.stop();
      await fake.close();
    }
  });

  it('fails start-up with the listen error when PORT is taken, instead of crashing later', async () => {
    const fake = await startSlackApiServer();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      await expect(startPlatdesk(socketModeConfig(fake, port))).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
      await fake.close();
    }
  });
});
