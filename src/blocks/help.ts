/**
 * Usage of the four slash commands (each answers `help` and `帮助`, DESIGN interface contract).
 */
import type { KnownBlock } from '@slack/types';
import type { TKey, Words } from './i18n/words.js';
import { context, header, message, type RenderedMessage, section } from './kit.js';
import { code } from './markers.js';
import { escapeText } from './text.js';

export type SlashCommand = '/item' | '/shop' | '/waybill' | '/orders';
export const SLASH_COMMANDS: readonly SlashCommand[] = ['/item', '/shop', '/waybill', '/orders'];

/** Examples (example, what it does) and notes per command, as catalog keys. */
const SHAPE: Record<SlashCommand, { examples: [TKey, TKey][]; notes: TKey[] }> = {
  '/item': {
    examples: [
      ['help./item.ex1', 'help./item.ex1What'],
      ['help./item.ex2', 'help./item.ex2What'],
    ],
    notes: ['help./item.note1'],
  },
  '/shop': {
    examples: [
      ['help./shop.ex1', 'help./shop.ex1What'],
      ['help./shop.ex2', 'help./shop.ex2What'],
    ],
    notes: ['help./shop.note1'],
  },
  '/waybill': {
    examples: [
      ['help./waybill.ex1', 'help./waybill.ex1What'],
      ['help./waybill.ex2', 'help./waybill.ex2What'],
      ['help./waybill.ex3', 'help./waybill.ex3What'],
    ],
    notes: ['help./waybill.note1'],
  },
  '/orders': {
    examples: [
      ['help./orders.ex1', 'help./orders.ex1What'],
      ['help./orders.ex2', 'help./orders.ex2What'],
      ['help./orders.ex3', 'help./orders.ex3What'],
      ['help./orders.ex4', 'help./orders.ex4What'],
      ['help./orders.ex5', 'help./orders.ex5What'],
      ['help./orders.ex6', 'help./orders.ex6What'],
    ],
    notes: ['help./orders.note1', 'help./orders.note2'],
  },
};

/** "`/item <item link or id> [prices]`" (mrkdwn, escaped; the code markers are held until sent, markers.ts). */
export function usageLine(w: Words, command: SlashCommand): string {
  return code(escapeText(w.t(`help.${command}.usage`)));
}

export function renderHelp(w: Words, command: SlashCommand): RenderedMessage {
  const { t } = w;
  const shape = SHAPE[command];
  const examples = shape.examples.map(([example, what]) =>
    t('help.example', { example: escapeText(t(example)), what: escapeText(t(what)) }),
  );
  const blocks: KnownBlock[] = [
    header(t('help.title', { command })),
    section(`${usageLine(w, command)}\n${escapeText(t(`help.${command}.summary`))}`),
    section(`${t('help.examplesTitle')}\n${examples.join('\n')}`),
    context(...shape.notes.map((n) => escapeText(t(n))), t('help.confirmFirst')),
  ];
  return message(t('help.fallback', { command, usage: usageLine(w, command) }), blocks);
}
