/**
 * When an alert checks: every `everyMinutes` from `hoursFrom` to `hoursTo` (inclusive) in the
 * subscription's zone, each slot a local wall time turned into an instant by zonedInstant
 * (DST-aware: a slot in a spring-forward gap moves forward, a repeated one is the earlier).
 */

import type { AlertSubscription } from '../store/store.js';
import { addDays, localDateOf, parseLocalTime, zonedInstant } from '../zoned-time.js';

type Hours = Pick<AlertSubscription, 'everyMinutes' | 'hoursFrom' | 'hoursTo' | 'timeZone'>;

const minutesOf = (hhmm: string): number => {
  const hm = parseLocalTime(hhmm);
  if (!hm) throw new RangeError(`not an HH:MM time: ${hhmm}`);
  return hm[0] * 60 + hm[1];
};
const pad = (n: number) => String(n).padStart(2, '0');

/** The slots of a local date, in order (ms). */
export function slotsOn(sub: Hours, date: string): number[] {
  const from = minutesOf(sub.hoursFrom);
  const to = minutesOf(sub.hoursTo);
  const slots: number[] = [];
  for (let m = from; m <= to; m += sub.everyMinutes) {
    const at = zonedInstant(date, `${pad(Math.floor(m / 60))}:${pad(m % 60)}`, sub.timeZone);
    if (slots.length === 0 || at > (slots.at(-1) ?? 0)) slots.push(at);
  }
  return slots;
}

/** The newest slot at or before `atMs` on its local date, or null (before working hours). */
export function dueSlot(sub: Hours, atMs: number): number | null {
  const due = slotsOn(sub, localDateOf(atMs, sub.timeZone)).filter((s) => s <= atMs);
  return due.at(-1) ?? null;
}

/** The first slot after `atMs` (today's, else a later day's). */
export function nextSlotAfter(sub: Hours, atMs: number): number {
  const today = localDateOf(atMs, sub.timeZone);
  for (let d = 0; d < 3; d++) {
    const next = slotsOn(sub, addDays(today, d)).find((s) => s > atMs);
    if (next !== undefined) return next;
  }
  throw new RangeError('an alert has no slot in three days');
}

/** Checks a local day holds (for the daily cost). */
export function checksPerDay(sub: Omit<Hours, 'timeZone'>): number {
  return Math.floor((minutesOf(sub.hoursTo) - minutesOf(sub.hoursFrom)) / sub.everyMinutes) + 1;
}
