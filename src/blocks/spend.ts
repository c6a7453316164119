/**
 * Answers of spend control: a cached answer's Refresh button, and a refusal that says why and
 * who to ask.
 */
import type { Refusal } from '../lookups/access.js';
import type { Quote } from '../lookups/types.js';
import { ACTIONS } from './action-ids.js';
import { quoteShort } from './charge-note.js';
import type { Words } from './i18n/words.js';
import { actions, button, context, message, type RenderedMessage, section } from './kit.js';
import { escapeClip } from './text.js';
import { describeRefusal } from './words-of.js';

/** Appends `Refresh (charge)` to a cached answer; the button claims a pending lookup like Confirm. */
export function withRefreshButton(
  w: Words,
  answer: RenderedMessage,
  refreshId: string,
  quote: Quote,
): RenderedMessage {
  const refresh = actions([
    button({
      label: w.t('confirm.refresh', { short: quoteShort(w, quote) }),
      actionId: ACTIONS.refresh,
      value: refreshId,
    }),
  ]);
  return message(answer.text, [...answer.blocks.slice(0, 49), refresh], 2);
}

/** A lookup that was not allowed or would exceed a cap: nothing was sent. */
export function renderRefusal(w: Words, refusal: Refusal, admins: readonly string[]): RenderedMessage {
  const { t } = w;
  const reason = escapeClip(describeRefusal(w, refusal), 1000);
  // A page past the last is nobody's permission to give: no admin to ask.
  const footer =
    refusal.reason === 'page_past_last'
      ? t('common.nothingCharged')
      : t('refusal.footer', { ask: askAdmins(w, admins) });
  return message(t('refusal.fallback', { reason }), [
    section(t('refusal.title', { reason })),
    context(footer),
  ]);
}

/** "Ask an admin: @a, @b." (the first ten), or who to ask when no admin is known. */
export function askAdmins(w: Words, admins: readonly string[]): string {
  const named = admins
    .slice(0, 10)
    .filter((id) => /^[UW][A-Z0-9]+$/.test(id))
    .map((id) => `<@${id}>`);
  return named.length > 0 ? w.t('refusal.askAdmins', { admins: w.join(named) }) : w.t('refusal.askAnyAdmin');
}
