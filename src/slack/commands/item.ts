/** `/item`: see README "Commands". Acks first; invalid input is answered without a call. */
import type { App } from '@slack/bolt';
import { parseItemCommand } from '../../lookups/parse/command-text.js';
import { ackFirst } from '../ack.js';
import type { SlackDeps } from '../deps.js';
import { privateReply } from '../private-reply.js';
import { answerCommand } from './answer-command.js';

export function registerItemCommand(app: App, deps: SlackDeps): void {
  app.command('/item', async ({ ack, command, respond, client, body }) => {
    await ackFirst(ack);
    const reply = privateReply({ respond, client, body, logger: deps.logger });
    await answerCommand(deps, '/item', parseItemCommand(command.text), command, reply);
  });
}
