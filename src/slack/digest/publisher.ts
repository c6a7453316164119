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
import { digestPostKey, digestReplyKey, type PostFence, PostRefusedError } from '../../digest/posted-once.js';
import type { DigestPost, DigestPublisher, KeyedPostOptions } from '../../digest/types.js';
import type { AdminAlerts } from '../admin-alerts.js';
import type { LocaleResolver } from '../locale-resolver.js';
import {
  createAdminMessenger,
  createKeyedPosts,
  type HistoryReads,
  metadataOf,
  postFailure,
  postMessage,
  progressThread,
} from '../scheduled-posts.js';
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
  /** How the channel's history is read (default Slack's normal tier; scheduled-posts.ts). */
  reads?: HistoryReads;
}

export function createSlackDigestPublisher(deps: SlackDigestPublisherDeps): DigestPublisher {
  const { client, logger } = deps;
  const keyed = createKeyedPosts({
    client,
    ...(deps.postTimeoutMs !== undefined ? { timeoutMs: deps.postTimeoutMs } : {}),
    ...(deps.reads ? { reads: deps.reads } : {}),
  });
  const postChart = createDigestChartPoster({ client, keyed, logger });

  async function put(channel: string, m: RenderedMessage, replaceTs: string | null): Promise<string> {
    if (replaceTs !== null) {
      await client.chat.update({ channel, ts: replaceTs, text: m.text, blocks: m.blocks });
      return replaceTs;
    }
    return postMessage(client, channel, m);
  }

  /**
   * The thread's replies, each keyed (digestReplyKey) and sent once like the parent: replies whose
   * keys the thread already holds (`known`) are skipped, so a retried or verified run completes
   * the thread and never posts a reply twice. An unclear answer throws PostOutcomeUnknownError (the
   * run is unknown; its history check finds the parent and posts only what is missing); a reply
   * Slack surely refuses is logged and not retried (never reply_broadcast: the channel stays quiet).
   * Each reply is fenced like the parent; a holder whose fence stops it stops here.
   */
  async function postReplies(
    post: DigestPost,
    replies: readonly RenderedMessage[],
    ts: string,
    known: ReadonlySet<string>,
    fence: PostFence | undefined,
  ): Promise<void> {
    const channel = post.subscription.channelId;
    for (const [index, reply] of replies.entries()) {
      const key = digestReplyKey(post.run, index);
      if (known.has(key.key)) continue;
      try {
        await keyed.reply(channel, ts, reply, key, fence);
      } catch (err) {
        if (!(err instanceof PostRefusedError)) throw err;
        logger.warn({ err, subscriptionId: post.subscription.id }, 'digest thread reply not posted');
      }
    }
  }

  /**
   * The reply keys a thread already holds (none in a thread no reply was posted to yet); a check
   * the rate limit cut short while reading this thread goes on from `progress`.
   */
  const repliesIn = async (post: DigestPost, ts: string, progress: string | null | undefined) =>
    keyed.threadKeys(
      post.subscription.channelId,
      ts,
      'platdesk_digest_reply',
      progressThread(progress) === ts ? progress : null,
    );

  /**
   * The digest's parent message: a new one keyed and sent once, or the "Run now" progress message
   * replaced (an update may be sent again; its failure is still a sure refusal or an unknown outcome).
   */
  async function putDigest(
    post: DigestPost,
    m: RenderedMessage,
    replaceTs: string | null,
    fence: PostFence | undefined,
  ): Promise<string> {
    const channel = post.subscription.channelId;
    const key = digestPostKey(post.run);
    if (replaceTs === null) return keyed.post(channel, m, key, fence);
    fence?.check();
    try {
      await client.chat.update({
        channel,
        ts: replaceTs,
        text: m.text,
        blocks: m.blocks,
        metadata: metadataOf(key),
      });
    } catch (error) {
      throw postFailure(error, 'chat.update');
    }
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
    async postDigest(post, replaceTs, options: KeyedPostOptions = {}) {
      const { fence, progress } = options;
      const w = await words(post.subscription.channelId);
      if (post.subscription.layout === 'single')
        return putDigest(post, renderDigest(w, post), replaceTs, fence);
      // Threaded: the summary in the channel, the details as replies in its thread.
      const { parent, replies } = renderDigestThread(w, post);
      const ts = await putDigest(post, parent, replaceTs, fence);
      // "Run now" replaces its progress message, and a retried or taken-over run replaces it
      // again: its thread may hold replies of an earlier attempt. A new parent's thread, or the
      // progress message of a run's first attempt, has none.
      const known =
        replaceTs === null || post.run.attempts <= 1
          ? new Set<string>()
          : await repliesIn(post, ts, progress);
      await postReplies(post, replies, ts, known, fence);
      return ts;
    },
    async findDigest(post, options: KeyedPostOptions = {}) {
      const { fence, progress } = options;
      const channel = post.subscription.channelId;
      // A check cut short while reading the found message's thread goes on there.
      const thread = progressThread(progress);
      const found =
        thread !== null
          ? { ts: thread, replyCount: 1 }
          : await keyed.find(channel, digestPostKey(post.run), progress);
      // Found: the attempt that posted it may have stopped before (some of) its replies.
      if (found && post.subscription.layout === 'thread') {
        const { replies } = renderDigestThread(await words(channel), post);
        const known = found.replyCount === 0 ? new Set<string>() : await repliesIn(post, found.ts, progress);
        await postReplies(post, replies, found.ts, known, fence);
      }
      return found?.ts ?? null;
    },
    postChart: async (post, messageTs) =>
      postChart(await words(post.subscription.channelId), post, post.subscription.channelId, messageTs),
    async postProgress(sub, _run, plan, replaceTs) {
      const m = renderDigestProgress(await words(sub.channelId), sub, plan);
      // The first post once (a retried post whose outcome was unclear would leave two); updates
      // of a known message may simply be sent again.
      return replaceTs === null ? keyed.postOnce(sub.channelId, m) : put(sub.channelId, m, replaceTs);
    },
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
