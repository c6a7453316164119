/**
 * The digest's chart, posted in the digest's thread (issue 26): a thin step after the digest
 * message is posted. Rendered from the summary the digest already has (no plat call), uploaded
 * with files.uploadV2 (files.getUploadURLExternal → upload → files.completeUploadExternal, to no
 * channel: the file is only shown through the message) and shown with a slack_file image block.
 * Best effort: the digest is posted already, so a failure is logged and the run goes on.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { renderChartMessage } from '../../blocks/chart.js';
import type { Words } from '../../blocks/i18n/words.js';
import { renderDigestChart } from '../../charts/digest-hours.js';
import type { DigestPost } from '../../digest/types.js';

export type DigestChartPoster = (
  w: Words,
  post: DigestPost,
  channel: string,
  threadTs: string,
) => Promise<void>;

/** Uploads a PNG privately and returns its file id. */
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
  logger: Pick<Logger, 'warn'>;
}): DigestChartPoster {
  return async (w, post, channel, threadTs) => {
    try {
      const chart = await renderDigestChart(w, post);
      if (!chart) return;
      const fileId = await uploadChartPng(
        deps.client,
        chart.png,
        `digest-${post.subscription.id}-${post.run.localDate}.png`,
        chart.title,
      );
      const m = renderChartMessage(fileId, chart.alt, chart.title);
      await deps.client.chat.postMessage({
        channel,
        thread_ts: threadTs,
        text: m.text,
        blocks: m.blocks,
        unfurl_links: false,
        unfurl_media: false,
      });
    } catch (err) {
      deps.logger.warn({ err, subscriptionId: post.subscription.id }, 'digest chart not posted');
    }
  };
}
