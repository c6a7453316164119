/**
 * Dates and times as support staff write them, in Chinese and English: "今天", "昨天", "明早 9 点",
 * "下午3点前", "last 3 days", "最近3天", "11月20日", "2026-11-20", "within 6 hours". Read in China
 * Standard Time (UTC+8, no daylight saving), the marketplaces' time, as /orders reads its dates.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** China Standard Time: UTC+8 all year. */
const CST = 8 * HOUR;

export type When =
  /** One local day (its 00:00). `today`: the day is today (an order window up to now). */
  | { kind: 'day'; start: Date; today: boolean }
  /** The last N local days, today first (each its own 24-hour order window). */
  | { kind: 'days'; starts: Date[] }
  /** A moment ahead ("明早 9 点", "by 6pm"): what is due until then. */
  | { kind: 'until'; at: Date }
  /** The next N hours ("6小时内", "within 6 hours"). */
  | { kind: 'hours'; hours: number };

/** 00:00 CST of the local day `offset` days from `now`'s. */
export function dayStart(now: Date, offset = 0): Date {
  const local = now.getTime() + CST;
  return new Date(Math.floor(local / DAY) * DAY - CST + offset * DAY);
}

/** "YYYY-MM-DD HH:MM" in CST, as the tools' from/to take it. */
export function cstText(at: Date): string {
  return new Date(at.getTime() + CST).toISOString().slice(0, 16).replace('T', ' ');
}

const CN_DIGITS: Readonly<Record<string, number>> = {
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
};

/** "3", "三", "十二", "二十" → a number (up to 99); NaN otherwise. */
export function numberOf(text: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^[零一二两三四五六七八九十]+$/.test(text)) return Number.NaN;
  if (text.includes('十')) {
    const [tens = '', ones = ''] = text.split('十');
    return (
      (tens === '' ? 1 : (CN_DIGITS[tens] ?? Number.NaN)) * 10 +
      (ones === '' ? 0 : (CN_DIGITS[ones] ?? Number.NaN))
    );
  }
  return text.length === 1 ? (CN_DIGITS[text] ?? Number.NaN) : Number.NaN;
}

const NUM = '(\\d{1,2}|[零一二两三四五六七八九十]{1,3})';

/** An hour of the day said with its part ("下午3点", "3pm", "晚上8点半"), 24-hour. */
function hourOf(part: string | undefined, hour: number, pm: boolean): number {
  if (pm || /下午|晚上|今晚|傍晚|pm|evening|tonight/i.test(part ?? '')) return hour < 12 ? hour + 12 : hour;
  if (/中午/.test(part ?? '')) return hour < 6 ? hour + 12 : hour;
  return hour === 12 && /凌晨|am/i.test(part ?? '') ? 0 : hour;
}

/**
 * The first date or time the text names, or null. `now` fixes "today". A time alone ("9 点前")
 * is today's, or tomorrow's when it has passed.
 */
export function findWhen(text: string, now: Date): When | null {
  const t = text.toLowerCase();
  // The next N hours.
  const hours = new RegExp(
    `(?:within|next|in the next)\\s+(\\d{1,3})\\s*(?:h|hours?)\\b|${NUM}\\s*(?:个)?小时(?:内|之内|以内)`,
  ).exec(t);
  if (hours) {
    const n = numberOf(hours[1] ?? hours[2] ?? '');
    if (Number.isFinite(n) && n > 0) return { kind: 'hours', hours: n };
  }
  // The last N days, today included.
  const last = new RegExp(
    `(?:last|past|previous)\\s+(\\d{1,3})\\s*days?|(?:最近|近|过去|前)${NUM}\\s*(?:天|日)`,
  ).exec(t);
  if (last) {
    const n = numberOf(last[1] ?? last[2] ?? '');
    if (Number.isFinite(n) && n > 0)
      return { kind: 'days', starts: Array.from({ length: n }, (_, i) => dayStart(now, -i)) };
  }
  if (/(?:this|last)\s+week|本周|这周|这一周|最近一周|近一周/.test(t))
    return { kind: 'days', starts: Array.from({ length: 7 }, (_, i) => dayStart(now, -i)) };

  // A day, maybe with a time.
  let offset: number | null = null;
  if (/今天|今日|今早|今晚|今天晚上|today|tonight|this morning|this evening/.test(t)) offset = 0;
  else if (/前天|day before yesterday/.test(t)) offset = -2;
  else if (/昨天|昨日|昨晚|yesterday/.test(t)) offset = -1;
  else if (/后天|day after tomorrow/.test(t)) offset = 2;
  else if (/明天|明日|明早|明晚|tomorrow/.test(t)) offset = 1;
  let start: Date | null = offset === null ? null : dayStart(now, offset);
  const iso = /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/.exec(t);
  const cn = /(?:(\d{4})年)?(\d{1,2})月(\d{1,2})(?:日|号)/.exec(t);
  const slash = /\b(\d{1,2})\/(\d{1,2})\b/.exec(t);
  const date = iso ?? cn;
  if (date) {
    const year = Number(date[1] ?? new Date(now.getTime() + CST).getUTCFullYear());
    const at = Date.UTC(year, Number(date[2]) - 1, Number(date[3])) - CST;
    if (!Number.isNaN(at)) start = new Date(at);
  } else if (slash && start === null) {
    const year = new Date(now.getTime() + CST).getUTCFullYear();
    start = new Date(Date.UTC(year, Number(slash[1]) - 1, Number(slash[2])) - CST);
  }
  // A time of day: "9点", "9 点半", "下午3点", "9:30", "9am", "6 pm".
  const time =
    new RegExp(
      `(早上|上午|中午|下午|晚上|凌晨|傍晚|明早|今早|今晚|明晚)?\\s*${NUM}\\s*(?:点|时)(半|\\d{1,2}分?)?`,
    ).exec(t) ??
    /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b/.exec(t) ??
    /\b(?:at|by|before)\s+(\d{1,2}):(\d{2})\b/.exec(t);
  if (time) {
    let hour: number;
    let minute = 0;
    if (time[0].includes('点') || time[0].includes('时')) {
      hour = numberOf(time[2] ?? '');
      minute = time[3] === '半' ? 30 : Number.parseInt(time[3] ?? '0', 10) || 0;
      hour = hourOf(`${time[1] ?? ''}${/明晚|今晚/.test(t) ? '晚上' : ''}`, hour, false);
      if (/明早|明晚/.test(time[1] ?? '') && offset === null) start = dayStart(now, 1);
    } else {
      hour = Number(time[1]);
      minute = Number(time[2] ?? 0);
      hour = hourOf(time[3], hour, time[3] === 'pm');
    }
    if (Number.isFinite(hour) && hour >= 0 && hour < 24 && minute < 60) {
      let day = start ?? dayStart(now, 0);
      let at = new Date(day.getTime() + hour * HOUR + minute * 60_000);
      if (start === null && at <= now) {
        day = dayStart(now, 1);
        at = new Date(day.getTime() + hour * HOUR + minute * 60_000);
      }
      return { kind: 'until', at };
    }
  }
  if (start !== null) return { kind: 'day', start, today: start.getTime() === dayStart(now, 0).getTime() };
  return null;
}
