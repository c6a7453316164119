/** `/shop`: see README "Commands". Acks first; invalid input is answered without a call. */
import type { App } from '@slack/bolt';
import { parseShopCommand } from '../../lookups/parse/command-text.js';
import { ackFirst } from '../ack.js';
import type { SlackDeps } from '../deps.js';
import { privateReply } from '../private-reply.js';
import { answerCommand } from './answer-command.js';

export function registerShopCommand(app: App, deps: SlackDeps): void {
  app.command('/shop', async ({ ack, command, respond, client, body }) => {
    await ackFirst(ack);
    const reply = privateReply({ respond, client, body, logger: deps.logger });
    await answerCommand(deps, '/shop', parseShopCommand(command.text), command, reply);
  });
}
