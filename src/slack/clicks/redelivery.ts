/**
 * Clicks Slack delivers more than once. After a Socket Mode reconnect, or when an HTTP ack was
 * late (`x-slack-retry-num`), Slack sends the same interaction again: same user, action, value and
 * `action_ts` (a genuine second click has its own action_ts). The first delivery, on whichever
 * replica, records the click in the store (one INSERT … ON CONFLICT DO NOTHING, the table that
 * already keeps Events API ids: processed_events, forgotten after EVENT_MEMORY_MS by the same
 * housekeeping); a later delivery finds it and is dropped without a word, so it can neither
 * answer "already used" before the real answer arrives nor do anything twice.
 * https://docs.slack.dev/apis/events-api/using-socket-mode#reconnect
 */
import { createHash } from 'node:crypto';
import type { BlockAction, BlockElementAction } from '@slack/bolt';
import type { Claimed } from '../../lookups/lookup-service.js';
import { EVENT_MEMORY_MS } from '../../lookups/unfurls.js';
import type { Store } from '../../store/store.js';

/** What makes two deliveries one click; null when the payload has no action_ts to tell them by. */
export function clickKey(
  body: Pick<BlockAction<BlockElementAction>, 'actions' | 'user' | 'team'>,
): string | null {
  const action = body.actions[0];
  if (!action?.action_ts) return null;
  const value = 'value' in action && typeof action.value === 'string' ? action.value : '';
  const parts = [
    body.team?.id ?? '',
    body.user.id,
    action.action_id,
    action.block_id,
    value,
    action.action_ts,
  ];
  return `click:${createHash('sha256').update(JSON.stringify(parts)).digest('hex')}`;
}

/**
 * Records the click; false when it was recorded before (a redelivery: drop it). A payload
 * without action_ts cannot be told apart and is always handled.
 */
export async function firstDelivery(
  store: Pick<Store, 'unfurls'>,
  body: Pick<BlockAction<BlockElementAction>, 'actions' | 'user' | 'team'>,
): Promise<boolean> {
  const key = clickKey(body);
  return key === null || store.unfurls.firstSeen(key, EVENT_MEMORY_MS);
}

/**
 * A click of the owner on a single-use button whose lookup is running now (a double click, or the
 * same Confirm clicked on another replica): the running lookup will answer, so nothing new is said.
 * Once it has finished, a click is told "already used".
 */
export function clickOnRunningLookup(claimed: Claimed): boolean {
  return !claimed.ok && claimed.reason === 'already_used' && claimed.pending?.state === 'running';
}
