/**
 * Item links as Work Objects (issue 25). `entity_details_requested` (a person opened the details
 * panel) is answered with `entity.presentDetails` from what platdesk already holds, never a call;
 * the panel's paid action ("Look up now — 1 item quota call") is the unfurl's Look up: the usual
 * confirmation first (single-use Confirm), one charged call after it.
 */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { parseUnfurlButtonValue } from '../../blocks/unfurl.js';
import { type ItemEntityInput, itemPanel } from '../../blocks/work-objects.js';
import { canonicalItemUrl, parseItemRef } from '../../lookups/parse/item-link.js';
import { itemRequest, type UnfurlDecision } from '../../lookups/unfurls.js';
import { offerLookup, type Reply } from '../answer.js';
import { onEntityClick } from '../clicks/entity-click.js';
import type { SlackDeps } from '../deps.js';
import type { PrivateMessage } from '../private-reply.js';

/** What platdesk knows of an item, from the cache: no call, no charge. */
async function known(deps: SlackDeps, itemId: string): Promise<ItemEntityInput['known']> {
  const hit = await deps.lookups.cached(itemRequest(itemId));
  return hit?.outcome.kind === 'item' ? { outcome: hit.outcome, ageMs: hit.ageMs } : null;
}

/** The entity of an unfurl's item (null: not an item, e.g. a short link). */
export async function itemEntityOf(
  deps: SlackDeps,
  decision: UnfurlDecision,
  postedUrl: string,
): Promise<ItemEntityInput | null> {
  if (decision.kind === 'short_link') return null;
  const { itemId, marketplace } = decision.ref;
  const base = { itemId, marketplace, url: canonicalItemUrl(itemId, marketplace ?? '0'), postedUrl };
  if (decision.kind === 'earlier')
    return {
      ...base,
      known: {
        outcome: decision.earlier.outcome,
        ageMs: deps.now().getTime() - decision.earlier.at.getTime(),
      },
    };
  if (decision.kind === 'auto')
    return { ...base, known: { outcome: decision.outcome, ageMs: decision.cached?.ageMs ?? 0 } };
  return { ...base, known: await known(deps, itemId) };
}

export function registerWorkObjects(app: App, deps: SlackDeps): void {
  // The panel's paid action: the clicker gets the usual confirmation privately (a panel has no
  // response_url); only its Confirm calls, once (the pending lookup's single-use claim).
  onEntityClick(app, deps, ACTIONS.entityLookup, async (click) => {
    const reply: Reply = (message) => click.tell(message as PrivateMessage);
    const ref = parseUnfurlButtonValue(click.action.value);
    if (!ref) {
      await click.tell({ text: (await click.words()).t('notice.notItemLink') });
      return;
    }
    await offerLookup(
      deps,
      itemRequest(ref.itemId),
      { userId: click.userId, channelId: null, teamId: click.teamId, responseUrl: null },
      reply,
    );
  });

  app.event('entity_details_requested', async ({ event, client }) => {
    const ref =
      parseUnfurlButtonValue(`:${event.external_ref?.id ?? ''}`) ??
      (() => {
        const parsed = parseItemRef(event.app_unfurl_url ?? event.entity_url);
        return parsed.ok ? { itemId: parsed.itemId, marketplace: parsed.marketplace } : null;
      })();
    const words = await deps.language.user(event.user);
    if (!ref) {
      await client.entity.presentDetails({ trigger_id: event.trigger_id, error: { status: 'not_found' } });
      return;
    }
    const input: ItemEntityInput = {
      itemId: ref.itemId,
      marketplace: ref.marketplace,
      url: canonicalItemUrl(ref.itemId, ref.marketplace ?? '0'),
      postedUrl: event.app_unfurl_url ?? event.entity_url,
      known: await known(deps, ref.itemId),
    };
    await client.entity.presentDetails({ trigger_id: event.trigger_id, metadata: itemPanel(words, input) });
  });
}
