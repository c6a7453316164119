/**
 * Item links as Work Objects (issue 25). `entity_details_requested` (a person opened the details
 * panel) is answered with `entity.presentDetails` from what platdesk already holds, never a call,
 * with one paid action whose label states the charge ("Look up now — 1 quota call"): the label
 * is the confirmation, so its click (which carries its own trigger_id, tied to the entity) is the
 * consent. The panel's offer is a pending lookup prepared when the panel opens (access and caps
 * checked then: a refusal costs nothing and shows no action); the click claims it once (DESIGN
 * rule 2: a double click, a redelivery or an expired offer never calls twice), the lookup runs,
 * and the answer fills the panel through entity.presentDetails with the click's trigger_id.
 *
 * A trigger_id lives about 3 s (https://docs.slack.dev/interactivity/handling-user-interaction);
 * the limiter may hold the call longer. When the trigger can no longer be used (too old, or
 * Slack refuses it), the unfurl's entity is refreshed with chat.unfurl (so the panel shows the
 * answer when reopened, and the card its title) and the clicker gets the answer, with what it
 * cost, by direct message.
 */
import { performance } from 'node:perf_hooks';
import type { App } from '@slack/bolt';
import type { EntityMetadata } from '@slack/types';
import type { EntityPresentDetailsArguments, WebClient } from '@slack/web-api';
import { ACTIONS } from '../../blocks/action-ids.js';
import { renderPlatError } from '../../blocks/errors.js';
import type { Words } from '../../blocks/i18n/words.js';
import { renderUnfurl } from '../../blocks/unfurl.js';
import {
  type ItemEntityInput,
  itemEntity,
  itemPanel,
  type PanelAction,
  type PanelOffer,
  panelClosedAnswer,
  panelFailure,
  parsePanelActionValue,
  type UnfurlPlace,
} from '../../blocks/work-objects.js';
import { summarize } from '../../lookups/lookup-service.js';
import { canonicalItemUrl, type Marketplace, parseItemRef } from '../../lookups/parse/item-link.js';
import type { LookupOutcome, Pending } from '../../lookups/types.js';
import { itemRequest, type UnfurlDecision } from '../../lookups/unfurls.js';
import { isPlatError } from '../../plat/errors.js';
import { answerOf, keptResult } from '../answer.js';
import { type EntityClick, onEntityClick } from '../clicks/entity-click.js';
import { clickOnRunningLookup } from '../clicks/redelivery.js';
import type { SlackDeps } from '../deps.js';
import { unfurlWithEntities } from './unfurl-send.js';

/** Slack's trigger lifetime (3 s), less a margin for the entity.presentDetails call itself. */
export const TRIGGER_USABLE_MS = 2500;

type ItemOutcome = Extract<LookupOutcome, { kind: 'item' }> & { shared?: boolean };

interface ItemRefOf {
  itemId: string;
  marketplace: Marketplace | null;
}

/** What platdesk knows of an item, from the cache: no call, no charge. */
async function known(deps: SlackDeps, itemId: string): Promise<ItemEntityInput['known']> {
  const hit = await deps.lookups.cached(itemRequest(itemId));
  return hit?.outcome.kind === 'item' ? { outcome: hit.outcome, ageMs: hit.ageMs } : null;
}

const baseOf = (ref: ItemRefOf, postedUrl: string) => ({
  itemId: ref.itemId,
  marketplace: ref.marketplace,
  url: canonicalItemUrl(ref.itemId, ref.marketplace ?? '0'),
  postedUrl,
});

/** The entity of an unfurl's item (null: not an item, e.g. a short link). */
export async function itemEntityOf(
  deps: SlackDeps,
  decision: UnfurlDecision,
  postedUrl: string,
): Promise<ItemEntityInput | null> {
  if (decision.kind === 'short_link') return null;
  const base = baseOf(decision.ref, postedUrl);
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
  return { ...base, known: await known(deps, decision.ref.itemId) };
}

interface Viewer {
  userId: string;
  channelId: string | null;
  teamId: string | null;
}

