/**
 * What a Workflow Builder step hands to the next step (issue 25): its outputs, typed as
 * manifest.yml declares them (strings, integers, `slack#/types/timestamp` in Unix seconds), with a
 * one-line summary in the workspace's language; and the reason a step failed, as the workflow's
 * activity shows it. Outputs are variables a following "send a message" step puts in a message,
 * so API text in them is escaped like any other (`&`, `<`, `>`).
 */
import type { StepRefusal } from '../lookups/access.js';
import type { StepId, StepResult, StepView } from '../lookups/steps.js';
import { ordersDue } from '../lookups/steps.js';
import { isPlatError } from '../plat/errors.js';
import type { Order } from '../plat/types.js';
import { quoteShort } from './charge-note.js';
import { errorChargeText, errorRemedy, errorTitle } from './errors.js';
import type { Words } from './i18n/words.js';
import { priceRange } from './item.js';
import { shopTypeLabel } from './shop.js';
import { escapeClip } from './text.js';
import { INFO_FIELDS, infoField, unixSeconds } from './waybills.js';
import { describeProblem, describeRefusal } from './words-of.js';

/** Outputs: the manifest's names, each a string or a whole number. */
export type StepOutputs = Record<string, string | number>;

/** Slack shows a step's error as text; long API text is cut well before that. */
const MAX_FIELD = 500;
/** The `list` output of orders_due: enough lines for a message, cut with "…and N more". */
const MAX_LIST_LINES = 20;

const clip = (value: unknown) => escapeClip(String(value), MAX_FIELD);

function waybillOutputs(w: Words, result: Done): StepOutputs {
  const outcome = result.outcome;
  if (outcome.kind !== 'waybill-info') return {};
  const asked = result.ask.request.kind === 'waybill-info' ? result.ask.request.waybills : [];
  const first = outcome.records[0];
  const number = first?.waybillCode ?? asked[0]?.waybillCode ?? '';
  // No link output: a waybill information record carries none, and the spec documents no
  // tracking page (spec §2.3, §4.6).
  if (!first) return { summary: w.t('step.summary.waybillNone', { number }) };
  const unknown = w.t('step.value.unknown');
  const carrier = infoField(first, INFO_FIELDS.carrier);
  const state = infoField(first, INFO_FIELDS.status);
  const event = infoField(first, INFO_FIELDS.trace);
  const time = unixSeconds(infoField(first, INFO_FIELDS.time));
  const outputs: StepOutputs = {
    carrier: carrier === null ? unknown : clip(carrier),
    state: state === null ? unknown : clip(state),
  };
  if (event !== null) outputs.last_event = clip(event);
  if (time !== null) outputs.last_event_time = time;
  const last =
    event !== null && time !== null
      ? w.t('step.summary.last', { event: clip(event), time: w.dateTime(new Date(time * 1000)) })
      : '';
  outputs.summary = w.t('step.summary.waybill', {
    count: asked.length,
    number,
    state: outputs.state,
    last,
    carrier: outputs.carrier,
  });
  return outputs;
}

function itemOutputs(w: Words, result: Done): StepOutputs {
  const outcome = result.outcome;
  if (outcome.kind !== 'item') return {};
  const { item, prices } = outcome;
  const priced = item.skus.filter((s) => s.price !== null);
  const price =
    priceRange(w, priced.length > 0 ? priced.map((s) => s.price) : [prices?.price?.value ?? null]) ??
    w.t('step.value.noPrice');
  // No stock output: the item operation lists SKUs and prices but no stock or quantity field
  // (spec §2.4), so the summary says how many SKUs are listed, nothing about stock.
  const skus =
    item.skus.length > 0 ? w.t('step.value.skus', { count: item.skus.length }) : w.t('step.value.noSkus');
  const title = clip(item.title);
  const shop = item.shopName === null ? w.t('step.value.unknown') : clip(item.shopName);
  const outputs: StepOutputs = {
    title,
    shop,
    price_range: price,
    summary: w.t('step.summary.item', { title, shop, price, skus }),
  };
  // The documented link form of the marketplace the input's link named; none for a bare id.
  if (result.ask.itemLink !== null) outputs.link = result.ask.itemLink;
  return outputs;
}

function orderLine(w: Words, order: Order, overdue: boolean): string {
  const values = {
    sn: escapeClip(order.orderSn, 64),
    goods: escapeClip(order.goodsName, 60),
    time: w.dateTime(order.lastShipTime as Date),
  };
  return overdue ? w.t('step.value.overdueLine', values) : w.t('step.value.dueLine', values);
}

function ordersOutputs(w: Words, result: Done, now: Date): StepOutputs {
  const outcome = result.outcome;
  if (outcome.kind !== 'orders') return {};
  const hours = result.ask.hoursAhead ?? 24;
  const { due, overdue } = ordersDue(outcome.page.orders, now, hours);
  const lines = [...overdue.map((o) => orderLine(w, o, true)), ...due.map((o) => orderLine(w, o, false))];
  const shown = lines.slice(0, MAX_LIST_LINES);
  if (lines.length > shown.length)
    shown.push(w.t('step.value.more', { n: w.count(lines.length - shown.length) }));
  return {
    count_due: due.length,
    count_overdue: overdue.length,
    summary: w.t('step.summary.ordersDue', {
      shop: escapeClip(outcome.ownerId, 64),
      hours: w.count(hours),
      due: w.count(due.length),
      overdue: w.count(overdue.length),
    }),
    list: shown.join('\n'),
  };
}

