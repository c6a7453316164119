/** `/orders`: see README "Commands". With no arguments it opens the filter form. */
import type { App } from '@slack/bolt';
import { parseOrdersCommand } from '../../lookups/parse/command-text.js';
import { ackFirst } from '../ack.js';
import { answerAlertCommand, isAlertCommand } from '../alerts/command.js';
import type { SlackDeps } from '../deps.js';
import { answerDigestCommand, isDigestCommand } from '../digest/command.js';
import { privateReply } from '../private-reply.js';
import { ordersFormView } from '../views/orders-form.js';
import { answerCommand } from './answer-command.js';

export function registerOrdersCommand(app: App, deps: SlackDeps): void {
  app.command('/orders', async ({ ack, command, respond, client, body }) => {
    await ackFirst(ack);
    const reply = privateReply({ respond, client, body, logger: deps.logger });
    if (isDigestCommand(command.text)) return answerDigestCommand(deps, command, respond);
    if (isAlertCommand(command.text)) return answerAlertCommand(deps, command, respond);
    const edition = deps.client.editionFor('paging-orders') ?? 1;
    const parsed = parseOrdersCommand(command.text, { edition });
    if (parsed.kind === 'form') {
      await client.views.open({
        trigger_id: command.trigger_id,
        view: ordersFormView(await deps.language.user(command.user_id), {
          channelId: command.channel_id,
          edition,
        }),
      });
      return;
    }
    await answerCommand(deps, '/orders', parsed, command, reply);
  });
}
