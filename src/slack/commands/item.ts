/** `/item`: see README "Commands". Acks first; invalid input is answered without a call. */
import type { App } from '@slack/bolt';
import { parseItemCommand } from '../../lookups/parse/command-text.js';
import type { SlackDeps } from '../deps.js';
import { answerCommand } from './answer-command.js';

export function registerItemCommand(app: App, deps: SlackDeps): void {
  app.command('/item', async ({ ack, command, respond }) => {
    await ack();
    await answerCommand(deps, '/item', parseItemCommand(command.text), command, respond);
  });
}
