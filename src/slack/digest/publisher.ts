/**
 * The digest layer's DigestPublisher on Slack's Web API: digests, progress and notices go to the
 * subscription's channel (chat.postMessage, then chat.update of the same message); alerts and
 * approval requests go to each admin by direct message. Account-wide failures (token refused,
 * balance exhausted) go through the shared AdminAlerts, so a failing digest and failing lookups
 * raise one alert an hour between them, not one each.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import {
  renderDigest,
  renderDigestAlert,
  renderDigestApproval,
  renderDigestNotice,
  renderDigestProgress,
} from '../../blocks/digest.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import type { DigestPublisher } from '../../digest/types.js';
import type { AdminAlerts } from '../admin-alerts.js';

export interface SlackDigestPublisherDeps {
  client: WebClient;
  alerts: AdminAlerts;
  admins: () => Promise<readonly string[]>;
  logger: Pick<Logger, 'warn' | 'error'>;
}

export function createSlackDigestPublisher(deps: SlackDigestPublisherDeps): DigestPublisher {
  const { client, logger } = deps;

  async function put(channel: string, m: RenderedMessage, replaceTs: string | null): Promise<string> {
    if (replaceTs !== null) {
      await client.chat.update({ channel, ts: replaceTs, text: m.text, blocks: m.blocks });
      return replaceTs;
    }
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

  async function toAdmins(m: RenderedMessage): Promise<void> {
    await Promise.all(
      (await deps.admins()).map((admin) =>
        client.chat
          .postMessage({ channel: admin, text: m.text, blocks: m.blocks })
          .catch((err: unknown) => logger.error({ err, admin }, 'digest message to an admin not delivered')),
      ),
    );
  }

  return {
    postDigest: (post, replaceTs) => put(post.subscription.channelId, renderDigest(post), replaceTs),
    postProgress: (sub, _run, plan, replaceTs) =>
      put(sub.channelId, renderDigestProgress(sub, plan), replaceTs),
    postNotice: (notice, replaceTs) =>
      put(notice.subscription.channelId, renderDigestNotice(notice), replaceTs),
    async alertAdmins(alert) {
      if (alert.kind === 'failed' && (await deps.alerts.notifyIfAccountError(alert.error, { userId: null })))
        return;
      await toAdmins(renderDigestAlert(alert));
    },
    askApproval: (request) => toAdmins(renderDigestApproval(request)),
  };
}
