/**
 * The Prices and Shop buttons on an item answer: each starts a new lookup with its own
 * confirmation, posted below the item (the item answer stays).
 */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { renderInvalidInput } from '../../blocks/invalid-input.js';
import { parseOrdersCommand } from '../../lookups/parse/command-text.js';
import { canonicalItemUrl, type ItemRef, parseItemRef } from '../../lookups/parse/item-link.js';
import { problem } from '../../lookups/parse/problems.js';
import type { LookupRequest } from '../../lookups/types.js';
import { offerLookup } from '../answer.js';
import { type MessageClick, onMessageClick } from '../clicks/message-click.js';
import type { SlackDeps } from '../deps.js';

export function registerItemButtons(app: App, deps: SlackDeps): void {
  const offer =
    (command: '/item' | '/shop', build: (ref: Extract<ItemRef, { ok: true }>) => LookupRequest) =>
    async ({ action, body, reply }: MessageClick) => {
      const ref = parseItemRef(action.value ?? '');
      if (!ref.ok) {
        await reply({
          response_type: 'ephemeral',
          replace_original: false,
          ...renderInvalidInput(await deps.language.user(body.user.id), command, [
            problem('item_not_an_item'),
          ]),
        });
        return;
      }
      const actor = {
        userId: body.user.id,
        channelId: body.channel?.id ?? null,
        teamId: body.team?.id ?? null,
        responseUrl: body.response_url,
      };
      await offerLookup(deps, build(ref), actor, reply);
    };

  onMessageClick(
    app,
    deps,
    ACTIONS.itemPrices,
    offer('/item', (ref) => ({ kind: 'item-prices', itemId: ref.itemId })),
  );
  // A seller account's registered shop: its first page of orders, confirmed like /orders <owner>.
  onMessageClick(app, deps, ACTIONS.shopOrders, async ({ action, body, reply }) => {
    const edition = deps.client.editionFor('paging-orders') ?? 1;
    const parsed = parseOrdersCommand(action.value ?? '', { edition });
    if (parsed.kind !== 'request') return;
    await offerLookup(
      deps,
      parsed.request,
      {
        userId: body.user.id,
        channelId: body.channel?.id ?? null,
        teamId: body.team?.id ?? null,
        responseUrl: body.response_url,
      },
      reply,
    );
  });
  // get-shop-info needs a link: the button carries the item's link, whose host gives the type (spec §4.4).
  onMessageClick(
    app,
    deps,
    ACTIONS.itemShop,
    offer('/shop', (ref) => ({
      kind: 'shop-info',
      url: ref.url ?? canonicalItemUrl(ref.itemId, '0'),
      shopType: ref.marketplace ?? '0',
    })),
  );
}
