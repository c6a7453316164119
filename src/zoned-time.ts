/**
 * Wall-clock time in an IANA time zone, with Intl only (no tz library): validating a zone,
 * reading an instant's local date, and turning "this local date at HH:MM" into an instant across
 * daylight-saving transitions.
 *
 * DST rules follow Temporal's `disambiguation: 'compatible'` (and RFC 5545 §3.3.5):
 * - a wall time that does not exist (spring forward, e.g. 02:30 in America/New_York on the second
 *   Sunday of March) is moved forward by the length of the gap: 02:30 → 03:30 EDT;
 * - a wall time that occurs twice (fall back, 01:30 on the first Sunday of November) is the
 *   earlier of the two instants.
 */

/** 'YYYY-MM-DD' */
export type LocalDate = string;
/** 'HH:MM', 24-hour */
export type LocalTime = string;

export const DAY_MS = 24 * 60 * 60 * 1000;

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      // h23: 00–23. With `hour12: false` some ICU versions print midnight as "24".
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * The zone's canonical IANA name ('asia/shanghai' → 'Asia/Shanghai'), or null when Intl does
 * not know it. Intl.DateTimeFormat throws a RangeError for an unknown zone.
 */
export function canonicalTimeZone(timeZone: string): string | null {
  const name = timeZone.trim();
  if (name === '' || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The wall clock of an instant in a zone. */
export function wallClock(instantMs: number, timeZone: string): WallClock {
  const part: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instantMs))) {
    if (p.type !== 'literal') part[p.type] = Number(p.value);
  }
  return {
    year: part.year ?? 0,
    month: part.month ?? 1,
    day: part.day ?? 1,
    hour: part.hour ?? 0,
    minute: part.minute ?? 0,
    second: part.second ?? 0,
  };
}

/** The zone's offset from UTC at an instant, in ms (Asia/Shanghai: +8 h). */
export function offsetAt(instantMs: number, timeZone: string): number {
  const w = wallClock(instantMs, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(instantMs / 1000) * 1000;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The local calendar date of an instant: 'YYYY-MM-DD'. */
export function localDateOf(instantMs: number, timeZone: string): LocalDate {
  const w = wallClock(instantMs, timeZone);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

/** 'HH:MM' of an instant in a zone. */
export function localTimeOf(instantMs: number, timeZone: string): LocalTime {
  const w = wallClock(instantMs, timeZone);
  return `${pad(w.hour)}:${pad(w.minute)}`;
}

function parseDate(date: LocalDate): [number, number, number] {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** 'HH:MM' → [hour, minute], or null (accepts 'H:MM'). */
export function parseLocalTime(text: string): [number, number] | null {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** '9:05' → '09:05'; null when not a 24-hour time. */
export function normalizeLocalTime(text: string): LocalTime | null {
  const hm = parseLocalTime(text);
  return hm ? `${pad(hm[0])}:${pad(hm[1])}` : null;
}

/** Calendar arithmetic on a local date (no time zone involved). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const [y, m, d] = parseDate(date);
  const t = new Date(Date.UTC(y, m - 1, d + days));
  return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

/**
 * The instant at which the zone's clocks show `time` on `date`, with the DST rules above.
 * The offsets a day before and a day after bracket any transition near the wall time; a wall
 * time that matches neither lies in a gap.
 */
export function zonedInstant(date: LocalDate, time: LocalTime, timeZone: string): number {
  const [y, mo, d] = parseDate(date);
  const hm = parseLocalTime(time);
  if (!hm) throw new RangeError(`not an HH:MM time: ${time}`);
  const wall = Date.UTC(y, mo - 1, d, hm[0], hm[1]);
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const matches = [...new Set([wall - before, wall - after])]
    .filter((t) => t + offsetAt(t, timeZone) === wall)
    .sort((a, b) => a - b);
  // Fall back: both match, the earlier wins. Spring forward: neither matches; applying the
  // offset from before the gap lands as far past the gap's end as the wall time was past its start.
  return matches[0] ?? wall - before;
}

/** Midnight that starts `date` in the zone (the first valid instant, should midnight be skipped). */
export function startOfLocalDay(date: LocalDate, timeZone: string): number {
  return zonedInstant(date, '00:00', timeZone);
}
