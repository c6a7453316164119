/**
 * The answer to input that cannot be looked up: what was wrong, the usage line, and that
 * nothing was charged (DESIGN rule 3).
 */
import { type SlashCommand, usageLine } from './help.js';
import { context, message, type RenderedMessage, section } from './kit.js';
import { escapeClip } from './text.js';

export function renderInvalidInput(command: SlashCommand, problems: readonly string[]): RenderedMessage {
  const list = problems.slice(0, 10).map((p) => `• ${escapeClip(p, 400)}`);
  // The fallback text is mrkdwn too, and a problem may quote the input (`unknown option …`).
  return message(`${command}: ${escapeClip(problems[0] ?? 'invalid input', 400)}`, [
    section(`:warning: *That cannot be looked up*\n${list.join('\n')}`),
    section(`Usage: ${usageLine(command)}\nType \`${command} help\` for examples.`),
    context('Nothing was sent and nothing was charged.'),
  ]);
}
