/**
 * What the digest and alert publishers both do on Slack's Web API: post a rendered message to a
 * channel (link previews off, its ts back), and send one message to each admin in the admin's
 * own language, where one admin's failure is logged and never stops the others.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Words } from '../blocks/i18n/words.js';
import type { RenderedMessage } from '../blocks/kit.js';
import type { LocaleResolver } from './locale-resolver.js';

/** Posts to a channel (or a DM by user id) and returns the message's ts. */
export async function postMessage(client: WebClient, channel: string, m: RenderedMessage): Promise<string> {
  const posted = await client.chat.postMessage({
    channel,
    text: m.text,
    blocks: m.blocks,
    unfurl_links: false,
    unfurl_media: false,
  });
  if (!posted.ts) throw new Error('chat.postMessage answered without a ts');
  return posted.ts;
}

/** Renders the message in each admin's language and sends it to each by DM. */
export type AdminMessenger = (render: (w: Words) => RenderedMessage) => Promise<void>;

export function createAdminMessenger(deps: {
  client: WebClient;
  admins: () => Promise<readonly string[]>;
  language: Pick<LocaleResolver, 'user'>;
  logger: Pick<Logger, 'error'>;
  /** Names the message in the log line of an admin not reached, e.g. 'digest message'. */
  what: string;
}): AdminMessenger {
  return async (render) => {
    await Promise.all(
      (await deps.admins()).map(async (admin) => {
        try {
          const m = render(await deps.language.user(admin));
          await deps.client.chat.postMessage({ channel: admin, text: m.text, blocks: m.blocks });
        } catch (err) {
          deps.logger.error({ err, admin }, `${deps.what} to an admin not delivered`);
        }
      }),
    );
  };
}
