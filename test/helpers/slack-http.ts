/**
 * Sends what Slack sends, signed as Slack signs it, to the app's request URL (HTTP mode:
 * `POST /slack/events`), and builds the in-process alternative for `app.processEvent`.
 *
 * Signature: https://docs.slack.dev/authentication/verifying-requests-from-slack —
 * `v0=` + hex HMAC-SHA256 of `v0:${timestamp}:${rawBody}` keyed with the signing secret; Bolt rejects a
 * timestamp more than 5 minutes old and answers 401 to any failed check.
 *
 * Bolt 5 compares the Content-Type with `=== 'application/x-www-form-urlencoded'` (no charset
 * allowed; anything else is parsed as JSON), so form bodies are sent as a string with exactly that
 * header: `fetch` with a URLSearchParams body would add `;charset=UTF-8` and get a 400.
 */
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ReceiverEvent } from '@slack/bolt';

export interface SignedRequestOptions {
  /** `form`: Slack's slash commands and interactive payloads; `json`: Events API envelopes. */
  kind: 'form' | 'json';
  /** `form`: the fields (or an already encoded string); `json`: any value, JSON-encoded. */
  body: unknown;
  /** Sent as `x-slack-retry-num` (Events API retries: 1, 2, 3). */
  retryNum?: number;
  /** Sent as `x-slack-retry-reason`, e.g. `http_timeout`. */
  retryReason?: string;
  /** Seconds since the epoch; defaults to now (pass an old one to test staleness). */
  timestamp?: number;
  /** Replaces the computed signature (to test a forged request). */
  signature?: string;
}

export interface SlackHttpResult {
  status: number;
  /** The response body as text ('' when Bolt acks with no body). */
  body: string;
  headers: Headers;
  /** Milliseconds from sending the request to receiving the response headers (the ack latency). */
  ms: number;
}

export function slackSignature(signingSecret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

function formEncode(body: unknown): string {
  if (typeof body === 'string') return body;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    params.append(
      key,
      typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value),
    );
  }
  return params.toString();
}

export async function signedRequest(
  url: string,
  signingSecret: string,
  options: SignedRequestOptions,
): Promise<SlackHttpResult> {
  const rawBody = options.kind === 'form' ? formEncode(options.body) : JSON.stringify(options.body);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': options.kind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': options.signature ?? slackSignature(signingSecret, timestamp, rawBody),
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
  };
  if (options.retryNum !== undefined) headers['x-slack-retry-num'] = String(options.retryNum);
  if (options.retryReason !== undefined) headers['x-slack-retry-reason'] = options.retryReason;
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers, body: rawBody });
  const ms = performance.now() - started;
  return { status: response.status, body: await response.text(), headers: response.headers, ms };
}

/** A slash command (`slashCommand(...)` from slack-payloads.ts), form-encoded. `appUrl` is the full request URL. */
export function postCommand(
  appUrl: string,
  signingSecret: string,
  payload: object,
): Promise<SlackHttpResult> {
  return signedRequest(appUrl, signingSecret, { kind: 'form', body: payload });
}

/**
 * Any interactive payload (block_actions, view_submission, message_action, shortcut), sent as Slack
 * does: form-encoded `payload=<json>`.
 */
export function postAction(appUrl: string, signingSecret: string, payload: object): Promise<SlackHttpResult> {
  return signedRequest(appUrl, signingSecret, { kind: 'form', body: { payload: JSON.stringify(payload) } });
}

/** An Events API envelope (`eventCallback(...)`), JSON; a retry carries `x-slack-retry-num`. */
export function postEvent(
  appUrl: string,
  signingSecret: string,
  envelope: object,
  options: { retryNum?: number; retryReason?: string } = {},
): Promise<SlackHttpResult> {
  const request: SignedRequestOptions = { kind: 'json', body: envelope };
  if (options.retryNum !== undefined) {
    request.retryNum = options.retryNum;
    request.retryReason = options.retryReason ?? 'http_timeout';
  } else if (options.retryReason !== undefined) request.retryReason = options.retryReason;
  return signedRequest(appUrl, signingSecret, request);
}

export interface InProcessEvent {
  /** Pass to `app.processEvent(event)`. */
  event: ReceiverEvent;
  /** Resolves with what the listener passed to `ack()` (undefined for a bare `ack()`). */
  acked: Promise<unknown>;
  /** Whether `ack()` has been called yet. */
  isAcked(): boolean;
}

/**
 * The in-process alternative to HTTP: what a receiver hands to `app.processEvent` (no signature,
 * no HTTP). `body` is the parsed payload: a slash command's fields, an interactive payload object,
 * or an Events API envelope.
 */
export function receiverEvent(
  body: object,
  options: { retryNum?: number; retryReason?: string } = {},
): InProcessEvent {
  let acked = false;
  let resolveAck: (value: unknown) => void = () => {};
  const ackPromise = new Promise<unknown>((resolve) => {
    resolveAck = resolve;
  });
  const event: ReceiverEvent = {
    body: body as ReceiverEvent['body'],
    ack: async (response?: unknown) => {
      // Bolt's receivers reject a second ack the same way (ReceiverMultipleAckError).
      if (acked) throw new Error('ack() called more than once');
      acked = true;
      resolveAck(response);
    },
  };
  if (options.retryNum !== undefined) event.retryNum = options.retryNum;
  if (options.retryReason !== undefined) event.retryReason = options.retryReason;
  return { event, acked: ackPromise, isAcked: () => acked };
}
