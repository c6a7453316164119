/**
 * Daily order digests (issue 6): the digest message, its progress, the failure notice, the admin
 * alerts and approval request, and the answers of `/orders digest`. Pure; every list is cut to
 * Slack's limits with "…and N more". The summary carries no receiver data and nothing here adds any.
 */
import type { KnownBlock, SectionBlock, TableBlock } from '@slack/types';
import type { FetchPlan } from '../digest/fetch-orders.js';
import type { DigestSummary, FlagGroup, GoodsRow, UrgentOrder } from '../digest/summarize.js';
import type { DigestAlert, DigestApprovalRequest, DigestNotice, DigestPost } from '../digest/types.js';
import { isPlatError } from '../plat/errors.js';
import type { DigestRun, DigestSubscription } from '../store/store.js';
import { localTimeOf } from '../zoned-time.js';
import { ACTIONS, digestRunAgainValue } from './action-ids.js';
import { errorRemedy, errorTitle } from './errors.js';
import { buyerText } from './hidden.js';
import type { TKey, Words } from './i18n/words.js';
import {
  actions,
  button,
  context,
  fieldsSection,
  header,
  message,
  type RenderedMessage,
  section,
} from './kit.js';
import { moreBlock, packSections, SLACK_LIMITS } from './limits.js';
import { code } from './markers.js';
import { flagLabel, orderStatusLabel } from './orders.js';
import { tableBlocks } from './table.js';
import { escapeClip, escapeText } from './text.js';

// ---- time in the subscription's zone -------------------------------------------------------

/** "in 5 h", "in 40 min". */
function inTime(w: Words, ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  return minutes < 60
    ? w.t('digest.inMinutes', { n: w.count(minutes) })
    : w.t('digest.inHours', { n: w.count(Math.floor(minutes / 60)) });
}

const channel = (id: string) => `<#${escapeText(id)}>`;
function shopOf(w: Words, s: DigestSubscription): string {
  return s.shopLabel === s.ownerId
    ? w.t('digest.owner', { owner: escapeClip(s.ownerId, 64) })
    : w.t('digest.shopWithOwner', { shop: escapeClip(s.shopLabel, 64), owner: escapeClip(s.ownerId, 64) });
}
const digestName = (w: Words, s: DigestSubscription) =>
  w.t('digest.name', { id: s.id, shop: shopOf(w, s), channel: channel(s.channelId) });

function delta(w: Words, n: number, format: (v: number) => string): string {
  if (n === 0) return w.t('digest.same');
  return n > 0 ? w.t('digest.up', { value: format(n) }) : w.t('digest.down', { value: format(-n) });
}

// ---- the digest ------------------------------------------------------------------------------

/** Orders and amount by status, with each status's share and a total row: one table block. */
function statusTable(w: Words, s: DigestSummary): TableBlock {
  const yuan = (fen: number) => w.yuan(fen / 100);
  const percent = new Intl.NumberFormat(w.locale, { style: 'percent', maximumFractionDigits: 0 });
  const share = (n: number) => percent.format(s.orders === 0 ? 0 : n / s.orders);
  const rows = s.byStatus.map((r) => [
    orderStatusLabel(w, r.status),
    w.count(r.orders),
    yuan(r.amountFen),
    share(r.orders),
  ]);
  rows.push([w.t('table.total'), w.count(s.orders), yuan(s.amountFen), share(s.orders)]);
  const [table] = tableBlocks(
    [
      { header: w.t('table.status'), wrap: true },
      { header: w.t('table.orders'), align: 'right' },
      { header: w.t('table.amount'), align: 'right' },
      { header: w.t('table.share'), align: 'right' },
    ],
    rows,
  );
  // Statuses are a handful of codes: one table always holds them.
  return table as TableBlock;
}

