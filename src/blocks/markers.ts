/**
 * Bold, italic, strikethrough and code that render next to Chinese text (issue 23).
 *
 * Slack's mrkdwn (https://docs.slack.dev/messaging/formatting-message-text#basic-formatting)
 * writes `*bold*`, `_italic_`, `~strike~` and `` `code` ``. Its docs do not spell out where a
 * marker may stand, but Slack only takes a pair as formatting when it sits at word boundaries
 * (reported for CJK text in https://github.com/seratch/ChatGPT-in-Slack/issues/61, fixed there by
 * spacing the markers, https://github.com/seratch/ChatGPT-in-Slack/pull/121). The rule modelled
 * here, conservatively:
 *
 *  - an opening marker is followed by a non-space, and stands at the start of a line or after
 *    ASCII whitespace or ASCII punctuation;
 *  - a closing marker is preceded by a non-space, and stands at the end of a line or before ASCII
 *    whitespace or ASCII punctuation;
 *  - a pair never spans lines; inside `code` nothing else is a marker.
 *
 * A Chinese character or full-width punctuation (，。：（) is no boundary, so `*店铺：*蜂蜜` or
 * `使用*商品详情*查询` show their asterisks. A pair inside an ASCII word (`PLAT_BASE_URL`,
 * `not_in_channel`) is literal by design and not a marker.
 *
 * How platdesk keeps its markers working: the markers platdesk writes (in catalog texts, or with
 * `bold`/`code`/`strike` below) are held as sentinels while values are filled in, and
 * `resolveMarkers` then writes each marker with an ASCII space outside it wherever the
 * neighbouring character is not a boundary: a Latin word or a number set off from Chinese by a
 * space is how Chinese is typeset anyway. Between two Chinese characters, or beside full-width
 * punctuation, a space is a blemish (issue 35: "需调用 商品详情 接口", "合计： 约 2 点"): there a
 * bold, italic or struck pair is dropped instead, and the words stand plain. Code is never
 * dropped (a command must stay a command); catalog texts keep it away from full-width
 * punctuation. Foreign text (titles, remarks) is never changed. `markerProblems` is the same
 * rule as a checker, for the tests.
 */

export type Marker = '*' | '_' | '~' | '`';
const MARKERS: readonly Marker[] = ['*', '_', '~', '`'];

/**
 * Sentinels: Unicode noncharacters (U+FDD0…), which are reserved for a program's internal use and
 * never stand in interchanged text (escapeText removes any that foreign text carries).
 */
const OPEN: Record<Marker, string> = { '*': '\uFDD0', _: '\uFDD2', '~': '\uFDD4', '`': '\uFDD6' };
const CLOSE: Record<Marker, string> = { '*': '\uFDD1', _: '\uFDD3', '~': '\uFDD5', '`': '\uFDD7' };
const SENTINEL_OF = new Map<string, { marker: Marker; open: boolean }>(
  MARKERS.flatMap((m) => [
    [OPEN[m], { marker: m, open: true }],
    [CLOSE[m], { marker: m, open: false }],
  ]),
);
/** Every noncharacter of the U+FDD0–U+FDEF block, sentinels included. */
export const NONCHARACTERS = /[\uFDD0-\uFDEF]/g;

