/**
 * Item links and ids (notes.md, "Item links"): first marketplace item.taobao.com/item.htm?id=,
 * branded store detail.tmall.com/item.htm?id=, mobile pages with itemId=, second marketplace
 * mobile.yangkeduo.com/goods.html?goods_id=. Short links redirect and cannot be resolved offline.
 */
import { capped, MAX_LINK, MAX_MESSAGE_TEXT } from '../../text-limits.js';

/** get-shop-info `type` (spec §4.4): 0 first marketplace, 1 its branded-store site, 2 second marketplace. */
export type Marketplace = '0' | '1' | '2';

export type ItemRef =
  | { ok: true; itemId: string; marketplace: Marketplace | null; url: string | null }
  | { ok: false; reason: 'short_link' | 'not_an_item'; input: string };

const SHORT_LINK_HOSTS = /(^|\.)(m\.tb\.cn|e\.tb\.cn|tb\.cn|s\.click\.taobao\.com|p\.pinduoduo\.com)$/i;
const ITEM_ID = /^\d{5,20}$/;

/** Slack wraps links in command text as <url> or <url|label>. */
export function unwrapSlackLink(token: string): string {
  const m = token.match(/^<([^|>]+)(?:\|[^>]*)?>$/);
  return (m?.[1] ?? token).replace(/&amp;/g, '&');
}

export function marketplaceOfHost(host: string): Marketplace | null {
  const h = host.toLowerCase();
  if (/(^|\.)tmall\.(com|hk)$/.test(h)) return '1';
  if (/(^|\.)taobao\.com$/.test(h)) return '0';
  if (/(^|\.)(yangkeduo|pinduoduo)\.com$/.test(h)) return '2';
  return null;
}

export function parseItemRef(raw: string): ItemRef {
  if (raw.length > MAX_LINK) return { ok: false, reason: 'not_an_item', input: raw.slice(0, 80) };
  const input = unwrapSlackLink(raw.trim());
  if (ITEM_ID.test(input)) return { ok: true, itemId: input, marketplace: null, url: null };
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `https://${input}`);
  } catch {
    return { ok: false, reason: 'not_an_item', input };
  }
  if (!/^https?:$/.test(url.protocol) || !url.hostname.includes('.'))
    return { ok: false, reason: 'not_an_item', input };
  if (SHORT_LINK_HOSTS.test(url.hostname)) return { ok: false, reason: 'short_link', input };
  const marketplace = marketplaceOfHost(url.hostname);
  if (marketplace === null) return { ok: false, reason: 'not_an_item', input };
  const params = url.searchParams;
  const id = params.get('id') ?? params.get('itemId') ?? params.get('item_id') ?? params.get('goods_id');
  if (!id || !ITEM_ID.test(id)) return { ok: false, reason: 'not_an_item', input };
  return { ok: true, itemId: id, marketplace, url: canonicalItemUrl(id, marketplace) };
}

/** A clean link for an item (no tracking parameters), used for get-shop-info and for display. */
export function canonicalItemUrl(itemId: string, marketplace: Marketplace): string {
  switch (marketplace) {
    case '0':
      return `https://item.taobao.com/item.htm?id=${itemId}`;
    case '1':
      return `https://detail.tmall.com/item.htm?id=${itemId}`;
    case '2':
      return `https://mobile.yangkeduo.com/goods.html?goods_id=${itemId}`;
  }
}

/**
 * A link-like run in free text: a host ending in .com, .cn or .hk, a path. It starts only where a
 * host can start (not inside a run of host characters), so each run is scanned once: without that
 * anchor every position of a long run of host-like text began a scan to the run's end (quadratic:
 * a second per pass at 20,000 characters, issue 34 M3).
 */
export const LINK_LIKE = /(?<![a-z0-9.-])(?:https?:\/\/)?[a-z0-9.-]+\.(?:com|cn|hk)\/[^\s<>|"')]*/gi;

/** Every item link in free text (messages, unfurls, shortcuts), in order, without repeats. */
export function findItemRefs(text: string): ItemRef[] {
  const found = new Map<string, ItemRef>();
  for (const m of capped(text, MAX_MESSAGE_TEXT).matchAll(LINK_LIKE)) {
    // Sentence punctuation right after a link ("…?id=123, thanks") is not part of it.
    const ref = parseItemRef(m[0].replace(/[.,;:!?]+$/, ''));
    const key = ref.ok ? ref.itemId : ref.reason === 'short_link' ? ref.input : null;
    if (key && !found.has(key)) found.set(key, ref);
  }
  return [...found.values()];
}
