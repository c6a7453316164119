/** Sending an unfurl (chat.unfurl), with its Work Object entities where the workspace takes them. */
import type { EntityMetadata } from '@slack/types';
import type { ChatUnfurlArguments, WebClient } from '@slack/web-api';
import type { Logger } from 'pino';

export type Unfurls = Extract<ChatUnfurlArguments, { unfurls: unknown }>['unfurls'];
export type UnfurlTarget =
  | { unfurl_id: string; source: 'composer' | 'conversations_history' }
  | { channel: string; ts: string };

/**
 * chat.unfurl with Work Objects where the workspace supports them: the unfurl blocks are the
 * fallback, and a workspace that refuses the entities gets the plain unfurl. Also how an unfurl's
 * entity is refreshed after a lookup (the same call again for the same message).
 */
export async function unfurlWithEntities(
  client: WebClient,
  target: UnfurlTarget,
  unfurls: Unfurls,
  entities: EntityMetadata[],
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  if (entities.length === 0) {
    await client.chat.unfurl({ ...target, unfurls });
    return;
  }
  try {
    await client.chat.unfurl({ ...target, unfurls, metadata: { entities } });
  } catch (err) {
    logger.warn({ err }, 'Work Object unfurl refused; unfurling without entities');
    await client.chat.unfurl({ ...target, unfurls });
  }
}
