/**
 * Item-link unfurls (issue 5): what the link is and a `Look up (charge)` button; in an
 * auto-lookup channel the item itself, saying it was looked up automatically and how much of
 * the day's cap is used; the earlier result when the item was looked up in the channel within
 * 30 minutes; a note for short links. Compact: an unfurl is a preview, not the full answer.
 */
import type { KnownBlock } from '@slack/types';
import type { Marketplace } from '../lookups/parse/item-link.js';
import type { Quote } from '../lookups/types.js';
import type { EarlierResult, UnfurlDecision } from '../lookups/unfurls.js';
import { isPlatError } from '../plat/errors.js';
import type { Item } from '../plat/types.js';
import { ACTIONS } from './action-ids.js';
import { chargeNoteText, quoteShort } from './charge-note.js';
import { errorChargeText, errorTitle } from './errors.js';
import type { Words } from './i18n/words.js';
import { priceRange, renderItem } from './item.js';
import { actions, button, context, image, message, type RenderedMessage, section } from './kit.js';
import { bold } from './markers.js';
import { escapeClip, mrkdwnLink, truncate } from './text.js';
import { describeRefusal } from './words-of.js';

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
function whatLine(w: Words, url: string, itemId: string, marketplace: Marketplace | null): string {
  const host = hostOf(url);
  return w.t('unfurl.what', {
    id: escapeClip(itemId, 40),
    where: marketplace ? w.t(`unfurl.where.${marketplace}`) : '',
    host: host ? w.t('unfurl.host', { host: escapeClip(host, 80) }) : '',
  });
}

/** The item in a few lines: title, shop, price range, SKU count, picture. */
export function itemSummaryBlocks(w: Words, item: Item, url: string): KnownBlock[] {
  const { t } = w;
  const title = truncate(item.title.trim() || t('item.untitled', { id: item.itemId }), 200);
  const facts: string[] = [];
  if (item.shopName) facts.push(t('unfurl.shop', { shop: escapeClip(item.shopName, 100) }));
  const price = priceRange(
    w,
    item.skus.map((s) => s.price),
  );
  facts.push(t('unfurl.price', { price: price ?? t('unfurl.notListed') }));
  if (item.skus.length > 0)
    facts.push(t('item.skus', { count: item.skus.length, n: w.count(item.skus.length) }));
  const picture = item.images.map((u) => image(u, t('item.imageAlt'))).find((img) => img !== undefined);
  return [section(`${bold(mrkdwnLink(url, title))}\n${facts.join(t('common.sep'))}`, picture)];
}

function lookUpButton(
  w: Words,
  itemId: string,
  marketplace: Marketplace | null,
  quote: Quote,
  label?: string,
): KnownBlock {
  return actions([
    button({
      label: label ?? w.t('unfurl.lookUp', { short: quoteShort(w, quote) }),
      actionId: ACTIONS.unfurlLookup,
      value: unfurlButtonValue(itemId, marketplace),
    }),
  ]);
}

function earlierText(w: Words, earlier: EarlierResult, now: Date): string {
  const values = { time: w.dateTime(earlier.at), age: w.age(now.getTime() - earlier.at.getTime()) };
  return earlier.auto
    ? w.t('unfurl.earlierAuto', values)
    : w.t('unfurl.earlierBy', { ...values, user: `<@${earlier.userId}>` });
}

/** The blocks of one link's unfurl (in the channel's language: everyone there reads it). */
export function renderUnfurl(w: Words, decision: UnfurlDecision, options: { now: Date }): KnownBlock[] {
  const { t } = w;
  if (decision.kind === 'short_link')
    return [
      section(
        t('unfurl.shortLink', { host: escapeClip(hostOf(decision.url), 80) || t('unfurl.shortLinkIt') }),
      ),
    ];
  if (decision.kind === 'no_account')
    return [
      section(whatLine(w, decision.url, decision.ref.itemId, decision.ref.marketplace)),
      context(t('refusal.reason.no_plat_account')),
    ];
  const { ref, quote, url } = decision;
  const short = quoteShort(w, quote);
  const used = (d: { used: number; cap: number }) => ({ used: w.count(d.used), cap: w.count(d.cap) });
  switch (decision.kind) {
    case 'offer': {
      const notes: string[] = [];
      const note = decision.note;
      if (note?.kind === 'capped') notes.push(t('unfurl.capped', used(note)));
      else if (note?.kind === 'refused')
        // The refusal speaks to the poster ("you"): say whose lookup it was.
        notes.push(t('unfurl.refused', { reason: escapeClip(describeRefusal(w, note.refusal), 300) }));
      else if (note?.kind === 'running') notes.push(t('unfurl.running'));
      else if (note?.kind === 'failed_earlier')
        notes.push(t('unfurl.failedEarlier', { time: w.dateTime(note.at) }));
      return [
        section(whatLine(w, url, ref.itemId, ref.marketplace)),
        lookUpButton(w, ref.itemId, ref.marketplace, quote),
        context(...notes, t('unfurl.costs', { short: escapeClip(short, 100) })),
      ];
    }
    case 'earlier':
      return [
        ...itemSummaryBlocks(w, decision.earlier.outcome.item, url),
        lookUpButton(w, ref.itemId, ref.marketplace, quote, t('unfurl.showDetails')),
        context(earlierText(w, decision.earlier, options.now)),
      ];
    case 'auto': {
      const counted = decision.cached
        ? t('unfurl.autoCached', { age: w.age(decision.cached.ageMs), ...used(decision) })
        : t('unfurl.autoCounted', {
            ...used(decision),
            charge: chargeNoteText(w, {
              chargedPoints: decision.outcome.chargedPoints,
              quotaCalls: decision.outcome.quotaCalls,
              ...(decision.outcome.attempts !== undefined ? { attempts: decision.outcome.attempts } : {}),
              ...(decision.outcome.shared ? { shared: true } : {}),
            }),
          });
      return [
        ...itemSummaryBlocks(w, decision.outcome.item, url),
        lookUpButton(w, ref.itemId, ref.marketplace, quote, t('unfurl.showDetails')),
        context(t('unfurl.auto', { counted })),
      ];
    }
    case 'auto_failed': {
      const error = decision.error;
      const why = isPlatError(error)
        ? t('unfurl.autoFailedWhy', { title: errorTitle(w, error.code), charge: errorChargeText(w, error) })
        : t('unfurl.lookupFailed');
      return [
        section(whatLine(w, url, ref.itemId, ref.marketplace)),
        lookUpButton(w, ref.itemId, ref.marketplace, quote),
        context(t('unfurl.autoFailed', { ...used(decision), why: escapeClip(why, 400) })),
      ];
    }
  }
}

/** The Look up click on an item looked up in the channel within the window: the full card, free. */
export function renderEarlierAnswer(
  w: Words,
  earlier: EarlierResult,
  url: string,
  now: Date,
): RenderedMessage {
  const card = renderItem(w, earlier.outcome.item, {
    prices: earlier.outcome.prices,
    charge: { chargedPoints: 0, quotaCalls: 0 },
    itemUrl: url,
  });
  // The charge note of the card (last block) is replaced: this answer cost nothing.
  const blocks = [...card.blocks.slice(0, -1), context(earlierText(w, earlier, now))];
  return message(w.t('unfurl.earlierFallback', { text: card.text }), blocks, 2);
}
