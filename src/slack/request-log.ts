/**
 * One global middleware for every Slack request: gives it a correlation id (carried into the
 * lookup and the plat calls it makes), measures the time to ack, and writes one log line with
 * what the request was. It logs ids and names only, never message text or tokens.
 */
import { randomUUID } from 'node:crypto';
import type { AnyMiddlewareArgs, App, Middleware } from '@slack/bolt';
import type { Logger } from 'pino';
import { withCorrelationId } from '../correlation.js';
import type { Metrics } from '../metrics.js';

/** Slack's ack deadline is 3 s (DESIGN rule 1); buckets in ms. */
export const ACK_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 3000];

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
    let ackMs: number | null = null;
    // Bolt hands this same args object to the listener, so the wrapped ack is the one it calls.
    const withAck = args as { ack?: (...a: unknown[]) => Promise<void> };
    const ack = withAck.ack;
    if (ack) {
      withAck.ack = async (...a: unknown[]) => {
        await ack(...a);
        ackMs = performance.now() - started;
        deps.metrics.observe(
          'platdesk_slack_ack_ms',
          'Time from a Slack request to its ack',
          ACK_BUCKETS_MS,
          ackMs,
          { kind },
        );
      };
    }
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
          ackMs: ackMs === null ? null : Math.round(ackMs),
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
