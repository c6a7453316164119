/**
 * The one registration for clicks on a Work Object's details panel (its action buttons,
 * https://docs.slack.dev/messaging/work-objects-overview). No message holds the button, so Slack
 * sends no channel and no response_url: a handler gets a context without `respond`. It answers in
 * the panel (entity.presentDetails with the click's own trigger_id, usable for about 3 s from
 * `receivedAt`) or privately (a direct message from platdesk). Redeliveries are dropped first.
 */
import { performance } from 'node:perf_hooks';
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Words } from '../../blocks/i18n/words.js';
import { ackFirst } from '../ack.js';
import type { SlackDeps } from '../deps.js';
import { type PrivateMessage, sendPrivately } from '../private-reply.js';
import { firstDelivery } from './redelivery.js';
import { recordClickRegistration } from './registry.js';

export interface EntityClick {
  readonly action: ButtonAction;
  readonly userId: string;
  readonly teamId: string | null;
  readonly triggerId: string;
  /** When the click arrived (performance.now()): its trigger_id lives about 3 s from then. */
  readonly receivedAt: number;
  readonly client: WebClient;
  words(): Promise<Words>;
  /** A message to the clicker alone (a direct message from platdesk); true when Slack took it. */
  tell(message: PrivateMessage): Promise<boolean>;
}

type EntityClickBody = Omit<BlockAction<ButtonAction>, 'response_url'> & { response_url?: string };

export function onEntityClick(
  app: App,
  deps: SlackDeps,
  actionId: string,
  handler: (click: EntityClick) => Promise<void>,
): void {
  recordClickRegistration(app, 'entity', actionId);
  app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, action, body: sent, client }) => {
    const receivedAt = performance.now();
    await ackFirst(ack);
    const body = sent as EntityClickBody;
    if (!(await firstDelivery(deps.store, body))) {
      deps.logger.info({ actionId: action.action_id }, 'click delivered again by Slack: dropped');
      return;
    }
    const userId = body.user.id;
    await handler({
      action,
      userId,
      teamId: body.team?.id ?? null,
      triggerId: body.trigger_id,
      receivedAt,
      client,
      words: () => deps.language.user(userId),
      tell: (message) => sendPrivately(client, { userId, channelId: null }, message, deps.logger),
    });
  });
}