/** ASCII whitespace or ASCII punctuation: where Slack lets a marker open or close. */
export function isBoundary(ch: string | undefined): boolean {
  return ch === undefined || /^[ \t\r\n!-/:-@[-`{-~]$/.test(ch);
}
const isAsciiWord = (ch: string | undefined) => ch !== undefined && /^[A-Za-z0-9]$/.test(ch);
const isSpace = (ch: string | undefined) => ch === undefined || /^\s$/.test(ch);

/** `*text*` as platdesk's own bold: spaced by `resolveMarkers` where it touches CJK text. */
export const bold = (text: string) => `${OPEN['*']}${text}${CLOSE['*']}`;
/** `` `text` `` as platdesk's own code span. */
export const code = (text: string) => `${OPEN['`']}${text}${CLOSE['`']}`;
/** `~text~` as platdesk's own strikethrough. */
export const strike = (text: string) => `${OPEN['~']}${text}${CLOSE['~']}`;

interface Pair {
  marker: Marker;
  open: number;
  close: number;
}

/**
 * The marker pairs of one line and its lone markers, as Slack would pair them before checking
 * boundaries. Links and mentions (`<…>`), placeholders (`{{…}}`) and the names of emoji codes
 * (`:white_check_mark:`) hold no markers.
 */
function scanLine(line: string): { pairs: Pair[]; lone: number[] } {
  // Indices are UTF-16 units: protected spans are masked with fillers of the same length.
  let masked = line
    .replace(/<[^<>\n]*>|\{\{[^{}]*\}\}/g, (m) => '\u0001'.repeat(m.length))
    .replace(/:[a-z0-9+-]*_[a-z0-9_+-]*:/g, (m) => `:${'e'.repeat(m.length - 2)}:`);
  const pairs: Pair[] = [];
  const lone: number[] = [];
  // Code spans first (``` blocks are not used by platdesk and are left alone).
  if (!masked.includes('```')) {
    const ticks = [...masked.matchAll(/`/g)].map((m) => m.index);
    for (let k = 0; k + 1 < ticks.length; k += 2) {
      const open = ticks[k] as number;
      const close = ticks[k + 1] as number;
      pairs.push({ marker: '`', open, close });
      masked = masked.slice(0, open + 1) + 'c'.repeat(close - open - 1) + masked.slice(close);
    }
    if (ticks.length % 2 === 1) lone.push(ticks[ticks.length - 1] as number);
  }
  for (const marker of ['*', '_', '~'] as const) {
    let i = 0;
    while (i < masked.length) {
      if (masked[i] !== marker) {
        i++;
        continue;
      }
      const opens = !isSpace(masked[i + 1]) && masked[i + 1] !== marker;
      let close = -1;
      if (opens) {
        for (let j = i + 2; j < masked.length; j++) {
          if (masked[j] === marker && !isSpace(masked[j - 1])) {
            close = j;
            break;
          }
        }
      }
      if (close < 0) {
        lone.push(i);
        i++;
        continue;
      }
      if (isAsciiWord(masked[i - 1]) && isAsciiWord(masked[close + 1])) {
        // Inside a word (PLAT_BASE_URL, 2*3*4): literal characters, not a marker pair.
        i = close;
        continue;
      }
      pairs.push({ marker, open: i, close });
      i = close + 1;
    }
  }
  return { pairs, lone };
}

/**
 * A catalog text with its marker pairs held as sentinels, so that `resolveMarkers` can space them
 * once the values are in. Lone markers (`~12 points`) stay as they are.
 */
export function holdMarkers(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const { pairs } = scanLine(line);
      if (pairs.length === 0) return line;
      const out = line.split('');
      for (const p of pairs) {
        out[p.open] = OPEN[p.marker];
        out[p.close] = CLOSE[p.marker];
      }
      return out.join('');
    })
    .join('\n');
}

/** Full-width punctuation: no space goes beside it. */
const FULL_WIDTH = /^[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65“”‘’]$/;
const HAN = /^\p{Script=Han}$/u;
/** Where a space beside a marker would be a blemish: between Chinese, or beside full-width punctuation. */
const spaceUnwanted = (inner: string | undefined, outer: string | undefined) =>
  outer !== undefined &&
  (FULL_WIDTH.test(outer) ||
    (inner !== undefined && (FULL_WIDTH.test(inner) || (HAN.test(inner) && HAN.test(outer)))));

/**
 * Held pairs of bold, italic or strikethrough that would need a space where none may stand
 * (spaceUnwanted): their sentinels are removed, leaving the words plain.
 */
