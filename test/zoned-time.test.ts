/**
 * Next-run computation in the subscription's zone: a zone without daylight saving (Asia/Shanghai),
 * one with it (America/New_York) on ordinary days and on both transition days, and a half-hour
 * shift (Australia/Lord_Howe).
 */
import { describe, expect, it } from 'vitest';
import { nextRunAfter, scheduledInstant } from '../src/digest/scheduler.js';
import type { DigestSubscription } from '../src/store/store.js';
import {
  addDays,
  canonicalTimeZone,
  localDateOf,
  normalizeLocalTime,
  startOfLocalDay,
  zonedInstant,
} from '../src/zoned-time.js';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => Date.parse(text);

function sub(localTime: string, timeZone: string): DigestSubscription {
  return {
    id: 1,
    tenantId: '',
    ownerId: '2200001002',
    shopLabel: '2200001002',
    channelId: 'C1234',
    localTime,
    timeZone,
    createdBy: 'UADMIN',
    createdAt: new Date(0),
    times: [localTime],
    days: null,
    layout: 'single',
    flags: null,
    statuses: null,
  };
}

describe('zonedInstant', () => {
  it('Asia/Shanghai is UTC+8 all year (no daylight saving)', () => {
    expect(iso(zonedInstant('2026-01-15', '09:00', 'Asia/Shanghai'))).toBe('2026-01-15T01:00:00.000Z');
    expect(iso(zonedInstant('2026-07-15', '09:00', 'Asia/Shanghai'))).toBe('2026-07-15T01:00:00.000Z');
    // Midnight-adjacent: 00:30 local is the previous UTC day.
    expect(iso(zonedInstant('2026-11-20', '00:30', 'Asia/Shanghai'))).toBe('2026-11-19T16:30:00.000Z');
  });

  it('America/New_York: EST in winter, EDT in summer', () => {
    expect(iso(zonedInstant('2026-01-15', '09:00', 'America/New_York'))).toBe('2026-01-15T14:00:00.000Z');
    expect(iso(zonedInstant('2026-07-15', '09:00', 'America/New_York'))).toBe('2026-07-15T13:00:00.000Z');
  });

  it('spring forward (2026-03-08): 02:30 does not exist and runs at 03:30 EDT; 09:00 is EDT', () => {
    expect(iso(zonedInstant('2026-03-08', '02:30', 'America/New_York'))).toBe('2026-03-08T07:30:00.000Z');
    expect(iso(zonedInstant('2026-03-08', '01:59', 'America/New_York'))).toBe('2026-03-08T06:59:00.000Z');
    expect(iso(zonedInstant('2026-03-08', '03:00', 'America/New_York'))).toBe('2026-03-08T07:00:00.000Z');
    expect(iso(zonedInstant('2026-03-08', '09:00', 'America/New_York'))).toBe('2026-03-08T13:00:00.000Z');
  });

  it('fall back (2026-11-01): 01:30 happens twice and runs at the first (EDT)', () => {
    expect(iso(zonedInstant('2026-11-01', '01:30', 'America/New_York'))).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(zonedInstant('2026-11-01', '09:00', 'America/New_York'))).toBe('2026-11-01T14:00:00.000Z');
  });

  it('a 30-minute shift (Lord Howe, 2026-10-04 02:00 → 02:30): 02:15 runs at 02:45', () => {
    expect(iso(zonedInstant('2026-10-04', '02:15', 'Australia/Lord_Howe'))).toBe('2026-10-03T15:45:00.000Z');
  });

  it('local dates, day arithmetic across months and leap days, start of day', () => {
    expect(localDateOf(at('2026-11-19T16:30:00Z'), 'Asia/Shanghai')).toBe('2026-11-20');
    expect(localDateOf(at('2026-11-19T16:30:00Z'), 'America/New_York')).toBe('2026-11-19');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(iso(startOfLocalDay('2026-03-08', 'America/New_York'))).toBe('2026-03-08T05:00:00.000Z');
  });

  it('validates time zones with Intl and canonicalizes them; normalizes times', () => {
    expect(canonicalTimeZone('asia/shanghai')).toBe('Asia/Shanghai');
    expect(canonicalTimeZone('America/New_York')).toBe('America/New_York');
    expect(canonicalTimeZone('Mars/Olympus_Mons')).toBeNull();
    expect(canonicalTimeZone('')).toBeNull();
    expect(normalizeLocalTime('9:05')).toBe('09:05');
    expect(normalizeLocalTime('23:59')).toBe('23:59');
    expect(normalizeLocalTime('24:00')).toBeNull();
    expect(normalizeLocalTime('9am')).toBeNull();
  });
});

describe('next run of a subscription', () => {
  it('Asia/Shanghai 09:00: today while it is ahead, else tomorrow', () => {
    const s = sub('09:00', 'Asia/Shanghai');
    expect(iso(nextRunAfter(s, at('2026-11-20T00:59:00Z')))).toBe('2026-11-20T01:00:00.000Z');
    expect(iso(nextRunAfter(s, at('2026-11-20T01:00:00Z')))).toBe('2026-11-20T01:00:00.000Z');
    expect(iso(nextRunAfter(s, at('2026-11-20T01:00:01Z')))).toBe('2026-11-21T01:00:00.000Z');
    // 23:00 UTC is already the next day in Shanghai (07:00 local): its 09:00 is two hours away.
    expect(iso(nextRunAfter(s, at('2026-11-20T23:00:00Z')))).toBe('2026-11-21T01:00:00.000Z');
  });

  it('America/New_York 02:30 around spring forward: 23 h then 24 h apart in UTC terms', () => {
    const s = sub('02:30', 'America/New_York');
    const saturday = nextRunAfter(s, at('2026-03-07T00:00:00Z'));
    const sunday = nextRunAfter(s, saturday + 1);
    const monday = nextRunAfter(s, sunday + 1);
    expect(iso(saturday)).toBe('2026-03-07T07:30:00.000Z'); // 02:30 EST
    expect(iso(sunday)).toBe('2026-03-08T07:30:00.000Z'); // 03:30 EDT: 02:30 does not exist
    expect(iso(monday)).toBe('2026-03-09T06:30:00.000Z'); // 02:30 EDT
    expect(localDateOf(sunday, s.timeZone)).toBe('2026-03-08');
  });

  it('America/New_York 09:00 across fall back: the window of that day is 25 h', () => {
    const s = sub('09:00', 'America/New_York');
    const before = scheduledInstant(s, '2026-10-31');
    const day = scheduledInstant(s, '2026-11-01');
    expect(iso(before)).toBe('2026-10-31T13:00:00.000Z');
    expect(iso(day)).toBe('2026-11-01T14:00:00.000Z');
    expect((day - before) / 3_600_000).toBe(25);
  });
});
