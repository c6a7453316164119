/**
 * What a bilingual support lead would mark in a message platdesk wrote (issue 35): a phrase said
 * twice ("Item prices for prices of item"), an internal name shown to people (an enum value,
 * an operation id, "first marketplace"), half-width punctuation beside Chinese, spaces around a
 * Chinese bold term or after full-width punctuation ("需调用 商品详情 接口", "商品详情： 额度"),
 * an ISO date or `Asia/Shanghai` in Chinese prose. Code spans, links and emoji codes are
 * commands and data, not prose: they are left out first.
 *
 * Used over every render of every renderer in both languages (test/blocks/wording.test.ts) and
 * over every message, view and unfurl the app sends the local Slack in any test
 * (slack-api-server.ts, test/helpers/block-kit/guard.ts), as Block Kit problems are.
 */
import { CATALOGS } from '../../src/blocks/i18n/words.js';

/** Chinese characters and full-width punctuation. */
const CJK = '\\p{Script=Han}\\u3000-\\u303f\\uff00-\\uffef';
const FULL_WIDTH_PUNCT = '，。：；！？、（）《》【】';
const CJK_CHAR = new RegExp(`[${CJK}]`, 'u');

/** The prose of a mrkdwn or plain text: code spans, links, mentions and emoji codes blanked. */
export function proseOf(text: string): string {
  return (
    text
      .replace(/```[\s\S]*?```/g, ' ')
      .replace(/`[^`\n]*`/g, '⌘')
      .replace(/<[^<>\n]*>/g, '⎘')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
      .replace(/https?:\/\/[^\s，。；）]+/g, '⎘')
      .replace(/:[a-z0-9_+-]+:/g, ' ')
      // A code the service or Slack gave, quoted as such (“not_in_channel”), is data.
      .replace(/[“"][\x21-\x7e]+[”"]/g, '⌘')
  );
}

/** Words a sentence may well say twice ("nothing was sent and nothing was charged" aside). */
const STOP = new Set(
  'a an and are as at be by for from has have in is it its may no not of on or the this that to was were will with you your'.split(
    ' ',
  ),
);

/** Prose words: ids, codes (all capitals) and paths are data, not words. */
function wordsOf(clause: string): string[] {
  return clause
    .split(/\s+/)
    .filter((t) => !/\d/.test(t))
    .map((t) => t.replace(/^[^A-Za-z]+|[^A-Za-z]+$/g, ''))
    .filter((t) => /^[A-Za-z][A-Za-z']*$/.test(t) && !/^[A-Z]{2,}$/.test(t))
    .map((t) => t.toLowerCase());
}

function doubled(given: string, strict: boolean): string[] {
  const found: string[] = [];
  // Receiver data hidden in a buyer's remark ("phone [phone number hidden]") is the buyer's word
  // beside the mask's, not a doubled phrase.
  const prose = given.replace(/\[[^\]]*hidden\]/gi, '⌘');
  for (const clause of prose.split(/[.,;:!?\n·—–]|[，。；：！？（）、]/u)) {
    const raw = clause.split(/\s+/).filter(Boolean);
    // A word said twice in a row: "the the" (ids such as "owner owner-1234" are data).
    for (let i = 0; i + 1 < raw.length; i++)
      if (/^[A-Za-z]{2,}$/.test(raw[i] ?? '') && raw[i]?.toLowerCase() === raw[i + 1]?.toLowerCase())
        found.push(`"${raw[i]} ${raw[i + 1]}" in "${clause.trim()}"`);
    const words = wordsOf(clause);
    // The same two words again a few words on: "shop id for the shop id", "print data (basic) for
    // print data" (a list of like things further apart, "your daily cap … the workspace daily cap",
    // is parallel, not doubled).
    const seen = new Map<string, number>();
    for (let i = 0; i + 1 < words.length; i++) {
      const [a, b] = [words[i] ?? '', words[i + 1] ?? ''];
      if (STOP.has(a) || STOP.has(b)) continue;
      const pair = `${a} ${b}`;
      const before = seen.get(pair);
      if (before !== undefined && i - before <= 6) found.push(`"${pair}" twice in "${clause.trim()}"`);
      seen.set(pair, i);
    }
    // A longer word again within three words: "Item prices for prices of item".
    words.forEach((word, i) => {
      if (word.length < 5 || STOP.has(word)) return;
      const again = words.indexOf(word, i + 1);
      if (again > i && again - i <= 3) found.push(`"${word}" twice in "${clause.trim()}"`);
    });
    // Chinese (with clean data only: a trace such as "杭州转运中心…上海转运中心" repeats by
    // nature): the same run of three or more characters twice in one clause.
    if (strict)
      for (const run of clause.match(/\p{Script=Han}{3,}/gu) ?? [])
        for (let k = 0; k + 3 <= run.length; k++) {
          const piece = run.slice(k, k + 3);
          if (clause.indexOf(piece) !== clause.lastIndexOf(piece))
            found.push(`"${piece}" twice in "${clause.trim()}"`);
        }
  }
  return [...new Set(found)];
}

/**
 * The code's own names for things (error, problem and refusal codes, Slack's error names, the
 * template version): a catalog key names one, so a snake_case word that is one was never worded.
 * A snake_case id a person typed (a seller account "no_such_seller") is data.
 */
const CODE_NAMES = new Set(
  [
    ...Object.keys(CATALOGS.en.error.title),
    ...Object.keys(CATALOGS.en.problem),
    ...Object.keys(CATALOGS.en.digestProblem),
    ...Object.keys(CATALOGS.en.shipAlertProblem),
    ...Object.keys(CATALOGS.en.refusal.reason),
    ...Object.keys(CATALOGS.en.digest.slackError),
  ].filter((k) => k.includes('_')),
);

/** Names from the code that people must never read in prose. */
const INTERNAL = [
  /\bwaybill_print_\w+|\b[a-z]+_secret\w*/g,
  /\b(?:platdybw|platiteminfo(?:price)?|platdzmd|paging-orders|get-shop-info|get-shop-id)\b/g,
  /\b(?:first|second) marketplace\b/gi,
  /第[一二]市场/g,
  /\b(?:type|status|version) [0-9A-Z]\b/gi,
  /(?:类型|状态|版本) ?[0-9A-Z]\b/g,
];

function leaked(prose: string): string[] {
  const codes = [...prose.matchAll(/\b[a-z]+(?:_[a-z0-9]+)+\b/g)].filter((m) => CODE_NAMES.has(m[0]));
  return [...codes, ...INTERNAL.flatMap((re) => [...prose.matchAll(re)])].map(
    (m) => `internal name "${m[0]}"`,
  );
}

function punctuation(prose: string): string[] {
  const found: string[] = [];
  const halfBeside = new RegExp(`[${CJK}][,:;!?()]|[,;!?(][${CJK}]|\\)[\\p{Script=Han}]`, 'gu');
  for (const m of prose.matchAll(halfBeside))
    if (/\p{Script=Han}/u.test(m[0])) found.push(`half-width punctuation beside Chinese "${m[0]}"`);
  // A full-width mark is its own space: none after it, none before it.
  // The spaced separators (· → — –) keep their spaces, beside anything.
  for (const m of prose.matchAll(
    new RegExp(`[${FULL_WIDTH_PUNCT}] +(?=[^\\s·→—–])|[^\\s·→—–] +[${FULL_WIDTH_PUNCT}]`, 'gu'),
  ))
    found.push(`space beside full-width punctuation "${m[0]}"`);
  return found;
}

/** `*粗体*` with a space between it and Chinese text (or full-width punctuation) outside it. */
function spacedBold(prose: string): string[] {
  const found: string[] = [];
  for (const line of prose.split('\n'))
    for (const m of line.matchAll(
      /(?<=^|[\s(（])[*_~](?=\S)([^*_~\n]*?\S)[*_~](?=$|[\s.,;:!?)，。：；！？）])/gu,
    )) {
      const inner = m[1] ?? '';
      const before = line.slice(0, m.index);
      const after = line.slice((m.index ?? 0) + m[0].length);
      const spacedBefore =
        / $/.test(before) && CJK_CHAR.test(before.at(-2) ?? '') && CJK_CHAR.test(inner[0] ?? '');
      const spacedAfter =
        /^ /.test(after) && CJK_CHAR.test(after[1] ?? '') && CJK_CHAR.test(inner.at(-1) ?? '');
      if (spacedBefore || spacedAfter) found.push(`spaced bold "${line.trim()}"`);
    }
  return found;
}

/** Chinese prose: one date style (2026年11月28日) and one name for the time zone (北京时间). */
function chineseStyle(prose: string): string[] {
  const found: string[] = [];
  for (const m of prose.matchAll(/\b\d{4}-\d{2}-\d{2}\b/g)) found.push(`ISO date in Chinese "${m[0]}"`);
  for (const m of prose.matchAll(/\bAsia\/Shanghai\b/g)) found.push(`"${m[0]}" in Chinese (北京时间)`);
  return found;
}

export interface WordingOptions {
  /**
   * The reader's language: the Chinese rules (punctuation, spacing, dates, 北京时间) apply to
   * Chinese prose only. Unknown: a text with more Chinese characters than Latin letters in its
   * prose is taken as Chinese.
   */
  locale?: 'en' | 'zh-CN';
  /** Also check what only clean data can pass: a Latin letter touching Chinese with no space. */
  strict?: boolean;
}

/**
 * The Chinese catalog's own runs of four or more Chinese characters: a payload holding one was
 * written in Chinese (Chinese data in an English message holds none of them, in practice).
 */
const CHINESE_WORDS = (() => {
  const runs = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') for (const run of v.match(/\p{Script=Han}{4,}/gu) ?? []) runs.add(run);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(CATALOGS['zh-CN']);
  return [...runs];
})();

/** The language a payload was written in, by the catalog's words it holds. */
export function localeOfTexts(texts: readonly string[]): 'en' | 'zh-CN' {
  const all = texts.join('\n');
  return CHINESE_WORDS.some((run) => all.includes(run)) ? 'zh-CN' : 'en';
}

const isChinese = (prose: string) =>
  (prose.match(/\p{Script=Han}/gu)?.length ?? 0) > (prose.match(/[A-Za-z]/g)?.length ?? 0);

/** Every wording problem of one text a person reads (mrkdwn or plain). */
export function wordingProblems(text: string, options: WordingOptions = {}): string[] {
  const prose = proseOf(text);
  const found = [...doubled(prose, options.strict === true), ...leaked(prose)];
  const chinese = options.locale ? options.locale === 'zh-CN' : isChinese(prose);
  if (!chinese) return found;
  found.push(...punctuation(prose), ...spacedBold(prose), ...chineseStyle(prose));
  if (options.strict)
    for (const m of prose.matchAll(/[A-Za-z][\p{Script=Han}]|[\p{Script=Han}][A-Za-z]/gu))
      found.push(`no space between Chinese and "${m[0]}"`);
  return found;
}

/** The texts people read in a Block Kit payload: text objects, fallback text, alt texts, cells. */
export function readableTexts(payload: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, top: boolean): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, false);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (
      typeof o.text === 'string' &&
      (top || ['plain_text', 'mrkdwn', 'raw_text', 'text'].includes(String(o.type)))
    )
      out.push(o.text);
    if (typeof o.alt_text === 'string') out.push(o.alt_text);
    for (const [key, value] of Object.entries(o))
      if (key !== 'text' || typeof value !== 'string') walk(value, false);
  };
  walk(payload, true);
  return out;
}

/**
 * Every wording problem of a payload, each with the text it is in; without a locale, the
 * payload's own (localeOfTexts).
 */
export function payloadWordingProblems(payload: unknown, options: WordingOptions = {}): string[] {
  const texts = readableTexts(payload);
  const locale = options.locale ?? localeOfTexts(texts);
  return texts.flatMap((text) =>
    wordingProblems(text, { ...options, locale }).map(
      (p) => `${p}  ⟵  ${text.replace(/\n/g, '⏎').slice(0, 160)}`,
    ),
  );
}
