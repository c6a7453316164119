/**
 * Shop information (get-shop-info) and shop id (get-shop-id).
 */
import type { KnownBlock } from '@slack/types';
import type { RegisteredShop } from '../lookups/settings.js';
import type { ShopIdLookup, ShopInfo } from '../plat/types.js';
import { ACTIONS } from './action-ids.js';
import { type ChargeNote, renderChargeNote } from './charge-note.js';
import type { Words } from './i18n/words.js';
import { actions, button, context, image, message, type RenderedMessage, section } from './kit.js';
import { bold } from './markers.js';
import { escapeClip, mrkdwnLink, safeUrl, truncate } from './text.js';

/**
 * A shop's type by the marketplace's name (issue 35: never a bare code). get-shop-info's request
 * `type` is 0 Taobao, 1 Tmall, 2 Pinduoduo (spec/notes.md); its answer's `shopType` is the
 * marketplace's own letter: C a Taobao (C-)shop, B a Tmall (B-)store, P a Pinduoduo shop.
 */
const SHOP_TYPES: Record<string, '0' | '1' | '2'> = { '0': '0', C: '0', '1': '1', B: '1', '2': '2', P: '2' };

export function shopTypeLabel(w: Words, type: string | null): string {
  const code = type?.trim().toUpperCase() ?? '';
  const known = SHOP_TYPES[code];
  if (known) return w.t(`shop.type.${known}`);
  if (code === '') return w.t('shop.type.none');
  return w.t('shop.type.other', { type: escapeClip(type?.trim() ?? '', 40) });
}

/**
 * simpleShopDOStatus is "shop status text" (spec §2.6): its known values in words, other text
 * as given; a number nobody has documented says nothing to a person and is not shown.
 */
const OPEN = new Set(['1', 'normal', 'open', 'online', '正常', '营业中']);
const CLOSED = new Set(['0', 'closed', 'offline', '关闭', '已关店']);

export function shopStatusLabel(w: Words, status: string | null): string | null {
  const text = status?.trim() ?? '';
  if (OPEN.has(text.toLowerCase())) return w.t('shop.statusOpen');
  if (CLOSED.has(text.toLowerCase())) return w.t('shop.statusClosed');
  if (text === '' || /^\d+$/.test(text)) return null;
  return w.t('shop.status', { status: escapeClip(text, 100) });
}

export function renderShopInfo(w: Words, shop: ShopInfo, charge: ChargeNote): RenderedMessage {
  const { t } = w;
  const name = truncate(shop.name.trim() || t('shop.untitled', { id: shop.shopId }), 200);
  const facts = [shopTypeLabel(w, shop.type)];
  const status = shopStatusLabel(w, shop.status);
  if (status) facts.push(status);
  // shopVersion's meaning is not documented (spec §2.6): a bare "version 3" would only puzzle.

  const lines = [
    bold(mrkdwnLink(shop.url, name)),
    facts.join(t('common.sep')),
    t('shop.shopId', { id: escapeClip(shop.shopId, 64) }),
  ];
  const links: string[] = [];
  if (safeUrl(shop.url) !== null) links.push(mrkdwnLink(shop.url, t('shop.shopPage')));
  if (safeUrl(shop.firstMarketplaceUrl) !== null) {
    links.push(mrkdwnLink(shop.firstMarketplaceUrl, t('shop.firstMarketplacePage')));
  }
  if (links.length > 0) lines.push(t('shop.links', { links: links.join(t('common.sep')) }));

  const blocks = [
    section(lines.join('\n'), image(shop.iconUrl, t('shop.iconAlt'))),
    renderChargeNote(w, charge),
  ];
  return message(
    t('shop.fallback', {
      name: escapeClip(name, 150),
      type: shopTypeLabel(w, shop.type),
      id: escapeClip(shop.shopId, 64),
    }),
    blocks,
    1,
  );
}

/**
 * A seller account's shop on the first marketplace or its branded store (a messaging account is
 * theirs): shopNNN.taobao.com is that shop's page (get-shop-info, which says more, takes an item
 * link instead, spec §4.4).
 */
export function shopPageUrl(shopId: string): string | null {
  return /^\d{1,20}$/.test(shopId) ? `https://shop${shopId}.taobao.com/` : null;
}

/**
 * "Shop does not exist" is a normal answer (spec §4.5), told as plainly as a found shop. A found
 * shop offers a way on (issue 35): its page, its orders when it is registered here with an owner
 * id (confirmed and charged like any lookup), and the commands that take its id.
 */
export function renderShopId(
  w: Words,
  result: ShopIdLookup,
  charge: ChargeNote,
  registered: Pick<RegisteredShop, 'alias' | 'ownerId'> | null = null,
): RenderedMessage {
  const { t } = w;
  const account = escapeClip(result.wwid, 100);
  if (result.found) {
    const shop = escapeClip(result.shopId, 64);
    const text = t('shop.belongs', { account, shop });
    const lines = [t('shop.belongsLine', { text })];
    if (registered)
      lines.push(
        registered.ownerId
          ? t('shop.registeredOwner', {
              alias: escapeClip(registered.alias, 40),
              owner: escapeClip(registered.ownerId, 64),
            })
          : t('shop.registered', { alias: escapeClip(registered.alias, 40) }),
      );
    const buttons = [];
    const page = shopPageUrl(result.shopId);
    if (page) buttons.push(button({ label: t('shop.pageButton'), actionId: ACTIONS.shopPage, url: page }));
    if (registered?.ownerId)
      buttons.push(
        button({
          label: t('shop.ordersButton', { alias: registered.alias }),
          actionId: ACTIONS.shopOrders,
          value: registered.ownerId,
        }),
      );
    const blocks: KnownBlock[] = [section(lines.join('\n'))];
    if (buttons.length > 0) blocks.push(actions(buttons));
    blocks.push(context(t('shop.nextSteps', { shop })), renderChargeNote(w, charge));
    return message(text, blocks, 1);
  }
  const text = t('shop.notFound', { account });
  // The service's own "shop does not exist" (spec §4.5) would only say it again: not shown.
  return message(text, [section(t('shop.notFoundLine', { text })), renderChargeNote(w, charge)], 1);
}
