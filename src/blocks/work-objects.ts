/**
 * Item links as Work Objects (https://docs.slack.dev/messaging/work-objects-overview): the entity
 * `chat.unfurl` attaches in `metadata.entities` (the message unfurl blocks stay as the fallback for
 * clients without Work Objects), and the details panel `entity.presentDetails` fills: what platdesk
 * already knows (a cached answer and its age; opening the panel never calls), and one paid action
 * whose label states the charge ("Look up now — 1 quota call"): its click is the consent, and the
 * answer then fills the panel, saying what it cost.
 */
import type { EntityMetadata } from '@slack/types';
import type { Refusal } from '../lookups/access.js';
import type { Marketplace } from '../lookups/parse/item-link.js';
import type { LookupOutcome, Quote } from '../lookups/types.js';
import { isPlatError } from '../plat/errors.js';
import { ACTIONS } from './action-ids.js';
import { type ChargeNote, chargeNoteText, quoteShort } from './charge-note.js';
import { errorChargeText, errorRemedy, errorTitle, renderPlatError } from './errors.js';
import type { Words } from './i18n/words.js';
import { priceRange } from './item.js';
import { context, message, type RenderedMessage } from './kit.js';
import { escapeClip, truncate } from './text.js';
import { describeRefusal } from './words-of.js';

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
  /** Set when the panel shows the answer just paid for: what it cost (DESIGN rule 2). */
  charged?: ChargeNote;
  /**
   * A clicked offer that could not run: it had ended (expired, cancelled: nothing was called) or
   * its lookup was interrupted by a restart (it may have been charged). A fresh one is offered.
   */
  notice?: 'offerEnded' | 'interrupted';
}

/** Where the unfurl of the item is, so its entity can be refreshed after a lookup (chat.unfurl). */
export interface UnfurlPlace {
  channel: string;
  ts: string;
  /** The link as posted: the unfurl's key and the entity's app_unfurl_url. */
  url: string;
}

/** The panel's paid action: the pending lookup its click claims, and where the unfurl is. */
export interface PanelAction {
  pendingId: string;
  itemId: string;
  marketplace: Marketplace | null;
  unfurl: UnfurlPlace | null;
}

/** What the panel offers its viewer: the lookup with its charge, or why they may not. */
export type PanelOffer =
  | { kind: 'offer'; action: PanelAction; quote: Quote }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'none' };

/** An action button's value, at most 2000 characters like a Block Kit button's. */
const MAX_VALUE = 2000;

/** The action's value: JSON of the pending lookup and the unfurl's place (dropped if too long). */
export function panelActionValue(action: PanelAction): string {
  const full = JSON.stringify({
    p: action.pendingId,
    i: action.itemId,
    m: action.marketplace ?? '',
    ...(action.unfurl ? { c: action.unfurl.channel, t: action.unfurl.ts, u: action.unfurl.url } : {}),
  });
  if (full.length <= MAX_VALUE) return full;
  return JSON.stringify({ p: action.pendingId, i: action.itemId, m: action.marketplace ?? '' });
}

export function parsePanelActionValue(value: string | undefined): PanelAction | null {
  let raw: unknown;
  try {
    raw = JSON.parse(value ?? '');
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const v = raw as Record<string, unknown>;
  const str = (x: unknown) => (typeof x === 'string' && x !== '' ? x : null);
  const pendingId = str(v.p);
  const itemId = str(v.i);
  if (!pendingId || !itemId || !/^\d{5,20}$/.test(itemId)) return null;
  const m = v.m;
  const marketplace = m === '0' || m === '1' || m === '2' ? m : null;
  const channel = str(v.c);
  const ts = str(v.t);
  const url = str(v.u);
  return {
    pendingId,
    itemId,
    marketplace,
    unfurl: channel && ts && url ? { channel, ts, url } : null,
  };
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
    value: input.charged
      ? truncate(w.t('workObject.lookedUpNow', { charge: chargeNoteText(w, input.charged) }), 200)
      : input.known
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

/**
 * The details panel: the entity, and its paid action stating the charge ("Look up now — 1 quota
 * call"): the click is the consent, so the label says all a Confirm would. While the lookup runs,
 * Slack shows the action's interstitial text (processing_state,
 * https://docs.slack.dev/reference/methods/entity.presentDetails). A viewer who may not look it up
 * is told why, with no action.
 */
export function itemPanel(w: Words, input: ItemEntityInput, offer: PanelOffer): EntityMetadata {
  const entity = itemEntity(w, input);
  const fields = [...(entity.entity_payload.custom_fields ?? [])];
  if (input.notice)
    fields.push({
      key: 'notice',
      label: w.t('workObject.notice'),
      type: 'string',
      value: w.t(`workObject.${input.notice}`),
    });
  if (offer.kind === 'refused')
    fields.push({
      key: 'refused',
      label: w.t('workObject.refusedLabel'),
      type: 'string',
      value: truncate(describeRefusal(w, offer.refusal), 500),
    });
  const payload = { ...entity.entity_payload, custom_fields: fields };
  if (offer.kind !== 'offer') return { ...entity, entity_payload: payload };
  const charge = quoteShort(w, offer.quote);
  return {
    ...entity,
    entity_payload: {
      ...payload,
      actions: {
        primary_actions: [
          {
            text: truncate(w.t('workObject.lookUpNow', { charge }), 75),
            action_id: ACTIONS.entityLookup,
            value: panelActionValue(offer.action),
            style: 'primary',
            processing_state: {
              enabled: true,
              interstitial_text: truncate(w.t('workObject.lookingUp', { id: input.itemId, charge }), 150),
            },
          },
        ],
      },
    },
  };
}

/**
 * A failed lookup in the panel (entity.presentDetails `error`, status 'custom'): what failed,
 * the remedy and what it cost, as plain text.
 */
export function panelFailure(
  w: Words,
  error: unknown,
): { status: 'custom'; custom_title: string; custom_message: string } {
  if (!isPlatError(error))
    return {
      status: 'custom',
      custom_title: w.t('workObject.failedTitle'),
      custom_message: truncate(renderPlatError(w, error).text, 1000),
    };
  return {
    status: 'custom',
    custom_title: truncate(errorTitle(w, error.code), 150),
    custom_message: truncate(`${errorRemedy(w, error)} ${errorChargeText(w, error)}`, 1000),
  };
}

/** The answer by direct message when the panel had closed before it came: said so first. */
export function panelClosedAnswer(w: Words, itemId: string, answer: RenderedMessage): RenderedMessage {
  return message(answer.text, [
    context(w.t('workObject.panelClosed', { id: escapeClip(itemId, 40) })),
    ...answer.blocks,
  ]);
}
