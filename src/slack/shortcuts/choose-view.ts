/**
 * The shortcut modal (blocks/shortcut.ts) built from a batch and the user's current choice, and
 * the choice read back from the modal's state. The modal's private metadata holds the batch id
 * and the choice whose total the modal states, so a submit with another choice is shown its own
 * total before anything runs (DESIGN rule 2: the charge is stated before the call).
 */
import type { ViewOutput } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { Words } from '../../blocks/i18n/words.js';
import {
  type AnswerMode,
  CHECKBOXES_PER_GROUP,
  renderChooseModal,
  SHORTCUT_FORM,
} from '../../blocks/shortcut.js';
import type { Found } from '../../lookups/message-refs.js';
import {
  candidateQuote,
  type Plan,
  planSelection,
  type Selection,
  type ShortcutPayload,
  targetOptions,
} from '../../lookups/shortcut-lookups.js';
import type { ShortcutBatch } from '../../store/store.js';
import type { SlackDeps } from '../deps.js';

export type Choice = Selection & { answer: AnswerMode };

interface Metadata {
  /** The batch id. */
  b: string;
  /** The choice whose total the modal states. */
  s: string;
}

export const fingerprint = (c: Selection) =>
  JSON.stringify([[...c.chosen].sort((a, b) => a - b), c.target ?? null, c.carrier ?? null]);

export function readMetadata(text: string): Metadata | null {
  try {
    const value = JSON.parse(text) as Partial<Metadata>;
    return typeof value.b === 'string' && typeof value.s === 'string' ? { b: value.b, s: value.s } : null;
  } catch {
    return null;
  }
}

export function initialChoice(found: Found): Choice {
  return {
    chosen: found.candidates.map((_c, i) => i),
    target: found.target,
    carrier: null,
    answer: 'me',
  };
}

type Values = ViewOutput['state']['values'];

export function readChoice(values: Values, found: Found): Choice {
  const chosen: number[] = [];
  const groups = Math.ceil(found.candidates.length / CHECKBOXES_PER_GROUP);
  for (let n = 0; n < groups; n++) {
    const picked = values[SHORTCUT_FORM.pickBlock(n)]?.[SHORTCUT_FORM.pickAction(n)]?.selected_options ?? [];
    for (const o of picked) if (/^\d+$/.test(o.value ?? '')) chosen.push(Number(o.value));
  }
  const typed = values[SHORTCUT_FORM.targetText.block]?.[SHORTCUT_FORM.targetText.action]?.value?.trim();
  const selected = values[SHORTCUT_FORM.target.block]?.[SHORTCUT_FORM.target.action]?.selected_option?.value;
  const carrier = values[SHORTCUT_FORM.carrier.block]?.[SHORTCUT_FORM.carrier.action]?.selected_option?.value;
  const answer = values[SHORTCUT_FORM.answer.block]?.[SHORTCUT_FORM.answer.action]?.selected_option?.value;
  return {
    chosen,
    target: typed || selected || null,
    carrier: carrier ?? null,
    answer: answer === 'thread' ? 'thread' : 'me',
  };
}

export async function chooseView(
  deps: SlackDeps,
  w: Words,
  batch: ShortcutBatch,
  payload: ShortcutPayload,
  choice: Choice,
  /** Say at the top that the choice changed the charge. */
  changed = false,
): Promise<{ view: ModalView; plan: Plan }> {
  const plan = await planSelection(deps.lookups, payload.found, choice);
  const view = renderChooseModal(w, {
    kind: payload.kind,
    found: payload.found,
    chosen: choice.chosen,
    target: choice.target,
    carrier: choice.carrier,
    answer: choice.answer,
    allowThread: batch.channelId !== null && batch.threadTs !== null,
    plan,
    each: await Promise.all(payload.found.candidates.map((c) => candidateQuote(deps.lookups, c))),
    targetOptions: targetOptions((await deps.lookups.settings.shops()).shops),
    privateMetadata: JSON.stringify({ b: batch.id, s: fingerprint(choice) } satisfies Metadata),
    ...(changed ? { notice: 'changed' as const } : {}),
  });
  return { view, plan };
}

/** The input block a plan problem is shown under. */
export function blockOfProblem(field: 'pick' | 'target' | 'carrier'): string {
  switch (field) {
    case 'pick':
      return SHORTCUT_FORM.pickBlock(0);
    case 'target':
      return SHORTCUT_FORM.targetText.block;
    case 'carrier':
      return SHORTCUT_FORM.carrier.block;
  }
}
