/**
 * The translator and the locale's formatting, handed to every renderer as one `Words` value
 * (CONVENTIONS 14): renderers stay pure, and the language is chosen once, by the caller.
 *
 * i18next does the lookups, interpolation and plurals (English `_one`/`_other`; Chinese has only
 * `_other`, but the catalog keeps both keys so both languages have exactly the same keys). Values
 * are interpolated as given (`escapeValue: false`): renderers escape foreign text themselves with
 * `escapeText`/`escapeClip`, as mrkdwn needs (`&`, `<`, `>` only, never `"` or `/`).
 */
import i18next, { type ParseKeys, type TOptions } from 'i18next';
import type { Locale } from '../../lookups/locale.js';
import { holdMarkers, resolveMarkers } from '../markers.js';
import { en } from './en/index.js';
import { zhCN } from './zh-CN/index.js';

export type { Locale } from '../../lookups/locale.js';

/** A catalog: the English one's shape, with any strings. */
export type Catalog = DeepStrings<typeof en>;
type DeepStrings<T> = { readonly [K in keyof T]: T[K] extends string ? string : DeepStrings<T[K]> };

export const CATALOGS: Readonly<Record<Locale, Catalog>> = { en, 'zh-CN': zhCN };

/** A catalog key, checked at compile time against the English catalog. */
export type TKey = ParseKeys<'translation'>;
/** The translator: a key and its values (placeholders and `count` for plurals) → text. */
export type T = (key: TKey, options?: TOptions) => string;

export interface Words {
  readonly locale: Locale;
  readonly t: T;
  /** "¥1,234.56", "-¥1.50"; "¥—" for a value that is not a finite number. */
  yuan(yuan: number): string;
  /** "12 points (¥0.12)" / "12 点（¥0.12）": 1 point = 1 fen = 0.01 yuan (spec/notes.md). */
  points(points: number): string;
  /** "1,234", "2.5": a count or an amount of points as the locale writes numbers. */
  count(n: number): string;
  /** "2026-11-20 14:03" / "2026年11月20日 14:03" in `timeZone` (default the marketplaces' zone). */
  dateTime(date: Date, timeZone?: string): string;
  /** "2026-11-20" / "2026年11月20日" in `timeZone`. */
  date(date: Date, timeZone?: string): string;
  /** "under a minute", "5 min", "3 h", "2 days": how old something is. */
  age(ms: number): string;
  /** "a, b and c" / "a、b和c". */
  list(items: readonly string[]): string;
  /** "a, b, c" / "a、b、c": a plain enumeration (ids, codes, times), no "and". */
  join(items: readonly string[]): string;
  /** Sentences one after the other: a space between them in English, none after a Chinese "。". */
  sentences(items: readonly string[]): string;
  /** A time zone as people say it: Asia/Shanghai is "Beijing time" / "北京时间"; others by name. */
  zone(timeZone: string): string;
  /** A calendar day given as YYYY-MM-DD (and a time after it): "2026-11-20" / "2026年11月20日". */
  day(isoDate: string): string;
}

export const SHANGHAI = 'Asia/Shanghai';

const instances = new Map<string, T>();

type Tree = { readonly [key: string]: string | Tree };

/**
 * Values filled into a Chinese text are held between these (Unicode noncharacters, like the
 * markers' sentinels: foreign text cannot carry them, escapeText drops them) so that the seams
 * between the catalog's words and the values can be spaced as Chinese is typeset (spaceSeams).
 */
const VALUE_OPEN = '\uFDDA';
const VALUE_CLOSE = '\uFDDB';
/** i18next's own options, never values. */
const NOT_VALUES = new Set(['count', 'context', 'lng', 'lngs', 'ns', 'defaultValue', 'ordinal', 'replace']);

const HAN = /^\p{Script=Han}$/u;
const LATIN_OR_DIGIT = /^[A-Za-z0-9]$/;
const FULL_WIDTH = /^[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65“”‘’]$/;
const HELD_MARKER = /^[\uFDD0-\uFDD7]$/;
/** Separators written with a space on each side, whatever stands beside them. */
const SPACED = /^[·→—–]$/;

