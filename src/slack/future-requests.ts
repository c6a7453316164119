/**
 * Slack's verification guidance: refuse a request whose `x-slack-request-timestamp` is more than
 * five minutes away from now, in either direction
 * (https://docs.slack.dev/authentication/verifying-requests-from-slack#validating-a-request).
 * Bolt 5's HTTPReceiver refuses only old ones (receivers/verify-request.js, "stale"); a request
 * signed for the future would stay replayable until that time, so it is refused here, before
 * Bolt reads it, with the same bare 401 Bolt answers to a failed check.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HTTPReceiver } from '@slack/bolt';
import type { Logger } from 'pino';

/** Slack's bound, in seconds, both ways. */
export const MAX_CLOCK_SKEW_S = 5 * 60;

export function refuseFutureRequests(
  receiver: HTTPReceiver,
  options: {
    logger: Pick<Logger, 'warn'>;
    /** Wall-clock milliseconds (Bolt checks staleness against Date.now() too). */
    nowMs?: () => number;
  },
): void {
  const nowMs = options.nowMs ?? Date.now;
  const inner = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers['x-slack-request-timestamp'];
    const timestamp = Number(Array.isArray(header) ? header[0] : header);
    if (req.method === 'POST' && Number.isFinite(timestamp)) {
      const aheadS = timestamp - Math.floor(nowMs() / 1000);
      if (aheadS > MAX_CLOCK_SKEW_S) {
        options.logger.warn({ aheadS }, 'Slack request refused: its timestamp is more than 5 minutes ahead');
        res.writeHead(401);
        res.end();
        return;
      }
    }
    inner(req, res);
  };
}
