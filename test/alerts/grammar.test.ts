/** The grammars of `/orders alert` and of the new `/orders digest add` options, by value. */
import { describe, expect, it } from 'vitest';
import { parseAlertCommand } from '../../src/alerts/grammar.js';
import { dueSlot, nextSlotAfter, slotsOn } from '../../src/alerts/schedule.js';
import { parseDigestCommand } from '../../src/digest/grammar.js';
import { toLocale } from '../../src/lookups/locale.js';
import { DEFAULT_ALERT_SCHEDULE } from '../helpers/domain-factories.js';

const place = { channelId: 'C1234', channelName: 'support', userId: 'U1234' };
const alert = (text: string) => parseAlertCommand(text, place, toLocale);
const digest = (text: string) => parseDigestCommand(text, place, toLocale);

describe('/orders alert grammar', () => {
  it('defaults: within 6 h, every 60 min, 09:00–21:00 Asia/Shanghai, the digest cap', () => {
    expect(alert('add 2200001004 here')).toEqual({
      kind: 'add',
      shop: '2200001004',
      channelId: 'C1234',
      ...DEFAULT_ALERT_SCHEDULE,
      capPoints: null,
    });
  });

  it('every option, in any order, with units and full-width colons', () => {
    expect(
      alert('add tea <#C0ABCDEF|ops> cap:50 every:30min within：3h hours:8:00-22:30 america/new_york'),
    ).toMatchObject({
      kind: 'add',
      channelId: 'C0ABCDEF',
      withinHours: 3,
      everyMinutes: 30,
      hoursFrom: '08:00',
      hoursTo: '22:30',
      timeZone: 'America/New_York',
      capPoints: 50,
    });
    expect(alert('list')).toEqual({ kind: 'list' });
    expect(alert('remove #3')).toEqual({ kind: 'remove', id: 3 });
    expect(alert('')).toEqual({ kind: 'help' });
  });

  it('each bad part is named', () => {
    const bad = alert('add ??? #elsewhere within:99 every:10 hours:22:00-08:00 cap:x Mars/Base extra');
    expect(bad.kind === 'invalid' && bad.problems.map((p) => p.code)).toEqual([
      'shop_bad',
      'channel_plain_text',
      'within_bad',
      'every_bad',
      'hours_bad',
      'cap_bad',
      'zone_bad',
      'unexpected',
    ]);
    expect(alert('remove')).toMatchObject({ kind: 'invalid', problems: [{ code: 'alert_id_missing' }] });
    expect(alert('add 2200001004')).toMatchObject({ kind: 'invalid', problems: [{ code: 'alert_usage' }] });
    expect(alert('snooze 1')).toMatchObject({ kind: 'invalid', problems: [{ code: 'alert_verb' }] });
  });
});

describe('alert slots', () => {
  const sub = { everyMinutes: 60, hoursFrom: '09:00', hoursTo: '21:00', timeZone: 'Asia/Shanghai' };
  it('every hour from 09:00 to 21:00 in the zone: 13 checks', () => {
    const slots = slotsOn(sub, '2026-11-20');
    expect(slots).toHaveLength(13);
    expect(new Date(slots[0] ?? 0).toISOString()).toBe('2026-11-20T01:00:00.000Z');
    expect(new Date(slots.at(-1) ?? 0).toISOString()).toBe('2026-11-20T13:00:00.000Z');
    expect(dueSlot(sub, Date.parse('2026-11-20T00:59:00Z'))).toBeNull();
    expect(dueSlot(sub, Date.parse('2026-11-20T05:30:00Z'))).toBe(Date.parse('2026-11-20T05:00:00Z'));
    expect(nextSlotAfter(sub, Date.parse('2026-11-20T13:00:00Z'))).toBe(Date.parse('2026-11-21T01:00:00Z'));
  });
});

describe('/orders digest add options', () => {
  it('several times, days, filters, layout and me', () => {
    expect(digest('add tea me 17:30,9:00 days:fri-mon flag:red,2 status:awaiting single')).toMatchObject({
      kind: 'add',
      channelId: 'U1234',
      localTime: '09:00',
      times: ['09:00', '17:30'],
      days: [0, 1, 5, 6],
      flags: [1, 2],
      statuses: [1],
      layout: 'single',
    });
    expect(digest('add tea here 09:00 weekdays')).toMatchObject({ days: [1, 2, 3, 4, 5], layout: 'thread' });
    expect(digest('add tea here 09:00')).toMatchObject({ times: ['09:00'], layout: 'thread' });
    const bad = digest('add tea here 09:00,25:00 days:funday flag:pink status:4');
    expect(bad.kind === 'invalid' && bad.problems.map((p) => p.code)).toEqual([
      'time_bad',
      'days_bad',
      'flag_bad',
      'status_bad',
    ]);
  });
});
