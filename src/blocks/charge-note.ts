/**
 * What an answer cost (DESIGN rule 2: after the call the answer states the actual charge), and
 * the short charge of a quote used on Confirm and pager buttons.
 */
import type { ContextBlock } from '@slack/types';
import type { Quote } from '../lookups/types.js';
import type { Words } from './i18n/words.js';
import { context } from './kit.js';

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
export function chargeNoteText(w: Words, note: ChargeNote): string {
  const { t } = w;
  if (note.cached) return t('charge.fromCache', { age: w.age(note.cached.ageMs) });
  if (note.shared) return t('charge.shared');
  const parts: string[] = [];
  if (note.chargedPoints > 0) parts.push(t('charge.charged', { points: w.points(note.chargedPoints) }));
  if (note.quotaCalls > 0)
    parts.push(t('charge.quotaUsed', { count: note.quotaCalls, n: w.count(note.quotaCalls) }));
  const text = parts.length > 0 ? parts.join(t('common.sep')) : t('charge.noneReported');
  return note.attempts !== undefined && note.attempts > 1
    ? t('charge.overAttempts', { text, n: w.count(note.attempts) })
    : text;
}

export function renderChargeNote(w: Words, note: ChargeNote): ContextBlock {
  return context(w.t('charge.note', { text: chargeNoteText(w, note) }));
}

/**
 * A quote in a few words for a button label: "10 points", "1 quota call",
 * "10 points + 1 quota call", "price not known yet" or "no charge".
 */
export function quoteShort(w: Words, quote: Quote): string {
  const { t } = w;
  const parts: string[] = [];
  const hasPoints = quote.lines.some((l) => l.unit === 'points');
  if (hasPoints)
    parts.push(
      quote.totalPoints === null
        ? t('charge.priceUnknown')
        : t('common.pointsShort', { count: quote.totalPoints, n: w.count(quote.totalPoints) }),
    );
  if (quote.quotaCalls > 0)
    parts.push(t('common.quotaCalls', { count: quote.quotaCalls, n: w.count(quote.quotaCalls) }));
  if (parts.length === 0) return t('charge.noCharge');
  return parts.length === 1 ? (parts[0] ?? '') : t('charge.plus', { a: parts[0], b: parts[1] });
}
