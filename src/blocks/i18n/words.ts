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
}

export const SHANGHAI = 'Asia/Shanghai';

const instances = new Map<string, T>();

type Tree = { readonly [key: string]: string | Tree };

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
  const t: T = (key, options) => resolveMarkers(fixed(key, options));
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
