/**
 * Message and global shortcuts (issue 5): the modal listing what a message holds, with
 * checkboxes (all chosen at first), whose waybills, where to answer, and ONE statement of the
 * total charge of the chosen lookups; its submit button is the Confirm. Also the free-text modal
 * of the global shortcut and the answer when nothing recognizable was found.
 */
import type { KnownBlock, ModalView, Option, PlainTextOption } from '@slack/types';
import {
  type Candidate,
  describeCandidate,
  type Found,
  LOOKED_FOR,
  type ShortcutKind,
} from '../lookups/message-refs.js';
import { CARRIER_CODES } from '../lookups/parse/waybill.js';
import type { Plan } from '../lookups/shortcut-lookups.js';
import type { Quote } from '../lookups/types.js';
import { quoteShort } from './charge-note.js';
import { context, message, type RenderedMessage, section } from './kit.js';
import { SLACK_LIMITS } from './limits.js';
import { escapeClip, formatPoints, plural, truncate } from './text.js';

export const SHORTCUT_IDS = {
  items: 'platdesk.shortcut.items',
  waybills: 'platdesk.shortcut.waybills',
  shops: 'platdesk.shortcut.shops',
  global: 'platdesk.shortcut.global',
} as const;

export const SHORTCUT_FORM = {
  chooseCallbackId: 'platdesk.shortcut.choose',
  textCallbackId: 'platdesk.shortcut.text',
  /** One checkbox group per 10 candidates (Slack's limit per element): block pick-N, action pick.N. */
  pickBlock: (n: number) => `pick-${n}`,
  pickAction: (n: number) => `platdesk.shortcut.pick.${n}`,
  pickActionPattern: /^platdesk\.shortcut\.pick\.\d+$/,
  target: { block: 'target', action: 'platdesk.shortcut.target' },
  targetText: { block: 'target_text', action: 'platdesk.shortcut.target_text' },
  carrier: { block: 'carrier', action: 'platdesk.shortcut.carrier' },
  answer: { block: 'answer', action: 'platdesk.shortcut.answer' },
  text: { block: 'text', action: 'value' },
} as const;

/** Slack: at most 10 options in one checkboxes element. */
export const CHECKBOXES_PER_GROUP = 10;

export type AnswerMode = 'me' | 'thread';

const TITLES: Record<ShortcutKind, string> = {
  items: 'Look up items',
  waybills: 'Look up waybills',
  shops: 'Find shop',
  any: 'platdesk lookup',
};

const plain = (text: string) => ({ type: 'plain_text' as const, text: truncate(text, 75) || '—' });

const NOUNS: Record<Candidate['kind'], [string, string]> = {
  item: ['item', 'items'],
  'shop-info': ['shop of an item link', 'shops of item links'],
  'shop-id': ['seller account', 'seller accounts'],
  waybill: ['waybill number', 'waybill numbers'],
};

/** "1 item and 2 waybill numbers". */
function chosenThings(chosen: readonly Candidate[]): string {
  const counts = new Map<Candidate['kind'], number>();
  for (const c of chosen) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, n]) => plural(n, NOUNS[kind][0], NOUNS[kind][1]));
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
}

/**
 * What the chosen things cost, as a person would say it: what was chosen, in how many lookups,
 * what that costs (or why the price is not known yet), and that the answer states the charge.
 */
export function chosenCostText(chosen: readonly Candidate[], plan: Plan): string {
  if (chosen.length === 0) return 'Nothing chosen: tick at least one.';
  const things = chosenThings(chosen);
  if (plan.needsTarget)
    return `You chose ${things}: say whose waybills they are (below) to see what looking them up costs.`;
  const n = plan.lookups.length;
  const waybills = chosen.filter((c) => c.kind === 'waybill').length;
  const how =
    n === chosen.length
      ? n === 1
        ? ''
        : ', one lookup each'
      : `, looked up ${n === 1 ? 'together in 1 lookup' : `in ${n} lookups`}${n > 1 && waybills > 1 ? ' (the waybill numbers together)' : ''}`;
  const { totalPoints, quotaCalls, lines } = plan.total;
  const unknown = lines.some((l) => l.unit === 'points') && totalPoints === null;
  const known = [
    lines.some((l) => l.unit === 'points') && totalPoints !== null
      ? `about ${formatPoints(totalPoints)}`
      : null,
    quotaCalls > 0 ? `${plural(quotaCalls, 'call')} of the item quota` : null,
  ].filter((k): k is string => k !== null);
  const costs = n === 1 ? 'It costs' : 'Together they cost';
  const why =
    n === 1
      ? 'no price is set for it and it has not been charged here before'
      : 'one of them has no price set and has not been charged here before';
  const cost =
    unknown && known.length === 0
      ? `${n === 1 ? 'Its price' : 'Their total'} is not known yet: ${why}.`
      : unknown
        ? `${costs} ${known.join(' and ')}, plus points not known yet: ${why}.`
        : known.length > 0
          ? `${costs} ${known.join(' and ')}.`
          : `${n === 1 ? 'It costs' : 'They cost'} nothing.`;
  const after =
    n === 1 ? 'The answer will say what it actually cost.' : 'Each answer will say what it actually cost.';
  return `You chose ${things}${how}. ${cost} ${after}`;
}

