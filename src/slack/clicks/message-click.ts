/**
 * The one registration for clicks on a message (an answer, a confirmation, a digest, an alert, an
 * unfurl). Slack sends those with a response_url: the handler gets Bolt's `respond`, and `reply`,
 * which falls back to an ephemeral or direct message when the response_url refuses
 * (private-reply.ts). Acknowledged first; redeliveries are dropped (redelivery.ts).
 */
import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  BlockElementAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { ackFirst } from '../ack.js';
import type { Reply } from '../answer.js';
import type { SlackDeps } from '../deps.js';
import { privateReply } from '../private-reply.js';
import { firstDelivery } from './redelivery.js';
import { recordClickRegistration } from './registry.js';

export type MessageClick<A extends BlockElementAction = ButtonAction> = Omit<
  SlackActionMiddlewareArgs<BlockAction<A>> & AllMiddlewareArgs,
  'ack' | 'next'
> & {
  /** `respond`, or another private way when the response_url refuses. */
  reply: Reply;
};

export function onMessageClick<A extends BlockElementAction = ButtonAction>(
  app: App,
  deps: SlackDeps,
  actionId: string | RegExp,
  handler: (click: MessageClick<A>) => Promise<void>,
): void {
  recordClickRegistration(app, 'message', actionId);
  app.action<BlockAction<A>>(actionId, async ({ ack, next: _next, ...args }) => {
    await ackFirst(ack);
    if (!(await firstDelivery(deps.store, args.body))) {
      deps.logger.info({ actionId: args.action.action_id }, 'click delivered again by Slack: dropped');
      return;
    }
    const reply = privateReply({
      respond: args.respond,
      client: args.client,
      body: args.body,
      logger: deps.logger,
    });
    await handler({ ...args, reply });
  });
}

/**
 * A button that only opens a URL (on a message): Slack still sends a click, which is acknowledged
 * and nothing more. Nothing is done, so a redelivery is harmless and the store is not asked
 * (a link must keep working while the store is down).
 */
export function onLinkClick(app: App, actionId: string | RegExp): void {
  recordClickRegistration(app, 'message', actionId);
  app.action(actionId, async ({ ack }) => {
    await ack();
  });
}
