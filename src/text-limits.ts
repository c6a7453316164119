/**
 * How much text a parser reads (issue 34, M3): every parser of what a person typed or a message
 * holds runs in linear time, and over a bounded length, so no text can hold up the process.
 * Slack's own bounds are the reference: a message holds at most 40,000 characters
 * (https://docs.slack.dev/reference/methods/chat.postMessage#truncating); a slash command's text is
 * far shorter in practice (its form is capped at 64 KB before it is read, slack/request-guard.ts).
 * Text past a cap is not read: no command is that long, and what a message holds past 40,000
 * characters Slack would not show either.
 */

/** What a slash command's text (and a step's input) is read up to. */
export const MAX_COMMAND_TEXT = 10_000;
/** What a message's texts (text, blocks, attachments together) are read up to. */
export const MAX_MESSAGE_TEXT = 40_000;
/** A link longer than this is not an item link (browsers and Slack cut far shorter ones). */
export const MAX_LINK = 2_048;

/** The text up to `max` characters. */
export const capped = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);
