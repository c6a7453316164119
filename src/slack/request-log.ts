/**
 * One global middleware for every Slack request: gives it a correlation id (carried into the
 * lookup and the plat calls it makes) and writes one log line with what the request was and how
 * long its handling took. It logs ids and names only, never message text or tokens. (The time to
 * ack is measured where Slack sees it, on the HTTP response: see observeAcks.)
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AnyMiddlewareArgs, App, Middleware } from '@slack/bolt';
import type { Logger } from 'pino';
import { withCorrelationId } from '../correlation.js';
import type { Metrics } from '../metrics.js';

/** Slack's ack deadline is 3 s (DESIGN rule 1); buckets in ms. */
export const ACK_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 3000];

/**
 * HTTP mode: the time from a request to Slack's endpoint arriving to its response (the ack)
 * being sent, recorded as platdesk_slack_ack_ms.
 */
export function observeAcks(server: Server, metrics: Metrics, path = '/slack/events'): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || !req.url?.startsWith(path)) return;
    const started = performance.now();
    res.once('finish', () => {
      metrics.observe(
        'platdesk_slack_ack_ms',
        'Time from a Slack request to its ack',
        ACK_BUCKETS_MS,
        performance.now() - started,
        {
          status: res.statusCode,
        },
      );
    });
  });
}

function describe(body: Record<string, unknown>): { kind: string; name: string | null } {
  if (typeof body.command === 'string') return { kind: 'command', name: body.command };
  const type = typeof body.type === 'string' ? body.type : 'unknown';
  if (type === 'block_actions') {
    const action = (body.actions as { action_id?: string }[] | undefined)?.[0]?.action_id ?? null;
    return { kind: type, name: action };
  }
  if (type === 'view_submission' || type === 'view_closed')
    return { kind: type, name: (body.view as { callback_id?: string } | undefined)?.callback_id ?? null };
  if (type === 'shortcut' || type === 'message_action')
    return { kind: type, name: typeof body.callback_id === 'string' ? body.callback_id : null };
  if (type === 'event_callback')
    return { kind: 'event', name: (body.event as { type?: string } | undefined)?.type ?? null };
  return { kind: type, name: null };
}

function userOf(body: Record<string, unknown>): string | null {
  if (typeof body.user_id === 'string') return body.user_id;
  const user = body.user as { id?: string } | string | undefined;
  if (typeof user === 'string') return user;
  if (user?.id) return user.id;
  const event = body.event as { user?: string } | undefined;
  return event?.user ?? null;
}

export function requestLog(deps: { logger: Logger; metrics: Metrics }): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const started = performance.now();
    const body = args.body as unknown as Record<string, unknown>;
    const { kind, name } = describe(body);
    const correlationId = randomUUID();
    args.context.correlationId = correlationId;
    let failed = false;
    try {
      await withCorrelationId(correlationId, () => args.next());
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      deps.metrics.inc('platdesk_slack_requests_total', 'Slack requests by kind', {
        kind,
        outcome: failed ? 'error' : 'ok',
      });
      deps.logger.info(
        {
          correlationId,
          kind,
          name,
          user: userOf(body),
          retryNum: args.context.retryNum ?? null,
          ms: Math.round(performance.now() - started),
          failed,
        },
        'slack request',
      );
    }
  };
}

export function registerRequestLog(app: App, deps: { logger: Logger; metrics: Metrics }): void {
  app.use(requestLog(deps));
}