function shopOutputs(w: Words, result: Done): StepOutputs {
  const outcome = result.outcome;
  if (outcome.kind === 'shop-info') {
    const type = shopTypeLabel(w, outcome.shop.type);
    const name = clip(outcome.shop.name);
    const id = clip(outcome.shop.shopId);
    return { shop_id: id, name, type, summary: w.t('step.summary.shop', { name, id, type }) };
  }
  if (outcome.kind === 'shop-id') {
    const { result: found } = outcome;
    if (!found.found)
      return { summary: w.t('step.summary.shopNotFound', { wwid: escapeClip(found.wwid, 64) }) };
    const id = clip(found.shopId);
    const name = escapeClip(found.wwid, 64);
    const type = w.t('step.value.unknown');
    return { shop_id: id, name, type, summary: w.t('step.summary.shop', { name, id, type }) };
  }
  return {};
}

type Done = Extract<StepResult, { kind: 'done' }>;

/** The outputs of a finished step, as manifest.yml declares them for that step. */
export function stepOutputs(w: Words, result: Done, now: Date): StepOutputs {
  const byStep: Record<StepId, () => StepOutputs> = {
    lookup_waybill: () => waybillOutputs(w, result),
    lookup_item: () => itemOutputs(w, result),
    orders_due: () => ordersOutputs(w, result, now),
    lookup_shop: () => shopOutputs(w, result),
  };
  const outputs = byStep[result.ask.stepId]();
  if (result.ageMs !== null && typeof outputs.summary === 'string')
    outputs.summary += w.t('step.summary.cached', { age: w.age(result.ageMs) });
  if (result.byWorkflow && typeof outputs.summary === 'string')
    outputs.summary += w.t('step.summary.byWorkflow');
  return outputs;
}

/** Why a step failed, in one plain sentence or two (Slack shows it in the workflow's activity). */
export function stepFailure(
  w: Words,
  stepId: StepId,
  result: Exclude<StepResult, { kind: 'done' } | { kind: 'in_progress' }>,
): string {
  const step = w.t(`tool.${stepId}.title`);
  switch (result.kind) {
    case 'invalid':
      return w.t('step.fail.invalid', {
        step,
        problems: w.list(result.problems.map((p) => describeProblem(w, p))),
      });
    case 'not_approved':
      return w.t('step.fail.notApproved', { step, id: stepId });
    case 'interrupted':
      return w.t('step.fail.interrupted', { step });
    case 'refused':
      return w.t('step.fail.refused', { step, reason: refusalText(w, stepId, result.refusal) });
    case 'failed': {
      const error = result.error;
      if (!isPlatError(error))
        return w.t('step.fail.other', {
          step,
          detail: escapeClip(error instanceof Error ? error.message : String(error), 200),
        });
      return w.t('step.fail.failed', {
        step,
        title: errorTitle(w, error.code),
        remedy: errorRemedy(w, error),
        charge: errorChargeText(w, error),
      });
    }
  }
}

/** Why the access rules refused a step's run (ids and shop keys as typed, escaped). */
function refusalText(w: Words, stepId: StepId, refusal: StepRefusal): string {
  const shopOf = (shop: string) => escapeClip(shop, 64);
  switch (refusal.reason) {
    case 'step_no_person':
      return w.t('step.refusal.no_person');
    case 'step_shop':
      return w.t('step.refusal.shop', { shops: w.list(refusal.shops.map(shopOf)) });
    case 'step_channel':
      return w.t('step.refusal.channel', { channels: w.list(refusal.channels.map((c) => `<#${c}>`)) });
    case 'not_allowed':
      return refusal.userId
        ? w.t('step.refusal.not_allowed', { user: refusal.userId })
        : describeRefusal(w, { reason: 'not_allowed' });
    case 'shop_channel':
      return w.t('step.refusal.shop_channel', { shop: shopOf(refusal.shop), id: stepId });
    default:
      return describeRefusal(w, { reason: refusal.reason, shop: shopOf(refusal.shop) });
  }
}

/** Each step with its price per run, its approval and its spend (`/platdesk steps`, App Home). */
export function stepApprovalLines(w: Words, steps: readonly StepView[], changed: StepId | null): string[] {
  const { t } = w;
  const lines = steps.map((s) =>
    t('platdesk.stepLine', {
      title: t(`tool.${s.stepId}.title`),
      id: s.stepId,
      price: quoteShort(w, s.quote),
      approval: s.approval
        ? t('platdesk.stepApproved', {
            daily: capText(w, s.approval.daily),
            monthly: capText(w, s.approval.monthly),
            today: w.points(s.spent.daily),
            month: w.points(s.spent.monthly),
          }) + narrowingText(w, s.approval)
        : t('platdesk.stepNotApproved'),
    }),
  );
  const note = t('platdesk.stepsNote');
  return changed
    ? [t('platdesk.stepChanged', { title: t(`tool.${changed}.title`) }), ...lines, note]
    : [...lines, note];
}

/** What an approval narrows its step to (issue 34 H1): nothing when it is not narrowed. */
const narrowingText = (w: Words, a: { shops: readonly string[]; channels: readonly string[] }) =>
  (a.shops.length > 0
    ? w.t('platdesk.stepShops', { shops: w.list(a.shops.map((s) => escapeClip(s, 64))) })
    : '') +
  (a.channels.length > 0
    ? w.t('platdesk.stepChannels', { channels: w.list(a.channels.map((c) => `<#${c}>`)) })
    : '');

const capText = (w: Words, v: number | null) =>
  v === null ? w.t('platdesk.noCap') : w.t('platdesk.capPoints', { n: w.count(v) });
