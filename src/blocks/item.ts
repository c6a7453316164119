/**
 * Item details (platiteminfo) and item prices (platiteminfoprice).
 */
import type { KnownBlock } from '@slack/types';
import { canonicalItemUrl, marketplaceOfHost } from '../lookups/parse/item-link.js';
import type { Item, ItemPrices, PriceValue, Sku } from '../plat/types.js';
import { ACTIONS } from './action-ids.js';
import { type ChargeNote, renderChargeNote } from './charge-note.js';
import type { Words } from './i18n/words.js';
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
import { strike } from './markers.js';
import { escapeClip, mrkdwnLink, safeUrl, truncate } from './text.js';

/** Shown at most, so a 300-SKU item stays readable; the rest is counted. */
const MAX_SKUS = 60;
const MAX_ATTRIBUTES = 40;

export interface ItemRenderOptions {
  /** platiteminfoprice's answer, when it was asked for too. */
  prices: ItemPrices | null;
  charge: ChargeNote;
  /** The link the user gave, shown as "Open item". */
  itemUrl?: string;
}

/** "¥59.00" or "¥59.00–¥129.00"; null when no value is known. */
export function priceRange(w: Words, values: readonly (number | null)[]): string | null {
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (known.length === 0) return null;
  const min = Math.min(...known);
  const max = Math.max(...known);
  return min === max ? w.yuan(min) : `${w.yuan(min)}–${w.yuan(max)}`;
}

/** "¥59.00–¥129.00 ~¥99.00–¥199.00~": selling range, original range struck through when it differs. */
function skuPriceText(w: Words, skus: readonly Sku[]): string | null {
  const selling = priceRange(
    w,
    skus.map((s) => s.price),
  );
  if (selling === null) return null;
  const original = priceRange(
    w,
    skus.map((s) => s.originalPrice),
  );
  return original !== null && original !== selling ? `${selling} ${strike(original)}` : selling;
}

/**
 * "颜色分类: 红色, 尺码: XL" / "颜色分类：红色，尺码：XL" from the joined names and values (spec
 * §2.4), punctuated as the reader's language is (the API's own commas are only separators).
 */
function skuProps(w: Words, sku: Sku): string {
  const names = sku.propNames?.split(',') ?? [];
  const values = sku.propValues?.split(',') ?? [];
  const prop = (name: string, value: string) =>
    w.t('item.skuProp', { name: name.trim(), value: value.trim() });
  if (names.length > 0 && names.length === values.length)
    return names.map((n, i) => prop(n, values[i] ?? '')).join(w.t('item.skuPropSep'));
  if (sku.propNames && sku.propValues) return prop(sku.propNames, sku.propValues);
  return sku.propValues ?? sku.propNames ?? w.t('item.skuFallback', { id: sku.id });
}

function skuLine(w: Words, sku: Sku): string {
  let price = sku.price === null ? w.t('item.noPrice') : w.yuan(sku.price);
  if (sku.originalPrice !== null && sku.originalPrice !== sku.price)
    price += ` ${strike(w.yuan(sku.originalPrice))}`;
  return w.t('item.skuLine', { props: escapeClip(skuProps(w, sku), 200), price });
}

export function priceValueText(w: Words, value: PriceValue | null): string {
  if (value === null) return '—';
  if (value.value !== null && Number.isFinite(value.value)) return w.yuan(value.value);
  return escapeClip(value.text, 100) || '—';
}

function pricesFields(w: Words, prices: ItemPrices): string[] {
  const original = priceValueText(w, prices.originalPrice);
  return [
    w.t('item.priceField', { value: priceValueText(w, prices.price) }),
    w.t('item.originalPriceField', { value: original === '—' ? original : strike(original) }),
    w.t('item.referencePriceField', { value: priceValueText(w, prices.referencePrice) }),
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

export function renderItem(w: Words, item: Item, options: ItemRenderOptions): RenderedMessage {
  const { t } = w;
  const title = item.title.trim() || t('item.untitled', { id: item.itemId });
  const id = escapeClip(item.itemId, 64);

  const shop = item.shopName
    ? mrkdwnLink(item.shopUrl, truncate(item.shopName, 200))
    : t('item.shopNotGiven');
  const lines = [
    item.shopId ? t('item.shopWithId', { shop, id: escapeClip(item.shopId, 64) }) : t('item.shop', { shop }),
  ];
  lines.push(
    options.itemUrl
      ? t('item.itemIdWithLink', { id, link: mrkdwnLink(options.itemUrl, t('item.openItemLink')) })
      : t('item.itemId', { id }),
  );
  const price =
    skuPriceText(w, item.skus) ?? (options.prices ? priceValueText(w, options.prices.price) : null);
  lines.push(t('item.price', { price: price ?? t('item.notListed') }));
  // Categories come as bare ids (spec §2.4: product.cat), which say nothing to a person: not shown.
  if (safeUrl(item.videoUrl) !== null) {
    lines.push(t('item.video', { link: mrkdwnLink(item.videoUrl, t('item.watch')) }));
  }
  const mainImage = item.images.map((url) => image(url, t('item.imageAlt'))).find((img) => img !== undefined);

  const blocks: KnownBlock[] = [header(title), section(lines.join('\n'), mainImage)];
  if (options.prices) blocks.push(fieldsSection(pricesFields(w, options.prices)));
  if (item.skus.length > 0) {
    blocks.push(
      ...packSections(
        item.skus.map((sku) => skuLine(w, sku)),
        {
          title: t('item.skusTitle', { n: w.count(item.skus.length) }),
          maxBlocks: 7,
          maxEntries: MAX_SKUS,
          more: (n) => t('item.moreSkus', { count: n, n: w.count(n) }),
        },
      ),
    );
  }
  if (item.attributes.length > 0) {
    const attributeLines = item.attributes.map((a) =>
      t('item.attribute', { name: escapeClip(a.name, 100), value: escapeClip(a.value, 300) }),
    );
    blocks.push(
      ...packSections(attributeLines, {
        title: t('item.attributesTitle', { n: w.count(item.attributes.length) }),
        maxBlocks: 4,
        maxEntries: MAX_ATTRIBUTES,
        more: (n) => t('item.moreAttributes', { count: n, n: w.count(n) }),
      }),
    );
  }
  const buttons = [
    button({ label: t('item.pricesButton'), actionId: ACTIONS.itemPrices, value: item.itemId }),
    button({ label: t('item.shopButton'), actionId: ACTIONS.itemShop, value: itemLink(item) }),
  ];
  const link = button({
    label: t('item.openButton'),
    actionId: ACTIONS.itemLink,
    url: options.itemUrl ?? null,
  });
  if (link.url) buttons.push(link);
  blocks.push(actions(buttons), renderChargeNote(w, options.charge));

  const values = { title: escapeClip(title, 150), id, price: price ?? t('item.priceNotListed') };
  return message(
    item.skus.length > 0
      ? t('item.fallbackSkus', {
          ...values,
          skus: t('item.skus', { count: item.skus.length, n: w.count(item.skus.length) }),
        })
      : t('item.fallback', values),
    blocks,
    2,
  );
}

/** platiteminfoprice's answer on its own. */
export function renderItemPrices(w: Words, prices: ItemPrices, charge: ChargeNote): RenderedMessage {
  const id = escapeClip(prices.itemId, 64);
  const blocks: KnownBlock[] = [
    section(w.t('item.pricesTitle', { id })),
    fieldsSection(pricesFields(w, prices)),
    renderChargeNote(w, charge),
  ];
  return message(w.t('item.pricesFallback', { id, price: priceValueText(w, prices.price) }), blocks, 1);
}
