/** A chart image uploaded to Slack, shown with a `slack_file` image block (no public hosting). */
import type { ImageBlock } from '@slack/types';
import { message, type RenderedMessage } from './kit.js';
import { SLACK_LIMITS } from './limits.js';
import { truncate } from './text.js';

export function renderChartMessage(fileId: string, alt: string, title: string): RenderedMessage {
  const block: ImageBlock = {
    type: 'image',
    slack_file: { id: fileId },
    alt_text: truncate(alt, SLACK_LIMITS.altText),
    title: { type: 'plain_text', text: truncate(title, SLACK_LIMITS.headerText) },
  };
  // The alt text is the fallback too: notifications and clients without images say the figures.
  return message(alt, [block]);
}
