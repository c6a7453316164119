/**
 * Confirm and Cancel on a charge confirmation. The button carries only the pending lookup id;
 * the claim is one conditional UPDATE, so a double click, a Slack retry, another user's click
 * or a click after expiry never calls twice (DESIGN rule 2).
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { renderConfirmationClosed } from '../../blocks/confirmation.js';
import type { Claimed } from '../../lookups/lookup-service.js';
import { ackFirst } from '../ack.js';
import { type Reply, runAndAnswer } from '../answer.js';
import type { SlackDeps } from '../deps.js';
import { privateReply } from '../private-reply.js';

/** Answers a refused claim; a click by someone else never changes the owner's message. */
export async function answerRefusedClaim(
  claimed: Exclude<Claimed, { ok: true }>,
  reply: Reply,
): Promise<void> {
  const closed = renderConfirmationClosed(claimed.reason === 'not_found' ? 'expired' : claimed.reason);
  await reply({ response_type: 'ephemeral', replace_original: claimed.reason !== 'not_yours', ...closed });
}

export function registerConfirmActions(app: App, deps: SlackDeps): void {
  // Refresh on a cached answer is a Confirm whose label stated the charge: same single-use claim.
  for (const actionId of [ACTIONS.confirm, ACTIONS.refresh]) {
    app.action<BlockButtonAction>(actionId, async ({ ack, action, body, respond, client }) => {
      await ackFirst(ack);
      const reply = privateReply({ respond, client, body, logger: deps.logger });
      const claimed = await deps.lookups.claim(action.value ?? '', body.user.id);
      if (!claimed.ok) return answerRefusedClaim(claimed, reply);
      await runAndAnswer(deps, claimed.pending, reply);
    });
  }

  app.action<BlockButtonAction>(ACTIONS.cancel, async ({ ack, action, body, respond, client }) => {
    await ackFirst(ack);
    const reply = privateReply({ respond, client, body, logger: deps.logger });
    const cancelled = await deps.lookups.cancel(action.value ?? '', body.user.id);
    if (!cancelled.ok) return answerRefusedClaim(cancelled, reply);
    await reply({
      response_type: 'ephemeral',
      replace_original: true,
      ...renderConfirmationClosed('cancelled'),
    });
  });
}
