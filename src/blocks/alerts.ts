/**
 * Ship-by alerts (issue 15): the alert message (one per check, each order with Claim and
 * Handled, re-rendered from the store when someone claims, handles or the order ships), the
 * reminder, the failure notice, the approval request and the answers of `/orders alert`.
 * Pure. The orders carry no receiver data and nothing here adds any.
 */
import type { KnownBlock } from '@slack/types';
import type { CheckCost } from '../alerts/cost.js';
import type { AlertProblem } from '../alerts/grammar.js';
import { type AlertRow, orderRef } from '../alerts/subscriptions.js';
import type { AlertApprovalRequest } from '../alerts/types.js';
import type { HistoryUnreadableReason } from '../digest/posted-once.js';
import type { AlertCheck, AlertOrder, AlertSubscription } from '../store/store.js';
import { localTimeOf } from '../zoned-time.js';
import { ACTIONS, alertActionId } from './action-ids.js';
import { digestFailureReason, digestRemedy, renderDigestAnswer } from './digest.js';
import type { TKey, Words } from './i18n/words.js';
import { actions, button, context, message, type RenderedMessage, section } from './kit.js';
import { bold } from './markers.js';
import { escapeClip, escapeText } from './text.js';
import { describeDigestProblem } from './words-of.js';

const channel = (id: string) => `<#${escapeText(id)}>`;
const shopOf = (s: AlertSubscription) => escapeClip(s.shopLabel, 64);
const user = (id: string) => `<@${escapeText(id)}>`;
/** "14:05" in the subscription's zone. */
const clock = (ms: number, s: AlertSubscription) => localTimeOf(ms, s.timeZone);

function timeLeft(w: Words, ms: number): string {
  if (ms <= 0) return w.t('shipAlert.overdue');
  const minutes = Math.round(ms / 60_000);
  const text =
    minutes < 60
      ? w.t('common.age.minutes', { count: minutes, n: w.count(minutes) })
      : w.t('common.age.hours', { count: Math.floor(minutes / 60), n: w.count(Math.floor(minutes / 60)) });
  return w.t('shipAlert.left', { time: text });
}

function orderText(w: Words, sub: AlertSubscription, o: AlertOrder, at: number): string {
  return w.t('shipAlert.order', {
    sn: escapeClip(o.orderSn, 64),
    goods: escapeClip(o.goodsName, 80),
    qty: w.count(o.goodsCount),
    amount: w.yuan(o.amountFen / 100),
    time: clock(o.lastShipTime.getTime(), sub),
    left: timeLeft(w, o.lastShipTime.getTime() - at),
  });
}

function orderStatus(w: Words, sub: AlertSubscription, o: AlertOrder): string {
  const lines: string[] = [];
  if (o.state === 'shipped') lines.push(w.t('shipAlert.shipped'));
  if (o.state === 'handled' && o.doneBy && o.doneAt)
    lines.push(w.t('shipAlert.handledBy', { user: user(o.doneBy), time: clock(o.doneAt.getTime(), sub) }));
  else if (o.claimedBy && o.claimedAt)
    lines.push(
      w.t('shipAlert.claimedBy', { user: user(o.claimedBy), time: clock(o.claimedAt.getTime(), sub) }),
    );
  return lines.join('\n');
}

