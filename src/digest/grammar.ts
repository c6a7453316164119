/**
 * `/orders digest …` text → a digest command, and the checks of a new digest shared by the
 * command and the App Home's form. The channel forms are Slack's (mentions), but what they mean
 * for a subscription is a digest rule, so the grammar lives with the digests (issue 15); the
 * languages platdesk speaks belong to lookups/, so the caller hands in `readLocale`.
 *
 * Channels: with escaping on, Slack sends a channel picked from the autocomplete as
 * `<#C123|name>` (or `<#C123>` / `<#C123|>`; our manifest turns escaping on for /orders); with
 * escaping off a typed `#name` arrives as plain text, which names no channel id. A bare `#name` is
 * accepted only when it is the channel the command was typed in (the payload names that one);
 * otherwise the answer says to pick the channel from the autocomplete or to use `here`.
 */

import { REMARK_FLAG_WORDS } from '../plat/remark-flags.js';
import type { DigestLayout } from '../store/store.js';
import { capped, MAX_COMMAND_TEXT } from '../text-limits.js';
import { canonicalTimeZone, normalizeLocalTime } from '../zoned-time.js';

/** Why a digest command or form cannot be taken, as a code and the values its sentence names. */
export type DigestProblem = {
  code:
    | 'here_in_dm'
    | 'channel_plain_text'
    | 'not_channel'
    | 'shop_bad'
    | 'time_bad'
    | 'zone_bad'
    | 'id_missing_run'
    | 'id_missing_remove'
    | 'one_number'
    | 'add_usage'
    | 'unexpected'
    | 'unknown_verb'
    | 'language_bad'
    | 'unknown_shop'
    | 'me_in_form'
    | 'days_bad'
    | 'flag_bad'
    | 'status_bad';
  values?: Record<string, string>;
};
const problem = (code: DigestProblem['code'], values?: Record<string, string>): DigestProblem =>
  values === undefined ? { code } : { code, values };

export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';

/** A language name → the locale platdesk speaks, or null (lookups/locale.ts toLocale). */
export type ReadLocale<L extends string> = (text: string) => L | null;

export type DigestCommand<L extends string = string> =
  | { kind: 'help' }
  | { kind: 'list' }
  | ({ kind: 'add' } & DigestAdd<L>)
  | { kind: 'remove'; id: number }
  | { kind: 'run'; id: number }
  | { kind: 'invalid'; problems: DigestProblem[] };

export interface CommandPlace {
  channelId: string;
  channelName: string;
  /** Who typed the command: `me` sends the digest to them by DM. */
  userId?: string;
}

const SHOP = /^[\w.:@\-\u4e00-\u9fff]{1,64}$/u;
const CHANNEL_LINK = /^<#([CG][A-Z0-9]{2,})(?:\|[^>]*)?>$/;
const CHANNEL_ID = /^[CG][A-Z0-9]{6,}$/;

type ChannelParse = { ok: true; channelId: string } | { ok: false; problem: DigestProblem };

export function parseChannel(token: string, place: CommandPlace): ChannelParse {
  const link = CHANNEL_LINK.exec(token);
  if (link?.[1]) return { ok: true, channelId: link[1] };
  if (CHANNEL_ID.test(token)) return { ok: true, channelId: token };
  const inChannel = /^[CG]/.test(place.channelId);
  if (token.toLowerCase() === 'me' || token === '我') {
    return place.userId
      ? { ok: true, channelId: place.userId }
      : { ok: false, problem: problem('me_in_form') };
  }
  if (token.toLowerCase() === 'here') {
    return inChannel
      ? { ok: true, channelId: place.channelId }
      : { ok: false, problem: problem('here_in_dm') };
  }
  if (token.startsWith('#')) {
    const name = token.slice(1).toLowerCase();
    if (inChannel && name !== '' && name === place.channelName.toLowerCase())
      return { ok: true, channelId: place.channelId };
    return { ok: false, problem: problem('channel_plain_text', { token: token.slice(0, 80) }) };
  }
  return { ok: false, problem: problem('not_channel', { token: token.slice(0, 80) }) };
}

