/**
 * Ack before Bolt (issue 21.2). In HTTP mode a slash command is answered `200` with an empty body
 * as soon as its signature, timestamp and size have passed Bolt's own checks, before Bolt's
 * middleware and listeners run; the command then reaches them through `app.processEvent` with an
 * ack that has nothing left to do. Every platdesk command answers through its `response_url`, never
 * in the ack's body, so the user sees the same thing, sooner.
 *
 * Why: with hundreds of commands arriving together, Bolt acks each from inside its listener, and
 * every request acked in one event-loop turn starts its post-ack work (quote, store writes, render,
 * the response_url post) in that same turn, which delays reading and acking the requests still
 * arriving. Here the acks go out as the requests are read, and the post-ack work is released one
 * command per loop turn (`setImmediate`), so it cannot starve the reading of new requests.
 *
 * Everything else (interactivity, view submissions, events, `ssl_check`, any request that fails a
 * check) stays on Bolt's normal path: the buffered body is handed on (Bolt reuses `rawBody`), and
 * Bolt answers and logs failed checks as it always does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse } from 'node:querystring';
import type { App, HTTPReceiver, ReceiverEvent } from '@slack/bolt';
import { HTTPModuleFunctions } from '@slack/bolt';
import type { Logger } from 'pino';

const EVENTS_PATH = '/slack/events';

export interface EarlyAckOptions {
  signingSecret: string;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Bolt's limit unless told otherwise (4 MB). */
  bodyLimit?: number;
}

/** Post-ack jobs, started one per event-loop turn. */
function createTurnQueue(onError: (error: unknown) => void): (job: () => Promise<void>) => void {
  const jobs: (() => Promise<void>)[] = [];
  let scheduled = false;
  const next = () => {
    const job = jobs.shift();
    if (job) job().catch(onError);
    if (jobs.length > 0) setImmediate(next);
    else scheduled = false;
  };
  return (job) => {
    jobs.push(job);
    if (!scheduled) {
      scheduled = true;
      setImmediate(next);
    }
  };
}

function isCommandBody(body: Record<string, unknown>): boolean {
  return typeof body.command === 'string' && body.command.startsWith('/') && body.ssl_check === undefined;
}

/** Wraps the receiver's request listener (call before the receiver starts). */
export function ackCommandsEarly(receiver: HTTPReceiver, options: EarlyAckOptions): void {
  let app: App | undefined;
  const init = receiver.init.bind(receiver);
  receiver.init = (bolt: App) => {
    app = bolt;
    init(bolt);
  };
  const enqueue = createTurnQueue((error) =>
    options.logger.error({ err: error }, 'a slash command failed after its ack'),
  );
  const inner = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    const form = req.headers['content-type'] === 'application/x-www-form-urlencoded';
    if (req.method !== 'POST' || path !== EVENTS_PATH || !form || app === undefined) {
      inner(req, res);
      return;
    }
    const bolt = app;
    HTTPModuleFunctions.parseAndVerifyHTTPRequest(
      {
        signingSecret: options.signingSecret,
        bodyLimit: options.bodyLimit ?? HTTPModuleFunctions.defaultBodyLimit,
      },
      req,
      res,
    ).then(
      (buffered) => {
        const body = parse(buffered.rawBody.toString()) as Record<string, unknown>;
        if (!isCommandBody(body)) {
          inner(buffered, res);
          return;
        }
        res.writeHead(200);
        res.end();
        const event: ReceiverEvent = { body, ack: async () => undefined, customProperties: {} };
        enqueue(() => bolt.processEvent(event));
      },
      (error: unknown) => {
        if (HTTPModuleFunctions.isRawBodyError(error)) {
          // As Bolt answers it: the stream is spent, so Bolt could not read it again.
          options.logger.warn('Slack request refused: its body is over the size limit');
          res.writeHead(413);
          res.end();
          return;
        }
        // A failed signature or timestamp check: Bolt answers (401) and logs it, from the buffered body.
        inner(req, res);
      },
    );
  };
}
