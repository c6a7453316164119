/**
 * Waybill numbers and their carriers (notes.md, "Waybill number shapes"; loose: the API decides).
 * A carrier is guessed only when exactly one shape matches; otherwise the user is asked.
 */
import { capped, MAX_MESSAGE_TEXT } from '../../text-limits.js';

/** The first marketplace's carrier codes (notes.md). */
export const CARRIER_CODES = [
  'YTO',
  'ZTO',
  'HTKY',
  'STO',
  'YUNDA',
  'SF',
  'POSTB',
  'EMS',
  'JD',
  'DBKD',
] as const;

const SHAPES: { carrier: string; pattern: RegExp }[] = [
  { carrier: 'SF', pattern: /^SF[0-9A-Z]{13}$/ },
  { carrier: 'YTO', pattern: /^YT\d{13}$/ },
  { carrier: 'JT', pattern: /^JT\d{13}$/ },
  { carrier: 'JD', pattern: /^JD[0-9A-Z]{2}\d{11}$/ },
  { carrier: 'DBKD', pattern: /^DPK\d{12}$/ },
  { carrier: 'ZTO', pattern: /^[74]\d{11,14}$/ },
  { carrier: 'STO', pattern: /^(77|43)\d{12,15}$/ },
  { carrier: 'YUNDA', pattern: /^(?:[34]\d{14}|5\d{12})$/ },
  { carrier: 'EMS', pattern: /^[981]\d{12}$/ },
];

/** Candidate carriers for a number, by shape. */
export function carriersByShape(waybillCode: string): string[] {
  const code = waybillCode.toUpperCase();
  return SHAPES.filter((s) => s.pattern.test(code)).map((s) => s.carrier);
}

/** The carrier when exactly one shape matches, else null (ask the user). */
export function guessCarrier(waybillCode: string): string | null {
  const candidates = carriersByShape(waybillCode);
  return candidates.length === 1 ? (candidates[0] ?? null) : null;
}

const WAYBILL_TOKEN = /^[A-Z0-9]{10,20}$/;

/** Is this token shaped like a waybill number of a known carrier? */
export function looksLikeWaybill(token: string): boolean {
  const t = token.toUpperCase();
  return WAYBILL_TOKEN.test(t) && /\d{8}/.test(t) && carriersByShape(t).length > 0;
}

/** Every waybill-shaped number in free text, upper-cased, in order, without repeats. */
export function findWaybillCodes(text: string): string[] {
  const out = new Set<string>();
  // Letters may follow the prefix (JD + 2 letters/digits + 11 digits, e.g. JDVA…; SF + 13 chars):
  // any 10–20 letters and digits, then the shapes decide.
  for (const m of capped(text, MAX_MESSAGE_TEXT).matchAll(/\b[A-Za-z0-9]{10,20}\b/g))
    if (looksLikeWaybill(m[0])) out.add(m[0].toUpperCase());
  return [...out];
}