/**
 * The seams of a Chinese text (issue 35): a catalog text such as `旺旺号 {{wwid}} 的店铺` spaces its
 * values for Latin ids, but a Chinese value (a shop name, "蜂蜜（商家 2200001002）") must not stand
 * between spaces, and nothing stands beside full-width punctuation; a Latin word or a number next
 * to a Chinese character gets one. Only the seams change: the values and the catalog's own text
 * keep their spacing. A seam beside a held marker is left to resolveMarkers.
 */
function spaceSeams(text: string): string {
  let out = '';
  const unwanted = (a: string | undefined, b: string | undefined) =>
    a !== undefined &&
    b !== undefined &&
    (FULL_WIDTH.test(a) || FULL_WIDTH.test(b) || (HAN.test(a) && HAN.test(b)));
  const wanted = (a: string | undefined, b: string | undefined) =>
    a !== undefined &&
    b !== undefined &&
    ((HAN.test(a) && LATIN_OR_DIGIT.test(b)) || (LATIN_OR_DIGIT.test(a) && HAN.test(b)));
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === VALUE_OPEN) {
      const first = text[i + 1];
      if (first === undefined || first === VALUE_CLOSE || HELD_MARKER.test(first)) continue;
      const last = out.at(-1);
      if (last === ' ' && !SPACED.test(out.at(-2) ?? '') && unwanted(out.at(-2), first))
        out = out.slice(0, -1);
      else if (last !== undefined && !HELD_MARKER.test(last) && wanted(last, first)) out += ' ';
      continue;
    }
    if (ch === VALUE_CLOSE) {
      const last = out.at(-1);
      const next = text[i + 1];
      if (last === undefined || HELD_MARKER.test(last) || next === undefined || HELD_MARKER.test(next))
        continue;
      if (next === ' ' && !SPACED.test(text[i + 2] ?? '') && unwanted(last, text[i + 2])) i++;
      else if (wanted(last, next)) out += ' ';
      continue;
    }
    out += ch;
  }
  return out;
}

function holdValues(options: TOptions | undefined): TOptions | undefined {
  if (!options) return options;
  const held: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options))
    held[key] =
      typeof value === 'string' && !NOT_VALUES.has(key) ? `${VALUE_OPEN}${value}${VALUE_CLOSE}` : value;
  return held as TOptions;
}

/** The catalog with its mrkdwn markers held (markers.ts), so they can be spaced once values are in. */
function heldCatalog(tree: Tree): Tree {
  return Object.fromEntries(
    Object.entries(tree).map(([k, v]) => [k, typeof v === 'string' ? holdMarkers(v) : heldCatalog(v)]),
  );
}

/**
 * One i18next instance per catalog, initialised synchronously (resources are in memory). Its texts
 * come out with their bold, code and strikethrough markers spaced where they touch Chinese text
 * (markers.ts), so a catalog entry can be written `*店铺：*{{shop}}` and still render bold.
 */
