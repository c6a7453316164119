/** What the agent's use cases are given from the Slack deps, and where its answers are posted. */
import type { WebClient } from '@slack/web-api';
import type { AgentDeps } from '../../agent/ask.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import type { SlackDeps } from '../deps.js';

export function agentDeps(deps: SlackDeps): AgentDeps {
  return {
    lookups: deps.lookups,
    store: deps.store,
    isAdmin: deps.isAdmin,
    model: deps.agentModel ?? null,
    now: deps.now,
    // Filters are enhanced-only (spec §9): the edition /orders is called with.
    ordersEdition: () => deps.client.editionFor('paging-orders') ?? 1,
  };
}

/** A DM with platdesk (the Messages tab included) is private; any other conversation is not. */
export const isPrivate = (channelId: string): boolean => channelId.startsWith('D');

/**
 * An answer in the question's thread. `personal` (order lists, spend): in a channel only the
 * person sees it (DESIGN: answers with order data are ephemeral); in a DM it is theirs anyway.
 */
export async function postInThread(
  deps: SlackDeps,
  client: WebClient,
  where: { channelId: string; threadTs: string; userId: string },
  rendered: RenderedMessage,
  personal: boolean,
): Promise<void> {
  try {
    if (personal && !isPrivate(where.channelId))
      await client.chat.postEphemeral({
        channel: where.channelId,
        user: where.userId,
        thread_ts: where.threadTs,
        text: rendered.text,
        blocks: rendered.blocks,
      });
    else
      await client.chat.postMessage({
        channel: where.channelId,
        thread_ts: where.threadTs,
        text: rendered.text,
        blocks: rendered.blocks,
      });
  } catch (err) {
    // The lookup ran and is in the ledger; the answer is lost to Slack, said in the log.
    deps.logger.error({ err, channelId: where.channelId }, 'agent answer not delivered');
  }
}
