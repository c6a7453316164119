/**
 * Small Block Kit builders that enforce Slack's limits on the way in, so no renderer can emit an
 * over-long header, label or section by mistake.
 */
import type {
  ActionsBlock,
  Button,
  ContextBlock,
  HeaderBlock,
  ImageElement,
  KnownBlock,
  MrkdwnElement,
  SectionBlock,
  SectionBlockAccessory,
} from '@slack/types';
import type { ActionId } from './action-ids.js';
import { fitMessage, SLACK_LIMITS } from './limits.js';
import { resolveMarkers } from './markers.js';
import { escapeClip, safeUrl, truncate, truncateMrkdwn } from './text.js';

/** A message: blocks plus the fallback text shown in notifications. */
export interface RenderedMessage {
  text: string;
  blocks: KnownBlock[];
}

/** Slack rejects empty text objects. */
const EMPTY = '—';

/**
 * A mrkdwn text object. `verbatim: true`: Slack would otherwise turn a bare URL, `@here` or a
 * channel name in the (escaped) text into a link or mention; intended `<url|label>` and `<@U…>`
 * still work (https://docs.slack.dev/reference/block-kit/composition-objects/text-object).
 */
export function mrkdwn(text: string, max: number = SLACK_LIMITS.text): MrkdwnElement {
  // Markers written with bold()/code()/strike() and not yet spaced by the translator (markers.ts).
  return { type: 'mrkdwn', text: truncateMrkdwn(resolveMarkers(text), max) || EMPTY, verbatim: true };
}

/** A section of mrkdwn (already escaped), cut to 3000 characters. */
export function section(text: string, accessory?: SectionBlockAccessory): SectionBlock {
  const block: SectionBlock = { type: 'section', text: mrkdwn(text, SLACK_LIMITS.sectionText) };
  if (accessory) block.accessory = accessory;
  return block;
}

/** A section of up to 10 mrkdwn fields (already escaped), each cut to 2000 characters. */
export function fieldsSection(fields: string[]): SectionBlock {
  return {
    type: 'section',
    fields: fields.slice(0, SLACK_LIMITS.sectionFields).map((f) => mrkdwn(f, SLACK_LIMITS.fieldText)),
  };
}

/** A header from raw text: escaped and cut to 150 characters. */
export function header(raw: string): HeaderBlock {
  return {
    type: 'header',
    text: { type: 'plain_text', text: escapeClip(raw, SLACK_LIMITS.headerText) || EMPTY },
  };
}

/** A context block of mrkdwn texts (already escaped); empty texts are dropped, at most 10 kept. */
export function context(...texts: string[]): ContextBlock {
  const elements = texts.filter((t) => t !== '').slice(0, SLACK_LIMITS.contextElements);
  return { type: 'context', elements: (elements.length ? elements : [EMPTY]).map((t) => mrkdwn(t)) };
}

/** A button `value`: short ids only (DESIGN rule 7); a longer one is a bug, not something to cut. */
export function buttonValue(value: string): string {
  if (value.length === 0 || value.length > SLACK_LIMITS.buttonValue) {
    throw new RangeError(
      `button value must be 1–${SLACK_LIMITS.buttonValue} characters, got ${value.length}`,
    );
  }
  return value;
}

export interface ButtonSpec {
  /** Raw label: escaped and cut to 75 characters. */
  label: string;
  actionId: ActionId;
  value?: string;
  /** Only an http(s) URL is kept. */
  url?: string | null;
  style?: 'primary' | 'danger';
}

export function button(spec: ButtonSpec): Button {
  const b: Button = {
    type: 'button',
    action_id: spec.actionId,
    text: { type: 'plain_text', text: escapeClip(spec.label, SLACK_LIMITS.buttonText) || EMPTY, emoji: true },
  };
  if (spec.value !== undefined) b.value = buttonValue(spec.value);
  const url = safeUrl(spec.url);
  if (url !== null) b.url = url;
  if (spec.style) b.style = spec.style;
  return b;
}

export function actions(buttons: Button[]): ActionsBlock {
  return { type: 'actions', elements: buttons.slice(0, SLACK_LIMITS.actionsElements) };
}

/** An image element for a section accessory or context, or undefined when the URL is not https. */
export function image(url: string | null | undefined, alt: string): ImageElement | undefined {
  const href = safeUrl(url, { httpsOnly: true });
  if (href === null) return undefined;
  return { type: 'image', image_url: href, alt_text: truncate(alt.trim() || '🖼', 200) };
}

/**
 * Assembles a message: the fallback text is cut short, and `fitMessage` guards the block count
 * while keeping the last `keepLast` blocks (buttons, charge note).
 */
export function message(text: string, blocks: KnownBlock[], keepLast = 0): RenderedMessage {
  return {
    text: truncateMrkdwn(resolveMarkers(text), SLACK_LIMITS.fallbackText) || EMPTY,
    blocks: fitMessage(blocks, { keepLast }),
  };
}
