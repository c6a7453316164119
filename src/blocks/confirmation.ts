/**
 * The charge confirmation (DESIGN rule 2 and the interface contract): what will be queried, what
 * each call costs and the total, a primary button whose label starts with "Confirm" (in English)
 * and a "Cancel" button, both carrying only the pending lookup id.
 */
import type { CapFigure } from '../lookups/budgets.js';
import type { InterruptedTruth } from '../lookups/interrupted.js';
import type { LookupRequest, Quote, QuoteLine } from '../lookups/types.js';
import { ACTIONS } from './action-ids.js';
import { quoteShort } from './charge-note.js';
import type { Words } from './i18n/words.js';
import { actions, button, buttonValue, context, message, type RenderedMessage, section } from './kit.js';
import { packSections } from './limits.js';
import { escapeClip } from './text.js';
import { describeCap, describeRequest, describeSubject, operationLabel } from './words-of.js';

export interface ConfirmationInput {
  /** The pending lookup's id: the only thing the buttons carry. */
  pendingId: string;
  /** What will be queried: worded here ("item 6543210987"). */
  request: LookupRequest;
  quote: Quote;
  expiresInMinutes: number;
  /** Caps at 80 % or more. */
  warnings?: readonly CapFigure[];
  /**
   * An AI client's tool call (MCP, issue 37): which client asks with which of the person's
   * tokens, said first; its buttons are the MCP ones (Confirm, Deny) whose click answers the client.
   */
  mcp?: { client: string; token: string };
}

/** The price of a line's calls as the user should read it ("per call" only when there are several). */
function perCall(w: Words, line: QuoteLine): string {
  const { t } = w;
  if (line.unit === 'quota') return t('confirm.quotaPerCall', { count: line.calls, n: w.count(line.calls) });
  const { configuredPoints: configured, lastSeenPoints: last } = line;
  if (configured === null && last === null) return t('charge.priceUnknown');
  const estimate = configured ?? last ?? 0;
  let text = t(line.calls === 1 ? 'confirm.aboutTotal' : 'confirm.about', { points: w.points(estimate) });
  if (last !== null)
    text =
      configured === null
        ? t('confirm.asLastCharged', { text })
        : t('confirm.lastCharged', { text, last: w.points(last) });
  return line.calls === 1
    ? text
    : t('confirm.callsThen', {
        calls: t('common.calls', { count: line.calls, n: w.count(line.calls) }),
        text,
      });
}

function totalText(w: Words, quote: Quote): string {
  const { t } = w;
  const parts: string[] = [];
  if (quote.lines.some((l) => l.unit === 'points')) {
    parts.push(
      quote.totalPoints === null
        ? t('charge.priceUnknown')
        : t('confirm.aboutTotal', { points: w.points(quote.totalPoints) }),
    );
  }
  if (quote.quotaCalls > 0)
    parts.push(t('confirm.quotaPerCall', { count: quote.quotaCalls, n: w.count(quote.quotaCalls) }));
  if (parts.length === 0) return t('charge.noCharge');
  return parts.length === 1 ? (parts[0] ?? '') : t('confirm.and', { a: parts[0], b: parts[1] });
}

