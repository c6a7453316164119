/**
 * Daily order digests (issue 6): the digest message, its progress, the failure notice, the admin
 * alerts and approval request, and the answers of `/orders digest`. Pure; every list is cut to
 * Slack's limits with "…and N more". The summary carries no receiver data and nothing here adds any.
 */
import type { KnownBlock, SectionBlock } from '@slack/types';
import type { FetchPlan } from '../digest/fetch-orders.js';
import type { FlagGroup, GoodsRow, UrgentOrder } from '../digest/summarize.js';
import type { DigestAlert, DigestApprovalRequest, DigestNotice, DigestPost } from '../digest/types.js';
import { localDateOf, localTimeOf } from '../digest/zoned-time.js';
import { isPlatError } from '../plat/errors.js';
import type { DigestRun, DigestSubscription } from '../store/store.js';
import { ACTIONS } from './action-ids.js';
import { errorTitle } from './errors.js';
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
import { flagLabel, orderStatusLabel } from './orders.js';
import { escapeClip, escapeText, formatPoints, formatYuan, plural } from './text.js';

// ---- time in the subscription's zone -------------------------------------------------------

/** "2026-11-20 09:00" in `timeZone`. */
export function formatZonedTime(ms: number, timeZone: string): string {
  return `${localDateOf(ms, timeZone)} ${localTimeOf(ms, timeZone)}`;
}

/** "in 5 h", "in 40 min". */
function inTime(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  return minutes < 60 ? `in ${minutes} min` : `in ${Math.floor(minutes / 60)} h`;
}

const yuan = (fen: number) => formatYuan(fen / 100);
const channel = (id: string) => `<#${escapeText(id)}>`;
const shopOf = (s: DigestSubscription) =>
  s.shopLabel === s.ownerId
    ? `owner ${escapeClip(s.ownerId, 64)}`
    : `${escapeClip(s.shopLabel, 64)} (owner ${escapeClip(s.ownerId, 64)})`;
const digestName = (s: DigestSubscription) => `digest #${s.id} (${shopOf(s)} → ${channel(s.channelId)})`;

function delta(n: number, format: (v: number) => string): string {
  if (n === 0) return '= same as';
  return n > 0 ? `▲ ${format(n)} vs` : `▼ ${format(-n)} vs`;
}

// ---- the digest ------------------------------------------------------------------------------

function urgentEntry(o: UrgentOrder, at: number, timeZone: string): string {
  const sn = `\`${escapeClip(o.orderSn, 64)}\``;
  const when = formatZonedTime(o.lastShipTime, timeZone);
  if (o.overdue) return `${sn} — *⚠️ overdue* since ${when}`;
  return `${sn} — ship by ${when} (${inTime(o.lastShipTime - at)})`;
}

function flagEntry(o: FlagGroup['list'][number]): string {
  const parts = [`\`${escapeClip(o.orderSn, 64)}\``];
  if (o.tagName) parts.push(escapeClip(o.tagName, 40));
  const remark = o.remark ? ` — ${escapeClip(o.remark, 200)}` : ' — no remark';
  return `${parts.join(' · ')}${remark}`;
}

