/** Parsing of request parameters shared by several operations. */
import { type Operation, SANDBOX_OPERATIONS } from './spec-table.js';

export type EditionParse = { ok: true; edition: number | null } | { ok: false; reason: string };

/**
 * vvtype (spec §9): an int that the examples send as text, so both are accepted. Missing or empty
 * means the operation's default, except where it is required (platdybw, §4.1).
 */
export function parseEdition(operation: Operation, raw: unknown): EditionParse {
  const spec = SANDBOX_OPERATIONS[operation];
  const allowed: readonly number[] = spec.editions;
  if (raw === undefined || raw === null || raw === '') {
    // spec §4.1: platdybw's vvtype is required; elsewhere a missing vvtype is the default.
    return operation === 'platdybw'
      ? { ok: false, reason: 'vvtype is required' }
      : { ok: true, edition: spec.defaultEdition };
  }
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  const edition = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
  return allowed.includes(edition)
    ? { ok: true, edition }
    : { ok: false, reason: `vvtype must be one of ${allowed.join(', ')}` };
}

const SHANGHAI_OFFSET_MS = 8 * 3_600_000;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * A time filter value in ms: a 10-digit (seconds) or 13-digit (ms) unix timestamp as text, or
 * 'YYYY-MM-DD HH:mm:ss' in Asia/Shanghai (UTC+8, no daylight saving), the platform's local time.
 * Returns null for anything else, including impossible dates.
 */
export function parseTimeFilter(text: string): number | null {
  const value = text.trim();
  if (/^\d{10}$/.test(value)) return Number(value) * 1000;
  if (/^\d{13}$/.test(value)) return Number(value);
  const match = DATE_TIME.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(utc);
  // Date.UTC rolls 2024-02-30 over to March; reject instead of guessing.
  if (
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return null;
  }
  return utc - SHANGHAI_OFFSET_MS;
}

/** A request value as text: strings trimmed, numbers as written; empty, missing or other types give null. */
export function textOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text === '' ? null : text;
}