export interface ChooseModalInput {
  kind: ShortcutKind;
  found: Found;
  /** Indexes chosen (all at first). */
  chosen: readonly number[];
  target: string | null;
  carrier: string | null;
  answer: AnswerMode;
  /** Thread answers need a message to answer under (not the global shortcut). */
  allowThread: boolean;
  plan: Plan;
  /** The charge each candidate's own lookup would take (waybills: null, they go together). */
  each: (Quote | null)[];
  targetOptions: { value: string; label: string }[];
  privateMetadata: string;
  /** Shown at the top, e.g. "the charge changed: check it and Confirm again". */
  notice?: string;
}

function candidateOption(c: Candidate, index: number, quote: Quote | null): Option {
  const description =
    c.kind === 'waybill' ? 'looked up together with the other waybills' : quote ? quoteShort(quote) : '';
  const option: PlainTextOption = { text: plain(describeCandidate(c)), value: String(index) };
  if (description) option.description = plain(description);
  return option;
}

export function renderChooseModal(input: ChooseModalInput): ModalView {
  const { found, plan } = input;
  const chosen = new Set(input.chosen);
  const blocks: KnownBlock[] = [];
  if (input.notice) blocks.push(section(`:warning: ${escapeClip(input.notice, 500)}`));
  blocks.push(
    section(`*Found ${plural(found.candidates.length, 'thing')} to look up.* Untick what you do not need.`),
    context(`Looked for ${escapeClip(LOOKED_FOR[input.kind], 500)}.`),
  );
  if (found.shortLinks.length > 0)
    blocks.push(
      context(
        `:link: Short links cannot be resolved without opening them: paste the full item link instead of ${escapeClip(found.shortLinks.slice(0, 3).join(', '), 300)}${found.shortLinks.length > 3 ? ' …' : ''}.`,
      ),
    );
  for (let start = 0, n = 0; start < found.candidates.length; start += CHECKBOXES_PER_GROUP, n++) {
    const options = found.candidates
      .slice(start, start + CHECKBOXES_PER_GROUP)
      .map((c, i) => candidateOption(c, start + i, input.each[start + i] ?? null));
    const initial = options.filter((o) => chosen.has(Number(o.value)));
    blocks.push({
      type: 'input',
      block_id: SHORTCUT_FORM.pickBlock(n),
      optional: true,
      dispatch_action: true,
      label: plain(n === 0 ? 'Look up' : 'Look up (continued)'),
      element: {
        type: 'checkboxes',
        action_id: SHORTCUT_FORM.pickAction(n),
        options,
        ...(initial.length > 0 ? { initial_options: initial } : {}),
      },
    });
  }
  if (found.more > 0)
    blocks.push(context(`…and ${found.more} more not listed: at most 30 lookups at a time.`));

  if (found.candidates.some((c) => c.kind === 'waybill')) {
    const current = input.targetOptions.find((o) => o.value === input.target);
    if (input.targetOptions.length > 0)
      blocks.push({
        type: 'input',
        block_id: SHORTCUT_FORM.target.block,
        optional: true,
        dispatch_action: true,
        label: plain('Whose waybills (registered shops)'),
        element: {
          type: 'static_select',
          action_id: SHORTCUT_FORM.target.action,
          placeholder: plain('Choose a shop'),
          options: input.targetOptions.map((o) => ({ text: plain(o.label), value: o.value })),
          ...(current ? { initial_option: { text: plain(current.label), value: current.value } } : {}),
        },
      });
    const typed = input.target && !current ? input.target : undefined;
    blocks.push(
      {
        type: 'input',
        block_id: SHORTCUT_FORM.targetText.block,
        optional: true,
        dispatch_action: true,
        label: plain(input.targetOptions.length > 0 ? 'Or type shop:<id> or owner:<id>' : 'Whose waybills'),
        hint: plain('shop:<shop id> for print data, owner:<owner id> for waybill information'),
        element: {
          type: 'plain_text_input',
          action_id: SHORTCUT_FORM.targetText.action,
          max_length: 80,
          placeholder: plain('shop:57301234 or owner:2200001001'),
          dispatch_action_config: { trigger_actions_on: ['on_enter_pressed'] },
          ...(typed ? { initial_value: typed } : {}),
        },
      },
      {
        type: 'input',
        block_id: SHORTCUT_FORM.carrier.block,
        optional: true,
        dispatch_action: true,
        label: plain('Carrier, where the number does not tell'),
        element: {
          type: 'static_select',
          action_id: SHORTCUT_FORM.carrier.action,
          placeholder: plain('Carrier'),
          options: CARRIER_CODES.map((code) => ({ text: plain(code), value: code })),
          ...(input.carrier && (CARRIER_CODES as readonly string[]).includes(input.carrier)
            ? { initial_option: { text: plain(input.carrier), value: input.carrier } }
            : {}),
        },
      },
    );
  }

  if (input.allowThread) {
    const me = { text: plain('Only visible to me'), value: 'me' };
    const thread = { text: plain('In a thread under the message'), value: 'thread' };
    blocks.push({
      type: 'input',
      block_id: SHORTCUT_FORM.answer.block,
      label: plain('Answer'),
      element: {
        type: 'radio_buttons',
        action_id: SHORTCUT_FORM.answer.action,
        options: [me, thread],
        initial_option: input.answer === 'thread' ? thread : me,
      },
    });
  }

  const chosenCandidates = [...chosen]
    .sort((a, b) => a - b)
    .map((i) => found.candidates[i])
    .filter((c): c is Candidate => c !== undefined);
  blocks.push(
    section(`:money_with_wings: ${chosenCostText(chosenCandidates, plan)}`),
    context('Nothing is charged until you press Confirm. This offer expires in 10 minutes.'),
  );

  const short = quoteShort(plan.total);
  const confirm = `Confirm (${short})`;
  return {
    type: 'modal',
    callback_id: SHORTCUT_FORM.chooseCallbackId,
    private_metadata: input.privateMetadata,
    title: plain(TITLES[input.kind]),
    // Slack: submit and title hold at most 24 characters.
    submit: plain(!plan.needsTarget && confirm.length <= 24 ? confirm : 'Confirm'),
    close: plain('Cancel'),
    blocks: blocks.slice(0, SLACK_LIMITS.viewBlocks),
  };
}

