/**
 * The first thing a request to `POST /slack/events` meets in HTTP mode (issue 34, M2): what can be
 * refused from its headers is refused before a byte of its body is read, and the body is read
 * once, here, within the bound of its kind; Bolt and the early ack then reuse it (`rawBody`).
 *
 * - No `x-slack-signature` of Slack's form (`v0=` and 64 hex digits), or an
 *   `x-slack-request-timestamp` more than five minutes away from now, either way: 401. Slack
 *   signs every request it sends and says to refuse one older than five minutes
 *   (https://docs.slack.dev/authentication/verifying-requests-from-slack); one signed for the
 *   future would stay replayable until then. The signature itself is checked by Bolt, after the
 *   read: an HMAC needs the whole body.
 * - A compressed body (`content-encoding` other than identity; Slack sends none): 415. A type other
 *   than a form or JSON: 415.
 * - Size: a slash command's form at most 64 KB (Slack caps a command's text far below that); an
 *   interactive payload's form (`payload=…`: a click carries the whole message or view it came
 *   from, ~115 KB form-encoded for a 100-order page in English, several times that in Chinese) and
 *   a JSON body at most 1 MB. An announced `content-length` over the bound is refused at once; a
 *   chunked body when it passes the bound. 413.
 * - A body cut off by its sender is logged as such (nobody is left to answer).
 *
 * Refusals are counted (`platdesk_slack_refused_total{reason}`) and logged at most once a minute
 * with the counts, so a flood of forged requests cannot flood the log.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HTTPReceiver } from '@slack/bolt';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';

const EVENTS_PATH = '/slack/events';

/** Slack's bound, in seconds, both ways. */
export const MAX_CLOCK_SKEW_S = 5 * 60;

export const BODY_LIMITS = {
  /** A slash command's form. */
  command: 64 * 1024,
  /** An interactive payload's form (`payload=<json>`). */
  payload: 1024 * 1024,
  /** An Events API envelope. */
  json: 1024 * 1024,
} as const;

const SIGNATURE = /^v0=[0-9a-f]{64}$/;
const FORM = 'application/x-www-form-urlencoded';
/** A form whose body starts so is an interactive payload; anything else is a command's form. */
const PAYLOAD_PREFIX = Buffer.from('payload=');
/** How often the refusals are summed up in the log. */
const LOG_EVERY_MS = 60_000;

export type Refusal = 'unsigned' | 'stale' | 'encoding' | 'type' | 'too_large';

const STATUS: Record<Refusal, number> = {
  unsigned: 401,
  stale: 401,
  encoding: 415,
  type: 415,
  too_large: 413,
};

