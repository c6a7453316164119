/**
 * Message and global shortcuts (issue 5): the modal listing what a message holds, with
 * checkboxes (all chosen at first), whose waybills, where to answer, and ONE statement of the
 * total charge of the chosen lookups; its submit button is the Confirm. Also the free-text modal
 * of the global shortcut and the answer when nothing recognizable was found.
 */
import type { KnownBlock, ModalView, Option, PlainTextOption } from '@slack/types';
import type { Candidate, Found, ShortcutKind } from '../lookups/message-refs.js';
import { CARRIER_CODES } from '../lookups/parse/waybill.js';
import type { Plan, PlanProblem } from '../lookups/shortcut-lookups.js';
import type { Quote } from '../lookups/types.js';
import { quoteShort } from './charge-note.js';
import { CATALOGS, type Catalog, type Words } from './i18n/words.js';
import { context, message, type RenderedMessage, section } from './kit.js';
import { SLACK_LIMITS } from './limits.js';
import { escapeClip, truncate } from './text.js';

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

const plain = (text: string) => ({ type: 'plain_text' as const, text: truncate(text, 75) || '—' });

const carrierOption = (w: Words, code: string) => ({
  text: plain(
    code === carrierName(w, code)
      ? code
      : w.t('shortcut.carrierOption', { code, name: carrierName(w, code) }),
  ),
  value: code,
});

/** "1 item and 2 waybill numbers". */
function chosenThings(w: Words, chosen: readonly Candidate[]): string {
  const counts = new Map<Candidate['kind'], number>();
  for (const c of chosen) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  return w.list([...counts].map(([kind, n]) => w.t(`shortcut.thing.${kind}`, { count: n, n: w.count(n) })));
}

/**
 * What the chosen things cost, as a person would say it: what was chosen, in how many lookups,
 * what that costs (or why the price is not known yet), and that the answer states the charge.
 */
export function chosenCostText(w: Words, chosen: readonly Candidate[], plan: Plan): string {
  const { t } = w;
  if (chosen.length === 0) return t('shortcut.nothingChosen');
  const things = chosenThings(w, chosen);
  if (plan.needsTarget) return t('shortcut.needsTarget', { things });
  const n = plan.lookups.length;
  const waybills = chosen.filter((c) => c.kind === 'waybill').length;
  const how =
    n === chosen.length
      ? n === 1
        ? ''
        : t('shortcut.how.each')
      : n === 1
        ? t('shortcut.how.together')
        : t(n > 1 && waybills > 1 ? 'shortcut.how.inWaybills' : 'shortcut.how.in', { n: w.count(n) });
  const { totalPoints, quotaCalls, lines } = plan.total;
  const hasPoints = lines.some((l) => l.unit === 'points');
  const unknown = hasPoints && totalPoints === null;
  const known = [
    hasPoints && totalPoints !== null ? t('shortcut.total', { points: w.points(totalPoints) }) : null,
    quotaCalls > 0 ? t('shortcut.quota', { count: quotaCalls, n: w.count(quotaCalls) }) : null,
  ].filter((k): k is string => k !== null);
  const knownText = known.length === 2 ? t('shortcut.and', { a: known[0], b: known[1] }) : (known[0] ?? '');
  const one = n === 1;
  const why = t(one ? 'shortcut.cost.whyOne' : 'shortcut.cost.whyMany');
  const cost =
    unknown && known.length === 0
      ? t(one ? 'shortcut.cost.unknownOne' : 'shortcut.cost.unknownMany', { why })
      : unknown
        ? t(one ? 'shortcut.cost.plusUnknownOne' : 'shortcut.cost.plusUnknownMany', { known: knownText, why })
        : known.length > 0
          ? t(one ? 'shortcut.cost.knownOne' : 'shortcut.cost.knownMany', { known: knownText })
          : t(one ? 'shortcut.cost.nothingOne' : 'shortcut.cost.nothingMany');
  const after = t(one ? 'shortcut.cost.afterOne' : 'shortcut.cost.afterMany');
  return t('shortcut.chose', { things, how, cost, after });
}

