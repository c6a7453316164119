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
  renderDigestThread,
} from '../../blocks/digest.js';
import type { Words } from '../../blocks/i18n/words.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { digestPostKey } from '../../digest/posted-once.js';
import type { DigestPost, DigestPublisher } from '../../digest/types.js';
import type { AdminAlerts } from '../admin-alerts.js';
import type { LocaleResolver } from '../locale-resolver.js';
import { createAdminMessenger, createKeyedPosts, metadataOf, postMessage } from '../scheduled-posts.js';
import { createDigestChartPoster } from './chart.js';

export interface SlackDigestPublisherDeps {
  client: WebClient;
  alerts: AdminAlerts;
  /** Channel posts in the channel's language; each admin's messages in theirs. */
  language: Pick<LocaleResolver, 'user' | 'channel'>;
  admins: () => Promise<readonly string[]>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Past this a digest's post is unknown (default KEYED_POST_TIMEOUT_MS). */
  postTimeoutMs?: number;
}

export function createSlackDigestPublisher(deps: SlackDigestPublisherDeps): DigestPublisher {
  const { client, logger } = deps;
  const keyed = createKeyedPosts({
    client,
    ...(deps.postTimeoutMs !== undefined ? { timeoutMs: deps.postTimeoutMs } : {}),
  });
  const postChart = createDigestChartPoster({ client, keyed, logger });

  async function put(channel: string, m: RenderedMessage, replaceTs: string | null): Promise<string> {
    if (replaceTs !== null) {
      await client.chat.update({ channel, ts: replaceTs, text: m.text, blocks: m.blocks });
      return replaceTs;
    }
    return postMessage(client, channel, m);
  }

  // The summary is the digest: a reply Slack refuses is logged, not retried, since a retry of the
  // run would post the summary a second time (never reply_broadcast: the channel stays quiet).
  async function postReplies(
    post: DigestPost,
    replies: readonly RenderedMessage[],
    ts: string,
  ): Promise<void> {
    const channel = post.subscription.channelId;
    for (const reply of replies)
      await client.chat
        .postMessage({
          channel,
          thread_ts: ts,
          text: reply.text,
          blocks: reply.blocks,
          unfurl_links: false,
          unfurl_media: false,
        })
        .catch((err: unknown) =>
          logger.warn({ err, subscriptionId: post.subscription.id }, 'digest thread reply not posted'),
        );
  }

  /** The digest's parent message: a new one keyed and sent once, or the "Run now" progress message replaced. */
  async function putDigest(post: DigestPost, m: RenderedMessage, replaceTs: string | null): Promise<string> {
    const channel = post.subscription.channelId;
    const key = digestPostKey(post.run);
    if (replaceTs === null) return keyed.post(channel, m, key);
    await client.chat.update({
      channel,
      ts: replaceTs,
      text: m.text,
      blocks: m.blocks,
      metadata: metadataOf(key),
    });
    return replaceTs;
  }

  const toAdmins = createAdminMessenger({
    client,
    admins: deps.admins,
    language: deps.language,
    logger,
    what: 'digest message',
  });
  // A personal digest goes to a person (`me`): their language; a channel's, the channel's.
  const words = (channelId: string): Promise<Words> =>
    /^[UW]/.test(channelId) ? deps.language.user(channelId) : deps.language.channel(channelId);

  return {
    async postDigest(post, replaceTs) {
      const w = await words(post.subscription.channelId);
      if (post.subscription.layout === 'single') return putDigest(post, renderDigest(w, post), replaceTs);
      // Threaded: the summary in the channel, the details as replies in its thread.
      const { parent, replies } = renderDigestThread(w, post);
      const ts = await putDigest(post, parent, replaceTs);
      await postReplies(post, replies, ts);
      return ts;
    },
    async findDigest(post) {
      const found = await keyed.find(post.subscription.channelId, digestPostKey(post.run));
      // Found with an empty thread: the attempt that posted it stopped before its replies.
      if (found && post.subscription.layout === 'thread' && found.replyCount === 0) {
        const { replies } = renderDigestThread(await words(post.subscription.channelId), post);
        await postReplies(post, replies, found.ts);
      }
      return found?.ts ?? null;
    },
    postChart: async (post, messageTs) =>
      postChart(await words(post.subscription.channelId), post, post.subscription.channelId, messageTs),
    postProgress: async (sub, _run, plan, replaceTs) =>
      put(sub.channelId, renderDigestProgress(await words(sub.channelId), sub, plan), replaceTs),
    postNotice: async (notice, replaceTs) =>
      put(
        notice.subscription.channelId,
        renderDigestNotice(await words(notice.subscription.channelId), notice),
        replaceTs,
      ),
    async alertAdmins(alert) {
      if (alert.kind === 'failed' && (await deps.alerts.notifyIfAccountError(alert.error, { userId: null })))
        return;
      await toAdmins((w) => renderDigestAlert(w, alert));
    },
    askApproval: (request) => toAdmins((w) => renderDigestApproval(w, request)),
  };
}