function urgentEntry(w: Words, o: UrgentOrder, at: number, timeZone: string): string {
  const sn = code(escapeClip(o.orderSn, 64));
  const time = w.dateTime(new Date(o.lastShipTime), timeZone);
  if (o.overdue) return w.t('digest.overdueSince', { sn, time });
  return w.t('digest.shipBy', { sn, time, in: inTime(w, o.lastShipTime - at) });
}

function flagEntry(w: Words, o: FlagGroup['list'][number]): string {
  const parts = [code(escapeClip(o.orderSn, 64))];
  if (o.tagName) parts.push(escapeClip(buyerText(w, o.tagName), 40));
  const remark = o.remark
    ? w.t('digest.remark', { remark: escapeClip(buyerText(w, o.remark), 200) })
    : w.t('digest.noRemark');
  return `${parts.join(w.t('common.sep'))}${remark}`;
}

function goodsLines(w: Words, title: string, rows: readonly GoodsRow[], by: 'count' | 'amount'): string {
  const yuan = (fen: number) => w.yuan(fen / 100);
  const lines = rows.map((g, i) =>
    w.t('digest.goodsLine', {
      rank: i + 1,
      name: escapeClip(g.name, 80),
      figures:
        by === 'count'
          ? w.t('digest.goodsByCount', {
              qty: w.count(g.count),
              count: g.orders,
              n: w.count(g.orders),
              amount: yuan(g.amountFen),
            })
          : w.t('digest.goodsByAmount', { amount: yuan(g.amountFen), qty: w.count(g.count) }),
    }),
  );
  return w.t('digest.goodsTitle', { title, lines: lines.join('\n') });
}

/**
 * packSections over the stored part of a list whose full length is `total` (the summary keeps at
 * most SUMMARY_LIST_MAX entries), so "…and N more" counts every entry not shown.
 */
function packList(
  entries: readonly string[],
  total: number,
  options: { maxBlocks: number; maxEntries: number; title: string; more: (hidden: number) => string },
): KnownBlock[] {
  const notStored = Math.max(0, total - entries.length);
  if (options.maxBlocks < 1) return [];
  const blocks = packSections(entries, {
    ...options,
    maxBlocks: notStored > 0 ? options.maxBlocks - 1 : options.maxBlocks,
    more: (n) => options.more(n + notStored),
  });
  if (notStored > 0 && !blocks.some((b) => b.type === 'context'))
    blocks.push(moreBlock(options.more(notStored)));
  return blocks;
}

/** "Filter: 🔴 red flag, 🟡 yellow flag · awaiting shipment", or '' without filters. */
function filterLine(w: Words, sub: DigestSubscription): string {
  const parts: string[] = [];
  if (sub.flags) parts.push(w.list(sub.flags.map((f) => flagLabel(w, f, null) ?? String(f))));
  if (sub.statuses) parts.push(w.list(sub.statuses.map((st) => orderStatusLabel(w, st))));
  return parts.length > 0 ? w.t('digest.filtered', { what: parts.join(w.t('common.sep')) }) : '';
}

