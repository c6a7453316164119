/**
 * Answers of spend control: a cached answer's Refresh button, and a refusal that says why and
 * who to ask.
 */
import type { Quote } from '../lookups/types.js';
import { ACTIONS } from './action-ids.js';
import { quoteShort } from './charge-note.js';
import { actions, button, context, message, type RenderedMessage, section } from './kit.js';
import { escapeClip } from './text.js';

/** Appends `Refresh (charge)` to a cached answer; the button claims a pending lookup like Confirm. */
export function withRefreshButton(answer: RenderedMessage, refreshId: string, quote: Quote): RenderedMessage {
  const refresh = actions([
    button({ label: `Refresh (${quoteShort(quote)})`, actionId: ACTIONS.refresh, value: refreshId }),
  ]);
  return message(answer.text, [...answer.blocks.slice(0, 49), refresh], 2);
}

/** A lookup that was not allowed or would exceed a cap: nothing was sent. */
export function renderRefusal(reason: string, admins: readonly string[]): RenderedMessage {
  const ask =
    admins.length > 0
      ? `Ask an admin: ${admins
          .slice(0, 10)
          .filter((id) => /^[UW][A-Z0-9]+$/.test(id))
          .map((id) => `<@${id}>`)
          .join(', ')}.`
      : 'Ask a platdesk admin (PLATDESK_ADMINS).';
  return message(`Not looked up: ${escapeClip(reason, 1000)}`, [
    section(`:no_entry: *Not looked up*\n${escapeClip(reason, 1000)}`),
    context(`${ask} Nothing was sent and nothing was charged.`),
  ]);
}
