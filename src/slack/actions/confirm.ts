/**
 * Confirm and Cancel on a charge confirmation. The button carries only the pending lookup id;
 * the claim is one conditional UPDATE, so a double click, a Slack retry, another user's click
 * or a click after expiry never calls twice (DESIGN rule 2).
 */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { renderConfirmationClosed, renderInterrupted } from '../../blocks/confirmation.js';
import type { Claimed } from '../../lookups/lookup-service.js';
import type { Pending } from '../../lookups/types.js';
import { offerLookup, type Reply, runAndAnswer } from '../answer.js';
import { onMessageClick } from '../clicks/message-click.js';
import { clickOnRunningLookup } from '../clicks/redelivery.js';
import type { SlackDeps } from '../deps.js';

/**
 * Answers a refused claim. The message holding the button is replaced only when it can still be
 * the unused confirmation (expired, cancelled): after a run it holds the answer the user paid
 * for, which a double click or a Slack retry must never overwrite with a refusal; a click by
 * someone else never changes the owner's message; a row no longer found may have been a done one.
 * The owner's click while the lookup is still running gets no answer at all (clicks/redelivery.ts).
 */
export async function answerRefusedClaim(
  deps: SlackDeps,
  userId: string,
  claimed: Exclude<Claimed, { ok: true }>,
  reply: Reply,
): Promise<void> {
  // A second click while the first one's lookup runs: that lookup answers; nothing new to say.
  if (clickOnRunningLookup(claimed)) return;
  const w = await deps.language.user(userId);
  const closed = renderConfirmationClosed(w, claimed.reason);
  const replace = claimed.reason === 'expired' || claimed.reason === 'cancelled';
  await reply({ response_type: 'ephemeral', replace_original: replace, ...closed });
}

/**
 * A click on a lookup a crash cut (its claim was interrupted): what happened, and a fresh
 * confirmation to run it again. The message it came from holds no answer (it was never
 * delivered), so the notice replaces it.
 */
export async function answerInterrupted(
  deps: SlackDeps,
  pending: Pending,
  reply: Reply,
  responseUrl: string | null,
): Promise<void> {
  const w = await deps.language.user(pending.userId);
  await reply({
    response_type: 'ephemeral',
    replace_original: true,
    ...renderInterrupted(w, pending.request, { offerAgain: true }),
  });
  const actor = { userId: pending.userId, channelId: pending.channelId, teamId: pending.teamId, responseUrl };
  await offerLookup(deps, pending.request, actor, reply);
}

export function registerConfirmActions(app: App, deps: SlackDeps): void {
  // Refresh on a cached answer is a Confirm whose label stated the charge: same single-use claim.
  for (const actionId of [ACTIONS.confirm, ACTIONS.refresh]) {
    onMessageClick(app, deps, actionId, async ({ action, body, reply }) => {
      const claimed = await deps.lookups.claim(action.value ?? '', body.user.id);
      if (!claimed.ok && claimed.reason === 'interrupted' && claimed.pending)
        return answerInterrupted(deps, claimed.pending, reply, body.response_url ?? null);
      if (!claimed.ok) return answerRefusedClaim(deps, body.user.id, claimed, reply);
      await runAndAnswer(deps, claimed.pending, reply);
    });
  }

  onMessageClick(app, deps, ACTIONS.cancel, async ({ action, body, reply }) => {
    const cancelled = await deps.lookups.cancel(action.value ?? '', body.user.id);
    if (!cancelled.ok) return answerRefusedClaim(deps, body.user.id, cancelled, reply);
    const w = await deps.language.user(body.user.id);
    await reply({
      response_type: 'ephemeral',
      replace_original: true,
      ...renderConfirmationClosed(w, 'cancelled'),
    });
  });
}