/** The parts of a digest: what the channel reads first, and the three lists. */
function digestParts(w: Words, post: DigestPost) {
  const { t } = w;
  const yuan = (fen: number) => w.yuan(fen / 100);
  const { subscription: sub, run, summary: s, previous, cost } = post;
  const tz = sub.timeZone;
  const title =
    run.kind === 'manual'
      ? t('digest.titleManual', { shop: sub.shopLabel })
      : t('digest.titleDaily', { shop: sub.shopLabel, date: w.day(run.localDate) });
  const head: KnownBlock[] = [
    header(title),
    context(
      t('digest.window', {
        owner: escapeClip(sub.ownerId, 64),
        from: w.dateTime(new Date(s.window.from), tz),
        to: w.dateTime(new Date(s.window.to), tz),
        zone: escapeText(w.zone(tz)),
      }),
      filterLine(w, sub),
    ),
  ];

  const vs = previous ? { date: w.day(previous.localDate) } : null;
  const fields = [
    vs && previous
      ? t('digest.ordersFieldVs', {
          n: w.count(s.orders),
          delta: delta(w, s.orders - previous.summary.orders, w.count),
          ...vs,
        })
      : t('digest.ordersField', { n: w.count(s.orders) }),
    vs && previous
      ? t('digest.amountFieldVs', {
          amount: yuan(s.amountFen),
          delta: delta(w, s.amountFen - previous.summary.amountFen, yuan),
          ...vs,
        })
      : t('digest.amountField', { amount: yuan(s.amountFen) }),
    t('digest.preSaleField', { n: w.count(s.preSale) }),
    s.urgent.overdue > 0
      ? t('digest.urgentFieldOverdue', { n: w.count(s.urgent.total), overdue: w.count(s.urgent.overdue) })
      : t('digest.urgentField', { n: w.count(s.urgent.total) }),
    t('digest.flaggedField', { n: w.count(s.flagged.total) }),
    t('digest.goodsField', { count: s.goodsKinds, n: w.count(s.goodsKinds) }),
  ];
  const body: KnownBlock[] = [fieldsSection(fields)];
  const fallbackLines: string[] = [];

  if (s.orders === 0) {
    body.push(section(t('digest.noOrders')));
  } else {
    const statusLines = s.byStatus.map((r) =>
      t('digest.statusLine', {
        status: orderStatusLabel(w, r.status),
        count: r.orders,
        n: w.count(r.orders),
        amount: yuan(r.amountFen),
      }),
    );
    // The breakdown as a table (aligned figures on a phone); its lines stay in the message's
    // fallback text for notifications and clients without tables (issue 26).
    body.push(section(t('digest.byStatus', { lines: '' }).trim()), statusTable(w, s));
    fallbackLines.push(...statusLines);
  }

  const tail: KnownBlock[] = [
    context(
      t('digest.cost', { points: w.points(cost.points), count: cost.calls, n: w.count(cost.calls) }),
      t('digest.noPersonalData'),
    ),
  ];

  const goods: KnownBlock[] =
    s.topGoodsByCount.length > 0
      ? [
          section(goodsLines(w, t('digest.topByCount'), s.topGoodsByCount, 'count')),
          section(goodsLines(w, t('digest.topByAmount'), s.topGoodsByAmount, 'amount')),
        ]
      : [];
  const urgent = (maxBlocks: number): KnownBlock[] =>
    s.urgent.total > 0
      ? packList(
          s.urgent.list.map((o) => urgentEntry(w, o, s.at, tz)),
          s.urgent.total,
          {
            maxBlocks,
            maxEntries: 40,
            title: t('digest.urgentTitle', { n: w.count(s.urgent.total) }),
            more: (n) => t('digest.moreUrgent', { n: w.count(n) }),
          },
        )
      : [];
  /** The flag groups sharing `room` blocks, at most `each` a group. */
  const flagged = (room: number, each: number): KnownBlock[] => {
    const blocks: KnownBlock[] = [];
    s.flagged.groups.forEach((g, i) => {
      const budget = Math.min(each, Math.floor((room - blocks.length) / (s.flagged.groups.length - i)));
      if (budget < 1) return;
      const label = flagLabel(w, g.tag, null) ?? t('orders.flagRaw', { tag: String(g.tag) });
      blocks.push(
        ...packList(
          g.list.map((o) => flagEntry(w, o)),
          g.orders,
          {
            maxBlocks: budget,
            maxEntries: 10,
            title: t('digest.flagTitle', { label, n: w.count(g.orders) }),
            more: (n) => t('digest.moreFlagged', { n: w.count(n), label }),
          },
        ),
      );
    });
    return blocks;
  };
  const text = [
    t('digest.fallback', {
      shop: escapeClip(sub.shopLabel, 64),
      count: s.orders,
      n: w.count(s.orders),
      amount: yuan(s.amountFen),
    }),
    ...fallbackLines,
  ].join('\n');
  return { head, body, tail, goods, urgent, flagged, text };
}

