/**
 * Previous / Next on an orders page. Each pager button is its own single-use pending lookup
 * whose label stated the charge: a click claims it like Confirm does. An expired one is offered
 * again with a fresh confirmation rather than refused, posted beside the page (never over it).
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { ackFirst } from '../ack.js';
import { offerLookup, runAndAnswer } from '../answer.js';
import type { SlackDeps } from '../deps.js';
import { privateReply } from '../private-reply.js';
import { answerInterrupted, answerRefusedClaim } from './confirm.js';

export function registerOrdersPager(app: App, deps: SlackDeps): void {
  for (const actionId of [ACTIONS.ordersPrev, ACTIONS.ordersNext]) {
    app.action<BlockButtonAction>(actionId, async ({ ack, action, body, respond, client }) => {
      await ackFirst(ack);
      const reply = privateReply({ respond, client, body, logger: deps.logger });
      const claimed = await deps.lookups.claim(action.value ?? '', body.user.id);
      if (claimed.ok) return runAndAnswer(deps, claimed.pending, reply);
      if (claimed.reason === 'interrupted' && claimed.pending)
        return answerInterrupted(deps, claimed.pending, reply, body.response_url ?? null);
      if (claimed.reason === 'expired' && claimed.pending) {
        const p = claimed.pending;
        const actor = {
          userId: p.userId,
          channelId: p.channelId,
          teamId: p.teamId,
          responseUrl: body.response_url,
        };
        // The button sits on a page the user paid for: the new confirmation comes beside it.
        return offerLookup(deps, p.request, actor, reply);
      }
      return answerRefusedClaim(deps, body.user.id, claimed, reply);
    });
  }
}
