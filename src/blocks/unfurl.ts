/**
 * Item-link unfurls (issue 5): what the link is and a `Look up (charge)` button; in an
 * auto-lookup channel the item itself, saying it was looked up automatically and how much of
 * the day's cap is used; the earlier result when the item was looked up in the channel within
 * 30 minutes; a note for short links. Compact: an unfurl is a preview, not the full answer.
 */
import type { KnownBlock } from '@slack/types';
import { MARKETPLACE_NAMES, type Marketplace } from '../lookups/parse/item-link.js';
import type { Quote } from '../lookups/types.js';
import type { EarlierResult, UnfurlDecision } from '../lookups/unfurls.js';
import { isPlatError } from '../plat/errors.js';
import type { Item } from '../plat/types.js';
import { ACTIONS } from './action-ids.js';
import { chargeNoteText, quoteShort } from './charge-note.js';
import { errorChargeText, errorTitle } from './errors.js';
import { priceRange, renderItem } from './item.js';
import { actions, button, context, image, message, type RenderedMessage, section } from './kit.js';
import { escapeClip, formatAge, formatShanghaiTime, mrkdwnLink, plural, truncate } from './text.js';

/** The Look up button's value: "<marketplace>:<item id>" (marketplace empty when unknown). */
export function unfurlButtonValue(itemId: string, marketplace: Marketplace | null): string {
  return `${marketplace ?? ''}:${itemId}`;
}