/** The digest as one message, in the channel's language (everyone there reads it). */
export function renderDigest(w: Words, post: DigestPost): RenderedMessage {
  const { head, body, tail, goods, urgent, flagged, text } = digestParts(w, post);
  // The lists share what is left of the 50 blocks: ship-soon first, flags, then goods.
  let room = SLACK_LIMITS.messageBlocks - head.length - body.length - tail.length - goods.length;
  const groups = post.summary.flagged.groups.length;
  const urgentBlocks = urgent(Math.min(room - groups, 8));
  room -= urgentBlocks.length;
  const flagBlocks = flagged(room, 3);
  return message(text, [...head, ...body, ...urgentBlocks, ...flagBlocks, ...goods, ...tail], tail.length);
}

/** Room for a thread reply's list: Slack's 50 blocks, less a little for "…and N more". */
const REPLY_BLOCKS = SLACK_LIMITS.messageBlocks - 2;

/**
 * The threaded digest: the summary (totals, by status, urgent count, cost) for the channel, and
 * the details as replies in its thread: orders to ship soon, flagged orders with remarks, top goods.
 */
export function renderDigestThread(
  w: Words,
  post: DigestPost,
): { parent: RenderedMessage; replies: RenderedMessage[] } {
  const { head, body, tail, goods, urgent, flagged, text } = digestParts(w, post);
  const replies: RenderedMessage[] = [];
  const reply = (fallback: string, blocks: KnownBlock[]) => {
    if (blocks.length > 0) replies.push(message(fallback, blocks));
  };
  const s = post.summary;
  reply(w.t('digest.replyUrgent', { n: w.count(s.urgent.total) }), urgent(REPLY_BLOCKS));
  reply(w.t('digest.replyFlagged', { n: w.count(s.flagged.total) }), flagged(REPLY_BLOCKS, 15));
  reply(w.t('digest.topByCount'), goods);
  return {
    parent: message(text, [...head, ...body, ...tail, context(w.t('digest.detailsInThread'))], 2),
    replies,
  };
}

// ---- progress, notices, alerts ---------------------------------------------------------------

export function renderDigestProgress(
  w: Words,
  sub: DigestSubscription,
  plan: FetchPlan | null,
): RenderedMessage {
  const where = plan
    ? w.t('digest.progressPage', {
        done: w.count(plan.pagesDone),
        planned: plan.exact ? w.count(plan.pagesPlanned) : `${w.count(plan.pagesPlanned)}+`,
      })
    : w.t('digest.progressStarting');
  const text = w.t('digest.progress', { shop: shopOf(w, sub), where });
  return message(text, [section(text)]);
}

/** Slack's errors a digest post meets most (chat.postMessage), said in words; others as their code. */
const SLACK_ERRORS = {
  not_in_channel: 1,
  channel_not_found: 1,
  is_archived: 1,
  restricted_action: 1,
} as const;

/** Why a digest failed, in a few words: the plat error's title, or what Slack refused. */
export function digestFailureReason(w: Words, error: unknown): string {
  if (isPlatError(error)) return errorTitle(w, error.code);
  const coded = error as { code?: unknown; cause?: unknown } | null;
  // A stranded run ended (digest/stranded.ts); a post Slack refused carries Slack's error within.
  if (coded?.code === 'run_stranded') return w.t('digest.stranded');
  const answered = coded?.code === 'post_refused' ? coded.cause : error;
  const slackError = (answered as { data?: { error?: unknown } } | null)?.data?.error;
  if (typeof slackError === 'string')
    return Object.hasOwn(SLACK_ERRORS, slackError)
      ? w.t('digest.slackRefused', {
          error: w.t(`digest.slackError.${slackError as keyof typeof SLACK_ERRORS}`),
        })
      : w.t('digest.slackRefusedCode', { error: escapeClip(slackError, 60) });
  return w.t('digest.unexpected');
}

