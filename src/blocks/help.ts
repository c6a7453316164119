/**
 * Usage of the four slash commands (each answers `help`, DESIGN interface contract).
 */
import type { KnownBlock } from '@slack/types';
import { context, header, message, type RenderedMessage, section } from './kit.js';
import { escapeText } from './text.js';

export type SlashCommand = '/item' | '/shop' | '/waybill' | '/orders';
export const SLASH_COMMANDS: readonly SlashCommand[] = ['/item', '/shop', '/waybill', '/orders'];

interface Usage {
  /** One line: the command's shape. */
  usage: string;
  summary: string;
  /** Example and what it does. */
  examples: [string, string][];
  notes: string[];
}

const USAGE: Record<SlashCommand, Usage> = {
  '/item': {
    usage: '/item <item link or id> [prices]',
    summary:
      'Item details: title, shop, SKUs and prices, attributes. Uses the item quota: 1 call, 1 more with prices.',
    examples: [
      [
        '/item https://item.taobao.com/item.htm?id=6543210987 prices',
        'details and current prices of a linked item',
      ],
      ['/item 6543210987', 'details of an item by id'],
    ],
    notes: ['Short links (m.tb.cn, e.tb.cn) cannot be resolved: paste the full item link.'],
  },
  '/shop': {
    usage: '/shop <item link> [0|1|2]  or  /shop ww <account id>',
    summary:
      'Shop information from an item link, or the shop id of a seller messaging account. Charged in points.',
    examples: [
      [
        '/shop https://detail.tmall.com/item.htm?id=6543210987 1',
        'the shop selling that item (1 = branded store)',
      ],
      ['/shop ww <account id>', 'the shop id of a messaging account'],
    ],
    notes: ['Shop type: 0 first marketplace, 1 branded store, 2 second marketplace.'],
  },
  '/waybill': {
    usage: '/waybill <waybill numbers…> shop:<shop id> | owner:<owner id> [carrier:<code>]',
    summary: 'Waybill print data (with shop:) or waybill information (with owner:). Charged in points.',
    examples: [
      ['/waybill SF1234567890123 YT1234567890123 shop:<shop id>', 'print data of two waybills'],
      ['/waybill SF1234567890123 owner:<owner id>', 'waybill information'],
      ['/waybill 7312345678901 carrier:ZTO shop:<shop id>', 'give the carrier when the number does not tell'],
    ],
    notes: ['At most 20 waybills at a time. Carrier codes include YTO, ZTO, STO, YUNDA, SF, EMS, JD.'],
  },
  '/orders': {
    usage: '/orders <owner id> [page:2] [size:50] [from:2026-11-20 to:2026-11-21] [remark:text] [flag:1-5]',
    summary:
      'Sold orders of a shop, one page at a time, without receiver data. Answers are only visible to you.',
    examples: [
      ['/orders <owner id>', 'the first page'],
      ['/orders <owner id> page:2 size:50', 'the second page, 50 orders a page (at most 100)'],
      ['/orders <owner id> from:2026-11-20 to:2026-11-21 flag:1', 'red-flagged orders of one day'],
      ['/orders', 'opens a form'],
      [
        '/orders digest add <owner id or shop alias> #channel 09:00',
        "admins: yesterday's orders summed up daily",
      ],
      ['/orders digest list', 'the daily digests and when they run'],
    ],
    notes: [
      'Flags: 1 red, 2 yellow, 3 green, 4 blue, 5 purple. Filters need the enhanced edition.',
      'Digests: `/orders digest help` for add, list, remove and run.',
    ],
  },
};

/** "`/item <item link or id> [prices]`" (mrkdwn, escaped). */
export function usageLine(command: SlashCommand): string {
  return `\`${escapeText(USAGE[command].usage)}\``;
}

export function renderHelp(command: SlashCommand): RenderedMessage {
  const usage = USAGE[command];
  const examples = usage.examples.map(
    ([example, what]) => `• \`${escapeText(example)}\`: ${escapeText(what)}`,
  );
  const blocks: KnownBlock[] = [
    header(`How to use ${command}`),
    section(`${usageLine(command)}\n${escapeText(usage.summary)}`),
    section(`*Examples*\n${examples.join('\n')}`),
    context(...usage.notes.map(escapeText), 'Every charged lookup asks you to confirm its charge first.'),
  ];
  return message(`How to use ${command}: ${usageLine(command)}`, blocks);
}
