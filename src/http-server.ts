/**
 * platdesk's HTTP side, on PORT in both modes: `GET /healthz`, `GET /metrics` and, in HTTP mode,
 * Slack's requests at `POST /slack/events` (Bolt's HTTPReceiver); in Socket Mode the receiver is
 * the socket connections' (./slack/socket-connections.ts) and the same routes are served by the
 * health server Bolt runs beside them.
 *
 * /healthz answers 200 `{"ok":true,…}` or 503 `{"ok":false,…,"problems":[…]}` naming what is down:
 * Redis (the shared rate limiter), or the Slack socket after it was down past its bound.
 */
import type { Server } from 'node:http';
import { HTTPReceiver, type Receiver } from '@slack/bolt';
import type { CustomRoute } from '@slack/bolt/dist/receivers/custom-routes.js';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';
import { boltLogger } from './slack/bolt-logger.js';

/** One part of the process /healthz reports on. */
export interface HealthCheck {
  /** Key in the /healthz body. */
  name: string;
  check(): { ok: boolean; problem?: string; detail?: unknown };
}

export interface HealthInfo {
  mode: 'socket' | 'http';
  sandbox: boolean;
  checks: HealthCheck[];
}

export function healthBody(info: HealthInfo): { status: number; body: Record<string, unknown> } {
  const body: Record<string, unknown> = { ok: true, mode: info.mode, sandbox: info.sandbox };
  const problems: string[] = [];
  for (const { name, check } of info.checks) {
    const result = check();
    if (result.detail !== undefined) body[name] = result.detail;
    if (!result.ok) problems.push(result.problem ?? `${name} is down`);
  }
  if (problems.length > 0) {
    body.ok = false;
    body.problems = problems;
  }
  return { status: problems.length > 0 ? 503 : 200, body };
}

export function httpRoutes(info: HealthInfo, metrics: Metrics): CustomRoute[] {
  return [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => {
        const { status, body } = healthBody(info);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      },
    },
    {
      path: '/metrics',
      method: ['GET'],
      handler: (_req, res) => {
        metrics.render().then(
          (text) => {
            res.writeHead(200, { 'content-type': metrics.contentType });
            res.end(text);
          },
          (error: unknown) => {
            res.writeHead(500, { 'content-type': 'text/plain' });
            res.end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
          },
        );
      },
    },
  ];
}

/** HTTP mode: Slack's requests at POST /slack/events, signatures verified by Bolt. */
export function httpReceiver(signingSecret: string, routes: CustomRoute[], logger: Logger): Receiver {
  return new HTTPReceiver({
    signingSecret,
    endpoints: '/slack/events',
    customRoutes: routes,
    logger: boltLogger(logger),
  });
}

/** Resolves when the server listens; rejects with its error (e.g. EADDRINUSE). */
export function listening(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
}