/** What a new digest is made of, checked: the shop as given, a channel id, 'HH:MM', a canonical zone. */
export interface DigestAdd<L extends string = string> {
  shop: string;
  channelId: string;
  localTime: string;
  timeZone: string;
  /** The channel's language, when the admin set it with the subscription (`lang:zh-CN`). */
  locale?: L;
  /** Options of `/orders digest add` (store/digests.ts); absent: today's digest. */
  times?: string[];
  days?: number[] | null;
  layout?: DigestLayout;
  flags?: number[] | null;
  statuses?: number[] | null;
}

export type DigestAddField = 'shop' | 'channel' | 'time' | 'timeZone';

/**
 * The rules of a new digest, shared by `/orders digest add` and the App Home's form: each field's
 * problem (in this order: shop, channel, time, time zone), or the checked digest. No time zone:
 * DEFAULT_TIME_ZONE.
 */
export function checkDigestAdd(
  input: { shop: string; channel: string; time: string; timeZone?: string | undefined },
  place: CommandPlace,
):
  | { ok: true; add: DigestAdd<never> }
  | { ok: false; problems: Partial<Record<DigestAddField, DigestProblem>> } {
  const { shop, time, timeZone: zone } = input;
  const problems: Partial<Record<DigestAddField, DigestProblem>> = {};
  if (!SHOP.test(shop)) problems.shop = problem('shop_bad', { shop: shop.slice(0, 80) });
  const channel = parseChannel(input.channel, place);
  if (!channel.ok) problems.channel = channel.problem;
  const localTime = normalizeLocalTime(time);
  if (!localTime) problems.time = problem('time_bad', { time: time.slice(0, 20) });
  const timeZone = canonicalTimeZone(zone ?? DEFAULT_TIME_ZONE);
  if (!timeZone) problems.timeZone = problem('zone_bad', { zone: (zone ?? '').slice(0, 64) });
  if (!channel.ok || !localTime || !timeZone || Object.keys(problems).length > 0)
    return { ok: false, problems };
  return { ok: true, add: { shop, channelId: channel.channelId, localTime, timeZone } };
}

function parseId(token: string | undefined, run: boolean): number | DigestProblem {
  const id = token?.replace(/^#/, '');
  if (!id || !/^\d{1,9}$/.test(id)) return problem(run ? 'id_missing_run' : 'id_missing_remove');
  return Number(id);
}

/** `lang:zh-CN`, `language:en`, `语言:中文`: the channel's language, set with the subscription. */
const LANGUAGE_OPTION = /^(?:lang|language|语言)[:：](.*)$/iu;

const DAY_NAMES: Record<string, number> = {
  sun: 0,
  mon: 1,
  tue: 2,
  wed: 3,
  thu: 4,
  fri: 5,
  sat: 6,
  周日: 0,
  周一: 1,
  周二: 2,
  周三: 3,
  周四: 4,
  周五: 5,
  周六: 6,
};
const STATUS_NAMES: Record<string, number> = {
  awaiting: 1,
  shipped: 2,
  received: 3,
  待发货: 1,
  已发货: 2,
  已签收: 3,
};
const OPTION = /^(days|flags?|status(?:es)?|旗|状态)[:：](.*)$/iu;

/** `mon-fri`, `weekdays`, `mon,wed,fri`, `fri-mon`: the days (0 Sunday … 6 Saturday), or null. */
function parseDays(text: string): number[] | null {
  const t = text.trim().toLowerCase();
  if (t === 'weekdays' || t === '工作日') return [1, 2, 3, 4, 5];
  if (t === 'weekends' || t === '周末') return [0, 6];
  const days = new Set<number>();
  for (const part of t.split(',')) {
    const [a, b] = part.split('-').map((p) => DAY_NAMES[p.trim().slice(0, 3)] ?? DAY_NAMES[p.trim()]);
    if (a === undefined || (part.includes('-') && b === undefined)) return null;
    for (let d = a; ; d = (d + 1) % 7) {
      days.add(d);
      if (b === undefined || d === b) break;
    }
  }
  return days.size > 0 ? [...days].sort() : null;
}

function parseList(text: string, names: Record<string, number>, max: number): number[] | null {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const p = part.trim().toLowerCase();
    const n = names[p] ?? (/^\d$/.test(p) ? Number(p) : Number.NaN);
    if (!(n >= 1 && n <= max)) return null;
    values.add(n);
  }
  return values.size > 0 ? [...values].sort() : null;
}