export interface RequestGuardOptions {
  logger: Pick<Logger, 'warn' | 'info'>;
  metrics?: Pick<Metrics, 'inc'>;
  /** Wall-clock milliseconds (Bolt checks staleness against Date.now() too). */
  nowMs?: () => number;
  /** Told while a body is read (the early ack keeps its post-ack work out of those turns). */
  reading?: { started(): void; done(): void };
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** What the headers alone say of a request: a refusal, or the kind of body to read. */
function screen(
  req: IncomingMessage,
  nowS: number,
): { refusal: Refusal } | { kind: 'form' | 'json'; announced: number | null } {
  if (!SIGNATURE.test(header(req, 'x-slack-signature') ?? '')) return { refusal: 'unsigned' };
  const timestamp = Number(header(req, 'x-slack-request-timestamp'));
  if (!Number.isInteger(timestamp) || timestamp <= 0) return { refusal: 'unsigned' };
  if (Math.abs(nowS - timestamp) > MAX_CLOCK_SKEW_S) return { refusal: 'stale' };
  const encoding = (header(req, 'content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') return { refusal: 'encoding' };
  const type = (header(req, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  // Bolt reads a form only under exactly this type, and any other body as JSON.
  const kind = header(req, 'content-type') === FORM ? 'form' : type === 'application/json' ? 'json' : null;
  if (kind === null) return { refusal: 'type' };
  const length = header(req, 'content-length');
  const announced = length === undefined ? null : Number(length);
  const bound = kind === 'form' ? BODY_LIMITS.payload : BODY_LIMITS.json;
  if (announced !== null && announced > bound) return { refusal: 'too_large' };
  return { kind, announced };
}

/** Wraps the receiver's request listener; call it last, so it runs first. */
export function guardSlackRequests(receiver: HTTPReceiver, options: RequestGuardOptions): void {
  const nowMs = options.nowMs ?? Date.now;
  const counts = new Map<Refusal | 'cut_off', number>();
  let lastLog = 0;
  const count = (reason: Refusal | 'cut_off') => {
    options.metrics?.inc('platdesk_slack_refused_total', 'Slack requests refused before Bolt, by reason', {
      reason,
    });
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
    if (nowMs() - lastLog < LOG_EVERY_MS) return;
    lastLog = nowMs();
    const refused = Object.fromEntries(counts);
    counts.clear();
    options.logger.warn(
      { refused },
      'Slack requests refused before their body was used (counts since the last line)',
    );
  };
  const refuse = (res: ServerResponse, reason: Refusal) => {
    count(reason);
    // Nothing more of this request is read: once the answer is written the connection is cut,
    // or Node would read (and drop) the rest of the body, up to its end, to keep it alive.
    res.writeHead(STATUS[reason], { connection: 'close' });
    res.end(() => res.socket?.destroy());
  };

  const inner = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== EVENTS_PATH) {
      inner(req, res);
      return;
    }
    const screened = screen(req, Math.floor(nowMs() / 1000));
    if ('refusal' in screened) {
      refuse(res, screened.refusal);
      return;
    }
    options.reading?.started();
    readBody(req, screened).then(
      (read) => {
        options.reading?.done();
        if (read.ok) {
          // Bolt's reader (HTTPModuleFunctions.bufferIncomingMessage) takes a buffered request as read.
          (req as IncomingMessage & { rawBody: Buffer }).rawBody = read.body;
          inner(req, res);
        } else if (read.reason === 'too_large') refuse(res, 'too_large');
        else {
          count('cut_off');
          options.logger.info('Slack request body cut off by its sender: nothing to answer');
          if (!res.headersSent) {
            res.writeHead(400, { connection: 'close' });
            res.end();
          }
        }
      },
      () => undefined,
    );
  };
}

type Read = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'cut_off' };

/** Reads the body within its kind's bound (a form's bound is known from its first bytes). */
function readBody(
  req: IncomingMessage,
  screened: { kind: 'form' | 'json'; announced: number | null },
): Promise<Read> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let bound: number = screened.kind === 'json' ? BODY_LIMITS.json : BODY_LIMITS.payload;
    let kindKnown = screened.kind === 'json';
    let settled = false;
    const finish = (read: Read) => {
      if (settled) return;
      settled = true;
      req.removeListener('data', onData);
      if (!read.ok) req.pause();
      resolve(read);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (!kindKnown && size >= PAYLOAD_PREFIX.length) {
        kindKnown = true;
        const head = Buffer.concat(chunks).subarray(0, PAYLOAD_PREFIX.length);
        if (!head.equals(PAYLOAD_PREFIX)) bound = BODY_LIMITS.command;
        if (screened.announced !== null && screened.announced > bound)
          return finish({ ok: false, reason: 'too_large' });
      }
      if (size > bound) finish({ ok: false, reason: 'too_large' });
    };
    req.on('data', onData);
    req.once('end', () => {
      // A short form (under the prefix's length) is a command's.
      if (!kindKnown && size > BODY_LIMITS.command) return finish({ ok: false, reason: 'too_large' });
      finish({ ok: true, body: Buffer.concat(chunks, size) });
    });
    req.once('aborted', () => finish({ ok: false, reason: 'cut_off' }));
    req.once('error', () => finish({ ok: false, reason: 'cut_off' }));
    req.once('close', () => {
      if (!req.complete) finish({ ok: false, reason: 'cut_off' });
    });
  });
}
