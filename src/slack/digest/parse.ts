/**
 * `/orders digest …` text → a digest command. Slack-specific (channel mentions), so it lives
 * here and not in digest/.
 *
 * Channels: with escaping on, Slack sends a channel picked from the autocomplete as
 * `<#C123|name>` (or `<#C123>` / `<#C123|>`; our manifest turns escaping on for /orders); with
 * escaping off a typed `#name` arrives as plain text, which names no channel id. A bare `#name` is
 * accepted only when it is the channel the command was typed in (the payload names that one);
 * otherwise the answer says to pick the channel from the autocomplete or to use `here`.
 */
import { canonicalTimeZone, normalizeLocalTime } from '../../digest/zoned-time.js';

export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';

export type DigestCommand =
  | { kind: 'help' }
  | { kind: 'list' }
  | ({ kind: 'add' } & DigestAdd)
  | { kind: 'remove'; id: number }
  | { kind: 'run'; id: number }
  | { kind: 'invalid'; problems: string[] };

export interface CommandPlace {
  channelId: string;
  channelName: string;
}

const SHOP = /^[\w.:@\-\u4e00-\u9fff]{1,64}$/u;
const CHANNEL_LINK = /^<#([CG][A-Z0-9]{2,})(?:\|[^>]*)?>$/;
const CHANNEL_ID = /^[CG][A-Z0-9]{6,}$/;

type ChannelParse = { ok: true; channelId: string } | { ok: false; problem: string };

export function parseChannel(token: string, place: CommandPlace): ChannelParse {
  const link = CHANNEL_LINK.exec(token);
  if (link?.[1]) return { ok: true, channelId: link[1] };
  if (CHANNEL_ID.test(token)) return { ok: true, channelId: token };
  const inChannel = /^[CG]/.test(place.channelId);
  if (token.toLowerCase() === 'here') {
    return inChannel
      ? { ok: true, channelId: place.channelId }
      : { ok: false, problem: '`here` works only in a channel; this is a direct message' };
  }
  if (token.startsWith('#')) {
    const name = token.slice(1).toLowerCase();
    if (inChannel && name !== '' && name === place.channelName.toLowerCase())
      return { ok: true, channelId: place.channelId };
    return {
      ok: false,
      problem:
        `Slack sent "${token.slice(0, 80)}" as plain text, so platdesk cannot tell which channel it is. ` +
        'Pick the channel from the autocomplete list that opens when you type # (it then arrives as a ' +
        'channel link), or run the command in that channel with `here` instead of the channel',
    };
  }
  return {
    ok: false,
    problem: `"${token.slice(0, 80)}" is not a channel: pick one with # from the autocomplete`,
  };
}

/** What a new digest is made of, checked: the shop as given, a channel id, 'HH:MM', a canonical zone. */
export interface DigestAdd {
  shop: string;
  channelId: string;
  localTime: string;
  timeZone: string;
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
): { ok: true; add: DigestAdd } | { ok: false; problems: Partial<Record<DigestAddField, string>> } {
  const { shop, time, timeZone: zone } = input;
  const problems: Partial<Record<DigestAddField, string>> = {};
  if (!SHOP.test(shop)) problems.shop = `"${shop.slice(0, 80)}" is not an owner id or shop alias`;
  const channel = parseChannel(input.channel, place);
  if (!channel.ok) problems.channel = channel.problem;
  const localTime = normalizeLocalTime(time);
  if (!localTime) problems.time = `"${time.slice(0, 20)}" is not a time of day: write it as 09:00 (24-hour)`;
  const timeZone = canonicalTimeZone(zone ?? DEFAULT_TIME_ZONE);
  if (!timeZone)
    problems.timeZone = `"${(zone ?? '').slice(0, 64)}" is not a time zone: use an IANA name such as Asia/Shanghai`;
  if (!channel.ok || !localTime || !timeZone || Object.keys(problems).length > 0)
    return { ok: false, problems };
  return { ok: true, add: { shop, channelId: channel.channelId, localTime, timeZone } };
}

function parseId(token: string | undefined, what: string): number | string {
  const id = token?.replace(/^#/, '');
  if (!id || !/^\d{1,9}$/.test(id)) return `give the ${what} digest's number (see \`/orders digest list\`)`;
  return Number(id);
}

/** `text` is what follows `digest`. */
export function parseDigestCommand(text: string, place: CommandPlace): DigestCommand {
  const tokens = text.trim().split(/\s+/).filter(Boolean);
  const [verb = 'help', ...args] = tokens;
  switch (verb.toLowerCase()) {
    case 'help':
      return { kind: 'help' };
    case 'list':
      return { kind: 'list' };
    case 'remove':
    case 'run': {
      const id = parseId(args[0], verb.toLowerCase() === 'run' ? 'run' : 'removed');
      if (typeof id === 'string') return { kind: 'invalid', problems: [id] };
      if (args.length > 1) return { kind: 'invalid', problems: [`${verb} takes one digest number`] };
      return verb.toLowerCase() === 'run' ? { kind: 'run', id } : { kind: 'remove', id };
    }
    case 'add': {
      const [shop, channelToken, time, zone, ...extra] = args;
      if (!shop || !channelToken || !time)
        return {
          kind: 'invalid',
          problems: ['usage: /orders digest add <owner id or shop alias> #channel 09:00 [time zone]'],
        };
      const checked = checkDigestAdd({ shop, channel: channelToken, time, timeZone: zone }, place);
      const problems = checked.ok ? [] : Object.values(checked.problems);
      if (extra.length > 0) problems.push(`unexpected "${extra.join(' ').slice(0, 80)}"`);
      if (!checked.ok || problems.length > 0) return { kind: 'invalid', problems };
      return { kind: 'add', ...checked.add };
    }
    default:
      return { kind: 'invalid', problems: [`unknown digest command "${verb.slice(0, 40)}"`] };
  }
}