/** The remedy of a failure, when it is a plat error (escaped), else ''. */
export function digestRemedy(w: Words, error: unknown): string {
  return isPlatError(error) ? escapeText(errorRemedy(w, error)) : '';
}

export function renderDigestNotice(w: Words, notice: DigestNotice): RenderedMessage {
  const { t } = w;
  const sub = notice.subscription;
  const manual = notice.run.kind === 'manual';
  const what = t(manual ? 'digest.whatManual' : 'digest.whatDaily', { shop: shopOf(w, sub) });
  const say = (text: string) => message(text, [section(text)]);
  if (notice.kind === 'resolved') return say(t('digest.resolved', { what }));
  if (notice.kind === 'awaiting_approval')
    return say(t('digest.awaiting', { what, points: w.points(notice.estimatePoints) }));
  const reason = digestFailureReason(w, notice.error);
  if (manual) return say(t('digest.failed', { what, reason }));
  const next = notice.nextAttemptAt
    ? t('digest.tryAgainAt', {
        time: localTimeOf(notice.nextAttemptAt.getTime(), sub.timeZone),
        zone: escapeText(w.zone(sub.timeZone)),
      })
    : t('digest.noMoreAttempts');
  return say(t('digest.failedNext', { what, reason, next }));
}

export function renderDigestAlert(w: Words, alert: DigestAlert): RenderedMessage {
  const { t } = w;
  const sub = alert.subscription;
  if (alert.kind === 'unverified') {
    const text = t(alert.reason === 'too_busy' ? 'digest.unverifiedBusy' : 'digest.unverified', {
      name: digestName(w, sub),
      date: w.day(alert.run.localDate),
      id: sub.id,
    });
    return message(text, [section(text)]);
  }
  const error = alert.error;
  const remedy = digestRemedy(w, error);
  const next = alert.nextAttemptAt
    ? t('digest.nextAttempt', {
        time: w.dateTime(alert.nextAttemptAt, sub.timeZone),
        zone: escapeText(w.zone(sub.timeZone)),
      })
    : t('digest.noMoreToday');
  const text = t('digest.alert', {
    name: digestName(w, sub),
    attempt: alert.run.attempts,
    reason: digestFailureReason(w, error),
    remedy: remedy ? ` ${remedy}` : '',
    next,
  });
  return message(text, [section(text)]);
}

export function renderDigestApproval(w: Words, request: DigestApprovalRequest): RenderedMessage {
  const { t } = w;
  const { subscription: sub, run } = request;
  const which =
    run.kind === 'manual'
      ? t('digest.approvalManual')
      : t('digest.approvalDaily', { name: digestName(w, sub) });
  const { estimate } = request;
  // Pages already bought are kept: the admin is told what they cost and what the rest will.
  const partial = estimate.pagesDone > 0;
  const text = partial
    ? t('digest.approvalPartial', {
        which,
        points: w.points(request.estimatePoints),
        cap: w.points(request.capPoints),
        charged: w.points(estimate.chargedPoints),
        done: estimate.pagesDone,
        left: w.points(estimate.leftPoints),
        count: estimate.pagesLeft,
        n: w.count(estimate.pagesLeft),
      })
    : t('digest.approval', {
        which,
        points: w.points(request.estimatePoints),
        cap: w.points(request.capPoints),
      });
  const buttonPoints = partial ? estimate.leftPoints : request.estimatePoints;
  return message(
    text,
    [
      section(text),
      actions([
        button({
          label: t(partial ? 'digest.runAnywayRest' : 'digest.runAnyway', {
            points: t('common.pointsShort', { count: buttonPoints, n: w.count(buttonPoints) }),
          }),
          actionId: ACTIONS.digestRunAnyway,
          value: String(run.id),
          style: 'primary',
        }),
      ]),
    ],
    1,
  );
}