function dropUnspaceable(source: string): string {
  const drop = new Set<number>();
  const open = new Map<Marker, number>();
  const isHeld = (ch: string | undefined) => ch !== undefined && SENTINEL_OF.has(ch);
  const before = (i: number) => {
    let k = i - 1;
    while (k >= 0 && isHeld(source[k])) k--;
    return source[k];
  };
  const after = (i: number) => {
    let k = i + 1;
    while (k < source.length && isHeld(source[k])) k++;
    return source[k];
  };
  for (let i = 0; i < source.length; i++) {
    const held = SENTINEL_OF.get(source[i] as string);
    if (!held || held.marker === '`') continue;
    if (held.open) {
      open.set(held.marker, i);
      continue;
    }
    const start = open.get(held.marker);
    if (start === undefined) continue;
    open.delete(held.marker);
    const inner = source
      .slice(start + 1, i)
      .replace(/[\uFDD0-\uFDD7]/g, '')
      .trim();
    const outerBefore = before(start);
    const outerAfter = after(i);
    const openNeeds = outerBefore !== undefined && !isBoundary(outerBefore);
    const closeNeeds = outerAfter !== undefined && !/\s/.test(outerAfter) && !isBoundary(outerAfter);
    if (
      (openNeeds && spaceUnwanted(inner[0], outerBefore)) ||
      (closeNeeds && spaceUnwanted(inner.at(-1), outerAfter))
    ) {
      drop.add(start);
      drop.add(i);
    }
  }
  if (drop.size === 0) return source;
  return source
    .split('')
    .filter((_, i) => !drop.has(i))
    .join('');
}

/**
 * Writes the held markers: an ASCII space goes outside a marker whose neighbour is not a boundary
 * (a Chinese character next to a Latin word or a number), a pair that would need a space between
 * Chinese characters or beside full-width punctuation is dropped, spaces just inside a marker
 * move outside it, and a pair around nothing is dropped.
 */
export function resolveMarkers(text: string): string {
  if (!/[\uFDD0-\uFDD7]/.test(text)) return text;
  let source = text;
  for (const m of MARKERS) source = source.replace(new RegExp(`${OPEN[m]}\\s*${CLOSE[m]}`, 'g'), '');
  source = dropUnspaceable(source);
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    const held = SENTINEL_OF.get(ch);
    if (!held) {
      out += ch;
      continue;
    }
    if (held.open) {
      const before = out.at(-1);
      if (before !== undefined && !isBoundary(before)) out += ' ';
      out += held.marker;
      while (source[i + 1] === ' ') i++;
    } else {
      const trimmed = out.replace(/ +$/, '');
      const moved = trimmed.length < out.length;
      out = trimmed + held.marker;
      const next = source[i + 1];
      const nextHeld = next === undefined ? undefined : SENTINEL_OF.get(next);
      if (next !== undefined && !nextHeld && !/\s/.test(next) && (moved || !isBoundary(next))) out += ' ';
    }
  }
  return out;
}

/**
 * Where the last line of a text opens a `*`, `~` or backtick span it never closes (a text cut
 * short), or -1: a cut backs off to there so that no marker is left showing.
 */
export function unclosedMarker(text: string): number {
  const start = text.lastIndexOf('\n') + 1;
  const line = text.slice(start);
  const open = scanLine(line).lone.filter(
    (i) => line[i] !== '_' && (i === line.length - 1 || !isSpace(line[i + 1])),
  );
  return open.length > 0 ? start + Math.min(...open) : -1;
}

/**
 * The markers in a mrkdwn text that Slack would show as characters instead of formatting: a pair
 * whose opening or closing marker touches a non-boundary, or a lone `*`, `~` or backtick (a lone
 * `_` beside a letter or digit is part of an identifier such as `PLAT_TOKEN`). Each problem names
 * the line and the marker.
 */
export function markerProblems(text: string): string[] {
  const problems: string[] = [];
  for (const line of text.split('\n')) {
    const { pairs, lone } = scanLine(line);
    for (const p of pairs) {
      const before = line[p.open - 1];
      const after = line[p.close + 1];
      if (!isBoundary(before) || !isBoundary(after)) {
        const what = isBoundary(before)
          ? `closing ${p.marker} before "${after}"`
          : `opening ${p.marker} after "${before}"`;
        problems.push(`${what}: ${line}`);
      }
    }
    for (const i of lone) {
      const marker = line[i];
      const before = line[i - 1];
      const after = line[i + 1];
      if (isSpace(before) && isSpace(after)) continue;
      if (isAsciiWord(before) && isAsciiWord(after)) continue;
      if (marker === '_' && (isAsciiWord(before) || isAsciiWord(after))) continue;
      problems.push(`lone ${marker}: ${line}`);
    }
  }
  return problems;
}
