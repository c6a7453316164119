/**
 * Ack before Bolt (issue 21.2). In HTTP mode a slash command is answered `200` with an empty body
 * as soon as its signature and timestamp have passed Bolt's own checks (its size and headers passed
 * slack/request-guard.ts, which read the body), before Bolt's
 * middleware and listeners run; the command then reaches them through `app.processEvent` with an
 * ack that has nothing left to do. Every platdesk command answers through its `response_url`, never
 * in the ack's body, so the user sees the same thing, sooner.
 *
 * Why: with hundreds of commands arriving together, Bolt acks each from inside its listener, and
 * every request acked in one event-loop turn starts its post-ack work (quote, store writes, render,
 * the response_url post) in that same turn, which delays reading and acking the requests still
 * arriving. Here the acks go out as the requests are read, and the post-ack work starts in quiet
 * loop turns (createPostAckQueue), so it cannot starve the reading of new requests.
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
}

/**
 * How long a post-ack job waits for a quiet turn before it runs anyway. A burst's
 * requests reach the server over its senders' spread, which on a loaded machine passed 200 ms:
 * with a 200 ms hold, jobs (slow ones while the process is still cold) ran in the middle of the
 * burst. A second keeps a burst's acks ahead of its work well inside Slack's 3 s ack deadline;
 * only a flood arriving in every loop turn ever waits that long (a quiet turn comes as soon as
 * one turn passes without a new request).
 */
export const POST_ACK_MAX_HOLD_MS = 1000;

/** The time a turn may spend starting post-ack jobs (their synchronous part), at least one job. */
export const POST_ACK_TURN_BUDGET_MS = 10;

/**
 * Post-ack jobs, released so that they cannot starve the reading and acking of new requests. In a
 * quiet turn (its I/O brought no new request and left no command half read; checked in the
 * turn's check phase, after its I/O) jobs start until `turnBudgetMs` is spent. In a busy turn
 * only jobs held `maxHoldMs` or longer start, within the same budget, so a steady stream of
 * requests cannot starve the answers either; at least one job starts in any turn that may start
 * one.
 *
 * Measured with `npm run bench` (phase A): released one per turn without the quiet check, each
 * job (Bolt's middleware, quote, store writes, render, the response_url post) ran between the
 * reads of requests still arriving, and the last acks of a burst of 200 waited behind them. One
 * job per turn and no more, on the other hand, let jobs pile up under a steady stream whose turns
 * were long (phase D: an answer waited over 10 s).
 */
export function createPostAckQueue(options: {
  maxHoldMs: number;
  turnBudgetMs?: number;
  onError: (error: unknown) => void;
  now?: () => number;
}) {
  const now = options.now ?? (() => performance.now());
  const budgetMs = options.turnBudgetMs ?? POST_ACK_TURN_BUDGET_MS;
  const jobs: { run: () => Promise<void>; at: number }[] = [];
  let scheduled = false;
  /** A request came in since the last check. */
  let busy = false;
  /** Commands being read and checked, not yet acked. */
  let reading = 0;
  const tick = () => {
    const quiet = !busy && reading === 0;
    busy = false;
    const started = now();
    for (let head = jobs[0]; head !== undefined; head = jobs[0]) {
      if (!quiet && now() - head.at < options.maxHoldMs) break;
      jobs.shift();
      head.run().catch(options.onError);
      // Checked after each job (its synchronous part), so at least one starts.
      if (now() - started >= budgetMs) break;
    }
    if (jobs.length > 0) setImmediate(tick);
    else scheduled = false;
  };
  return {
    /** A request arrived (any request: it is read in this turn). */
    arrived(): void {
      busy = true;
    },
    readingStarted(): void {
      reading += 1;
    },
    readingDone(): void {
      reading -= 1;
    },
    push(run: () => Promise<void>): void {
      jobs.push({ run, at: now() });
      if (!scheduled) {
        scheduled = true;
        setImmediate(tick);
      }
    },
    /** Jobs waiting. */
    size: (): number => jobs.length,
  };
}

function isCommandBody(body: Record<string, unknown>): boolean {
  return typeof body.command === 'string' && body.command.startsWith('/') && body.ssl_check === undefined;
}

/**
 * What the reader in front of this wrapper (slack/request-guard.ts) tells it: a request arrived and
 * its body is being read, so the turns that read it are not quiet ones.
 */
export interface BodyReading {
  started(): void;
  done(): void;
}

/** Wraps the receiver's request listener (call before the receiver starts). */
export function ackCommandsEarly(receiver: HTTPReceiver, options: EarlyAckOptions): BodyReading {
  let app: App | undefined;
  const init = receiver.init.bind(receiver);
  receiver.init = (bolt: App) => {
    app = bolt;
    init(bolt);
  };
  const jobs = createPostAckQueue({
    maxHoldMs: POST_ACK_MAX_HOLD_MS,
    onError: (error) => options.logger.error({ err: error }, 'a slash command failed after its ack'),
  });
  const inner = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    jobs.arrived();
    const path = (req.url ?? '').split('?')[0];
    const form = req.headers['content-type'] === 'application/x-www-form-urlencoded';
    if (req.method !== 'POST' || path !== EVENTS_PATH || !form || app === undefined) {
      inner(req, res);
      return;
    }
    const bolt = app;
    jobs.readingStarted();
    HTTPModuleFunctions.parseAndVerifyHTTPRequest(
      {
        signingSecret: options.signingSecret,
      },
      req,
      res,
    ).then(
      (buffered) => {
        jobs.readingDone();
        const body = parse(buffered.rawBody.toString()) as Record<string, unknown>;
        if (!isCommandBody(body)) {
          inner(buffered, res);
          return;
        }
        res.writeHead(200);
        res.end();
        const event: ReceiverEvent = { body, ack: async () => undefined, customProperties: {} };
        jobs.push(() => bolt.processEvent(event));
      },
      () => {
        jobs.readingDone();
        // A failed signature or timestamp check: Bolt answers (401) and logs it, from the buffered
        // body. The body was read, within its bound, by slack/request-guard.ts, which answers
        // every body error itself (413, 415, a body cut off).
        inner(req, res);
      },
    );
  };
  return {
    started() {
      jobs.arrived();
      jobs.readingStarted();
    },
    done: () => jobs.readingDone(),
  };
}
