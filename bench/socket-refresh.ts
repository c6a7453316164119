/**
 * `npm run bench:socket`: what a Socket Mode `refresh_requested` costs, with one connection per
 * process and with two (SLACK_SOCKET_CONNECTIONS), against the local Socket Mode server of the fake
 * Slack (test/helpers/slack-api-server.ts) and the real app.
 *
 * For each setting: Slack recycles one connection; a slash command is sent every 50 ms for 7 s.
 * Printed: the longest stretch with no connection open (sampled every 5 ms), commands that could not
 * be delivered (no connection) or were not acked within 3 s, and the slowest ack.
 * Socket Mode runs on the WebSocket the build gives it (test/helpers/socket-websocket.ts, first).
 */
import '../test/helpers/socket-websocket.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startPlatdesk } from '../src/main.js';
import { freePort } from '../test/helpers/free-port.js';
import { startSlackApiServer } from '../test/helpers/slack-api-server.js';
import { slashCommand } from '../test/helpers/slack-payloads.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(connections: number) {
  const fake = await startSlackApiServer();
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_APP_TOKEN: 'xapp-bench',
    SLACK_API_URL: fake.apiUrl,
    PORT: String(await freePort()),
    METRICS_PORT: '0',
    PLAT_SANDBOX: '1',
    DATABASE_PATH: ':memory:',
    SLACK_SOCKET_CONNECTIONS: String(connections),
  });
  const platdesk = await startPlatdesk(config, { logger: createLogger('silent') });
  let gapStart: number | null = null;
  let longestGapMs = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    if (fake.socket.openConnections === 0) gapStart ??= now;
    else if (gapStart !== null) {
      longestGapMs = Math.max(longestGapMs, now - gapStart);
      gapStart = null;
    }
  }, 5);

  fake.socket.requestDisconnect('refresh_requested', 'oldest');
  let sent = 0;
  let undeliverable = 0;
  let unacked = 0;
  let slowestAckMs = 0;
  const acks: Promise<void>[] = [];
  const end = performance.now() + 7000;
  while (performance.now() < end) {
    const sentAt = Date.now();
    sent += 1;
    try {
      const envelopeId = fake.socket.send({
        type: 'slash_commands',
        payload: slashCommand({ command: '/item', text: 'help', responseUrl: fake.responseUrl(`b${sent}`) }),
        accepts_response_payload: true,
      });
      acks.push(
        fake.socket.waitForAck(envelopeId, 3000).then(
          (ack) => {
            slowestAckMs = Math.max(slowestAckMs, ack.at - sentAt);
          },
          () => {
            unacked += 1;
          },
        ),
      );
    } catch {
      undeliverable += 1;
    }
    await sleep(50);
  }
  await Promise.all(acks);
  clearInterval(sampler);
  if (gapStart !== null) longestGapMs = Math.max(longestGapMs, performance.now() - gapStart);
  await platdesk.stop();
  await fake.close();
  return { connections, sent, undeliverable, unacked, longestGapMs: Math.round(longestGapMs), slowestAckMs };
}

const results = [];
for (const connections of [1, 2]) {
  const r = await measure(connections);
  results.push(r);
  console.log(
    `${connections} connection(s): refresh_requested left ${r.longestGapMs} ms with no connection; ` +
      `${r.undeliverable} of ${r.sent} commands undeliverable, ${r.unacked} unacked, slowest ack ${r.slowestAckMs} ms`,
  );
}
console.log(JSON.stringify(results));