/** The global shortcut's first modal: paste anything. */
export function renderTextModal(): ModalView {
  return {
    type: 'modal',
    callback_id: SHORTCUT_FORM.textCallbackId,
    title: plain(TITLES.any),
    submit: plain('Find'),
    close: plain('Cancel'),
    blocks: [
      {
        type: 'input',
        block_id: SHORTCUT_FORM.text.block,
        label: plain('Links, ids or waybill numbers'),
        element: {
          type: 'plain_text_input',
          action_id: SHORTCUT_FORM.text.action,
          multiline: true,
          max_length: 3000,
          placeholder: plain('Paste item links, waybill numbers, ww:<seller account>…'),
        },
        hint: plain('Nothing is charged yet: the next step lists what was found and its charge.'),
      },
      context(`platdesk looks for ${escapeClip(LOOKED_FOR.any, 500)}.`),
    ],
  };
}

/** What "nothing recognizable" says: what was looked for, and short links if there were some. */
export function nothingFoundText(kind: ShortcutKind, found: Pick<Found, 'shortLinks'>): string {
  const short =
    found.shortLinks.length > 0
      ? ` Short links (${found.shortLinks.slice(0, 3).join(', ')}) cannot be resolved: paste the full item link.`
      : '';
  return `Nothing to look up there. platdesk looked for ${LOOKED_FOR[kind]}.${short}`;
}

export function renderNothingFound(kind: ShortcutKind, found: Pick<Found, 'shortLinks'>): RenderedMessage {
  const text = escapeClip(nothingFoundText(kind, found), SLACK_LIMITS.sectionText - 10);
  return message(text, [section(`:mag: ${text}`), context('Nothing was sent and nothing was charged.')]);
}

/** A shortcut offer that cannot be confirmed any more. */
export function shortcutClosedText(reason: 'expired' | 'already_used' | 'not_yours' | 'not_found'): string {
  switch (reason) {
    case 'expired':
      return 'This offer expired (10 minutes) and nothing was charged: run the shortcut again.';
    case 'already_used':
      return 'These lookups were already confirmed; they run only once.';
    case 'not_yours':
      return 'This offer belongs to someone else: run the shortcut yourself.';
    case 'not_found':
      return 'This offer is no longer known: run the shortcut again. Nothing was charged.';
  }
}
