/**
 * Item links as Work Objects (https://docs.slack.dev/messaging/work-objects-overview): the entity
 * `chat.unfurl` attaches in `metadata.entities` (the message unfurl blocks stay as the fallback for
 * clients without Work Objects), and the details panel `entity.presentDetails` fills: what platdesk
 * already knows (a cached answer and its age; opening the panel never calls), and one clearly paid
 * action whose click goes through the usual Confirm.
 */
import type { EntityMetadata } from '@slack/types';
import type { Marketplace } from '../lookups/parse/item-link.js';
import type { LookupOutcome } from '../lookups/types.js';
import { ACTIONS } from './action-ids.js';
import type { Words } from './i18n/words.js';
import { priceRange } from './item.js';
import { truncate } from './text.js';
import { unfurlButtonValue } from './unfurl.js';

/** Slack's entity type for a generic item (https://docs.slack.dev/messaging/work-objects-overview). */
export const ITEM_ENTITY_TYPE = 'slack#/entities/item';

export interface ItemEntityInput {
  itemId: string;
  marketplace: Marketplace | null;
  /** The canonical item page. */
  url: string;
  /** The link as posted (chat.unfurl needs it as app_unfurl_url). */
  postedUrl: string;
  /** The newest answer platdesk holds for this item, and how old it is (null: none). */
  known: { outcome: Extract<LookupOutcome, { kind: 'item' }>; ageMs: number } | null;
}

/** The item as a Work Object entity: id, link, title and what is known of it. */
export function itemEntity(w: Words, input: ItemEntityInput): EntityMetadata {
  const item = input.known?.outcome.item ?? null;
  const fields: NonNullable<EntityMetadata['entity_payload']['custom_fields']> = [];
  if (item?.shopName)
    fields.push({
      key: 'shop',
      label: w.t('workObject.shop'),
      type: 'string',
      value: truncate(item.shopName, 200),
    });
  const price = item
    ? priceRange(
        w,
        item.skus.map((s) => s.price),
      )
    : null;
  if (price) fields.push({ key: 'price', label: w.t('workObject.price'), type: 'string', value: price });
  fields.push({
    key: 'known',
    label: w.t('workObject.known'),
    type: 'string',
    value: input.known
      ? w.t('workObject.knownAge', { age: w.age(input.known.ageMs) })
      : w.t('workObject.notKnown'),
  });
  return {
    entity_type: ITEM_ENTITY_TYPE,
    url: input.url,
    app_unfurl_url: input.postedUrl,
    external_ref: { id: input.itemId, type: 'item' },
    entity_payload: {
      attributes: {
        // Entity text is plain text, not mrkdwn; cut like a header.
        title: {
          text: item ? truncate(item.title, 150) : w.t('workObject.titleUnknown', { id: input.itemId }),
        },
        display_type: w.t('workObject.displayType'),
        display_id: input.itemId,
        product_name: 'platdesk',
      },
      custom_fields: fields,
    },
  };
}

/** The details panel: the entity with its paid action ("Look up now — 1 item quota call"). */
export function itemPanel(w: Words, input: ItemEntityInput): EntityMetadata {
  const entity = itemEntity(w, input);
  return {
    ...entity,
    entity_payload: {
      ...entity.entity_payload,
      actions: {
        primary_actions: [
          {
            text: truncate(w.t('workObject.lookUpNow'), 75),
            action_id: ACTIONS.entityLookup,
            value: unfurlButtonValue(input.itemId, input.marketplace),
            style: 'primary',
          },
        ],
      },
    },
  };
}
