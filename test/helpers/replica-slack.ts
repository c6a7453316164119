/**
 * Slack's side of a multi-process run: signed slash commands and button clicks sent to whichever
 * replica a test names (as Slack delivers each request to one of them), and the answers read from
 * the one fake Slack Web API server every replica posts to. The same verbs as the in-process
 * harness (platdesk-harness.ts: ask, confirm, lookup), with the replica as first argument.
 */
import type { SlackMessage } from './platdesk-harness.js';
import { type Confirmation, confirmationOf, textOf } from './platdesk-harness.js';
import type { FakeSlack } from './slack-api-server.js';
import { postAction, postCommand } from './slack-http.js';
import { blockAction, slashCommand } from './slack-payloads.js';

/** Anything with an events URL: a Replica of replica-cluster.ts. */
export interface SlackTarget {
  readonly eventsUrl: string;
}

export interface SentRequest {
  status: number;
  /** Where this request's answers are posted. */
  responseUrlId: string;
  /** When it was sent: performance.now() (the sandbox's arrival clock) and Date.now() (the fake Slack's). */
  sentAt: number;
  sentWallAt: number;
}

export interface ConfirmedLookup {
  sent: SentRequest;
  /** The first post to the click's response_url that is not "Looking up…": the answer. */
  answer: SlackMessage;
  /** From sending the click to the answer's arrival at the fake Slack, in ms. */
  ms: number;
}

export interface ReplicaSlack {
  command(
    target: SlackTarget,
    name: string,
    text: string,
    options?: { userId?: string; channelId?: string },
  ): Promise<SentRequest>;
  /** A block_actions click on a button (a fresh response_url unless one is given). */
  click(
    target: SlackTarget,
    actionId: string,
    value: string | undefined,
    options?: { userId?: string; responseUrlId?: string; label?: string },
  ): Promise<SentRequest>;
  /** The first post to that response_url matching `predicate` (default: any). */
  response(
    responseUrlId: string,
    predicate?: (message: SlackMessage) => boolean,
    timeoutMs?: number,
  ): Promise<SlackMessage>;
  /** The command, then its confirmation (throws when the answer is not one). */
  ask(
    target: SlackTarget,
    name: string,
    text: string,
    options?: { userId?: string },
  ): Promise<{ message: SlackMessage; confirmation: Confirmation }>;
  /** Clicks Confirm on `target` and waits for the answer. */
  confirm(
    target: SlackTarget,
    confirmation: Confirmation,
    options?: { userId?: string; timeoutMs?: number },
  ): Promise<ConfirmedLookup>;
  /** ask on one replica, confirm on another (or the same). */
  lookup(
    asked: SlackTarget,
    confirmed: SlackTarget,
    name: string,
    text: string,
    options?: { userId?: string; timeoutMs?: number },
  ): Promise<ConfirmedLookup>;
}

const LOOKING_UP = 'Looking up';

export function replicaSlack(fake: FakeSlack, signingSecret: string, idPrefix = 'r'): ReplicaSlack {
  let seq = 0;
  let actionSeq = 0;
  const nextId = (kind: string) => `${idPrefix}-${kind}-${++seq}`;

  const slack: ReplicaSlack = {
    async command(target, name, text, options = {}) {
      const responseUrlId = nextId('cmd');
      const sentAt = performance.now();
      const sentWallAt = Date.now();
      const res = await postCommand(
        target.eventsUrl,
        signingSecret,
        slashCommand({
          command: name,
          text,
          responseUrl: fake.responseUrl(responseUrlId),
          ...(options.userId ? { userId: options.userId } : {}),
          ...(options.channelId ? { channelId: options.channelId } : {}),
        }),
      );
      return { status: res.status, responseUrlId, sentAt, sentWallAt };
    },
    async click(target, actionId, value, options = {}) {
      const responseUrlId = options.responseUrlId ?? nextId('act');
      actionSeq += 1;
      const sentAt = performance.now();
      const sentWallAt = Date.now();
      const res = await postAction(
        target.eventsUrl,
        signingSecret,
        blockAction({
          actionId,
          ...(value !== undefined ? { value } : {}),
          responseUrl: fake.responseUrl(responseUrlId),
          // Two clicks on one button arrive with two action_ts values.
          actionTs: `1700000002.${String(actionSeq).padStart(6, '0')}`,
          ...(options.userId ? { userId: options.userId } : {}),
          ...(options.label ? { text: options.label } : {}),
        }),
      );
      return { status: res.status, responseUrlId, sentAt, sentWallAt };
    },
    async response(responseUrlId, predicate = () => true, timeoutMs = 10_000) {
      const call = await fake.waitFor(
        'response_url',
        (c) => c.id === responseUrlId && predicate(c.body as SlackMessage),
        timeoutMs,
      );
      return call.body as SlackMessage;
    },
    async ask(target, name, text, options = {}) {
      const sent = await slack.command(target, name, text, options);
      if (sent.status !== 200) throw new Error(`${name} ${text}: HTTP ${sent.status}`);
      const message = await slack.response(sent.responseUrlId);
      return { message, confirmation: confirmationOf(message) };
    },
    async confirm(target, confirmation, options = {}) {
      const sent = await slack.click(target, 'platdesk.confirm', confirmation.confirm.value, {
        label: confirmation.confirm.label,
        ...(options.userId ? { userId: options.userId } : {}),
      });
      if (sent.status !== 200) throw new Error(`Confirm: HTTP ${sent.status}`);
      const call = await fake.waitFor(
        'response_url',
        (c) => c.id === sent.responseUrlId && !textOf(c.body).includes(LOOKING_UP),
        options.timeoutMs ?? 30_000,
      );
      return {
        sent,
        answer: call.body as SlackMessage,
        ms: call.at - sent.sentWallAt,
      };
    },
    async lookup(asked, confirmed, name, text, options = {}) {
      const { timeoutMs, ...who } = options;
      const { confirmation } = await slack.ask(asked, name, text, who);
      return slack.confirm(confirmed, confirmation, {
        ...who,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      });
    },
  };
  return slack;
}
