/**
 * A slash command platdesk has no listener for (a manifest out of step with the code, a renamed
 * command): acknowledged at once with the commands platdesk knows, and logged as a warning. Without
 * it Bolt waits its 3 s ack timeout and logs an error.
 */
import type { App } from '@slack/bolt';
import { escapeText } from '../../blocks/text.js';
import { ackFirst } from '../ack.js';
import type { SlackDeps } from '../deps.js';

/** The commands registered in ./index.ts: Bolt runs every listener that matches, so they are left out. */
const UNKNOWN = /^(?!\/(?:item|shop|waybill|orders|platdesk)$)/;

export function registerUnknownCommand(app: App, deps: SlackDeps): void {
  app.command(UNKNOWN, async ({ ack, command, respond }) => {
    await ackFirst(ack);
    deps.logger.warn({ command: command.command }, 'a slash command platdesk does not know');
    const w = await deps.language.user(command.user_id);
    await respond({
      response_type: 'ephemeral',
      text: w.t('notice.unknownCommand', { command: escapeText(command.command) }),
    });
  });
}