/** The alert message: title, then each order with its state or its buttons, then the footer. */
export function renderAlert(
  w: Words,
  sub: AlertSubscription,
  orders: readonly AlertOrder[],
  at: number,
  deferred = 0,
  /** What the check that found these orders charged (DESIGN rule 2: every answer says it). */
  cost: CheckCost | null = null,
): RenderedMessage {
  const { t } = w;
  const values = {
    count: orders.length,
    n: w.count(orders.length),
    shop: shopOf(sub),
    hours: w.count(sub.withinHours),
  };
  const blocks: KnownBlock[] = [section(t('shipAlert.title', values))];
  orders.forEach((o, i) => {
    const status = orderStatus(w, sub, o);
    blocks.push(section(status ? `${orderText(w, sub, o, at)}\n${status}` : orderText(w, sub, o, at)));
    // 'pending': the message being posted now.
    if (o.state !== 'alerted' && o.state !== 'pending') return;
    const value = orderRef(sub.id, o.orderSn);
    const buttons = [];
    if (!o.claimedBy)
      buttons.push({
        ...button({ label: t('shipAlert.claim'), actionId: ACTIONS.alertClaim, value, style: 'primary' }),
        action_id: alertActionId('claim', i),
      });
    buttons.push({
      ...button({ label: t('shipAlert.handled'), actionId: ACTIONS.alertHandled, value }),
      action_id: alertActionId('handled', i),
    });
    blocks.push(actions(buttons));
  });
  const notes = [t('shipAlert.footer', { id: sub.id })];
  if (cost)
    notes.unshift(
      t('shipAlert.cost', { count: cost.calls, n: w.count(cost.calls), points: w.points(cost.points) }),
    );
  if (deferred > 0) notes.unshift(t('shipAlert.deferred', { count: deferred, n: w.count(deferred) }));
  blocks.push(context(...notes));
  return message(t('shipAlert.fallback', values), blocks, 1);
}

export function renderAlertReminder(
  w: Words,
  sub: AlertSubscription,
  o: AlertOrder,
  at: number,
): RenderedMessage {
  const text = w.t(o.claimedBy ? 'shipAlert.reminderYou' : 'shipAlert.reminderChannel', {
    sn: escapeClip(o.orderSn, 64),
    shop: shopOf(sub),
    goods: escapeClip(o.goodsName, 80),
    time: clock(o.lastShipTime.getTime(), sub),
    left: timeLeft(w, o.lastShipTime.getTime() - at),
  });
  return message(text, [section(text)]);
}

export function renderAlertFailure(
  w: Words,
  sub: AlertSubscription,
  failure: { error: unknown; nextAttemptAt: Date | null; resolved: boolean },
): RenderedMessage {
  const remedy = failure.resolved ? '' : digestRemedy(w, failure.error);
  const text = failure.resolved
    ? w.t('shipAlert.resolved', { id: sub.id, shop: shopOf(sub) })
    : w.t('shipAlert.failed', {
        id: sub.id,
        shop: shopOf(sub),
        reason: digestFailureReason(w, failure.error),
        remedy: remedy ? ` ${remedy}` : '',
        next: failure.nextAttemptAt
          ? w.t('shipAlert.retryAt', { time: clock(failure.nextAttemptAt.getTime(), sub) })
          : w.t('shipAlert.nextSlot'),
      });
  return message(text, [section(text)]);
}

export function renderAlertApproval(w: Words, r: AlertApprovalRequest): RenderedMessage {
  const { t } = w;
  const sub = r.subscription;
  const text = t('shipAlert.approval', {
    id: sub.id,
    shop: shopOf(sub),
    channel: channel(sub.channelId),
    spent: w.points(r.spentPoints),
    points: w.points(r.estimatePoints),
    cap: w.points(r.capPoints),
  });
  const label = t('shipAlert.runAnyway', {
    points: t('common.pointsShort', { count: r.estimatePoints, n: w.count(r.estimatePoints) }),
  });
  return message(
    text,
    [
      section(text),
      actions([
        button({ label, actionId: ACTIONS.alertRunAnyway, value: String(r.check.id), style: 'primary' }),
      ]),
    ],
    1,
  );
}

export function renderAlertUnverified(
  w: Words,
  sub: AlertSubscription,
  _check: AlertCheck,
  reason: HistoryUnreadableReason = 'refused',
): RenderedMessage {
  const text = w.t(reason === 'too_busy' ? 'shipAlert.unverifiedBusy' : 'shipAlert.unverified', {
    id: sub.id,
    shop: shopOf(sub),
    channel: channel(sub.channelId),
  });
  return message(text, [section(text)]);
}

