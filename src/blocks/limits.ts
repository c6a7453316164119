/**
 * Slack's Block Kit limits (https://docs.slack.dev/reference/block-kit/blocks) and the two ways
 * renderers stay inside them: `packSections` for lists, `fitMessage` as the last guard.
 */
import type { ContextBlock, KnownBlock, SectionBlock } from '@slack/types';
import { resolveMarkers } from './markers.js';
import { truncateMrkdwn } from './text.js';

export const SLACK_LIMITS = {
  /** Blocks in a message. */
  messageBlocks: 50,
  /** Blocks in a modal or App Home view. */
  viewBlocks: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  /** Any other plain_text or mrkdwn text object. */
  text: 3000,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  actionId: 255,
  blockId: 255,
  contextElements: 10,
  contextText: 3000,
  actionsElements: 25,
  imageUrl: 3000,
  altText: 2000,
  /** Our own cap for a message's fallback `text` (Slack allows far more; notifications show little). */
  fallbackText: 300,
} as const;

/** The "…and N more" context block that ends a cut list. */
export function moreBlock(text: string): ContextBlock {
  return {
    type: 'context',
    // verbatim: no auto-linking of the escaped text (see kit.ts mrkdwn).
    elements: [
      {
        type: 'mrkdwn',
        text: truncateMrkdwn(resolveMarkers(text), SLACK_LIMITS.contextText),
        verbatim: true,
      },
    ],
  };
}

export interface FitOptions {
  maxBlocks?: number;
  /** Blocks at the end that must survive the cut (e.g. the buttons and the charge note). */
  keepLast?: number;
  /** The text of the closing block, given how many blocks were cut. */
  more?: (hidden: number) => string;
}

/**
 * Cuts `blocks` to `maxBlocks`, keeping the last `keepLast` blocks and putting one
 * "…and N more" context block where the cut was. A guard: renderers size their lists with
 * `packSections` first, so this only acts on input nobody foresaw.
 */
export function fitMessage(blocks: KnownBlock[], options: FitOptions = {}): KnownBlock[] {
  const max = options.maxBlocks ?? SLACK_LIMITS.messageBlocks;
  if (blocks.length <= max) return blocks;
  const keepLast = Math.min(options.keepLast ?? 0, Math.max(0, max - 1));
  const headCount = max - keepLast - 1;
  const hidden = blocks.length - headCount - keepLast;
  // Without words from the caller the closing block says it in figures, in any language.
  const more = options.more ?? ((n: number) => `… +${n}`);
  return [...blocks.slice(0, headCount), moreBlock(more(hidden)), ...blocks.slice(blocks.length - keepLast)];
}

export interface PackOptions {
  /** Blocks this list may use, the closing "…and N more" block included. */
  maxBlocks: number;
  /** Entries shown at most, however much room is left (keeps long lists readable). */
  maxEntries?: number;
  /** Characters per section text. */
  maxChars?: number;
  /** mrkdwn line put at the top of the first section, e.g. "*SKUs (300)*". */
  title?: string;
  /** Between two entries of one section. */
  separator?: string;
  /** The closing text given the exact number of entries not shown, e.g. "…and 12 more SKUs". */
  more: (hidden: number) => string;
}

/**
 * Packs mrkdwn entries (one per order, SKU, waybill…) into as few section blocks as fit, each
 * section text within `maxChars`; when they do not all fit in `maxBlocks`, the last block says
 * exactly how many entries were left out. An entry longer than a section is cut on its own.
 */
export function packSections(entries: readonly string[], options: PackOptions): KnownBlock[] {
  const maxChars = options.maxChars ?? SLACK_LIMITS.sectionText;
  const separator = options.separator ?? '\n';
  const maxEntries = Math.min(options.maxEntries ?? entries.length, entries.length);
  if (options.maxBlocks < 1) return [];

  const pack = (sectionBudget: number): { texts: string[]; shown: number } => {
    const texts: string[] = [];
    if (sectionBudget < 1) return { texts, shown: 0 };
    // Markers are spaced (markers.ts) before measuring, as they will be sent.
    let current = options.title === undefined ? '' : truncateMrkdwn(resolveMarkers(options.title), maxChars);
    let hasEntry = false;
    let shown = 0;
    for (let i = 0; i < maxEntries; i++) {
      const entry = truncateMrkdwn(resolveMarkers(entries[i] ?? ''), maxChars);
      const joined = current === '' ? entry : `${current}${hasEntry ? separator : '\n'}${entry}`;
      if (joined.length <= maxChars) {
        current = joined;
      } else {
        if (texts.length + 1 >= sectionBudget) break;
        if (current !== '') texts.push(current);
        current = entry;
      }
      hasEntry = true;
      shown++;
    }
    if (current !== '' && texts.length < sectionBudget) texts.push(current);
    return { texts, shown };
  };

  let result = pack(options.maxBlocks);
  if (result.shown < entries.length) result = pack(options.maxBlocks - 1);
  const blocks: KnownBlock[] = result.texts.map(
    (text): SectionBlock => ({ type: 'section', text: { type: 'mrkdwn', text, verbatim: true } }),
  );
  const hidden = entries.length - result.shown;
  if (hidden > 0) blocks.push(moreBlock(options.more(hidden)));
  return blocks;
}
