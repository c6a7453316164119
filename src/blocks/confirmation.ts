/**
 * The charge confirmation (DESIGN rule 2 and the interface contract): what will be queried, what
 * each call costs and the total, a primary button whose label starts with "Confirm" and a
 * "Cancel" button, both carrying only the pending lookup id.
 */
import type { Quote, QuoteLine } from '../lookups/types.js';
import { editionName, OPERATIONS } from '../plat/operations.js';
import { ACTIONS } from './action-ids.js';
import { quoteShort } from './charge-note.js';
import { actions, button, buttonValue, context, message, type RenderedMessage, section } from './kit.js';
import { packSections } from './limits.js';
import { escapeClip, formatPoints, plural } from './text.js';

export interface ConfirmationInput {
  /** The pending lookup's id: the only thing the buttons carry. */
  pendingId: string;
  /** What will be queried, e.g. "item 6543210987" (raw text; escaped here). */
  summary: string;
  quote: Quote;
  expiresInMinutes: number;
  /** Budget warnings (a cap at 80 % or more), raw text; escaped here. */
  warnings?: readonly string[];
}

/** "Waybill print data (basic)". */
export function operationLabel(line: Pick<QuoteLine, 'operation' | 'edition'>): string {
  const edition = editionName(line.operation, line.edition);
  return edition ? `${OPERATIONS[line.operation].title} (${edition})` : OPERATIONS[line.operation].title;
}

/** The price of one call as the user should read it. */
function perCall(line: QuoteLine): string {
  if (line.unit === 'quota') return `${plural(line.calls, 'call')} of the quota`;
  const { configuredPoints: configured, lastSeenPoints: last } = line;
  if (configured === null && last === null) return 'price not known yet';
  const estimate = configured ?? last ?? 0;
  let text = `about ${formatPoints(estimate)} per call`;
  if (last !== null) text += configured === null ? ', as last charged' : `, last charged ${last}`;
  return line.calls === 1 ? text : `${plural(line.calls, 'call')}, ${text}`;
}

function quoteLineText(line: QuoteLine): string {
  return `• *${operationLabel(line)}*: ${perCall(line)}`;
}

function totalText(quote: Quote): string {
  const parts: string[] = [];
  if (quote.lines.some((l) => l.unit === 'points')) {
    parts.push(
      quote.totalPoints === null ? 'price not known yet' : `about ${formatPoints(quote.totalPoints)}`,
    );
  }
  if (quote.quotaCalls > 0) parts.push(`${plural(quote.quotaCalls, 'call')} of the quota`);
  return parts.length > 0 ? parts.join(' and ') : 'no charge';
}

export function renderConfirmation(input: ConfirmationInput): RenderedMessage {
  const pendingId = buttonValue(input.pendingId);
  const summary = escapeClip(input.summary, 500);
  const operations = [...new Set(input.quote.lines.map(operationLabel))].join(', ') || 'Lookup';
  const short = quoteShort(input.quote);
  const minutes = Math.max(1, Math.round(input.expiresInMinutes));

  const blocks = [
    section(`:money_with_wings: *${escapeClip(operations, 300)}* for ${summary} costs:`),
    ...packSections(input.quote.lines.map(quoteLineText), {
      maxBlocks: 5,
      more: (n) => `…and ${n} more operations`,
    }),
    section(`*Total:* ${totalText(input.quote)}. The answer will state the actual charge.`),
    ...(input.warnings && input.warnings.length > 0
      ? [context(...input.warnings.slice(0, 4).map((w) => `:warning: ${escapeClip(w, 300)}`))]
      : []),
    actions([
      button({ label: `Confirm (${short})`, actionId: ACTIONS.confirm, value: pendingId, style: 'primary' }),
      button({ label: 'Cancel', actionId: ACTIONS.cancel, value: pendingId }),
    ]),
    context(`Expires in ${plural(minutes, 'minute')}. Nothing is charged until you confirm.`),
  ];
  return message(`Confirm ${escapeClip(operations, 150)} for ${summary}: ${short}`, blocks, 2);
}

export type ConfirmationClosedReason =
  | 'cancelled'
  | 'expired'
  | 'already_used'
  | 'not_yours'
  | 'running'
  | 'interrupted'
  | 'not_found';

const CLOSED: Record<ConfirmationClosedReason, string> = {
  cancelled: ':no_entry_sign: Cancelled. Nothing was charged.',
  expired: ':hourglass: This confirmation has expired and nothing was charged. Run the command again.',
  already_used: ':white_check_mark: This confirmation was already used; the lookup runs only once.',
  not_yours: ':lock: This confirmation belongs to someone else. Run the command yourself to look it up.',
  running: ':hourglass_flowing_sand: Looking it up…',
  // Unknown id: forged, or pruned (CONFIRMATION_KEEP_MS) after it expired or ran.
  not_found:
    ':hourglass: This button is no longer valid (it expired, or is older than platdesk keeps). ' +
    'This click charged nothing. Run the command again if you still need it.',
  interrupted:
    ':warning: This lookup was interrupted by a platdesk restart before its answer arrived and was not run again. ' +
    'It may have been charged: `/platdesk usage` shows your spend. Run the command again if you still need it.',
};

/**
 * A confirmed lookup cut by a crash or restart: what happened (not run again), that it may have
 * been charged, and how to run it again. `offerAgain`: a fresh confirmation follows this message.
 */
export function renderInterrupted(summary: string, options: { offerAgain: boolean }): RenderedMessage {
  const what = escapeClip(summary, 500);
  const again = options.offerAgain
    ? 'To run it again, confirm the new request below.'
    : 'To run it again, use the same command again: it asks you to confirm the charge first.';
  const text =
    `:warning: Your lookup of ${what} was interrupted by a platdesk restart before its answer arrived, ` +
    'and it was not run again. It may have been charged: `/platdesk usage` shows your spend. ' +
    again;
  return message(text, [section(text)]);
}

/** What replaces (or answers) a confirmation that can no longer be used. */
export function renderConfirmationClosed(reason: ConfirmationClosedReason): RenderedMessage {
  return message(CLOSED[reason], [section(CLOSED[reason])]);
}
