/**
 * Slack's side of a simulated run: signed slash commands, button clicks, message shortcuts and
 * modal submissions sent to the replica a workload action names, as Slack sends them in HTTP mode
 * (test/helpers/slack-http.ts signs them; test/helpers/slack-payloads.ts shapes them), and the
 * answers read back from the one fake Slack Web API server every replica posts to.
 *
 * Slack waits 3 s for an ack; a request to a paused or dead process ends there for the person
 * (Slack shows an error), and the process may still handle it when it wakes. A redelivery is the
 * same payload again (same action_ts) with `x-slack-retry-num`, as Slack sends after a late ack
 * or a Socket Mode reconnect.
 */
import type { FakeSlack, SlackCall } from '../test/helpers/slack-api-server.js';
import { slackSignature } from '../test/helpers/slack-http.js';
import {
  blockAction,
  messageShortcut,
  slashCommand,
  viewSubmission,
} from '../test/helpers/slack-payloads.js';

/** Slack's ack deadline for interactive requests and slash commands. */
export const ACK_DEADLINE_MS = 3000;

export interface SlackTarget {
  readonly eventsUrl: string;
}

export type Delivery =
  | { ok: true; status: number; body: string }
  /** No answer within Slack's deadline, or no connection. */
  | { ok: false; reason: string };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every text of a message (its fallback text and every text of its blocks), joined. */
export function textOf(message: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (isObject(v)) {
      if (typeof v.text === 'string') out.push(v.text);
      for (const [k, x] of Object.entries(v)) if (k !== 'text' || typeof x !== 'string') walk(x);
    }
  };
  walk(message);
  return out.join('\n');
}

/** A button of a message: its value and label, by action id; null when absent. */
export function buttonOf(message: unknown, actionId: string): { value: string; label: string } | null {
  let found: { value: string; label: string } | null = null;
  const walk = (v: unknown): void => {
    if (found) return;
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (isObject(v)) {
      if (v.type === 'button' && v.action_id === actionId) {
        found = {
          value: typeof v.value === 'string' ? v.value : '',
          label: isObject(v.text) ? String(v.text.text ?? '') : '',
        };
        return;
      }
      for (const x of Object.values(v)) walk(x);
    }
  };
  walk(isObject(message) ? message.blocks : undefined);
  return found;
}

export interface SlackDriver {
  readonly fake: FakeSlack;
  /** A fresh response_url id. */
  nextId(kind: string): string;
  command(
    target: SlackTarget,
    input: { command: string; text: string; userId: string; channelId: string; responseUrlId: string },
  ): Promise<Delivery>;
  /** A block_actions click; `actionTs` makes it one click (a redelivery repeats it, with `retryNum`). */
  click(
    target: SlackTarget,
    input: {
      actionId: string;
      value: string;
      label: string;
      userId: string;
      channelId: string;
      responseUrlId: string;
      actionTs: string;
      retryNum?: number;
    },
  ): Promise<Delivery>;
  messageShortcut(
    target: SlackTarget,
    input: {
      callbackId: string;
      text: string;
      userId: string;
      channelId: string;
      triggerId: string;
      responseUrlId: string;
    },
  ): Promise<Delivery>;
  viewSubmission(
    target: SlackTarget,
    input: { callbackId: string; privateMetadata: string; values: Json; userId: string; triggerId: string },
  ): Promise<Delivery>;
  /** The first post to that response_url matching `predicate`, or null after `timeoutMs`. */
  response(
    responseUrlId: string,
    predicate: (body: Json) => boolean,
    timeoutMs: number,
  ): Promise<Json | null>;
  /** The views.open answering the shortcut with `triggerId`, or null after `timeoutMs`. */
  viewOpened(triggerId: string, timeoutMs: number): Promise<Json | null>;
}

export function slackDriver(fake: FakeSlack, signingSecret: string, prefix: string): SlackDriver {
  let seq = 0;

  async function post(
    target: SlackTarget,
    form: Record<string, string>,
    retryNum?: number,
  ): Promise<Delivery> {
    const rawBody = new URLSearchParams(form).toString();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(signingSecret, timestamp, rawBody),
    };
    if (retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(retryNum);
      headers['x-slack-retry-reason'] = 'http_timeout';
    }
    try {
      const res = await fetch(target.eventsUrl, {
        method: 'POST',
        headers,
        body: rawBody,
        signal: AbortSignal.timeout(ACK_DEADLINE_MS),
      });
      return { ok: true, status: res.status, body: await res.text() };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.name : String(error) };
    }
  }

  const payload = (value: object) => ({ payload: JSON.stringify(value) });

  return {
    fake,
    nextId: (kind) => `${prefix}-${kind}-${++seq}`,
    command(target, input) {
      const body = slashCommand({
        command: input.command,
        text: input.text,
        userId: input.userId,
        channelId: input.channelId,
        channelName: input.channelId.toLowerCase(),
        responseUrl: fake.responseUrl(input.responseUrlId),
      });
      return post(target, body as unknown as Record<string, string>);
    },
    click(target, input) {
      return post(
        target,
        payload(
          blockAction({
            actionId: input.actionId,
            value: input.value,
            text: input.label,
            userId: input.userId,
            channelId: input.channelId,
            responseUrl: fake.responseUrl(input.responseUrlId),
            actionTs: input.actionTs,
          }),
        ),
        input.retryNum,
      );
    },
    messageShortcut(target, input) {
      return post(
        target,
        payload(
          messageShortcut({
            callbackId: input.callbackId,
            message: {
              text: input.text,
              ts: `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`,
            },
            userId: input.userId,
            channelId: input.channelId,
            triggerId: input.triggerId,
            responseUrl: fake.responseUrl(input.responseUrlId),
          }),
        ),
      );
    },
    viewSubmission(target, input) {
      return post(
        target,
        payload(
          viewSubmission({
            callbackId: input.callbackId,
            privateMetadata: input.privateMetadata,
            values: input.values as never,
            userId: input.userId,
            triggerId: input.triggerId,
          }),
        ),
      );
    },
    async response(responseUrlId, predicate, timeoutMs) {
      try {
        const call = await fake.waitFor(
          'response_url',
          (c) => c.id === responseUrlId && predicate(c.body),
          timeoutMs,
        );
        return call.body;
      } catch {
        return null;
      }
    },
    async viewOpened(triggerId, timeoutMs) {
      try {
        const call: SlackCall = await fake.waitFor(
          'views.open',
          (c) => c.body.trigger_id === triggerId,
          timeoutMs,
        );
        return isObject(call.body.view) ? call.body.view : null;
      } catch {
        return null;
      }
    },
  };
}
