/**
 * The answer to input that cannot be looked up: what was wrong, the usage line, and that
 * nothing was charged (DESIGN rule 3).
 */
import type { Problem } from '../lookups/parse/problems.js';
import { type SlashCommand, usageLine } from './help.js';
import type { Words } from './i18n/words.js';
import { context, message, type RenderedMessage, section } from './kit.js';
import { escapeClip } from './text.js';
import { describeProblem } from './words-of.js';

export function renderInvalidInput(
  w: Words,
  command: SlashCommand,
  problems: readonly Problem[],
): RenderedMessage {
  const { t } = w;
  const texts = problems.map((p) => describeProblem(w, p));
  const list = texts.slice(0, 10).map((p) => t('invalid.problem', { text: escapeClip(p, 400) }));
  // The fallback text is mrkdwn too, and a problem may quote the input (`unknown option …`).
  return message(
    t('invalid.fallback', { command, problem: escapeClip(texts[0] ?? t('invalid.unknown'), 400) }),
    [
      section(t('invalid.title', { problems: list.join('\n') })),
      section(t('invalid.usage', { usage: usageLine(w, command), command })),
      context(t('common.nothingCharged')),
    ],
  );
}
