/**
 * What every slash command does after parsing: help, the usage line for bad input (no call),
 * or the confirmation for a valid request.
 */
import type { SlashCommand as SlackCommandPayload } from '@slack/bolt';
import type { SlashCommand } from '../../blocks/help.js';
import { renderHelp } from '../../blocks/help.js';
import { renderInvalidInput } from '../../blocks/invalid-input.js';
import type { Actor } from '../../lookups/lookup-service.js';
import type { ParsedCommand } from '../../lookups/parse/command-text.js';
import { offerLookup, type Reply } from '../answer.js';
import type { SlackDeps } from '../deps.js';

export function actorOfCommand(command: SlackCommandPayload): Actor {
  return {
    userId: command.user_id,
    channelId: command.channel_id || null,
    teamId: command.team_id || null,
    responseUrl: command.response_url || null,
  };
}

export async function answerCommand(
  deps: SlackDeps,
  name: SlashCommand,
  parsed: ParsedCommand,
  command: SlackCommandPayload,
  respond: Reply,
): Promise<void> {
  switch (parsed.kind) {
    case 'help':
    case 'form': // only /orders opens a form; it handles that case before calling here
      await respond({
        response_type: 'ephemeral',
        ...renderHelp(await deps.language.user(command.user_id), name),
      });
      return;
    case 'invalid':
      await respond({
        response_type: 'ephemeral',
        ...renderInvalidInput(await deps.language.user(command.user_id), name, parsed.problems),
      });
      return;
    case 'request':
      await offerLookup(deps, parsed.request, actorOfCommand(command), respond);
      return;
  }
}
