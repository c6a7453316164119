/** `/shop`: see README "Commands". Acks first; invalid input is answered without a call. */
import type { App } from '@slack/bolt';
import { parseShopCommand } from '../../lookups/parse/command-text.js';
import type { SlackDeps } from '../deps.js';
import { answerCommand } from './answer-command.js';

export function registerShopCommand(app: App, deps: SlackDeps): void {
  app.command('/shop', async ({ ack, command, respond }) => {
    await ack();
    await answerCommand(deps, '/shop', parseShopCommand(command.text), command, respond);
  });
}