function goodsLines(title: string, rows: readonly GoodsRow[], by: 'count' | 'amount'): string {
  const lines = rows.map((g, i) => {
    const name = escapeClip(g.name, 80);
    const figures =
      by === 'count'
        ? `× ${g.count} (${plural(g.orders, 'order')}, ${yuan(g.amountFen)})`
        : `${yuan(g.amountFen)} (× ${g.count})`;
    return `${i + 1}. ${name} ${figures}`;
  });
  return `*${title}*\n${lines.join('\n')}`;
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

export function renderDigest(post: DigestPost): RenderedMessage {
  const { subscription: sub, run, summary: s, previous, cost } = post;
  const tz = sub.timeZone;
  const title =
    run.kind === 'manual'
      ? `Orders of the last 24 h · ${sub.shopLabel}`
      : `Daily orders · ${sub.shopLabel} · ${run.localDate}`;
  const head: KnownBlock[] = [
    header(title),
    context(
      `Owner ${escapeClip(sub.ownerId, 64)} · orders confirmed ${formatZonedTime(s.window.from, tz)} – ${formatZonedTime(s.window.to, tz)} (${escapeText(tz)})`,
    ),
  ];

  const versus = previous ? ` ${previous.localDate}` : '';
  const fields = [
    `*Orders*\n${s.orders}${previous ? `  (${delta(s.orders - previous.summary.orders, String)}${versus})` : ''}`,
    `*Amount*\n${yuan(s.amountFen)}${previous ? `  (${delta(s.amountFen - previous.summary.amountFen, yuan)}${versus})` : ''}`,
    `*Pre-sale*\n${s.preSale}`,
    `*To ship within 24 h*\n${s.urgent.total}${s.urgent.overdue > 0 ? ` (${s.urgent.overdue} overdue)` : ''}`,
    `*Flagged*\n${s.flagged.total}`,
    `*Goods*\n${plural(s.goodsKinds, 'kind')}`,
  ];
  const body: KnownBlock[] = [fieldsSection(fields)];

  if (s.orders === 0) {
    body.push(section('No orders were confirmed in this period.'));
  } else {
    const statusLines = s.byStatus.map(
      (r) => `• ${orderStatusLabel(r.status)}: ${plural(r.orders, 'order')} · ${yuan(r.amountFen)}`,
    );
    body.push(section(`*By status*\n${statusLines.join('\n')}`));
  }

  const tail: KnownBlock[] = [
    context(
      `:receipt: This digest cost ${formatPoints(cost.points)} in ${plural(cost.calls, 'call')}`,
      'No receiver names, phones or addresses are included.',
    ),
  ];

  // The lists share what is left of the 50 blocks: ship-soon first, flags, then goods.
  const goods: KnownBlock[] =
    s.topGoodsByCount.length > 0
      ? [
          section(goodsLines('Top goods by count', s.topGoodsByCount, 'count')),
          section(goodsLines('Top goods by amount', s.topGoodsByAmount, 'amount')),
        ]
      : [];
  let room = SLACK_LIMITS.messageBlocks - head.length - body.length - tail.length - goods.length;

  const lists: KnownBlock[] = [];
  if (s.urgent.total > 0) {
    const blocks = packList(
      s.urgent.list.map((o) => urgentEntry(o, s.at, tz)),
      s.urgent.total,
      {
        maxBlocks: Math.min(room - s.flagged.groups.length, 8),
        maxEntries: 40,
        title: `*To ship within 24 h (${s.urgent.total}), most urgent first*`,
        more: (n) => `…and ${n} more to ship within 24 h`,
      },
    );
    lists.push(...blocks);
    room -= blocks.length;
  }
  s.flagged.groups.forEach((g, i) => {
    const budget = Math.min(3, Math.floor(room / (s.flagged.groups.length - i)));
    if (budget < 1) return;
    const label = flagLabel(g.tag, null) ?? `flag ${g.tag}`;
    const blocks = packList(g.list.map(flagEntry), g.orders, {
      maxBlocks: budget,
      maxEntries: 10,
      title: `*${label} (${g.orders})*`,
      more: (n) => `…and ${n} more ${label} orders`,
    });
    lists.push(...blocks);
    room -= blocks.length;
  });

  const shop = escapeClip(sub.shopLabel, 64);
  const text = `Orders digest of ${shop}: ${plural(s.orders, 'order')}, ${yuan(s.amountFen)}`;
  return message(text, [...head, ...body, ...lists, ...goods, ...tail], tail.length);
}

// ---- progress, notices, alerts ---------------------------------------------------------------

export function renderDigestProgress(sub: DigestSubscription, plan: FetchPlan | null): RenderedMessage {
  const where = plan
    ? `page ${plan.pagesDone} of ${plan.exact ? plan.pagesPlanned : `${plan.pagesPlanned}+`}`
    : 'starting';
  const text = `:hourglass_flowing_sand: Preparing the orders digest of ${shopOf(sub)}… ${where}`;
  return message(text, [section(text)]);
}

/** Why a digest failed, in a few words: the plat error's title, or Slack's error code. */
export function digestFailureReason(error: unknown): string {
  if (isPlatError(error)) return errorTitle(error.code);
  const slackError = (error as { data?: { error?: unknown } } | null)?.data?.error;
  if (typeof slackError === 'string') return `Slack refused the message (${escapeClip(slackError, 60)})`;
  return 'an unexpected error';
}

export function renderDigestNotice(notice: DigestNotice): RenderedMessage {
  const sub = notice.subscription;
  const manual = notice.run.kind === 'manual';
  const what = manual ? `The orders digest of ${shopOf(sub)}` : `Today's orders digest of ${shopOf(sub)}`;
  if (notice.kind === 'resolved') {
    const text = `:white_check_mark: ${what} was posted after a retry.`;
    return message(text, [section(text)]);
  }
  if (notice.kind === 'awaiting_approval') {
    const text = `:moneybag: ${what} waits for an admin: it would cost about ${formatPoints(notice.estimatePoints)}, over the cost cap.`;
    return message(text, [section(text)]);
  }
  if (manual) {
    const text = `:warning: ${what} could not be prepared: ${digestFailureReason(notice.error)}.`;
    return message(text, [section(text)]);
  }
  const next = notice.nextAttemptAt
    ? `Trying again at ${formatZonedTime(notice.nextAttemptAt.getTime(), sub.timeZone).slice(11)} (${escapeText(sub.timeZone)}).`
    : 'No more attempts today; the admins have been told.';
  const text = `:warning: ${what} could not be prepared: ${digestFailureReason(notice.error)}. ${next}`;
  return message(text, [section(text)]);
}

export function renderDigestAlert(alert: DigestAlert): RenderedMessage {
  const sub = alert.subscription;
  if (alert.kind === 'orphaned') {
    const text =
      `:warning: platdesk stopped while posting ${digestName(sub)} of ${alert.run.localDate}: ` +
      `it may or may not have reached the channel. It was not posted again, to avoid a double post; ` +
      `if it is missing, run \`/orders digest run ${sub.id}\`.`;
    return message(text, [section(text)]);
  }
  const error = alert.error;
  const remedy = isPlatError(error) ? ` ${escapeText(error.remedy)}` : '';
  const next = alert.nextAttemptAt
    ? ` Next attempt at ${formatZonedTime(alert.nextAttemptAt.getTime(), sub.timeZone)} (${escapeText(sub.timeZone)}).`
    : ' No more attempts today.';
  const attempt = `attempt ${alert.run.attempts}`;
  const text = `:rotating_light: ${digestName(sub)} failed (${attempt}): ${digestFailureReason(error)}.${remedy}${next}`;
  return message(text, [section(text)]);
}

export function renderDigestApproval(request: DigestApprovalRequest): RenderedMessage {
  const { subscription: sub, run } = request;
  const which = run.kind === 'manual' ? 'The digest you asked for' : `Today's ${digestName(sub)}`;
  const text =
    `:moneybag: ${which} would cost about ${formatPoints(request.estimatePoints)}, over the cap of ` +
    `${formatPoints(request.capPoints)} (\`/platdesk digest-cap\`). Its orders were not fetched.`;
  return message(
    text,
    [
      section(text),
      actions([
        button({
          label: `Run anyway (~${plural(request.estimatePoints, 'point')})`,
          actionId: ACTIONS.digestRunAnyway,
          value: String(run.id),
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

function lastRunText(run: DigestRun | null, timeZone: string): string {
  if (!run) return 'not run yet';
  const when =
    run.kind === 'manual' ? `run now ${formatZonedTime(run.createdAt.getTime(), timeZone)}` : run.localDate;
  switch (run.state) {
    case 'posted':
      return `${when}: posted (${formatPoints(run.chargedPoints)})`;
    case 'failed':
      return `${when}: failed after ${plural(run.attempts, 'attempt')}${run.nextAttemptAt ? ', retry planned' : ''}`;
    case 'awaiting_approval':
      return `${when}: waiting for an admin (over the cost cap)`;
    case 'unknown':
      return `${when}: interrupted while posting`;
    default:
      return `${when}: running`;
  }
}

export function renderDigestList(rows: readonly DigestListRow[]): RenderedMessage {
  if (rows.length === 0) {
    const text =
      'No order digests yet. An admin can add one: `/orders digest add <owner id> #channel 09:00`.';
    return message(text, [section(text)]);
  }
  const head: KnownBlock[] = [header(`Order digests (${rows.length})`)];
  const max = SLACK_LIMITS.messageBlocks - head.length - 1;
  const shown = rows.slice(0, max);
  const blocks: SectionBlock[] = shown.map(({ subscription: sub, nextRunAt, lastRun }) => {
    const text =
      `*#${sub.id}* · ${shopOf(sub)} → ${channel(sub.channelId)} · daily ${escapeText(sub.localTime)} ${escapeText(sub.timeZone)}\n` +
      `Next: ${formatZonedTime(nextRunAt, sub.timeZone)} · Last: ${lastRunText(lastRun, sub.timeZone)}`;
    return section(text);
  });
  const more = rows.length > shown.length ? [context(`…and ${rows.length - shown.length} more`)] : [];
  return message(`Order digests: ${rows.length}`, [...head, ...blocks, ...more]);
}

export const DIGEST_USAGE = [
  ['/orders digest add <owner id or shop alias> #channel 09:00 [time zone]', 'a daily digest (admins)'],
  ['/orders digest list', 'the digests, their next and last runs'],
  ['/orders digest remove <id>', 'stop a digest (admins)'],
  ['/orders digest run <id>', 'post it now, with progress (admins)'],
] as const;

export function renderDigestHelp(problems: readonly string[] = []): RenderedMessage {
  const lines = DIGEST_USAGE.map(([usage, what]) => `\`${escapeText(usage)}\` — ${what}`);
  const intro = problems.length
    ? `:warning: ${problems.map((p) => escapeClip(p, 300)).join('\n:warning: ')}`
    : '*Daily order digests*: yesterday’s orders summed up in a channel at a set time, without receiver data.';
  const notes =
    'Pick the channel from the autocomplete (or write `here` for this channel). The time zone is an IANA name ' +
    'such as `Asia/Shanghai` (the default) or `America/New_York`.';
  const text = `${intro}\n${lines.join('\n')}`;
  return message(problems.length ? problems.join('; ') : 'Daily order digests', [
    section(text),
    context(notes),
  ]);
}

/** A one-paragraph answer (confirmation or refusal) of a digest command. */
export function renderDigestAnswer(text: string): RenderedMessage {
  return message(text, [section(text)]);
}