function translator(lng: string, catalog: Catalog): T {
  const key = `${lng}:${catalog === en ? 'en' : catalog === zhCN ? 'zh' : 'custom'}`;
  const known = catalog === en || catalog === zhCN ? instances.get(key) : undefined;
  if (known) return known;
  const instance = i18next.createInstance();
  void instance.init({
    lng,
    fallbackLng: false,
    resources: { [lng]: { translation: heldCatalog(catalog as unknown as Tree) } },
    initAsync: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  const fixed = instance.getFixedT(lng) as unknown as T;
  const t: T =
    lng === 'zh-CN'
      ? (key, options) => resolveMarkers(spaceSeams(fixed(key, holdValues(options))))
      : (key, options) => resolveMarkers(fixed(key, options));
  if (catalog === en || catalog === zhCN) instances.set(key, t);
  return t;
}

function zonedParts(date: Date, timeZone: string): Record<string, string> {
  const part: Record<string, string> = {};
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  for (const p of format.formatToParts(date)) part[p.type] = p.value;
  return part;
}

/**
 * Words for `locale`. `catalog` replaces the locale's own catalog (the tests' pseudo-locale);
 * numbers and dates still follow `locale`.
 */
export function makeWords(locale: Locale, catalog: Catalog = CATALOGS[locale]): Words {
  const t = translator(locale, catalog);
  const zh = locale === 'zh-CN';
  const money = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: 'CNY',
    currencyDisplay: 'narrowSymbol',
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const listFormat = new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' });
  const words: Words = {
    locale,
    t,
    yuan: (yuan) => {
      if (!Number.isFinite(yuan)) return '¥—';
      // -0.001 would otherwise print as "-¥0.00".
      return money.format(Math.abs(yuan) < 0.005 ? 0 : yuan);
    },
    count: (n) => (Number.isFinite(n) ? number.format(n) : '—'),
    points: (points) =>
      t('common.points', { count: points, n: words.count(points), yuan: words.yuan(points / 100) }),
    dateTime: (date, timeZone = SHANGHAI) => {
      if (Number.isNaN(date.getTime())) return '—';
      const p = zonedParts(date, timeZone);
      return zh
        ? `${p.year}年${Number(p.month)}月${Number(p.day)}日 ${p.hour}:${p.minute}`
        : `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
    },
    date: (date, timeZone = SHANGHAI) => {
      if (Number.isNaN(date.getTime())) return '—';
      const p = zonedParts(date, timeZone);
      return zh ? `${p.year}年${Number(p.month)}月${Number(p.day)}日` : `${p.year}-${p.month}-${p.day}`;
    },
    age: (ms) => {
      const minutes = Math.floor(Math.max(0, ms) / 60_000);
      if (minutes < 1) return t('common.age.underMinute');
      if (minutes < 60) return t('common.age.minutes', { count: minutes, n: words.count(minutes) });
      const hours = Math.floor(minutes / 60);
      if (hours < 48) return t('common.age.hours', { count: hours, n: words.count(hours) });
      const days = Math.floor(hours / 24);
      return t('common.age.days', { count: days, n: words.count(days) });
    },
    list: (items) => {
      if (!zh) return listFormat.format(items);
      // "a、b和 1 个旺旺号": Chinese puts a space between 和 and a Latin letter or digit.
      const parts = listFormat.formatToParts(items);
      return parts
        .map((p, i) => {
          if (p.type !== 'literal' || p.value.trim() !== '和') return p.value;
          const before = /[A-Za-z0-9>)]$/.test(parts[i - 1]?.value ?? '') ? ' ' : '';
          const after = /^[A-Za-z0-9<(]/.test(parts[i + 1]?.value ?? '') ? ' ' : '';
          return `${before}${p.value.trim()}${after}`;
        })
        .join('');
    },
    join: (items) => items.join(zh ? '、' : ', '),
    sentences: (items) =>
      items
        .filter((s) => s !== '')
        .reduce((all, s) => (all === '' ? s : /[。！？）]$/.test(all) && zh ? all + s : `${all} ${s}`), ''),
    zone: (timeZone) => (timeZone === SHANGHAI ? t('common.beijingTime') : timeZone),
    day: (isoDate) => {
      // A run's local date may carry its time of day after it ("2026-11-20 17:30").
      const m = /^(\d{4})-(\d{2})-(\d{2})(?=$| )(.*)$/.exec(isoDate);
      if (!m) return isoDate;
      return zh ? `${m[1]}年${Number(m[2])}月${Number(m[3])}日${m[4]}` : isoDate;
    },
  };
  return words;
}

const cached = new Map<Locale, Words>();

/** The Words of a locale (built once per process). */
export function wordsFor(locale: Locale): Words {
  let words = cached.get(locale);
  if (!words) {
    words = makeWords(locale);
    cached.set(locale, words);
  }
  return words;
}