/** "item 680001234501 (first marketplace)", "shop id of account beeclothing", "waybill SF… (SF)". */
export function describeCandidate(w: Words, c: Candidate): string {
  const { t } = w;
  switch (c.kind) {
    case 'item':
      return c.marketplace
        ? t('shortcut.candidate.itemOn', {
            id: c.itemId,
            marketplace: t(`shortcut.marketplace.${c.marketplace}`),
          })
        : t('shortcut.candidate.item', { id: c.itemId });
    case 'shop-info':
      return t('shortcut.candidate.shopInfo', {
        id: c.itemId,
        marketplace: t(`shortcut.marketplace.${c.shopType}`),
      });
    case 'shop-id':
      return t('shortcut.candidate.shopId', { wwid: c.wwid });
    case 'waybill':
      return c.carrier
        ? t('shortcut.candidate.waybillCarrier', { code: c.waybillCode, carrier: carrierName(w, c.carrier) })
        : t('shortcut.candidate.waybill', { code: c.waybillCode });
  }
}

/** "SF" → "SF Express" / "顺丰"; a code not in the catalog as it is. */
export function carrierName(w: Words, code: string): string {
  // Every catalog names the same carriers as the English one.
  const known = Object.hasOwn(CATALOGS.en.domain.carrier, code);
  return known ? w.t(`domain.carrier.${code as keyof Catalog['domain']['carrier']}`) : code;
}

/** A problem with the shortcut's choice, in words. */
export function describePlanProblem(w: Words, p: PlanProblem): string {
  return w.t(`shortcut.problem.${p.code}`, { ...p.values });
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
  /** Shown at the top: the choice changed the charge, check it and Confirm again. */
  notice?: 'changed';
}

function candidateOption(w: Words, c: Candidate, index: number, quote: Quote | null): Option {
  const description = c.kind === 'waybill' ? w.t('shortcut.together') : quote ? quoteShort(w, quote) : '';
  const option: PlainTextOption = { text: plain(describeCandidate(w, c)), value: String(index) };
  if (description) option.description = plain(description);
  return option;
}

