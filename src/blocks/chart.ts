/** A chart image uploaded to Slack, shown with a `slack_file` image block (no public hosting). */
import type { ImageBlock } from '@slack/types';
import { message, type RenderedMessage } from './kit.js';
import { SLACK_LIMITS } from './limits.js';
import { truncate } from './text.js';

/** A chart uploaded to Slack: its file id, alt text and title in the reader's language. */
export interface UploadedChart {
  fileId: string;
  alt: string;
  title: string;
}

export function chartImage(chart: UploadedChart): ImageBlock {
  return {
    type: 'image',
    slack_file: { id: chart.fileId },
    alt_text: truncate(chart.alt, SLACK_LIMITS.altText),
    title: { type: 'plain_text', text: truncate(chart.title, SLACK_LIMITS.headerText) },
  };
}

export function renderChartMessage(fileId: string, alt: string, title: string): RenderedMessage {
  // The alt text is the fallback too: notifications and clients without images say the figures.
  return message(alt, [chartImage({ fileId, alt, title })]);
}