/** What `/orders digest run` asks when today's digest was already posted (issue 10 point 5). */
export interface DigestRerunQuestion {
  subscription: DigestSubscription;
  /** Today's posted run. */
  posted: DigestRun;
  /** Its order count, when its summary is kept. */
  orders: number | null;
  /** The newest run of the subscription (single-use of the button). */
  newestRunId: number;
  /** What running again is expected to cost: what today's run cost. */
  estimatePoints: number;
}

export function renderDigestRerunQuestion(w: Words, q: DigestRerunQuestion): RenderedMessage {
  const { t } = w;
  const { subscription: sub, posted } = q;
  const values = {
    id: sub.id,
    channel: `<#${sub.channelId}>`,
    time: localTimeOf(posted.updatedAt.getTime(), sub.timeZone),
    zone: escapeText(w.zone(sub.timeZone)),
    cost: w.points(posted.chargedPoints),
    estimate: w.points(q.estimatePoints),
  };
  const text =
    q.orders === null
      ? t('digest.rerun', values)
      : t('digest.rerunOrders', { ...values, count: q.orders, n: w.count(q.orders) });
  return message(
    text,
    [
      section(text),
      actions([
        button({
          label: t('digest.runAgain', {
            points: t('common.pointsShort', { count: q.estimatePoints, n: w.count(q.estimatePoints) }),
          }),
          actionId: ACTIONS.digestRunAgain,
          value: digestRunAgainValue(sub.id, q.newestRunId),
          style: 'primary',
        }),
      ]),
    ],
    1,
  );
}

// ---- /orders digest answers ------------------------------------------------------------------

export interface DigestListRow {
  subscription: DigestSubscription;
  nextRunAt: number;
  lastRun: DigestRun | null;
}

function lastRunText(w: Words, run: DigestRun | null, timeZone: string): string {
  const { t } = w;
  if (!run) return t('digest.notRunYet');
  const when =
    run.kind === 'manual'
      ? t('digest.runNow', { time: w.dateTime(run.createdAt, timeZone) })
      : w.day(run.localDate);
  switch (run.state) {
    case 'posted':
      return t('digest.lastPosted', { when, points: w.points(run.chargedPoints) });
    case 'failed': {
      const text = t('digest.lastFailed', { when, count: run.attempts, n: w.count(run.attempts) });
      return run.nextAttemptAt ? t('digest.retryPlanned', { text }) : text;
    }
    case 'awaiting_approval':
      return t('digest.lastAwaiting', { when });
    case 'unknown':
      return t('digest.lastUnknown', { when });
    default:
      return t('digest.lastRunning', { when });
  }
}

/** "Mon, Tue, Wed, Thu and Fri" / "周一、周二…" of days 0 (Sunday) … 6. */
function dayNames(w: Words, days: readonly number[]): string {
  const format = new Intl.DateTimeFormat(w.locale, { weekday: 'short', timeZone: 'UTC' });
  // 2026-11-22 is a Sunday.
  return w.list(days.map((d) => format.format(new Date(Date.UTC(2026, 10, 22 + d)))));
}

/** When a digest posts: "daily" / "every day" or "on Mon … Fri". */
export function digestDays(
  w: Words,
  sub: DigestSubscription,
  daily: 'digest.daily' | 'digest.everyDay',
): string {
  return sub.days ? w.t('digest.onDays', { days: dayNames(w, sub.days) }) : w.t(daily);
}

/** The schedule's times, "09:00, 17:30". */
export const digestTimes = (w: Words, sub: DigestSubscription): string => escapeText(w.join(sub.times));

