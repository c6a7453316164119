/**
 * What an answer cost (DESIGN rule 2: after the call the answer states the actual charge), and
 * the short charge of a quote used on Confirm and pager buttons.
 */
import type { ContextBlock } from '@slack/types';
import type { Quote } from '../lookups/types.js';
import { context } from './kit.js';
import { formatAge, formatPoints, plural } from './text.js';

export interface ChargeNote {
  /** Sum of withholding_money reported for the answer, in points. */
  chargedPoints: number;
  /** Calls of the item quota used. */
  quotaCalls: number;
  /** Set when the answer came from the cache: nothing was called. */
  cached?: { ageMs: number };
  /** Set when an identical lookup was already running and its answer was shared: nothing was called. */
  shared?: boolean;
  /** Attempts sent, when a call was retried: the charge above is their sum. */
  attempts?: number;
}

/**
 * "Charged 10 points (¥0.10)", "Used 1 call of the item quota", "Charged 9 points (¥0.09) over
 * 3 attempts", "From cache, 5 min old: no charge".
 */
export function chargeNoteText(note: ChargeNote): string {
  if (note.cached) return `From cache, ${formatAge(note.cached.ageMs)} old: no charge`;
  if (note.shared) return 'Shared with the same lookup already running: no charge';
  const parts: string[] = [];
  if (note.chargedPoints > 0) parts.push(`Charged ${formatPoints(note.chargedPoints)}`);
  if (note.quotaCalls > 0) parts.push(`Used ${plural(note.quotaCalls, 'call')} of the item quota`);
  const over = note.attempts !== undefined && note.attempts > 1 ? ` over ${note.attempts} attempts` : '';
  return parts.length > 0 ? `${parts.join(' · ')}${over}` : `No charge reported (0 points)${over}`;
}

export function renderChargeNote(note: ChargeNote): ContextBlock {
  return context(`:receipt: ${chargeNoteText(note)}`);
}

/**
 * A quote in a few words for a button label: "10 points", "1 quota call",
 * "10 points + 1 quota call", "price not known yet" or "no charge".
 */
export function quoteShort(quote: Quote): string {
  const parts: string[] = [];
  const hasPoints = quote.lines.some((l) => l.unit === 'points');
  if (hasPoints)
    parts.push(quote.totalPoints === null ? 'price not known yet' : plural(quote.totalPoints, 'point'));
  if (quote.quotaCalls > 0) parts.push(plural(quote.quotaCalls, 'quota call'));
  return parts.length > 0 ? parts.join(' + ') : 'no charge';
}