/** The options of `digest add`: days, filters, layout; what is left, and the problems. */
function parseAddOptions(args: readonly string[]): {
  rest: string[];
  options: Pick<DigestAdd, 'days' | 'layout' | 'flags' | 'statuses'>;
  problems: DigestProblem[];
} {
  const options: Pick<DigestAdd, 'days' | 'layout' | 'flags' | 'statuses'> = { layout: 'thread' };
  const problems: DigestProblem[] = [];
  const rest: string[] = [];
  for (const arg of args) {
    const lower = arg.toLowerCase();
    if (lower === 'single' || lower === 'thread') options.layout = lower;
    else if (lower === 'weekdays' || lower === '工作日') options.days = [1, 2, 3, 4, 5];
    else {
      const m = OPTION.exec(arg);
      const key = m?.[1]?.toLowerCase() ?? '';
      const value = m?.[2] ?? '';
      if (!m) rest.push(arg);
      else if (key === 'days') {
        options.days = parseDays(value);
        if (!options.days) problems.push(problem('days_bad', { text: value.slice(0, 40) }));
      } else if (key.startsWith('flag') || key === '旗') {
        options.flags = parseList(value, REMARK_FLAG_WORDS, 5);
        if (!options.flags) problems.push(problem('flag_bad', { text: value.slice(0, 40) }));
      } else {
        options.statuses = parseList(value, STATUS_NAMES, 3);
        if (!options.statuses) problems.push(problem('status_bad', { text: value.slice(0, 40) }));
      }
    }
  }
  return { rest, options, problems };
}

/** `text` is what follows `digest`. */
export function parseDigestCommand<L extends string>(
  text: string,
  place: CommandPlace,
  readLocale: ReadLocale<L>,
): DigestCommand<L> {
  const tokens = capped(text, MAX_COMMAND_TEXT).trim().split(/\s+/).filter(Boolean);
  const [verb = 'help', ...args] = tokens;
  switch (verb.toLowerCase()) {
    case 'help':
      return { kind: 'help' };
    case 'list':
      return { kind: 'list' };
    case 'remove':
    case 'run': {
      const id = parseId(args[0], verb.toLowerCase() === 'run');
      if (typeof id !== 'number') return { kind: 'invalid', problems: [id] };
      if (args.length > 1)
        return { kind: 'invalid', problems: [problem('one_number', { verb: verb.toLowerCase() })] };
      return verb.toLowerCase() === 'run' ? { kind: 'run', id } : { kind: 'remove', id };
    }
    case 'add': {
      const languageArg = args.find((a) => LANGUAGE_OPTION.test(a));
      const parsedOptions = parseAddOptions(args.filter((a) => a !== languageArg));
      const [shop, channelToken, timeList, zone, ...extra] = parsedOptions.rest;
      if (!shop || !channelToken || !timeList) return { kind: 'invalid', problems: [problem('add_usage')] };
      // `09:00,17:30`: several times a day; each checked like one.
      const times = timeList.split(',').map((t) => normalizeLocalTime(t));
      const badTime = timeList.split(',').find((_, i) => times[i] === null);
      const sorted = [...new Set(times.filter((t): t is string => t !== null))].sort();
      const checked = checkDigestAdd(
        { shop, channel: channelToken, time: badTime ?? sorted[0] ?? timeList, timeZone: zone },
        place,
      );
      const problems = [...(checked.ok ? [] : Object.values(checked.problems)), ...parsedOptions.problems];
      const languageText =
        languageArg === undefined ? undefined : (LANGUAGE_OPTION.exec(languageArg)?.[1] ?? '');
      const locale = languageText === undefined ? null : readLocale(languageText);
      if (languageText !== undefined && locale === null)
        problems.push(problem('language_bad', { language: languageText.slice(0, 20) }));
      if (extra.length > 0) problems.push(problem('unexpected', { text: extra.join(' ').slice(0, 80) }));
      if (!checked.ok || problems.length > 0) return { kind: 'invalid', problems };
      const { shop: s, channelId, localTime, timeZone } = checked.add;
      return {
        kind: 'add',
        shop: s,
        channelId,
        localTime,
        timeZone,
        times: sorted,
        ...parsedOptions.options,
        ...(locale ? { locale } : {}),
      };
    }
    default:
      return { kind: 'invalid', problems: [problem('unknown_verb', { verb: verb.slice(0, 40) })] };
  }
}
