/**
 * Waybill numbers (spec/notes.md, "Waybill number shapes"): a carrier is guessed only when exactly
 * one shape matches; otherwise the candidates are offered and the user is asked.
 */
import { describe, expect, it } from 'vitest';
import {
  CARRIER_CODES,
  carriersByShape,
  findWaybillCodes,
  guessCarrier,
  looksLikeWaybill,
} from '../../../src/lookups/parse/waybill.js';
import { SANDBOX_FIXTURES } from '../../../src/sandbox/index.js';

describe('guessCarrier: one shape per carrier of notes.md', () => {
  it.each([
    ['SF + 13 characters', 'SF1234567890123', 'SF'],
    ['SF + 13 characters with letters', 'SF12345678901AB', 'SF'],
    ['YTO: YT + 13 digits', 'YT1234567890123', 'YTO'],
    ['J&T: JT + 13 digits', 'JT1234567890123', 'JT'],
    ['JD + 2 letters + 11 digits', 'JDVA12345678901', 'JD'],
    ['JD + 2 digits + 11 digits', 'JD0112345678901', 'JD'],
    ['Deppon: DPK + 12 digits', 'DPK123456789012', 'DBKD'],
    ['ZTO: 12 digits starting 7', '731234567890', 'ZTO'],
    ['ZTO: 13 digits starting 7', '7312345678901', 'ZTO'],
    ['ZTO: 12 digits starting 4', '412345678901', 'ZTO'],
    ['STO: 17 digits starting 77', '77301234567890123', 'STO'],
    ['STO: 16 digits starting 43', '4301234567890123', 'STO'],
    ['Yunda: 15 digits starting 3', '312345678901234', 'YUNDA'],
    ['Yunda: 13 digits starting 5', '5123456789012', 'YUNDA'],
    ['EMS: 13 digits starting 9', '9812345678901', 'EMS'],
    ['EMS: 13 digits starting 8', '8123456789012', 'EMS'],
    ['EMS: 13 digits starting 1', '1123456789012', 'EMS'],
    ['lower case', 'sf1234567890123', 'SF'],
  ])('%s → %s', (_name, code, carrier) => {
    expect(carriersByShape(code)).toEqual([carrier]);
    expect(guessCarrier(code)).toBe(carrier);
  });

  it.each([
    ['15 digits starting 77: ZTO or STO', '773012345678901', ['ZTO', 'STO']],
    ['14 digits starting 43: ZTO or STO', '43012345678901', ['ZTO', 'STO']],
    ['15 digits starting 4: ZTO or Yunda', '412345678901234', ['ZTO', 'YUNDA']],
    ['15 digits starting 43: ZTO, STO or Yunda', '431234567890123', ['ZTO', 'STO', 'YUNDA']],
  ])('ambiguous, %s → null with the candidates', (_name, code, candidates) => {
    expect(carriersByShape(code)).toEqual(candidates);
    expect(guessCarrier(code)).toBeNull();
  });

  it.each(['123', 'ABC', '2200001001', 'SF123', '6123456789012'])(
    'no shape: %s → null, no candidates',
    (code) => {
      expect(carriersByShape(code)).toEqual([]);
      expect(guessCarrier(code)).toBeNull();
    },
  );

  it('every guessed first-marketplace code is one the API knows (except J&T, which notes.md lists by shape only)', () => {
    const guessed = [
      'SF1234567890123',
      'YT1234567890123',
      'JDVA12345678901',
      'DPK123456789012',
      '7312345678901',
    ].map(guessCarrier);
    for (const code of guessed) expect(CARRIER_CODES).toContain(code);
  });

  it("the sandbox's seeded waybills are all waybill-shaped", () => {
    for (const code of SANDBOX_FIXTURES.waybills.ok) expect(looksLikeWaybill(code)).toBe(true);
  });
});

describe('findWaybillCodes: numbers in free text', () => {
  it('finds every shape once, upper-cased, in order', () => {
    const text =
      'please check SF1234567890123, yt1234567890123; JD: JDVA12345678901 and JD0112345678901 ' +
      '(freight DPK123456789012), ZTO 7312345678901 — SF1234567890123 again';
    expect(findWaybillCodes(text)).toEqual([
      'SF1234567890123',
      'YT1234567890123',
      'JDVA12345678901',
      'JD0112345678901',
      'DPK123456789012',
      '7312345678901',
    ]);
  });

  it('finds numbers next to Chinese text and in Slack formatting', () => {
    expect(findWaybillCodes('运单SF1234567890123已签收 *YT1234567890123* `9812345678901`')).toEqual([
      'SF1234567890123',
      'YT1234567890123',
      '9812345678901',
    ]);
  });

  it('ignores owner ids, item ids, phone-like numbers and words', () => {
    expect(findWaybillCodes('owner 2200001001, item 680001234501, call 13800138000, ABCDEFGHIJKL')).toEqual(
      [],
    );
  });

  it('ignores numbers that are part of longer tokens', () => {
    expect(findWaybillCodes('https://x.example/SF1234567890123X9')).toEqual([]);
  });
});
