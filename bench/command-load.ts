/**
 * The load generator of `npm run bench`'s phase A, in a process of its own (forked with an IPC
 * channel), so its event loop shares time with neither app. For each `{ url, secret, responseBase,
 * count, prefix }` it receives, it sends `count` signed slash commands at once and answers with
 * their statuses and latencies.
 *
 * Every request is built and signed before the clock starts, and sent over its own connection as
 * raw HTTP/1.1 bytes: the client's own work per request is a socket write and reading a status
 * line, so what is timed is the app's (accepting, reading and acking), not this client's. A
 * latency runs from the connect call to the first byte of the response (what Slack waits for).
 */
import { connect } from 'node:net';
import { slackSignature } from '../test/helpers/slack-http.js';
import { slashCommand } from '../test/helpers/slack-payloads.js';

export interface LoadRequest {
  url: string;
  secret: string;
  responseBase: string;
  count: number;
  prefix: string;
}

export interface LoadResult {
  statuses: number[];
  ms: number[];
  /** This process's CPU time during the burst (user + system). */
  clientCpuMs: number;
}

function signedCommand(request: LoadRequest, i: number, host: string): Buffer {
  const fields = slashCommand({
    command: '/shop',
    text: `ww ${request.prefix}-${i}`,
    responseUrl: `${request.responseBase}${request.prefix}-${i}`,
    userId: `U${1000 + (i % 20)}`,
  });
  const body = new URLSearchParams(fields as unknown as Record<string, string>).toString();
  const timestamp = Math.floor(Date.now() / 1000);
  const head = [
    'POST /slack/events HTTP/1.1',
    `Host: ${host}`,
    'Content-Type: application/x-www-form-urlencoded',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Slack-Request-Timestamp: ${timestamp}`,
    `X-Slack-Signature: ${slackSignature(request.secret, timestamp, body)}`,
    'User-Agent: Slackbot 1.0 (+https://api.slack.com/robots)',
    'Connection: close',
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`);
}

function send(port: number, bytes: Buffer): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ms = Number.NaN;
    let head = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      if (Number.isNaN(ms)) ms = performance.now() - started;
      head += chunk.toString('latin1');
      const line = head.indexOf('\r\n');
      if (line >= 0) {
        socket.destroy();
        resolve({ status: Number(head.slice(9, 12)), ms });
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(head.slice(9, 12)) || 0, ms }));
  });
}

export async function burst(request: LoadRequest): Promise<LoadResult> {
  const { host, port } = new URL(request.url);
  const requests = Array.from({ length: request.count }, (_, i) => signedCommand(request, i, host));
  const cpu = process.cpuUsage();
  const results = await Promise.all(requests.map((bytes) => send(Number(port), bytes)));
  const used = process.cpuUsage(cpu);
  return {
    statuses: results.map((r) => r.status),
    ms: results.map((r) => r.ms),
    clientCpuMs: (used.user + used.system) / 1000,
  };
}

if (process.send) {
  process.send('ready');
  process.on('message', (message: LoadRequest | 'stop') => {
    if (message === 'stop') process.exit(0);
    burst(message).then(
      (result) => process.send?.(result),
      (error: unknown) => process.send?.({ error: String(error) }),
    );
  });
}