/**
 * What the panel offers its viewer: a pending lookup stated with its charge (never claimed here,
 * never answered from the cache: the panel already shows what is known), or why they may not.
 */
async function offerFor(
  deps: SlackDeps,
  ref: ItemRefOf,
  viewer: Viewer,
  unfurl: UnfurlPlace | null,
): Promise<PanelOffer> {
  const request = itemRequest(ref.itemId);
  const prepared = await deps.lookups.prepare(request, { ...viewer, responseUrl: null }, summarize(request), {
    allowAuto: false,
    useCache: false,
  });
  if (prepared.kind === 'refused') return { kind: 'refused', refusal: prepared.refusal };
  if (prepared.kind !== 'confirm') return { kind: 'none' };
  return {
    kind: 'offer',
    quote: prepared.quote,
    action: { pendingId: prepared.pending.id, itemId: ref.itemId, marketplace: ref.marketplace, unfurl },
  };
}

/** entity.presentDetails; false when Slack refused it (the trigger expired, …), logged. */
async function present(
  deps: SlackDeps,
  client: WebClient,
  triggerId: string,
  panel: { metadata: EntityMetadata } | { error: NonNullable<EntityPresentDetailsArguments['error']> },
): Promise<boolean> {
  try {
    await client.entity.presentDetails({ trigger_id: triggerId, ...panel });
    return true;
  } catch (err) {
    deps.logger.warn({ err }, 'details panel not presented');
    return false;
  }
}

/** The unfurl's entity (and its fallback blocks) refreshed with the answer, in the channel's language. */
async function refreshUnfurl(
  deps: SlackDeps,
  client: WebClient,
  action: PanelAction,
  unfurl: UnfurlPlace,
  pending: Pending,
  outcome: ItemOutcome,
): Promise<void> {
  const words = await deps.language.channel(unfurl.channel);
  const base = baseOf(action, unfurl.url);
  const decision: UnfurlDecision = {
    kind: 'earlier',
    url: unfurl.url,
    ref: { ok: true, itemId: action.itemId, marketplace: action.marketplace, url: base.url },
    quote: pending.quote,
    earlier: { outcome, at: deps.now(), userId: pending.userId, auto: false },
  };
  try {
    await unfurlWithEntities(
      client,
      { channel: unfurl.channel, ts: unfurl.ts },
      { [unfurl.url]: { blocks: renderUnfurl(words, decision, { now: deps.now() }) } },
      [itemEntity(words, { ...base, known: { outcome, ageMs: 0 } })],
      deps.logger,
    );
  } catch (err) {
    deps.logger.warn({ err }, 'unfurl not refreshed after a panel lookup');
  }
}

/**
 * The claimed lookup, run once; its answer fills the panel while the click's trigger can still
 * be used, else goes by direct message (and the unfurl's entity is refreshed).
 */
async function lookUpInPanel(
  deps: SlackDeps,
  click: EntityClick,
  action: PanelAction,
  pending: Pending,
): Promise<void> {
  const w = await click.words();
  const usable = () => performance.now() - click.receivedAt < TRIGGER_USABLE_MS;
  let outcome: ItemOutcome;
  try {
    const ran = await deps.lookups.run(pending, { resultJson: keptResult });
    if (ran.kind !== 'item') throw new Error(`item lookup answered ${ran.kind}`);
    outcome = ran;
  } catch (error) {
    if (!isPlatError(error)) deps.logger.error({ err: error, pendingId: pending.id }, 'lookup crashed');
    await deps.alerts.notifyIfAccountError(error, { userId: click.userId });
    // A refusal at call time (a cap reached since the panel opened) costs nothing and says so.
    if (usable() && (await present(deps, click.client, click.triggerId, { error: panelFailure(w, error) })))
      return;
    await click.tell(renderPlatError(w, error));
    return;
  }
  const charged = {
    chargedPoints: outcome.chargedPoints,
    quotaCalls: outcome.quotaCalls,
    ...(outcome.attempts !== undefined ? { attempts: outcome.attempts } : {}),
    ...(outcome.shared ? { shared: true } : {}),
  };
  const input: ItemEntityInput = {
    ...baseOf(action, action.unfurl?.url ?? canonicalItemUrl(action.itemId, action.marketplace ?? '0')),
    known: { outcome, ageMs: 0 },
    charged,
  };
  if (
    usable() &&
    (await present(deps, click.client, click.triggerId, {
      metadata: itemPanel(w, input, { kind: 'none' }),
    }))
  )
    return;
  // The panel cannot show it any more: the card gets the answer, the clicker a private message.
  if (action.unfurl) await refreshUnfurl(deps, click.client, action, action.unfurl, pending, outcome);
  await click.tell(panelClosedAnswer(w, action.itemId, await answerOf(deps, w, outcome, pending)));
}