export function parseUnfurlButtonValue(
  value: string | undefined,
): { itemId: string; marketplace: Marketplace | null } | null {
  const m = (value ?? '').match(/^([012]?):(\d{5,20})$/);
  if (!m?.[2]) return null;
  return { itemId: m[2], marketplace: (m[1] || null) as Marketplace | null };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/** ":shopping_bags: *Item 680001234501* on the first marketplace (item.taobao.com)" */
function whatLine(url: string, itemId: string, marketplace: Marketplace | null): string {
  const where = marketplace ? ` on the ${MARKETPLACE_NAMES[marketplace]}` : '';
  const host = hostOf(url);
  return `:shopping_bags: *Item ${escapeClip(itemId, 40)}*${where}${host ? ` (${escapeClip(host, 80)})` : ''}`;
}

/** The item in a few lines: title, shop, price range, SKU count, picture. */
export function itemSummaryBlocks(item: Item, url: string): KnownBlock[] {
  const title = truncate(item.title.trim() || `Item ${item.itemId}`, 200);
  const facts: string[] = [];
  if (item.shopName) facts.push(`Shop: ${escapeClip(item.shopName, 100)}`);
  const price = priceRange(item.skus.map((s) => s.price));
  facts.push(`Price: ${price ?? 'not listed'}`);
  if (item.skus.length > 0) facts.push(plural(item.skus.length, 'SKU'));
  const picture = item.images.map((u) => image(u, 'Item image')).find((img) => img !== undefined);
  return [section(`*${mrkdwnLink(url, title)}*\n${facts.join(' · ')}`, picture)];
}

function lookUpButton(
  itemId: string,
  marketplace: Marketplace | null,
  quote: Quote,
  label?: string,
): KnownBlock {
  return actions([
    button({
      label: label ?? `Look up (${quoteShort(quote)})`,
      actionId: ACTIONS.unfurlLookup,
      value: unfurlButtonValue(itemId, marketplace),
    }),
  ]);
}

function earlierText(earlier: EarlierResult, now: Date): string {
  const who = earlier.auto ? 'looked up automatically' : `looked up by <@${earlier.userId}>`;
  return `:recycle: Earlier result (${who} at ${formatShanghaiTime(earlier.at)}, ${formatAge(now.getTime() - earlier.at.getTime())} ago): not looked up again, no charge.`;
}

/** The blocks of one link's unfurl. */
export function renderUnfurl(decision: UnfurlDecision, options: { now: Date }): KnownBlock[] {
  if (decision.kind === 'short_link')
    return [
      section(
        `:link: *Short link*: platdesk cannot tell which item ${escapeClip(hostOf(decision.url) || 'it', 80)} points to without opening it. Paste the full item link (item.taobao.com/item.htm?id=…, detail.tmall.com/…, mobile.yangkeduo.com/goods.html?goods_id=…) to look it up.`,
      ),
    ];
  const { ref, quote, url } = decision;
  const short = quoteShort(quote);
  switch (decision.kind) {
    case 'offer': {
      const notes: string[] = [];
      const note = decision.note;
      if (note?.kind === 'capped')
        notes.push(
          `:no_entry: Not looked up automatically: this channel's cap of ${note.cap} automatic lookups a day is reached (${note.used} of ${note.cap} today).`,
        );
      else if (note?.kind === 'refused')
        // The lookup service speaks to the poster ("you"): say whose lookup it was.
        notes.push(
          `:no_entry: Not looked up automatically, refused for the person who posted it: ${escapeClip(note.message, 300)}`,
        );
      else if (note?.kind === 'running')
        notes.push(
          ':hourglass_flowing_sand: Being looked up automatically for an earlier post of this link.',
        );
      else if (note?.kind === 'failed_earlier')
        notes.push(
          `:warning: An automatic lookup of this item failed at ${formatShanghaiTime(note.at)}; look it up by hand if you need it.`,
        );
      return [
        section(whatLine(url, ref.itemId, ref.marketplace)),
        lookUpButton(ref.itemId, ref.marketplace, quote),
        context(
          ...notes,
          `Looking it up costs ${escapeClip(short, 100)}; you confirm first. Nothing has been charged.`,
        ),
      ];
    }
    case 'earlier':
      return [
        ...itemSummaryBlocks(decision.earlier.outcome.item, url),
        lookUpButton(ref.itemId, ref.marketplace, quote, 'Show details'),
        context(earlierText(decision.earlier, options.now)),
      ];
    case 'auto': {
      const counted = decision.cached
        ? `from cache, ${formatAge(decision.cached.ageMs)} old: no charge, not counted (${decision.used} of ${decision.cap} today)`
        : `${decision.used} of ${decision.cap} today · ${chargeNoteText({
            chargedPoints: decision.outcome.chargedPoints,
            quotaCalls: decision.outcome.quotaCalls,
            ...(decision.outcome.attempts !== undefined ? { attempts: decision.outcome.attempts } : {}),
            ...(decision.outcome.shared ? { shared: true } : {}),
          })}`;
      return [
        ...itemSummaryBlocks(decision.outcome.item, url),
        lookUpButton(ref.itemId, ref.marketplace, quote, 'Show details'),
        context(`:robot_face: Looked up automatically (this channel auto-looks up item links): ${counted}.`),
      ];
    }
    case 'auto_failed': {
      const error = decision.error;
      const why = isPlatError(error)
        ? `${errorTitle(error.code)}. ${errorChargeText(error)}`
        : 'The lookup failed.';
      return [
        section(whatLine(url, ref.itemId, ref.marketplace)),
        lookUpButton(ref.itemId, ref.marketplace, quote),
        context(
          `:warning: Looked up automatically (${decision.used} of ${decision.cap} today) and it failed: ${escapeClip(why, 400)}`,
        ),
      ];
    }
  }
}

/** The Look up click on an item looked up in the channel within the window: the full card, free. */
export function renderEarlierAnswer(earlier: EarlierResult, url: string, now: Date): RenderedMessage {
  const card = renderItem(earlier.outcome.item, {
    prices: earlier.outcome.prices,
    charge: { chargedPoints: 0, quotaCalls: 0 },
    itemUrl: url,
  });
  // The charge note of the card (last block) is replaced: this answer cost nothing.
  const blocks = [...card.blocks.slice(0, -1), context(earlierText(earlier, now))];
  return message(`Earlier result: ${card.text}`, blocks, 2);
}
