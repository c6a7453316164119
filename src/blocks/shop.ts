/**
 * Shop information (get-shop-info) and shop id (get-shop-id).
 */
import type { KnownBlock } from '@slack/types';
import type { ShopIdLookup, ShopInfo } from '../plat/types.js';
import { type ChargeNote, renderChargeNote } from './charge-note.js';
import { context, image, message, type RenderedMessage, section } from './kit.js';
import { escapeClip, mrkdwnLink, safeUrl, truncate } from './text.js';

/** get-shop-info `type` (spec/notes.md): 0 first marketplace, 1 its branded store, 2 second marketplace. */
export function shopTypeLabel(type: string | null): string {
  switch (type?.trim()) {
    case '0':
      return 'First marketplace shop';
    case '1':
      return 'Branded store';
    case '2':
      return 'Second marketplace shop';
    case undefined:
    case '':
      return 'Type not given';
    default:
      return `Type ${escapeClip(type ?? '', 40)}`;
  }
}

export function renderShopInfo(shop: ShopInfo, charge: ChargeNote): RenderedMessage {
  const name = truncate(shop.name.trim() || `Shop ${shop.shopId}`, 200);
  const facts = [shopTypeLabel(shop.type)];
  if (shop.status?.trim()) facts.push(`status ${escapeClip(shop.status.trim(), 100)}`);
  if (shop.version?.trim()) facts.push(`version ${escapeClip(shop.version.trim(), 100)}`);

  const lines = [
    `*${mrkdwnLink(shop.url, name)}*`,
    facts.join(' · '),
    `*Shop id:* ${escapeClip(shop.shopId, 64)}`,
  ];
  const links: string[] = [];
  if (safeUrl(shop.url) !== null) links.push(mrkdwnLink(shop.url, 'shop page'));
  if (safeUrl(shop.firstMarketplaceUrl) !== null) {
    links.push(mrkdwnLink(shop.firstMarketplaceUrl, 'first marketplace page'));
  }
  if (links.length > 0) lines.push(`*Links:* ${links.join(' · ')}`);

  const blocks = [section(lines.join('\n'), image(shop.iconUrl, 'Shop icon')), renderChargeNote(charge)];
  return message(
    `${escapeClip(name, 150)}: ${shopTypeLabel(shop.type)}, shop id ${escapeClip(shop.shopId, 64)}`,
    blocks,
    1,
  );
}

/** "Shop does not exist" is a normal answer (spec §4.5), told as plainly as a found shop. */
export function renderShopId(result: ShopIdLookup, charge: ChargeNote): RenderedMessage {
  const account = escapeClip(result.wwid, 100);
  if (result.found) {
    const shopId = escapeClip(result.shopId, 64);
    const text = `Messaging account *${account}* belongs to shop id *${shopId}*.`;
    return message(text, [section(`:white_check_mark: ${text}`), renderChargeNote(charge)], 1);
  }
  const text = `No shop was found for messaging account *${account}*.`;
  const blocks: KnownBlock[] = [
    section(`:information_source: ${text} Check the account id if you expected one.`),
  ];
  if (result.message.trim())
    blocks.push(context(`The service said: ${escapeClip(result.message.trim(), 300)}`));
  blocks.push(renderChargeNote(charge));
  return message(text, blocks, 1);
}
