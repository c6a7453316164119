/**
 * From a claimed lookup to the message the user sees: "Looking up…", the call, then the
 * rendered answer or the error with its remedy. Every entry point ends here.
 */
import type { RespondArguments } from '@slack/bolt';
import { renderConfirmation } from '../blocks/confirmation.js';
import { renderPlatError } from '../blocks/errors.js';
import { renderItem, renderItemPrices } from '../blocks/item.js';
import type { RenderedMessage } from '../blocks/kit.js';
import { renderOrdersPage } from '../blocks/orders.js';
import { renderShopId, renderShopInfo } from '../blocks/shop.js';
import { renderRefusal, withRefreshButton } from '../blocks/spend.js';
import { escapeClip } from '../blocks/text.js';
import { printDataFile, renderWaybillInfo, renderWaybillPrint } from '../blocks/waybills.js';
import {
  type Actor,
  CONFIRM_TTL_MS,
  describeCap,
  type Prepared,
  summarize,
} from '../lookups/lookup-service.js';
import type { LookupOutcome, LookupRequest, Pending } from '../lookups/types.js';
import { isPlatError } from '../plat/errors.js';
import type { SlackDeps } from './deps.js';

/** Posts to the user: response_url (respond) where there is one, chat.postEphemeral otherwise. */
export type Reply = (message: RespondArguments) => Promise<unknown>;

const actorOf = (pending: Pending): Actor => ({
  userId: pending.userId,
  channelId: pending.channelId,
  teamId: pending.teamId,
  responseUrl: pending.responseUrl,
});

/**
 * Checks, quotes and stores the request, then shows the confirmation; or answers from the
 * cache (with a Refresh button), runs at once under the user's own threshold, or says why not.
 */
export async function offerLookup(
  deps: SlackDeps,
  request: LookupRequest,
  actor: Actor,
  reply: Reply,
  options: {
    replaceOriginal?: boolean;
    /** Told what prepare decided (e.g. an unfurl remembers the pending lookup it offered). */
    onPrepared?: (prepared: Prepared) => void | Promise<void>;
  } = {},
): Promise<void> {
  const replace = options.replaceOriginal ?? false;
  const prepared = await deps.lookups.prepare(request, actor, summarize(request));
  await options.onPrepared?.(prepared);
  switch (prepared.kind) {
    case 'refused':
      await reply({
        response_type: 'ephemeral',
        replace_original: replace,
        ...renderRefusal(prepared.message, await deps.admins()),
      });
      return;
    case 'cached': {
      const answer = await renderOutcome(deps, prepared.outcome, prepared.refresh, { ageMs: prepared.ageMs });
      await reply({
        response_type: 'ephemeral',
        replace_original: replace,
        ...withRefreshButton(answer, prepared.refresh.id, prepared.refreshQuote),
      });
      return;
    }
    case 'auto':
      return runAndAnswer(deps, prepared.pending, reply);
    case 'confirm': {
      const confirmation = renderConfirmation({
        pendingId: prepared.pending.id,
        summary: prepared.pending.summary,
        quote: prepared.quote,
        expiresInMinutes: CONFIRM_TTL_MS / 60_000,
        warnings: prepared.warnings.map((w) => `This lookup brings ${describeCap(w)}.`),
      });
      await reply({ response_type: 'ephemeral', replace_original: replace, ...confirmation });
    }
  }
}

/**
 * Runs a claimed lookup and replaces the confirmation with the answer. Shutdown waits for the
 * whole of it (lookups.hold), so a confirmed call's answer is delivered, not only recorded.
 */
export function runAndAnswer(deps: SlackDeps, pending: Pending, reply: Reply): Promise<void> {
  return deps.lookups.hold(answerLookup(deps, pending, reply));
}

async function answerLookup(deps: SlackDeps, pending: Pending, reply: Reply): Promise<void> {
  await reply({
    response_type: 'ephemeral',
    replace_original: true,
    // The summary holds what the user typed (a shop id, an account id): escaped like any text.
    text: `:hourglass_flowing_sand: Looking up ${escapeClip(pending.summary, 500)}…`,
  });
  let answer: RenderedMessage;
  try {
    const outcome = await deps.lookups.run(pending, { resultJson: keptResult });
    answer = await renderOutcome(deps, outcome, pending);
    // A batch refused for the account itself (401, balance gone mid-batch) alerts the admins too.
    if ('failedBatches' in outcome)
      for (const failed of outcome.failedBatches)
        await deps.alerts.notifyIfAccountError(failed.error, { userId: pending.userId });
  } catch (error) {
    if (!isPlatError(error)) deps.logger.error({ err: error, pendingId: pending.id }, 'lookup crashed');
    await deps.alerts.notifyIfAccountError(error, { userId: pending.userId });
    answer = renderPlatError(error);
  }
  await reply({ response_type: 'ephemeral', replace_original: true, ...answer });
}

/**
 * The print data file is kept with the finished lookup (never shown inline) for the Download
 * button; an item answer is kept so an unfurl of the same link can show it as the earlier result.
 */
function keptResult(outcome: LookupOutcome): string | null {
  if (outcome.kind === 'waybill-print') return JSON.stringify(printDataFile(outcome.records));
  if (outcome.kind === 'item') return JSON.stringify(outcome);
  return null;
}

export async function renderOutcome(
  deps: SlackDeps,
  outcome: LookupOutcome & { shared?: boolean },
  pending: Pending,
  cached?: { ageMs: number },
): Promise<RenderedMessage> {
  const charge = {
    chargedPoints: outcome.chargedPoints,
    quotaCalls: 'quotaCalls' in outcome ? outcome.quotaCalls : 0,
    ...(cached ? { cached } : {}),
    ...(outcome.shared ? { shared: true } : {}),
  };
  switch (outcome.kind) {
    case 'item':
      return renderItem(outcome.item, { prices: outcome.prices, charge });
    case 'item-prices':
      return renderItemPrices(outcome.prices, charge);
    case 'shop-info':
      return renderShopInfo(outcome.shop, charge);
    case 'shop-id':
      return renderShopId(outcome.result, charge);
    case 'waybill-print': {
      const hasFile = outcome.records.some((r) => r.success && (r.printData ?? r.printDataRaw) !== null);
      return renderWaybillPrint(outcome, { charge, ...(hasFile ? { downloadValue: pending.id } : {}) });
    }
    case 'waybill-info':
      return renderWaybillInfo(outcome, { charge });
    case 'orders': {
      const request = pending.request;
      if (request.kind !== 'orders') throw new Error('orders outcome for a non-orders request');
      const pageRequest = (page: number): LookupRequest => ({ ...request, page });
      // Each pager button is its own single-use pending lookup, stated and charged like any other:
      // stored before rendering, for the pages the renderer offers (the one before and after).
      const pagerIds = new Map<number, string>();
      for (const page of [outcome.page.page - 1, outcome.page.page + 1]) {
        if (page < 0 || page >= outcome.page.totalPages) continue;
        const next = pageRequest(page);
        pagerIds.set(page, (await deps.lookups.prepareFollowUp(next, actorOf(pending), summarize(next))).id);
      }
      return renderOrdersPage(outcome, {
        charge,
        now: deps.now(),
        nextQuote: await deps.lookups.quote(pageRequest(request.page + 1)),
        pagerValue: (page) => pagerIds.get(page) ?? '',
      });
    }
  }
}
