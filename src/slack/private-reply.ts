/**
 * An answer reaches its user even when Slack refuses the first way. A response_url can expire
 * (30 min), be used up (5 posts), be rate-limited or fail: Bolt's `respond` then throws, and the
 * user of a paid lookup would never see the answer they were charged for. The answer goes
 * instead as an ephemeral message in the channel, else as a direct message from platdesk; never
 * to the channel for everyone (DESIGN rule 6). When every way fails it is logged, not thrown:
 * the listener has nothing else to do with it.
 * https://docs.slack.dev/interactivity/handling-user-interaction#message_responses
 */
import type { RespondArguments, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';

export interface Recipient {
  userId: string;
  channelId: string | null;
}

export interface PrivateMessage {
  text?: string | undefined;
  blocks?: unknown[] | undefined;
}

const codeOf = (error: unknown) =>
  (error as { data?: { error?: string } }).data?.error ?? (error as { code?: string }).code ?? null;

/**
 * chat.postEphemeral in the channel, else a direct message (chat.postMessage to the user id).
 * Resolves true when one of them took it.
 */
export async function sendPrivately(
  client: WebClient,
  to: Recipient,
  message: PrivateMessage,
  logger: Pick<Logger, 'warn' | 'error'>,
): Promise<boolean> {
  const text = message.text ?? '';
  const blocks = message.blocks as never;
  if (to.channelId) {
    try {
      await client.chat.postEphemeral({ channel: to.channelId, user: to.userId, text, blocks });
      return true;
    } catch (error) {
      logger.warn(
        { err: error, code: codeOf(error) },
        'ephemeral answer refused; sending it by direct message',
      );
    }
  }
  try {
    await client.chat.postMessage({ channel: to.userId, text, blocks });
    return true;
  } catch (error) {
    logger.error({ err: error, code: codeOf(error), user: to.userId }, 'answer not delivered');
    return false;
  }
}

/** Who a request came from and where, for the fallback. */
export function recipientOf(body: Record<string, unknown>): Recipient | null {
  const user = body.user as { id?: unknown } | undefined;
  const userId =
    typeof body.user_id === 'string' ? body.user_id : typeof user?.id === 'string' ? user.id : null;
  if (!userId) return null;
  const channel = body.channel as { id?: unknown } | undefined;
  const container = body.container as { channel_id?: unknown } | undefined;
  const channelId =
    typeof body.channel_id === 'string'
      ? body.channel_id
      : typeof channel?.id === 'string'
        ? channel.id
        : typeof container?.channel_id === 'string'
          ? container.channel_id
          : null;
  return { userId, channelId: channelId || null };
}

/**
 * `respond`, falling back to `sendPrivately` when the response_url refuses the message. Listeners
 * pass this as the Reply of their answers (a global middleware cannot do it: Bolt hands each
 * middleware a copy of the arguments, and the listener the original `respond`).
 */
export function privateReply(args: {
  respond: RespondFn;
  client: WebClient;
  body: unknown;
  logger: Pick<Logger, 'warn' | 'error'>;
}): (message: RespondArguments) => Promise<unknown> {
  const to = recipientOf(args.body as Record<string, unknown>);
  return async (message) => {
    try {
      return await args.respond(message);
    } catch (error) {
      const m = message as PrivateMessage;
      // Nothing to show (delete_original alone), or no one to show it to: nothing to send another way.
      if (!to || (!m.text && !m.blocks)) throw error;
      args.logger.warn(
        { err: error, status: (error as { statusCode?: number }).statusCode ?? null },
        'response_url refused the answer; sending it another way',
      );
      return sendPrivately(args.client, to, m, args.logger);
    }
  };
}