export function renderConfirmation(w: Words, input: ConfirmationInput): RenderedMessage {
  const { t } = w;
  const pendingId = buttonValue(input.pendingId);
  // What is looked up, named once (issue 35): "Item prices for item 680001234501: 1 quota call."
  const subject = escapeClip(describeSubject(w, input.request), 500);
  const labels = [...new Set(input.quote.lines.map((l) => operationLabel(w, l)))];
  const operations = labels.length > 0 ? w.list(labels) : t('common.lookup');
  const short = quoteShort(w, input.quote);
  const minutes = Math.max(1, Math.round(input.expiresInMinutes));
  const warnings = (input.warnings ?? []).slice(0, 4);
  const [only] = input.quote.lines;
  // One operation: one line says it all. Several: what is looked up, a line each, the total.
  const charges =
    only !== undefined && input.quote.lines.length === 1
      ? [
          section(
            `${t('confirm.title', { operations: escapeClip(operations, 300), summary: subject, price: perCall(w, only) })}\n${t('confirm.after')}`,
          ),
        ]
      : [
          section(t('confirm.titleMany', { summary: escapeClip(describeRequest(w, input.request), 500) })),
          ...packSections(
            input.quote.lines.map((l) =>
              t('confirm.line', { operation: operationLabel(w, l), price: perCall(w, l) }),
            ),
            { maxBlocks: 5, more: (n) => t('confirm.moreOperations', { count: n, n: w.count(n) }) },
          ),
          section(t('confirm.total', { total: totalText(w, input.quote) })),
        ];

  const mcp = input.mcp;
  const blocks = [
    ...(mcp
      ? [section(t('mcp.asks', { client: escapeClip(mcp.client, 100), token: escapeClip(mcp.token, 40) }))]
      : []),
    ...charges,
    ...(warnings.length > 0
      ? [
          context(
            ...warnings.map((cap) =>
              t('confirm.warning', {
                text: escapeClip(t('confirm.capWarning', { cap: describeCap(w, cap) }), 300),
              }),
            ),
          ),
        ]
      : []),
    actions([
      button({
        label: t('confirm.confirmButton', { short }),
        actionId: mcp ? ACTIONS.mcpConfirm : ACTIONS.confirm,
        value: pendingId,
        style: 'primary',
      }),
      mcp
        ? button({ label: t('mcp.deny'), actionId: ACTIONS.mcpDeny, value: pendingId, style: 'danger' })
        : button({ label: t('confirm.cancelButton'), actionId: ACTIONS.cancel, value: pendingId }),
    ]),
    context(t('confirm.expires', { count: minutes, n: w.count(minutes) })),
  ];
  return message(
    t('confirm.fallback', { operations: escapeClip(operations, 150), summary: subject, short }),
    blocks,
    2,
  );
}

export type ConfirmationClosedReason =
  | 'cancelled'
  | 'expired'
  | 'already_used'
  | 'not_yours'
  | 'running'
  | 'interrupted'
  // Unknown id: forged, or pruned (CONFIRMATION_KEEP_MS) after it expired or ran.
  | 'not_found';

/** What replaces (or answers) a confirmation that can no longer be used. */
export function renderConfirmationClosed(w: Words, reason: ConfirmationClosedReason): RenderedMessage {
  const text = w.t(`confirm.closed.${reason}`);
  return message(text, [section(text)]);
}

/**
 * A confirmed lookup cut off from its holder (lookups/interrupted.ts), told as far as it is
 * known: not sent (nothing charged; a fresh confirmation follows when `offerAgain`, else how to
 * run it), or sent (never offered again): what the ledger holds for it, and whether its answer
 * follows or was lost.
 */
export function renderInterrupted(
  w: Words,
  request: LookupRequest,
  truth: InterruptedTruth,
  options: { offerAgain: boolean },
): RenderedMessage {
  const { t } = w;
  const summary = escapeClip(describeRequest(w, request), 500);
  const lines: string[] = [];
  if (!truth.sent) {
    lines.push(t('confirm.interruptedNotSent', { summary }));
    lines.push(t(options.offerAgain ? 'confirm.interruptedRunBelow' : 'confirm.interruptedRunAgain'));
  } else {
    const { points, quotaCalls, calls } = truth.charged;
    const quota = () => t('error.quotaCalls', { count: quotaCalls, n: w.count(quotaCalls) });
    // Every call it made went unanswered: no figure it shows would be what was charged.
    if (calls > 0 && truth.costUnknown === calls)
      lines.push(t('confirm.interruptedCostUnknown', { summary }));
    // Cut just as its call was about to leave: it may never have reached the service.
    else if (calls === 0 && truth.maybeNotSent > 0)
      lines.push(t('confirm.interruptedMaybeNotSent', { summary }));
    else if (points > 0 || quotaCalls > 0) {
      const cost =
        points > 0 && quotaCalls > 0
          ? t('error.chargedAndQuota', { points: w.points(points), quota: quota() })
          : points > 0
            ? t('error.chargedPoints', { points: w.points(points) })
            : t('error.costQuota', { quota: quota() });
      lines.push(t('confirm.interruptedCharged', { summary, cost }));
    } else if (calls > 0) lines.push(t('confirm.interruptedNoCharge', { summary }));
    else lines.push(t('confirm.interruptedChargeUnknown', { summary }));
    lines.push(t(truth.answer ? 'confirm.interruptedAnswerBelow' : 'confirm.interruptedAnswerLost'));
  }
  const text = w.sentences(lines);
  return message(text, [section(text)]);
}

/** "Looking up item 6543210987…": what replaces the confirmation while the call runs. */
export function lookingUpText(w: Words, request: LookupRequest): string {
  return w.t('confirm.lookingUp', { summary: escapeClip(describeRequest(w, request), 500) });
}