/** Why a Claim or Handled was refused (ephemeral, to the one who clicked). */
export function renderClaimRefusal(
  w: Words,
  sub: AlertSubscription,
  o: AlertOrder,
  kind: 'claim' | 'handled',
): RenderedMessage {
  const sn = escapeClip(o.orderSn, 64);
  if (o.state === 'handled' || o.state === 'shipped')
    return renderDigestAnswer(
      w.t('shipAlert.refusedDone', {
        sn,
        state: w.t(o.state === 'handled' ? 'shipAlert.stateHandled' : 'shipAlert.stateShipped'),
      }),
    );
  const holder = user(o.claimedBy ?? '');
  const time = o.claimedAt ? clock(o.claimedAt.getTime(), sub) : '';
  return renderDigestAnswer(
    kind === 'claim'
      ? w.t('shipAlert.refusedClaim', { sn, user: holder, time })
      : w.t('shipAlert.refusedHandled', { sn, user: holder }),
  );
}

export function renderAlertList(w: Words, rows: readonly AlertRow[]): RenderedMessage {
  const { t } = w;
  if (rows.length === 0) return renderDigestAnswer(t('shipAlert.listNone'));
  const shown = rows.slice(0, 45);
  const blocks: KnownBlock[] = [
    section(bold(t('shipAlert.listTitle', { n: w.count(rows.length) }))),
    ...shown.map(({ subscription: s, spentToday, nextCheckAt }) =>
      section(
        t('shipAlert.listRow', {
          id: s.id,
          shop: shopOf(s),
          channel: channel(s.channelId),
          within: w.count(s.withinHours),
          every: w.count(s.everyMinutes),
          from: s.hoursFrom,
          to: s.hoursTo,
          zone: escapeText(w.zone(s.timeZone)),
          spent: w.points(spentToday),
          cap: w.points(s.capPoints),
          next: w.dateTime(new Date(nextCheckAt), s.timeZone),
        }),
      ),
    ),
  ];
  if (rows.length > shown.length)
    blocks.push(
      context(
        t('common.more', { count: rows.length - shown.length, n: w.count(rows.length - shown.length) }),
      ),
    );
  return message(t('shipAlert.listFallback', { n: w.count(rows.length) }), blocks);
}

const USAGE = [
  ['shipAlert.usage.add', 'shipAlert.usage.addWhat'],
  ['shipAlert.usage.list', 'shipAlert.usage.listWhat'],
  ['shipAlert.usage.remove', 'shipAlert.usage.removeWhat'],
] as const satisfies readonly (readonly [TKey, TKey])[];

const OWN_CODES = new Set([
  'alert_usage',
  'within_bad',
  'every_bad',
  'hours_bad',
  'cap_bad',
  'alert_id_missing',
  'alert_verb',
]);

/** A problem of the alert grammar, in words (raw text). */
export function describeAlertProblem(w: Words, p: AlertProblem): string {
  if (OWN_CODES.has(p.code)) return w.t(`shipAlertProblem.${p.code}` as TKey, p.values ?? {});
  return describeDigestProblem(w, p as Parameters<typeof describeDigestProblem>[1]);
}

export function renderAlertHelp(w: Words, problems: readonly AlertProblem[] = []): RenderedMessage {
  const { t } = w;
  const lines = USAGE.map(([usage, what]) =>
    t('digest.usageLine', { usage: escapeText(t(usage)), what: t(what) }),
  );
  const said = problems.map((p) => describeAlertProblem(w, p));
  const intro = said.length
    ? said.map((p) => t('digest.problem', { text: escapeClip(p, 300) })).join('\n')
    : t('shipAlert.helpIntro');
  return message(
    said.length ? escapeClip(said.join(w.t('common.clauseSep')), 300) : t('shipAlert.helpFallback'),
    [section(`${intro}\n${lines.join('\n')}`), context(t('digest.helpNotes'))],
  );
}