export function renderDigestList(w: Words, rows: readonly DigestListRow[]): RenderedMessage {
  const { t } = w;
  if (rows.length === 0) {
    const text = t('digest.listNone');
    return message(text, [section(text)]);
  }
  const head: KnownBlock[] = [header(t('digest.listTitle', { n: w.count(rows.length) }))];
  const max = SLACK_LIMITS.messageBlocks - head.length - 1;
  const shown = rows.slice(0, max);
  const blocks: SectionBlock[] = shown.map(({ subscription: sub, nextRunAt, lastRun }) =>
    section(
      t('digest.listRow', {
        id: sub.id,
        shop: shopOf(w, sub),
        channel: channel(sub.channelId),
        days: digestDays(w, sub, 'digest.daily'),
        time: digestTimes(w, sub),
        zone: escapeText(w.zone(sub.timeZone)),
        options: [filterLine(w, sub), sub.layout === 'thread' ? w.t('digest.threaded') : '']
          .filter(Boolean)
          .map((o) => ` · ${o}`)
          .join(''),
        next: w.dateTime(new Date(nextRunAt), sub.timeZone),
        last: lastRunText(w, lastRun, sub.timeZone),
      }),
    ),
  );
  const hidden = rows.length - shown.length;
  const more = hidden > 0 ? [context(t('common.more', { count: hidden, n: w.count(hidden) }))] : [];
  return message(t('digest.listFallback', { n: w.count(rows.length) }), [...head, ...blocks, ...more]);
}

const DIGEST_USAGE = [
  ['digest.usage.add', 'digest.usage.addWhat'],
  ['digest.usage.list', 'digest.usage.listWhat'],
  ['digest.usage.remove', 'digest.usage.removeWhat'],
  ['digest.usage.run', 'digest.usage.runWhat'],
] as const satisfies readonly (readonly [TKey, TKey])[];

/** `problems` are already worded (raw text): the digest grammar's own or a parse problem's. */
export function renderDigestHelp(w: Words, problems: readonly string[] = []): RenderedMessage {
  const { t } = w;
  const lines = DIGEST_USAGE.map(([usage, what]) =>
    t('digest.usageLine', { usage: escapeText(t(usage)), what: t(what) }),
  );
  const intro = problems.length
    ? problems.map((p) => t('digest.problem', { text: escapeClip(p, 300) })).join('\n')
    : t('digest.helpIntro');
  const text = `${intro}\n${lines.join('\n')}`;
  return message(
    problems.length ? escapeClip(problems.join(w.t('common.clauseSep')), 300) : t('digest.helpFallback'),
    [section(text), context(t('digest.helpNotes'))],
  );
}

/** A one-paragraph answer (confirmation or refusal) of a digest command, already worded. */
export function renderDigestAnswer(text: string): RenderedMessage {
  return message(text, [section(text)]);
}

/**
 * What a digest costs, stated before it runs: by `/orders digest add`'s answer and the Home's
 * digest form (before a digest exists: no `pages`) and its answer (digest/subscriptions.ts).
 */
export function digestCostLine(
  w: Words,
  cost: { pages?: number; pagePoints: number | null; capPoints: number },
): string {
  const cap = w.points(cost.capPoints);
  if (cost.pagePoints === null) return w.t('digest.costPreviewNoPrice', { cap });
  const price = w.points(cost.pagePoints);
  if (cost.pages === undefined) return w.t('digest.costPreviewGeneral', { price, cap });
  return w.t('digest.costPreview', {
    price,
    cap,
    pages: w.count(cost.pages),
    points: w.points(cost.pages * cost.pagePoints),
  });
}

/** The answer to a digest added (`/orders digest add` and the Home's form say the same). */
export function digestAddedText(w: Words, sub: DigestSubscription, nextRunAt: number): string {
  return w.t('digest.answer.added', {
    id: sub.id,
    owner: escapeClip(sub.ownerId, 64),
    days: digestDays(w, sub, 'digest.everyDay'),
    time: digestTimes(w, sub),
    zone: escapeText(w.zone(sub.timeZone)),
    channel: `<#${sub.channelId}>`,
    next: w.dateTime(new Date(nextRunAt), sub.timeZone),
  });
}

/** A digest added: the answer, then what its next run costs at the least. */
export function renderDigestAdded(text: string, costLine: string): RenderedMessage {
  return message(`${text}\n${costLine}`, [section(text), context(costLine)]);
}