export function registerWorkObjects(app: App, deps: SlackDeps): void {
  // The panel's paid action: its click is the consent; it claims the panel's offer once.
  onEntityClick(app, deps, ACTIONS.entityLookup, async (click) => {
    const action = parsePanelActionValue(click.action.value);
    if (!action) {
      await present(deps, click.client, click.triggerId, { error: { status: 'not_found' } });
      return;
    }
    const claimed = await deps.lookups.claim(action.pendingId, click.userId);
    if (claimed.ok) {
      if (action.unfurl)
        await deps.unfurls.rememberOffered(
          action.unfurl.channel,
          action.itemId,
          click.userId,
          action.pendingId,
        );
      await deps.lookups.hold(lookUpInPanel(deps, click, action, claimed.pending));
      return;
    }
    // A second click while the first one's lookup runs: that one answers.
    if (clickOnRunningLookup(claimed)) return;
    // Done already (a double click), ended or interrupted: the panel again, a fresh offer, no call.
    const viewer = { userId: click.userId, channelId: action.unfurl?.channel ?? null, teamId: click.teamId };
    const input: ItemEntityInput = {
      ...baseOf(action, action.unfurl?.url ?? canonicalItemUrl(action.itemId, action.marketplace ?? '0')),
      known: await known(deps, action.itemId),
      ...(claimed.reason === 'interrupted'
        ? { notice: 'interrupted' as const }
        : claimed.reason !== 'already_used'
          ? { notice: 'offerEnded' as const }
          : {}),
    };
    const offer = await offerFor(deps, action, viewer, action.unfurl);
    await present(deps, click.client, click.triggerId, {
      metadata: itemPanel(await click.words(), input, offer),
    });
  });

  app.event('entity_details_requested', async ({ event, body, client }) => {
    const parsed = parseItemRef(event.app_unfurl_url ?? event.entity_url);
    const fromRef =
      event.external_ref?.id && /^\d{5,20}$/.test(event.external_ref.id) ? event.external_ref.id : null;
    const ref: ItemRefOf | null = parsed.ok
      ? { itemId: fromRef ?? parsed.itemId, marketplace: parsed.marketplace }
      : fromRef
        ? { itemId: fromRef, marketplace: null }
        : null;
    if (!ref) {
      await client.entity.presentDetails({ trigger_id: event.trigger_id, error: { status: 'not_found' } });
      return;
    }
    const words: Words = await deps.language.user(event.user);
    const postedUrl = event.app_unfurl_url ?? event.entity_url;
    const channelId = event.channel && event.channel !== 'COMPOSER' ? event.channel : null;
    const unfurl: UnfurlPlace | null =
      channelId && event.message_ts ? { channel: channelId, ts: event.message_ts, url: postedUrl } : null;
    const input: ItemEntityInput = { ...baseOf(ref, postedUrl), known: await known(deps, ref.itemId) };
    const offer = await offerFor(
      deps,
      ref,
      { userId: event.user, channelId, teamId: (body as { team_id?: string }).team_id ?? null },
      unfurl,
    );
    await client.entity.presentDetails({
      trigger_id: event.trigger_id,
      metadata: itemPanel(words, input, offer),
    });
  });
}