export function renderChooseModal(w: Words, input: ChooseModalInput): ModalView {
  const { t } = w;
  const { found, plan } = input;
  const chosen = new Set(input.chosen);
  const blocks: KnownBlock[] = [];
  if (input.notice)
    blocks.push(section(t('shortcut.notice', { text: escapeClip(t('shortcut.changed'), 500) })));
  blocks.push(
    section(t('shortcut.found', { count: found.candidates.length, n: w.count(found.candidates.length) })),
    context(t('shortcut.lookedForLine', { what: escapeClip(t(`shortcut.lookedFor.${input.kind}`), 500) })),
  );
  if (found.shortLinks.length > 0)
    blocks.push(
      context(
        t('shortcut.shortLinks', {
          links: `${escapeClip(w.join(found.shortLinks.slice(0, 3)), 300)}${found.shortLinks.length > 3 ? ' …' : ''}`,
        }),
      ),
    );
  for (let start = 0, n = 0; start < found.candidates.length; start += CHECKBOXES_PER_GROUP, n++) {
    const options = found.candidates
      .slice(start, start + CHECKBOXES_PER_GROUP)
      .map((c, i) => candidateOption(w, c, start + i, input.each[start + i] ?? null));
    const initial = options.filter((o) => chosen.has(Number(o.value)));
    blocks.push({
      type: 'input',
      block_id: SHORTCUT_FORM.pickBlock(n),
      optional: true,
      dispatch_action: true,
      label: plain(n === 0 ? t('shortcut.pick') : t('shortcut.pickMore')),
      element: {
        type: 'checkboxes',
        action_id: SHORTCUT_FORM.pickAction(n),
        options,
        ...(initial.length > 0 ? { initial_options: initial } : {}),
      },
    });
  }
  if (found.more > 0) blocks.push(context(t('shortcut.notListed', { n: w.count(found.more) })));

  if (found.candidates.some((c) => c.kind === 'waybill')) {
    const current = input.targetOptions.find((o) => o.value === input.target);
    if (input.targetOptions.length > 0)
      blocks.push({
        type: 'input',
        block_id: SHORTCUT_FORM.target.block,
        optional: true,
        dispatch_action: true,
        label: plain(t('shortcut.whose')),
        element: {
          type: 'static_select',
          action_id: SHORTCUT_FORM.target.action,
          placeholder: plain(t('shortcut.chooseShop')),
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
        label: plain(input.targetOptions.length > 0 ? t('shortcut.orType') : t('shortcut.whoseTyped')),
        hint: plain(t('shortcut.whoseHint')),
        element: {
          type: 'plain_text_input',
          action_id: SHORTCUT_FORM.targetText.action,
          max_length: 80,
          placeholder: plain(t('shortcut.whosePlaceholder')),
          dispatch_action_config: { trigger_actions_on: ['on_enter_pressed'] },
          ...(typed ? { initial_value: typed } : {}),
        },
      },
      {
        type: 'input',
        block_id: SHORTCUT_FORM.carrier.block,
        optional: true,
        dispatch_action: true,
        label: plain(t('shortcut.carrier')),
        element: {
          type: 'static_select',
          action_id: SHORTCUT_FORM.carrier.action,
          placeholder: plain(t('shortcut.carrierPlaceholder')),
          options: CARRIER_CODES.map((code) => carrierOption(w, code)),
          ...(input.carrier && (CARRIER_CODES as readonly string[]).includes(input.carrier)
            ? { initial_option: carrierOption(w, input.carrier) }
            : {}),
        },
      },
    );
  }

  if (input.allowThread) {
    const me = { text: plain(t('shortcut.onlyMe')), value: 'me' };
    const thread = { text: plain(t('shortcut.inThread')), value: 'thread' };
    blocks.push({
      type: 'input',
      block_id: SHORTCUT_FORM.answer.block,
      label: plain(t('shortcut.answer')),
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
    section(t('shortcut.totalSection', { text: chosenCostText(w, chosenCandidates, plan) })),
    context(t('shortcut.nothingUntilConfirm')),
  );

  const confirm = t('shortcut.confirm', { short: quoteShort(w, plan.total) });
  return {
    type: 'modal',
    callback_id: SHORTCUT_FORM.chooseCallbackId,
    private_metadata: input.privateMetadata,
    title: plain(t(`shortcut.title.${input.kind}`)),
    // Slack: submit and title hold at most 24 characters.
    submit: plain(!plan.needsTarget && [...confirm].length <= 24 ? confirm : t('shortcut.confirmShort')),
    close: plain(t('shortcut.cancel')),
    blocks: blocks.slice(0, SLACK_LIMITS.viewBlocks),
  };
}

/** The global shortcut's first modal: paste anything. */
export function renderTextModal(w: Words): ModalView {
  const { t } = w;
  return {
    type: 'modal',
    callback_id: SHORTCUT_FORM.textCallbackId,
    title: plain(t('shortcut.title.any')),
    submit: plain(t('shortcut.find')),
    close: plain(t('shortcut.cancel')),
    blocks: [
      {
        type: 'input',
        block_id: SHORTCUT_FORM.text.block,
        label: plain(t('shortcut.textLabel')),
        element: {
          type: 'plain_text_input',
          action_id: SHORTCUT_FORM.text.action,
          multiline: true,
          max_length: 3000,
          placeholder: plain(t('shortcut.textPlaceholder')),
        },
        hint: plain(t('shortcut.textHint')),
      },
      context(t('shortcut.looksFor', { what: escapeClip(t('shortcut.lookedFor.any'), 500) })),
    ],
  };
}

/** What "nothing recognizable" says: what was looked for, and short links if there were some. */
export function nothingFoundText(w: Words, kind: ShortcutKind, found: Pick<Found, 'shortLinks'>): string {
  const what = w.t(`shortcut.lookedFor.${kind}`);
  return found.shortLinks.length > 0
    ? w.t('shortcut.nothingFoundShort', { what, links: w.join(found.shortLinks.slice(0, 3)) })
    : w.t('shortcut.nothingFound', { what });
}

export function renderNothingFound(
  w: Words,
  kind: ShortcutKind,
  found: Pick<Found, 'shortLinks'>,
): RenderedMessage {
  const text = escapeClip(nothingFoundText(w, kind, found), SLACK_LIMITS.sectionText - 10);
  return message(text, [
    section(w.t('shortcut.nothingFoundLine', { text })),
    context(w.t('common.nothingCharged')),
  ]);
}

/** A shortcut offer that cannot be confirmed any more. */
export function shortcutClosedText(
  w: Words,
  reason: 'expired' | 'already_used' | 'not_yours' | 'not_found',
): string {
  return w.t(`shortcut.closed.${reason}`);
}
