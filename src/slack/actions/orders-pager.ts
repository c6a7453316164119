/**
 * Previous / Next on an orders page. Each pager button is its own single-use pending lookup
 * whose label stated the charge: a click claims it like Confirm does. An expired one is offered
 * again with a fresh confirmation rather than refused, posted beside the page (never over it).
 */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { offerLookup, runAndAnswer } from '../answer.js';
import { onMessageClick } from '../clicks/message-click.js';
import type { SlackDeps } from '../deps.js';
import { answerInterrupted, answerRefusedClaim } from './confirm.js';

export function registerOrdersPager(app: App, deps: SlackDeps): void {
  for (const actionId of [ACTIONS.ordersPrev, ACTIONS.ordersNext]) {
    onMessageClick(app, deps, actionId, async ({ action, body, reply }) => {
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
