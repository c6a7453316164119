/**
 * From a claimed lookup to the message the user sees: "Looking up…", the call, then the
 * rendered answer or the error with its remedy. Every entry point ends here.
 */
import type { RespondArguments } from '@slack/bolt';
import { lookingUpText, renderConfirmation } from '../blocks/confirmation.js';
import { renderPlatError } from '../blocks/errors.js';
import type { Words } from '../blocks/i18n/words.js';
import type { RenderedMessage } from '../blocks/kit.js';
import { pagerPages } from '../blocks/orders.js';
import { renderOutcome } from '../blocks/outcome.js';
import { renderRefusal, withRefreshButton } from '../blocks/spend.js';
import { printDataFile } from '../blocks/waybills.js';
import { type Actor, CONFIRM_TTL_MS, type Prepared, summarize } from '../lookups/lookup-service.js';
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
  // Every answer here is ephemeral: the person's own language.
  const w = await deps.language.user(actor.userId);
  switch (prepared.kind) {
    case 'refused':
      await reply({
        response_type: 'ephemeral',
        replace_original: replace,
        ...renderRefusal(w, prepared.refusal, await deps.admins()),
      });
      return;
    case 'cached': {
      const answer = await answerOf(deps, w, prepared.outcome, prepared.refresh, { ageMs: prepared.ageMs });
      await reply({
        response_type: 'ephemeral',
        replace_original: replace,
        ...withRefreshButton(w, answer, prepared.refresh.id, prepared.refreshQuote),
      });
      return;
    }
    case 'auto':
      return runAndAnswer(deps, prepared.pending, reply);
    case 'confirm': {
      const confirmation = renderConfirmation(w, {
        pendingId: prepared.pending.id,
        request: prepared.pending.request,
        quote: prepared.quote,
        expiresInMinutes: CONFIRM_TTL_MS / 60_000,
        warnings: prepared.warnings,
      });
      await reply({ response_type: 'ephemeral', replace_original: replace, ...confirmation });
    }
  }
}

/**
 * Runs a claimed lookup and replaces the confirmation with the answer. Shutdown waits for the
 * whole of it (lookups.hold), so a confirmed call's answer is delivered, not only recorded.
 */
export function runAndAnswer(
  deps: SlackDeps,
  pending: Pending,
  reply: Reply,
  /** The language of the answer when it is not the person's own (an answer in a channel's thread). */
  words?: Words,
): Promise<void> {
  return deps.lookups.hold(answerLookup(deps, pending, reply, words));
}

async function answerLookup(deps: SlackDeps, pending: Pending, reply: Reply, words?: Words): Promise<void> {
  const w = words ?? (await deps.language.user(pending.userId));
  // "Looking up…" goes out while the lookup runs, so its Slack round trip is not added to the wait
  // for the answer; the answer is posted only after it, so it is never replaced by it. A refused
  // post does not stop the lookup the user confirmed (nor, as before, does it throw: see
  // private-reply.ts; a reply that throws anyway is logged here).
  // What is looked up holds what the user typed (a shop id, an account id): escaped like any text.
  const lookingUp = reply({
    response_type: 'ephemeral',
    replace_original: true,
    text: lookingUpText(w, pending.request),
  }).then(
    () => undefined,
    (err: unknown) => deps.logger.warn({ err, pendingId: pending.id }, '"Looking up" not posted'),
  );
  let answer: RenderedMessage;
  try {
    const outcome = await deps.lookups.run(pending, { resultJson: keptResult });
    answer = await answerOf(deps, w, outcome, pending);
    // A batch refused for the account itself (401, balance gone mid-batch) alerts the admins too.
    if ('failedBatches' in outcome)
      for (const failed of outcome.failedBatches)
        await deps.alerts.notifyIfAccountError(failed.error, { userId: pending.userId });
  } catch (error) {
    if (!isPlatError(error)) deps.logger.error({ err: error, pendingId: pending.id }, 'lookup crashed');
    await deps.alerts.notifyIfAccountError(error, { userId: pending.userId });
    answer = renderPlatError(w, error);
  }
  await lookingUp;
  await reply({ response_type: 'ephemeral', replace_original: true, ...answer });
}

/**
 * The print data file is kept with the finished lookup (never shown inline) for the Download
 * button; an item answer is kept so an unfurl of the same link can show it as the earlier result.
 */
export function keptResult(outcome: LookupOutcome): string | null {
  if (outcome.kind === 'waybill-print') return JSON.stringify(printDataFile(outcome.records));
  if (outcome.kind === 'item') return JSON.stringify(outcome);
  return null;
}

/**
 * The answer to a finished lookup in `w`'s language. The orders pager's buttons are pending
 * lookups of their own (each stated and charged like any other): prepared here, before the pure
 * renderer runs.
 */
export async function answerOf(
  deps: SlackDeps,
  w: Words,
  outcome: LookupOutcome & { shared?: boolean },
  pending: Pending,
  cached?: { ageMs: number },
): Promise<RenderedMessage> {
  const base = { now: deps.now(), downloadValue: pending.id, ...(cached ? { cached } : {}) };
  if (outcome.kind === 'shop-id' && outcome.result.found) {
    // The way on from a shop id (its orders) needs the shop's owner id: known if registered here.
    const { shopId } = outcome.result;
    const registry = await deps.lookups.settings.shops();
    const registeredShop = registry.shops.find((s) => s.shopId === shopId) ?? null;
    return renderOutcome(w, outcome, { ...base, registeredShop });
  }
  if (outcome.kind !== 'orders') return renderOutcome(w, outcome, base);
  const request = pending.request;
  if (request.kind !== 'orders') throw new Error('orders outcome for a non-orders request');
  const pageRequest = (page: number): LookupRequest => ({ ...request, page });
  const prepare = async (page: number | null) => {
    if (page === null) return null;
    const next = pageRequest(page);
    return (await deps.lookups.prepareFollowUp(next, actorOf(pending), summarize(next))).id;
  };
  const pages = pagerPages(outcome);
  return renderOutcome(w, outcome, {
    ...base,
    pager: {
      nextQuote: await deps.lookups.quote(pageRequest(request.page + 1)),
      pager: { previous: await prepare(pages.previous), next: await prepare(pages.next) },
    },
  });
}
