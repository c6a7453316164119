/** `/waybill`: see README "Commands". Acks first; invalid input is answered without a call. */
import type { App } from '@slack/bolt';
import { parseWaybillCommand } from '../../lookups/parse/command-text.js';
import type { SlackDeps } from '../deps.js';
import { answerCommand } from './answer-command.js';

export function registerWaybillCommand(app: App, deps: SlackDeps): void {
  app.command('/waybill', async ({ ack, command, respond }) => {
    await ack();
    await answerCommand(deps, '/waybill', parseWaybillCommand(command.text), command, respond);
  });
}
