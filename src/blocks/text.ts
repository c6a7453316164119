/**
 * Text helpers for Block Kit: escaping, length-safe cutting, links and money.
 *
 * Lengths are counted in UTF-16 code units (`string.length`), never fewer than the code points
 * Slack may count, so a text cut here fits whichever way Slack counts; cuts never split a
 * surrogate pair, an entity (`&amp;`) or a link (`<url|label>`).
 */

import { localDateOf, localTimeOf } from '../digest/zoned-time.js';

const ELLIPSIS = '…';

/**
 * Slack mrkdwn escaping (https://docs.slack.dev/messaging/formatting-message-text#escaping):
 * only `&`, `<` and `>`, so API and user text can never mention (`<!channel>`, `<@U1>`) or link.
 */
export function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
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
  return out + ELLIPSIS;
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
  return cut + ELLIPSIS;
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

const YUAN = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "¥59.00", "¥12,345.00", "-¥1.50"; "¥—" for a value that is not a finite number. */
export function formatYuan(yuan: number): string {
  if (!Number.isFinite(yuan)) return '¥—';
  const text = YUAN.format(Math.abs(yuan));
  return yuan < 0 && text !== '0.00' ? `-¥${text}` : `¥${text}`;
}

function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(2)));
}

/** "12 points (¥0.12)", "1 point (¥0.01)": 1 point = 1 fen = 0.01 yuan (spec/notes.md). */
export function formatPoints(points: number): string {
  return `${formatCount(points)} ${points === 1 ? 'point' : 'points'} (${formatYuan(points / 100)})`;
}

/** "1 call", "3 calls". */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : pluralForm}`;
}

const SHANGHAI = new Intl.DateTimeFormat('en-US', {
  timeZone: 'Asia/Shanghai',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** "2026-11-20 14:03" in Asia/Shanghai, the marketplaces' time zone; "—" for an invalid date. */
export function formatShanghaiTime(date: Date): string {
  if (Number.isNaN(date.getTime())) return '—';
  const part: Record<string, string> = {};
  for (const p of SHANGHAI.formatToParts(date)) part[p.type] = p.value;
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}`;
}

/** "2026-11-20 14:03 UTC+8": an order's time with its zone (the marketplaces' China time). */
export function formatOrderTime(date: Date): string {
  const text = formatShanghaiTime(date);
  return text === '—' ? text : `${text} UTC+8`;
}

/** "2026-11-20 14:03" in `timeZone` (a view that states its zone once); "—" for an invalid date. */
export function formatTimeIn(date: Date, timeZone: string): string {
  const ms = date.getTime();
  if (Number.isNaN(ms)) return '—';
  return `${localDateOf(ms, timeZone)} ${localTimeOf(ms, timeZone)}`;
}

/** "under a minute", "5 min", "3 h", "2 days": how old a cached answer is. */
export function formatAge(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} days`;
}
