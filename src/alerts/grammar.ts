/**
 * `/orders alert …` text → an alert command:
 *   add <owner id or shop alias> #channel within:<hours> [every:<minutes>] [hours:09:00-21:00] [zone] [cap:<points>]
 *   list · remove <id> · help
 * Defaults: within 6 h, every 60 min, 09:00–21:00 Asia/Shanghai, the digest cost cap.
 */
import {
  type CommandPlace,
  DEFAULT_TIME_ZONE,
  type DigestProblem,
  parseChannel,
  type ReadLocale,
} from '../digest/grammar.js';
import { capped, MAX_COMMAND_TEXT } from '../text-limits.js';
import { canonicalTimeZone, normalizeLocalTime, parseLocalTime } from '../zoned-time.js';

export const ALERT_DEFAULTS = {
  withinHours: 6,
  everyMinutes: 60,
  hoursFrom: '09:00',
  hoursTo: '21:00',
} as const;
export const ALERT_LIMITS = { withinHours: [1, 72], everyMinutes: [15, 720], capPoints: 1_000_000 } as const;

export type AlertProblem =
  | DigestProblem
  | {
      code:
        | 'alert_usage'
        | 'within_bad'
        | 'every_bad'
        | 'hours_bad'
        | 'cap_bad'
        | 'alert_id_missing'
        | 'alert_verb';
      values?: Record<string, string>;
    };

export interface AlertAdd<L extends string = string> {
  shop: string;
  channelId: string;
  withinHours: number;
  everyMinutes: number;
  hoursFrom: string;
  hoursTo: string;
  timeZone: string;
  /** null: the digest cost cap (`/platdesk digest-cap`) when the alert is added. */
  capPoints: number | null;
  /** The channel's language, set with the alert (`lang:zh-CN`), as with a digest. */
  locale?: L;
}

export type AlertCommand<L extends string = string> =
  | { kind: 'help' }
  | { kind: 'list' }
  | ({ kind: 'add' } & AlertAdd<L>)
  | { kind: 'remove'; id: number }
  | { kind: 'invalid'; problems: AlertProblem[] };

const SHOP = /^[\w.:@\-\u4e00-\u9fff]{1,64}$/u;
const OPTION = /^(within|every|hours|cap|lang|language|语言)[:：](.*)$/iu;
const clip = (s: string) => s.slice(0, 40);

function integerIn(text: string, [min, max]: readonly [number, number], suffix: RegExp): number | null {
  const n = Number(text.replace(suffix, ''));
  return Number.isInteger(n) && n >= min && n <= max ? n : null;
}

export function parseAlertCommand<L extends string>(
  text: string,
  place: CommandPlace,
  readLocale: ReadLocale<L>,
): AlertCommand<L> {
  const [verb = 'help', ...args] = capped(text, MAX_COMMAND_TEXT).trim().split(/\s+/).filter(Boolean);
  switch (verb.toLowerCase()) {
    case 'help':
      return { kind: 'help' };
    case 'list':
      return { kind: 'list' };
    case 'remove': {
      const id = args[0]?.replace(/^#/, '');
      if (!id || !/^\d{1,9}$/.test(id) || args.length > 1)
        return { kind: 'invalid', problems: [{ code: 'alert_id_missing' }] };
      return { kind: 'remove', id: Number(id) };
    }
    case 'add':
      return parseAdd(args, place, readLocale);
    default:
      return { kind: 'invalid', problems: [{ code: 'alert_verb', values: { verb: clip(verb) } }] };
  }
}

function parseAdd<L extends string>(
  args: readonly string[],
  place: CommandPlace,
  readLocale: ReadLocale<L>,
): AlertCommand<L> {
  const options = new Map<string, string>();
  const plain: string[] = [];
  for (const a of args) {
    const m = OPTION.exec(a);
    if (m?.[1]) options.set(m[1].toLowerCase(), m[2] ?? '');
    else plain.push(a);
  }
  const [shop, channelToken, zone, ...extra] = plain;
  if (!shop || !channelToken) return { kind: 'invalid', problems: [{ code: 'alert_usage' }] };
  const problems: AlertProblem[] = [];
  if (!SHOP.test(shop)) problems.push({ code: 'shop_bad', values: { shop: shop.slice(0, 80) } });
  const channel = parseChannel(channelToken, place);
  if (!channel.ok) problems.push(channel.problem);

  const withinText = options.get('within');
  const withinHours =
    withinText === undefined
      ? ALERT_DEFAULTS.withinHours
      : integerIn(withinText, ALERT_LIMITS.withinHours, /h$/i);
  if (withinHours === null) problems.push({ code: 'within_bad', values: { text: clip(withinText ?? '') } });
  const everyText = options.get('every');
  const everyMinutes =
    everyText === undefined
      ? ALERT_DEFAULTS.everyMinutes
      : integerIn(everyText, ALERT_LIMITS.everyMinutes, /m(in)?$/i);
  if (everyMinutes === null) problems.push({ code: 'every_bad', values: { text: clip(everyText ?? '') } });

  const hoursText = options.get('hours');
  let hoursFrom: string = ALERT_DEFAULTS.hoursFrom;
  let hoursTo: string = ALERT_DEFAULTS.hoursTo;
  if (hoursText !== undefined) {
    const [a = '', b = ''] = hoursText.split(/[-–~]/);
    const from = normalizeLocalTime(a);
    const to = normalizeLocalTime(b);
    const ok = from && to && (parseLocalTime(from)?.join() ?? '') !== '' && from < to;
    if (!ok) problems.push({ code: 'hours_bad', values: { text: clip(hoursText) } });
    else {
      hoursFrom = from;
      hoursTo = to;
    }
  }

  const capText = options.get('cap');
  const capPoints = capText === undefined ? null : Number(capText);
  if (
    capPoints !== null &&
    !(Number.isFinite(capPoints) && capPoints >= 0 && capPoints <= ALERT_LIMITS.capPoints)
  )
    problems.push({ code: 'cap_bad', values: { text: clip(capText ?? '') } });

  const languageText = options.get('lang') ?? options.get('language') ?? options.get('语言');
  const locale = languageText === undefined ? null : readLocale(languageText);
  if (languageText !== undefined && locale === null)
    problems.push({ code: 'language_bad', values: { language: languageText.slice(0, 20) } });

  const timeZone = canonicalTimeZone(zone ?? DEFAULT_TIME_ZONE);
  if (!timeZone) problems.push({ code: 'zone_bad', values: { zone: (zone ?? '').slice(0, 64) } });
  if (extra.length > 0) problems.push({ code: 'unexpected', values: { text: extra.join(' ').slice(0, 80) } });
  if (problems.length > 0 || !channel.ok || !timeZone || withinHours === null || everyMinutes === null)
    return { kind: 'invalid', problems };
  return {
    kind: 'add',
    shop,
    channelId: channel.channelId,
    withinHours,
    everyMinutes,
    hoursFrom,
    hoursTo,
    timeZone,
    capPoints,
    ...(locale ? { locale } : {}),
  };
}
