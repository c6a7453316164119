/**
 * What a message holds that platdesk can look up (issue 5, message shortcuts): item links and
 * ids, waybill numbers (spec/notes.md shapes), seller messaging account ids. Read from the
 * message text, its blocks (rich_text, section text and fields) and its attachments (text,
 * fallback, title link, fields), or from free text (the global shortcut).
 */

import { capped, MAX_MESSAGE_TEXT } from '../text-limits.js';
import { findItemRefs, type Marketplace, unwrapSlackLink } from './parse/item-link.js';
import { findWaybillCodes, guessCarrier } from './parse/waybill.js';

/** Which shortcut: its callback id's last part, or `any` for the global shortcut. */
export type ShortcutKind = 'items' | 'waybills' | 'shops' | 'any';

export type Candidate =
  | { kind: 'item'; itemId: string; marketplace: Marketplace | null }
  /** The shop selling a linked item (get-shop-info takes the link). */
  | { kind: 'shop-info'; url: string; shopType: Marketplace; itemId: string }
  | { kind: 'shop-id'; wwid: string }
  | { kind: 'waybill'; waybillCode: string; carrier: string | null };

export interface Found {
  candidates: Candidate[];
  /** Short links seen (they need the full link). */
  shortLinks: string[];
  /** Found beyond MAX_CANDIDATES, not listed. */
  more: number;
  /** `shop:<id>` or `owner:<id>` written in the message (the waybill shortcut's default target). */
  target: string | null;
}

/** At most this many lookups are listed in one modal (3 checkbox groups of 10). */
export const MAX_CANDIDATES = 30;

/** What each shortcut looks for, said in the modal and when nothing is found. */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys whose string values can hold text a person wrote or a link (not ids, styles or images). */
const TEXT_KEYS = new Set([
  'text',
  'url',
  'fallback',
  'pretext',
  'title',
  'title_link',
  'value',
  'from_url',
  'original_url',
  'footer',
  'author_name',
]);

/** Every text of a message: its text, its blocks' texts and links, its attachments' fields. */
export function messageTexts(message: { text?: string; blocks?: unknown; attachments?: unknown }): string[] {
  const out: string[] = [];
  // Up to a message's length in all (MAX_MESSAGE_TEXT): the walk stops once that much is read.
  let length = 0;
  const take = (text: string) => {
    out.push(capped(text, MAX_MESSAGE_TEXT - length));
    length += text.length;
  };
  if (typeof message.text === 'string' && message.text !== '') take(message.text);
  const walk = (v: unknown, depth: number): void => {
    if (depth > 12 || length >= MAX_MESSAGE_TEXT) return;
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (isObject(v)) {
      for (const [key, x] of Object.entries(v)) {
        if (length >= MAX_MESSAGE_TEXT) return;
        if (typeof x === 'string') {
          if (TEXT_KEYS.has(key) && x !== '') take(x);
        } else walk(x, depth + 1);
      }
    }
  };
  walk(message.blocks, 0);
  walk(message.attachments, 0);
  return out;
}

/**
 * Text without its links, so numbers inside URLs (sku ids, tracking) are not taken for ids. Each
 * pattern is linear: `<…>` stops at the next `<` too, and a host starts only where a run of host
 * characters does (as item-link.ts LINK_LIKE; issue 34 M3).
 */
function withoutLinks(text: string): string {
  return (
    text
      .replace(/<[^<>\s]*>/g, ' ')
      .replace(/(?<![a-z0-9.-])(?:https?:\/\/)?[a-z0-9.-]+\.(?:com|cn|hk|net)\/\S*/gi, ' ')
      // shop:/owner: ids are targets, not items.
      .replace(/\b(?:shop|owner|carrier|page|size):\S+/gi, ' ')
  );
}

const WWID_PREFIX =
  /(?:^|[\s(（,，;；])(?:ww|wwid|wangwang|旺旺)\s*[:：]\s*([^\s<>,，;；|()（）"']{2,64})/giu;
const TARGET = /(?:^|\s)(shop|owner):([\w.:@-]{1,64})/i;

export function findSellerIds(text: string): string[] {
  const out = new Set<string>();
  for (const m of capped(text, MAX_MESSAGE_TEXT).matchAll(WWID_PREFIX)) if (m[1]) out.add(m[1]);
  return [...out];
}

function findItemIds(text: string): string[] {
  const out = new Set<string>();
  // Item ids of both marketplaces run to 12 digits; 13 and more are waybill shapes (EMS, STO…).
  for (const m of withoutLinks(text).matchAll(/(?<![\w.-])\d{9,12}(?![\w.-])/g)) out.add(m[0]);
  return [...out];
}

/** Finds what `kind` looks for in the texts, in order, without repeats. */
export function findInTexts(kind: ShortcutKind, texts: readonly string[]): Found {
  // Read up to a message's length (Slack's 40,000 characters), whatever the blocks add.
  const all = capped(texts.join('\n'), MAX_MESSAGE_TEXT).replace(/&amp;/g, '&');
  const candidates: Candidate[] = [];
  const shortLinks: string[] = [];
  const seen = new Set<string>();
  const add = (key: string, c: Candidate) => {
    if (seen.has(key)) return;
    seen.add(key);
    candidates.push(c);
  };
  const refs = findItemRefs(all);
  for (const ref of refs)
    if (!ref.ok && ref.reason === 'short_link') shortLinks.push(unwrapSlackLink(ref.input));

  if (kind === 'items' || kind === 'any') {
    for (const ref of refs)
      if (ref.ok)
        add(`item:${ref.itemId}`, { kind: 'item', itemId: ref.itemId, marketplace: ref.marketplace });
    const waybills = new Set(kind === 'any' ? findWaybillCodes(withoutLinks(all)) : []);
    for (const id of findItemIds(all))
      if (!waybills.has(id)) add(`item:${id}`, { kind: 'item', itemId: id, marketplace: null });
  }
  if (kind === 'shops') {
    for (const ref of refs)
      if (ref.ok && ref.url)
        add(`shop-info:${ref.itemId}`, {
          kind: 'shop-info',
          url: ref.url,
          shopType: ref.marketplace ?? '0',
          itemId: ref.itemId,
        });
  }
  if (kind === 'shops' || kind === 'any')
    for (const wwid of findSellerIds(all)) add(`shop-id:${wwid}`, { kind: 'shop-id', wwid });
  if (kind === 'waybills' || kind === 'any')
    for (const code of findWaybillCodes(withoutLinks(all)))
      add(`waybill:${code}`, { kind: 'waybill', waybillCode: code, carrier: guessCarrier(code) });

  const target = all.match(TARGET);
  return {
    candidates: candidates.slice(0, MAX_CANDIDATES),
    shortLinks,
    more: Math.max(0, candidates.length - MAX_CANDIDATES),
    target: target?.[1] && target[2] ? `${target[1].toLowerCase()}:${target[2]}` : null,
  };
}
