/**
 * The digest's chart, posted in the digest's thread (issue 26). Runs only after the digest's post
 * is recorded (digest/runner.ts), so nothing here can cause the digest to be posted again.
 * Rendered from the summary the digest already has (src/charts: no plat call), uploaded with
 * files.uploadV2 (files.getUploadURLExternal → upload → files.completeUploadExternal, to no
 * channel: the file is only shown through the message) and shown with a slack_file image block.
 *
 * Posted once (DESIGN rule 8, digest/posted-once.ts): the reply carries its own key in its
 * metadata; before uploading, the thread is read for that key (an earlier attempt may have posted
 * it), and the reply is sent with no automatic retry. An unclear answer is logged and not sent
 * again: a chart missing is better than two. Best effort: any failure is logged, the digest stays.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { renderChartMessage } from '../../blocks/chart.js';
import type { Words } from '../../blocks/i18n/words.js';
import { digestChartKey, isPostOutcomeUnknown } from '../../digest/posted-once.js';
import type { DigestPost } from '../../digest/types.js';
import type { KeyedPosts } from '../scheduled-posts.js';

export type DigestChartPoster = (
  w: Words,
  post: DigestPost,
  channel: string,
  threadTs: string,
) => Promise<void>;

/** Uploads a PNG privately (shared with no channel) and returns its file id. */
export async function uploadChartPng(
  client: WebClient,
  png: Buffer,
  filename: string,
  title: string,
): Promise<string> {
  const uploaded = await client.files.uploadV2({ file: png, filename, title });
  // uploadV2 answers { files: [{ ok, files: [{ id }] }] } (one completeUploadExternal per call).
  const first = (uploaded as unknown as { files?: { files?: { id?: string }[] }[] }).files?.[0]?.files?.[0];
  if (!first?.id) throw new Error('files.completeUploadExternal answered without a file id');
  return first.id;
}

export function createDigestChartPoster(deps: {
  client: WebClient;
  keyed: KeyedPosts;
  logger: Pick<Logger, 'info' | 'warn'>;
}): DigestChartPoster {
  return async (w, post, channel, threadTs) => {
    const key = digestChartKey(post.run);
    const where = { subscriptionId: post.subscription.id, runId: post.run.id };
    try {
      if ((await deps.keyed.threadKeys(channel, threadTs, key.eventType)).has(key.key)) {
        deps.logger.info(where, 'digest chart already in its thread: not posted again');
        return;
      }
      // Loaded with the first chart, never at start: Vega, Vega-Lite and resvg (a native addon).
      const { renderDigestChart } = await import('../../charts/digest-hours.js');
      const chart = await renderDigestChart(w, post);
      if (!chart) return;
      const fileId = await uploadChartPng(
        deps.client,
        chart.png,
        `digest-${post.subscription.id}-${post.run.localDate}.png`,
        chart.title,
      );
      await deps.keyed.reply(channel, threadTs, renderChartMessage(fileId, chart.alt, chart.title), key);
    } catch (err) {
      deps.logger.warn(
        { err, ...where },
        isPostOutcomeUnknown(err)
          ? 'digest chart outcome unknown: not posted again'
          : 'digest chart not posted',
      );
    }
  };
}
