/**
 * Item details (platiteminfo) and item prices (platiteminfoprice).
 */
import type { KnownBlock } from '@slack/types';
import { canonicalItemUrl, marketplaceOfHost } from '../lookups/parse/item-link.js';
import type { Item, ItemPrices, PriceValue, Sku } from '../plat/types.js';
import { ACTIONS } from './action-ids.js';
import { type ChargeNote, renderChargeNote } from './charge-note.js';
import {
  actions,
  button,
  fieldsSection,
  header,
  image,
  message,
  type RenderedMessage,
  section,
} from './kit.js';
import { packSections } from './limits.js';
import { escapeClip, formatYuan, mrkdwnLink, plural, safeUrl, truncate } from './text.js';

/** Shown at most, so a 300-SKU item stays readable; the rest is counted. */
const MAX_SKUS = 60;
const MAX_ATTRIBUTES = 40;
const MAX_CATEGORIES = 20;

export interface ItemRenderOptions {
  /** platiteminfoprice's answer, when it was asked for too. */
  prices: ItemPrices | null;
  charge: ChargeNote;
  /** The link the user gave, shown as "Open item". */
  itemUrl?: string;
}

/** "¥59.00" or "¥59.00–¥129.00"; null when no value is known. */
export function priceRange(values: readonly (number | null)[]): string | null {
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (known.length === 0) return null;
  const min = Math.min(...known);
  const max = Math.max(...known);
  return min === max ? formatYuan(min) : `${formatYuan(min)}–${formatYuan(max)}`;
}

/** "¥59.00–¥129.00 ~¥99.00–¥199.00~": selling range, original range struck through when it differs. */
function skuPriceText(skus: readonly Sku[]): string | null {
  const selling = priceRange(skus.map((s) => s.price));
  if (selling === null) return null;
  const original = priceRange(skus.map((s) => s.originalPrice));
  return original !== null && original !== selling ? `${selling} ~${original}~` : selling;
}

/** "颜色分类: 红色, 尺码: XL" from the joined names and values (spec §2.4). */
function skuProps(sku: Sku): string {
  const names = sku.propNames?.split(',') ?? [];
  const values = sku.propValues?.split(',') ?? [];
  if (names.length > 0 && names.length === values.length) {
    return names.map((n, i) => `${n.trim()}: ${(values[i] ?? '').trim()}`).join(', ');
  }
  if (sku.propNames && sku.propValues) return `${sku.propNames}: ${sku.propValues}`;
  return sku.propValues ?? sku.propNames ?? `SKU ${sku.id}`;
}

function skuLine(sku: Sku): string {
  let price = sku.price === null ? 'no price' : formatYuan(sku.price);
  if (sku.originalPrice !== null && sku.originalPrice !== sku.price)
    price += ` ~${formatYuan(sku.originalPrice)}~`;
  return `• ${escapeClip(skuProps(sku), 200)} — ${price}`;
}

function priceValueText(value: PriceValue | null): string {
  if (value === null) return '—';
  if (value.value !== null && Number.isFinite(value.value)) return formatYuan(value.value);
  return escapeClip(value.text, 100) || '—';
}

function pricesFields(prices: ItemPrices): string[] {
  const original = priceValueText(prices.originalPrice);
  return [
    `*Price*\n${priceValueText(prices.price)}`,
    `*Original price*\n${original === '—' ? original : `~${original}~`}`,
    `*Reference price*\n${priceValueText(prices.referencePrice)}`,
  ];
}

/**
 * The item's link, for the Shop button (get-shop-info takes a link, spec §4.4): the marketplace
 * follows the shop's host, the first marketplace when it says nothing.
 */
export function itemLink(item: Pick<Item, 'itemId' | 'shopUrl'>): string {
  let host = '';
  try {
    host = item.shopUrl ? new URL(item.shopUrl).hostname : '';
  } catch {
    // an unparsable shop URL says nothing about the marketplace
  }
  return canonicalItemUrl(item.itemId, marketplaceOfHost(host) ?? '0');
}

export function renderItem(item: Item, options: ItemRenderOptions): RenderedMessage {
  const title = item.title.trim() || `Item ${item.itemId}`;
  const id = escapeClip(item.itemId, 64);

  const shop = item.shopName ? mrkdwnLink(item.shopUrl, truncate(item.shopName, 200)) : 'not given';
  const lines = [`*Shop:* ${shop}${item.shopId ? ` (id ${escapeClip(item.shopId, 64)})` : ''}`];
  lines.push(`*Item id:* ${id}${options.itemUrl ? ` · ${mrkdwnLink(options.itemUrl, 'open item')}` : ''}`);
  const price = skuPriceText(item.skus) ?? (options.prices ? priceValueText(options.prices.price) : null);
  lines.push(`*Price:* ${price ?? 'not listed'}`);
  if (item.categoryIds.length > 0) {
    const shown = item.categoryIds.slice(0, MAX_CATEGORIES).join(', ');
    const rest = item.categoryIds.length - MAX_CATEGORIES;
    lines.push(`*Categories:* ${shown}${rest > 0 ? ` and ${rest} more` : ''}`);
  }
  if (safeUrl(item.videoUrl) !== null) {
    lines.push(`*Video:* ${mrkdwnLink(item.videoUrl, 'watch')}`);
  }
  const mainImage = item.images.map((url) => image(url, 'Item image')).find((img) => img !== undefined);

  const blocks: KnownBlock[] = [header(title), section(lines.join('\n'), mainImage)];
  if (options.prices) blocks.push(fieldsSection(pricesFields(options.prices)));
  if (item.skus.length > 0) {
    blocks.push(
      ...packSections(item.skus.map(skuLine), {
        title: `*SKUs (${item.skus.length})*`,
        maxBlocks: 7,
        maxEntries: MAX_SKUS,
        more: (n) => `…and ${n} more SKUs`,
      }),
    );
  }
  if (item.attributes.length > 0) {
    const attributeLines = item.attributes.map(
      (a) => `• ${escapeClip(a.name, 100)}: ${escapeClip(a.value, 300)}`,
    );
    blocks.push(
      ...packSections(attributeLines, {
        title: `*Attributes (${item.attributes.length})*`,
        maxBlocks: 4,
        maxEntries: MAX_ATTRIBUTES,
        more: (n) => `…and ${n} more attributes`,
      }),
    );
  }
  const buttons = [
    button({ label: 'Prices', actionId: ACTIONS.itemPrices, value: item.itemId }),
    button({ label: 'Shop', actionId: ACTIONS.itemShop, value: itemLink(item) }),
  ];
  const link = button({ label: 'Open item', actionId: ACTIONS.itemLink, url: options.itemUrl ?? null });
  if (link.url) buttons.push(link);
  blocks.push(actions(buttons), renderChargeNote(options.charge));

  const skuCount = item.skus.length > 0 ? `, ${plural(item.skus.length, 'SKU')}` : '';
  return message(
    `${escapeClip(title, 150)} (item ${id}${skuCount}): ${price ?? 'price not listed'}`,
    blocks,
    2,
  );
}

/** platiteminfoprice's answer on its own. */
export function renderItemPrices(prices: ItemPrices, charge: ChargeNote): RenderedMessage {
  const id = escapeClip(prices.itemId, 64);
  const blocks: KnownBlock[] = [
    section(`*Prices of item ${id}*`),
    fieldsSection(pricesFields(prices)),
    renderChargeNote(charge),
  ];
  return message(`Prices of item ${id}: ${priceValueText(prices.price)}`, blocks, 1);
}
