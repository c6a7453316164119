/**
 * Text helpers for Block Kit: escaping, length-safe cutting and links (numbers, money and dates
 * are formatted by the reader's Words, i18n/words.ts).
 *
 * Lengths are counted in UTF-16 code units (`string.length`), never fewer than the code points
 * Slack may count, so a text cut here fits whichever way Slack counts; cuts never split a
 * surrogate pair, an entity (`&amp;`) or a link (`<url|label>`).
 */

import { NONCHARACTERS, unclosedMarker } from './markers.js';

const ELLIPSIS = '…';

/**
 * Slack mrkdwn escaping (https://docs.slack.dev/messaging/formatting-message-text#escaping):
 * only `&`, `<` and `>`, so API and user text can never mention (`<!channel>`, `<@U1>`) or link.
 * Unicode noncharacters (U+FDD0–U+FDEF) are dropped: platdesk holds its own markers as such
 * (markers.ts), and foreign text must never pass for one.
 */
export function escapeText(text: string): string {
  return text
    .replace(NONCHARACTERS, '')
    .replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** Cuts `text` to at most `max` units, ending with '…' when cut; never splits a code point. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < 1) return '';
  let out = '';
  for (const cp of text) {
    if (out.length + cp.length > max - 1) break;
    out += cp;
  }
  return out + ELLIPSIS;
}

/** Escapes raw text and cuts the result to at most `max` units without splitting an entity. */
export function escapeClip(raw: string, max: number): string {
  const escaped = escapeText(raw);
  if (escaped.length <= max) return escaped;
  if (max < 1) return '';
  let out = '';
  for (const cp of raw) {
    const piece = escapeText(cp);
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return endCut(out, max);
}

/**
 * Cuts text that is already mrkdwn (escaped, possibly holding `<url|label>` links) to at most
 * `max` units, backing off so that neither a link nor an entity is left open.
 */
export function truncateMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = truncate(text, max).slice(0, -1);
  const open = cut.lastIndexOf('<');
  if (open > cut.lastIndexOf('>')) cut = cut.slice(0, open);
  const amp = cut.lastIndexOf('&');
  if (amp > cut.lastIndexOf(';') && amp >= cut.length - 5) cut = cut.slice(0, amp);
  return endCut(cut, max);
}

/**
 * `cut` (at most `max - 1` units) and "…", leaving neither a bold or code span open nor a closing
 * marker against the "…", where Slack would show it as a character (markers.ts).
 */
function endCut(text: string, max: number): string {
  let cut = text;
  for (;;) {
    const unclosed = unclosedMarker(cut);
    if (unclosed >= 0) cut = cut.slice(0, unclosed);
    if (!/[*_~`]$/.test(cut)) return cut + ELLIPSIS;
    if (cut.length + 2 <= max) return `${cut} ${ELLIPSIS}`;
    cut = cut.slice(0, -1);
  }
}

/** Slack rejects longer URLs in buttons and images. */
const MAX_URL = 3000;

/**
 * An absolute http(s) URL in normalized, ASCII form (WHATWG URL percent-encodes spaces, `<`, `>`
 * and non-ASCII), with `|` encoded too so it cannot end the URL part of `<url|label>`; null for
 * anything else (javascript:, relative, too long).
 */
export function safeUrl(
  raw: string | null | undefined,
  options: { httpsOnly?: boolean } = {},
): string | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && (options.httpsOnly === true || url.protocol !== 'http:')) return null;
  // Credentials in a link would be shown to everyone who hovers it.
  url.username = '';
  url.password = '';
  const href = url.href.replaceAll('|', '%7C');
  return href.length <= MAX_URL ? href : null;
}

/**
 * `<url|label>` for an http(s) URL, with the label escaped; only the escaped label when the URL
 * is not a usable http(s) URL, so foreign text can never produce some other kind of link.
 */
export function mrkdwnLink(url: string | null | undefined, label: string): string {
  const href = safeUrl(url);
  const text = escapeText(label.replace(/[\r\n]+/g, ' '));
  if (href === null) return text;
  return `<${escapeText(href)}|${text || escapeText(href)}>`;
}
