/**
 * The App Home (issue 5). Everyone: how to use each command, their lookups of the last 7 days,
 * their spend today and this month. Admins also: the workspace's spend by user, operation and
 * day over 30 days, the alerts sent to admins, and the settings they can change there (each
 * behind a button opening a form). At most 100 blocks (Slack's limit for a Home view).
 */

import type { HomeView, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { AdminAlert, AdminHome, HomeData, HomeLookupLine } from '../lookups/home-data.js';
import type { Locale } from '../lookups/locale.js';
import type { AccessPolicy } from '../lookups/settings.js';
import type { QuoteLine } from '../lookups/types.js';
import { DEFAULT_AUTO_CAP, MAX_AUTO_CAP } from '../lookups/unfurls.js';
import { isOperation, OPERATION_NAMES, OPERATIONS, type Operation } from '../plat/operations.js';
import type { LedgerTotals } from '../store/store.js';
import {
  ACTIONS,
  homeAlertRemoveActionId,
  homeDigestRemoveActionId,
  homeLanguageActionId,
} from './action-ids.js';
import { chartImage, type UploadedChart } from './chart.js';
import { SLASH_COMMANDS, usageLine } from './help.js';
import type { Words } from './i18n/words.js';
import { actions, button, context, fieldsSection, header, section } from './kit.js';
import { packSections, SLACK_LIMITS } from './limits.js';
import { platAccountBlocks, platAccountMemberBlocks } from './plat-account.js';
import { budgetLines } from './platdesk.js';
import { stepApprovalLines } from './steps.js';
import { escapeClip, truncate } from './text.js';
import { describeRequest, operationLabel, operationTitle } from './words-of.js';

/** Every action_id is unique across its view, as Block Kit validation requires. */
export const HOME_FORMS = {
  access: {
    callbackId: 'platdesk.home.access.form',
    mode: { block: 'mode', action: 'access.mode' },
    users: { block: 'users', action: 'access.users' },
    channels: { block: 'channels', action: 'access.channels' },
    groups: { block: 'groups', action: 'access.groups' },
  },
  autoLookup: {
    callbackId: 'platdesk.home.autolookup.form',
    channel: { block: 'channel', action: 'autolookup.channel' },
    mode: { block: 'mode', action: 'autolookup.mode' },
    cap: { block: 'cap', action: 'autolookup.cap' },
  },
  prices: {
    callbackId: 'platdesk.home.prices.form',
    operation: { block: 'operation', action: 'prices.operation' },
    points: { block: 'points', action: 'prices.points' },
  },
} as const;

const plain = (text: string, max = 75) => ({ type: 'plain_text' as const, text: truncate(text, max) || '—' });

/** The person's language as the Home shows it: their own choice, or null (automatic). */
export interface HomeLanguage {
  effective: Locale;
  own: Locale | null;
}

function totalsText(w: Words, totals: LedgerTotals): string {
  const values = {
    points: w.points(totals.points),
    calls: w.t('common.calls', { count: totals.calls, n: w.count(totals.calls) }),
    quota: w.count(totals.quotaCalls),
  };
  return totals.quotaCalls > 0 ? w.t('home.totalsQuota', values) : w.t('home.totals', values);
}

function lookupLine(w: Words, l: HomeLookupLine, timeZone: string): string {
  const { t } = w;
  const what =
    l.request !== null
      ? escapeClip(describeRequest(w, l.request), 200)
      : l.operations.map((op) => operationTitle(w, op)).join(' + ');
  const cost = [
    l.points > 0 ? w.points(l.points) : null,
    l.quotaCalls > 0 ? t('common.quotaCalls', { count: l.quotaCalls, n: w.count(l.quotaCalls) }) : null,
  ]
    .filter(Boolean)
    .join(' + ');
  return t('home.lookupLine', {
    time: w.dateTime(l.at, timeZone),
    what,
    via: l.source === 'interactive' ? '' : t('home.via', { source: t(`home.source.${l.source}`) }),
    cost: cost || t('charge.noCharge'),
    failed: l.failed ? t('home.failedMark') : '',
  });
}

function languageBlocks(w: Words, language: HomeLanguage): KnownBlock[] {
  const { t } = w;
  const choices = ['en', 'zh-CN', 'auto'] as const;
  return [
    section(
      t('home.language', {
        language: t(`home.languageName.${language.effective}`),
        source: t(language.own === null ? 'home.languageSource.auto' : 'home.languageSource.own'),
      }),
    ),
    actions(
      choices.map((value) => ({
        ...button({
          label: t(`home.languageButton.${value}`),
          actionId: ACTIONS.homeLanguage,
          value,
          ...((language.own ?? 'auto') === value ? { style: 'primary' as const } : {}),
        }),
        action_id: homeLanguageActionId(value),
      })),
    ),
  ];
}

function everyoneBlocks(w: Words, data: HomeData, language: HomeLanguage): KnownBlock[] {
  const { t } = w;
  const howTo = [...SLASH_COMMANDS.map((c) => usageLine(w, c)), t('home.platdeskLine')];
  return [
    header(t('home.title')),
    section(t('home.intro')),
    section(t('home.commands', { lines: howTo.join('\n') })),
    section(t('home.also')),
    // Hidden while an admin has MCP turned off: no token could be made then.
    ...(data.mcpEnabled
      ? [
          section(
            t('home.mcp'),
            button({ label: t('home.mcpButton'), actionId: ACTIONS.homeMcpConnect, value: 'connect' }),
          ),
        ]
      : []),
    ...languageBlocks(w, language),
    { type: 'divider' },
    header(t('home.yourSpend')),
    fieldsSection([
      t('home.today', { totals: totalsText(w, data.today) }),
      t('home.month', { totals: totalsText(w, data.month) }),
    ]),
    ...(data.recent.length > 0
      ? packSections(
          data.recent.map((l) => lookupLine(w, l, data.timeZone)),
          {
            maxBlocks: 4,
            title: t('home.recentTitle'),
            more: (n) => t('common.more', { count: n, n: w.count(n) }),
          },
        )
      : [context(t('home.noRecent'))]),
    ...(data.recentMore > 0
      ? [context(t('home.moreRecent', { count: data.recentMore, n: w.count(data.recentMore) }))]
      : []),
    // One zone for the whole Home (admin part included): the budget zone the caps count in.
    context(t('home.daysIn', { zone: escapeClip(w.zone(data.timeZone), 60) })),
  ];
}

function describeAccess(w: Words, p: AccessPolicy): string {
  if (p.mode === 'everyone') return w.t('home.accessEveryone');
  const who = [
    ...p.users.map((u) => `<@${u}>`),
    ...p.groups.map((g) => `<!subteam^${g}>`),
    ...p.channels.map((c) => w.t('home.membersIn', { channel: `<#${c}>` })),
  ];
  return w.t('home.accessOnly', { who: w.join(who) || w.t('home.nobodyListed') });
}

function priceLine(w: Words, line: QuoteLine, overrides: AdminHome['overrides']): string {
  const { t } = w;
  const label = operationLabel(w, line);
  if (line.unit === 'quota') return t('home.priceQuota', { label });
  const byEdition = overrides[line.operation];
  const override = byEdition ? (byEdition[String(line.edition)] ?? byEdition['*']) : undefined;
  const price =
    line.configuredPoints !== null
      ? override !== undefined
        ? t('home.setHere', { points: w.points(line.configuredPoints) })
        : w.points(line.configuredPoints)
      : t('home.notConfigured');
  return line.lastSeenPoints !== null
    ? t('home.priceLineLast', { label, price, last: w.points(line.lastSeenPoints) })
    : t('home.priceLine', { label, price });
}

function adminBlocks(
  w: Words,
  a: AdminHome,
  now: Date,
  timeZone: string,
  spendChart: UploadedChart | null,
): KnownBlock[] {
  const { t } = w;
  const r = a.report;
  const opLines = r.byOperation.map((g) =>
    t('home.userLine', {
      who: isOperation(g.key) ? operationTitle(w, g.key) : escapeClip(g.key, 40),
      totals: totalsText(w, g),
    }),
  );
  const userLines = r.byUser.map((g) =>
    t('home.userLine', { who: g.key ? `<@${g.key}>` : t('home.scheduledDigests'), totals: totalsText(w, g) }),
  );
  const dayLines = [...r.byDay]
    .reverse()
    .map((g) => t('home.userLine', { who: escapeClip(w.day(g.key), 20), totals: totalsText(w, g) }));
  const alertLines = [
    ...a.alerts.map((al) =>
      t('home.alertLine', {
        time: w.dateTime(al.at, timeZone),
        // Mentions become plain ids: the Home is no place to notify anyone.
        text: escapeClip(
          (al.alert ? alertText(w, al.alert) : al.text).replace(/<@([UW][A-Z0-9]+)>/g, '@$1'),
          400,
        ),
      }),
    ),
    ...a.budgetAlerts.map((b) =>
      t('home.budgetAlertLine', { day: escapeClip(w.day(b.day), 20), cap: escapeClip(b.cap, 80) }),
    ),
  ];
  const auto =
    a.autoLookup.length === 0
      ? t('home.autoNone')
      : a.autoLookup
          .map((c) =>
            t('home.autoLine', {
              channel: `<#${c.channelId}>`,
              cap: w.count(c.cap),
              used: w.count(c.usedToday),
            }),
          )
          .join('\n');
  const overrideCount = Object.values(a.overrides).reduce((n, e) => n + Object.keys(e ?? {}).length, 0);
  const more = (key: 'common.more' | 'home.moreUsers' | 'home.moreDays') => (n: number) =>
    t(key, { count: n, n: w.count(n) });

  const blocks: KnownBlock[] = [
    { type: 'divider' },
    header(t('home.workspaceSpend')),
    section(t('home.total', { totals: totalsText(w, r.totals) })),
    // Scheduled work is paid from the same account: it counts, and stops, at the workspace caps.
    context(t('home.scheduledWithinCaps')),
    ...(spendChart ? [chartImage(spendChart)] : []),
    ...(userLines.length > 0
      ? packSections(userLines, {
          maxBlocks: 2,
          title: t('home.byUser'),
          maxEntries: 20,
          more: more('home.moreUsers'),
        })
      : []),
    ...(opLines.length > 0
      ? packSections(opLines, { maxBlocks: 2, title: t('home.byOperation'), more: more('common.more') })
      : []),
    ...(dayLines.length > 0
      ? packSections(dayLines, {
          maxBlocks: 3,
          title: t('home.byDay', { zone: escapeClip(w.zone(timeZone), 60) }),
          more: more('home.moreDays'),
        })
      : []),
    header(t('home.alerts')),
    ...(alertLines.length > 0
      ? packSections(alertLines, { maxBlocks: 3, maxEntries: 15, more: more('common.more') })
      : [context(t('home.noAlerts'))]),
    header(t('home.settings')),
    section(
      t('home.whoMaySpend', { who: describeAccess(w, a.access) }),
      button({ label: t('home.edit'), actionId: ACTIONS.homeAccess, value: 'edit' }),
    ),
    // The caps, as `/platdesk budget` lists them (set there: they take a channel or a person).
    ...packSections(budgetLines(w, a.budgets), {
      maxBlocks: 2,
      maxEntries: 30,
      title: t('home.capsTitle'),
      more: more('common.more'),
    }),
    context(t('home.capsHint', { zone: escapeClip(w.zone(a.budgets.timezone), 60) })),
    section(
      t('home.autoTitle', { list: auto }),
      button({ label: t('home.edit'), actionId: ACTIONS.homeAutoLookup, value: 'edit' }),
    ),
    section(
      t('home.pricesTitle', {
        count: overrideCount,
        n: w.count(overrideCount),
        lines: a.prices.map((l) => priceLine(w, l, a.overrides)).join('\n'),
      }),
      button({ label: t('home.edit'), actionId: ACTIONS.homePrices, value: 'edit' }),
    ),
    section(
      t(a.digests.length === 0 ? 'home.digestsNone' : 'home.digestsTitle', { n: w.count(a.digests.length) }),
      button({ label: t('home.addDigest'), actionId: ACTIONS.homeDigestAdd, value: 'add', style: 'primary' }),
    ),
  ];
  for (const d of a.digests.slice(0, 10))
    blocks.push(
      section(
        t('home.digestLine', {
          id: d.id,
          shop: escapeClip(d.shopLabel, 64),
          channel: `<#${d.channelId}>`,
          time: escapeClip(w.join(d.times), 60),
          zone: escapeClip(w.zone(d.timeZone), 40),
        }),
        {
          ...button({
            label: t('home.remove'),
            actionId: ACTIONS.homeDigestRemove,
            value: String(d.id),
            style: 'danger',
          }),
          action_id: homeDigestRemoveActionId(d.id),
        },
      ),
    );
  if (a.digests.length > 10)
    blocks.push(context(t('home.moreDigests', { n: w.count(a.digests.length - 10) })));
  blocks.push(
    section(
      t(a.shipAlerts.length === 0 ? 'home.alertsNone' : 'home.alertsTitle', {
        n: w.count(a.shipAlerts.length),
      }),
      button({ label: t('home.addAlert'), actionId: ACTIONS.homeAlertAdd, value: 'add', style: 'primary' }),
    ),
  );
  for (const { subscription: s, spentToday } of a.shipAlerts.slice(0, 10))
    blocks.push(
      section(
        t('home.shipAlertLine', {
          id: s.id,
          shop: escapeClip(s.shopLabel, 64),
          channel: `<#${s.channelId}>`,
          within: w.count(s.withinHours),
          every: w.count(s.everyMinutes),
          from: escapeClip(s.hoursFrom, 5),
          to: escapeClip(s.hoursTo, 5),
          spent: w.points(spentToday),
          cap: w.points(s.capPoints),
        }),
        {
          ...button({
            label: t('home.remove'),
            actionId: ACTIONS.homeAlertRemove,
            value: String(s.id),
            style: 'danger',
          }),
          action_id: homeAlertRemoveActionId(s.id),
        },
      ),
    );
  if (a.shipAlerts.length > 10)
    blocks.push(context(t('home.moreAlerts', { n: w.count(a.shipAlerts.length - 10) })));
  // Workflow steps: what each costs a run and may spend (approved with `/platdesk steps`).
  if (a.steps.length > 0)
    blocks.push(header(t('platdesk.stepsTitle')), section(stepApprovalLines(w, a.steps, null).join('\n')));
  // The agent (issue 36): what its plans were charged, and its answers as people rated them.
  const fb = a.agentFeedback;
  const spent = a.agentSpend;
  if (fb.good + fb.bad > 0 || spent.calls > 0)
    blocks.push(
      header(t('home.agentTitle')),
      section(
        [
          t('home.agentSpend', {
            spent: w.points(spent.points),
            count: spent.calls,
            n: w.count(spent.calls),
            quota:
              spent.quotaCalls > 0
                ? t('home.agentQuota', { count: spent.quotaCalls, n: w.count(spent.quotaCalls) })
                : '',
          }),
          t('home.agentVotes', { good: w.count(fb.good), bad: w.count(fb.bad) }),
          ...fb.recent.map((v) =>
            t('home.agentVoteLine', {
              vote: v.value === 'good' ? '👍' : '👎',
              user: escapeClip(v.userId, 20),
              time: w.dateTime(v.at, timeZone),
              tools: escapeClip(v.tools === '' ? '—' : v.tools, 200),
            }),
          ),
        ].join('\n'),
      ),
    );
  blocks.push(context(t('home.footer', { time: w.dateTime(now, timeZone) })));
  return blocks;
}

/**
 * The App Home. `spendChart`: the admins' spend chart (points per day against the daily cap,
 * issue 26), uploaded by the slack layer; null when there is none to show.
 */
export function renderHome(
  w: Words,
  data: HomeData,
  now: Date,
  language: HomeLanguage,
  spendChart: UploadedChart | null = null,
): HomeView {
  // No plat account yet: connecting one is the admins' first step, above everything else, and
  // members are told why lookups cannot run.
  const account = data.platAccount;
  const first = account?.state === 'none';
  const accountBlocks = !account
    ? []
    : data.adminHome
      ? platAccountBlocks(w, account)
      : platAccountMemberBlocks(w, account);
  const blocks = [
    ...(first ? accountBlocks : []),
    ...everyoneBlocks(w, data, language),
    ...(first ? [] : data.adminHome ? accountBlocks : []),
    ...(data.adminHome ? adminBlocks(w, data.adminHome, now, data.timeZone, spendChart) : []),
  ];
  return { type: 'home', blocks: blocks.slice(0, SLACK_LIMITS.viewBlocks) };
}

/** An alert sent to the admins, in words (raw mrkdwn: mentions intended). */
export function alertText(w: Words, alert: AdminAlert): string {
  const { t } = w;
  if (alert.kind === 'account') {
    const text = t(`alert.account.${alert.code}`);
    return alert.userId ? t('alert.seenBy', { text, user: `<@${alert.userId}>` }) : text;
  }
  if (alert.kind === 'charge-parked')
    return t('alert.chargeParked', {
      operation: isOperation(alert.operation)
        ? operationTitle(w, alert.operation)
        : escapeClip(alert.operation, 40),
      points: w.count(alert.points),
      at: Number.isFinite(Date.parse(alert.at)) ? w.dateTime(new Date(alert.at)) : escapeClip(alert.at, 30),
    });
  if (alert.kind === 'reinstalled')
    return t('alert.reinstalled', { user: `<@${escapeClip(alert.userId, 20)}>` });
  if (alert.kind === 'spend-totals') {
    // A direct message's text stays short (the first two differences; the rest are in the log).
    const lines = alert.sample.slice(0, 2).map((d) =>
      t(d.field === 'spent' ? 'alert.spendTotals.spentLine' : 'alert.spendTotals.reservedLine', {
        who:
          d.scope === 'workspace'
            ? t('alert.spendTotals.workspace')
            : d.scope === 'user'
              ? `<@${escapeClip(d.subject, 20)}>`
              : `<#${escapeClip(d.subject, 20)}>`,
        period: t(`alert.period.${d.period}`),
        key: escapeClip(w.day(d.key), 20),
        counter: w.count(d.counter),
        expected: w.count(d.expected),
      }),
    );
    return [
      t('alert.spendTotals.found', {
        count: alert.count,
        n: w.count(alert.count),
        day: escapeClip(w.day(alert.day), 20),
      }),
      ...lines,
    ].join('\n');
  }
  const { figure } = alert;
  const values = {
    user: `<@${alert.userId}>`,
    period: t(`alert.period.${figure.period}`),
    spent: w.count(figure.spent),
    cap: w.count(figure.cap),
  };
  if (figure.scope === 'user')
    return t(alert.refused ? 'alert.budget.userRefused' : 'alert.budget.userWarned', values);
  if (figure.scope === 'channel')
    return t(alert.refused ? 'alert.budget.channelRefused' : 'alert.budget.channelWarned', {
      ...values,
      channel: `<#${escapeClip(figure.channelId ?? '', 20)}>`,
    });
  return t(alert.refused ? 'alert.budget.workspaceRefused' : 'alert.budget.workspaceWarned', values);
}

// ---- settings forms --------------------------------------------------------------------------

export function renderAccessModal(w: Words, current: AccessPolicy): ModalView {
  const { t } = w;
  const f = HOME_FORMS.access;
  const everyone = { text: plain(t('home.form.accessEveryone')), value: 'everyone' };
  const listed = { text: plain(t('home.form.accessListed')), value: 'listed' };
  return {
    type: 'modal',
    callback_id: f.callbackId,
    title: plain(t('home.form.accessTitle'), 24),
    submit: plain(t('home.form.save'), 24),
    close: plain(t('home.form.cancel'), 24),
    blocks: [
      {
        type: 'input',
        block_id: f.mode.block,
        label: plain(t('home.form.accessMode')),
        element: {
          type: 'radio_buttons',
          action_id: f.mode.action,
          options: [everyone, listed],
          initial_option: current.mode === 'listed' ? listed : everyone,
        },
      },
      {
        type: 'input',
        block_id: f.users.block,
        optional: true,
        label: plain(t('home.form.people')),
        element: {
          type: 'multi_users_select',
          action_id: f.users.action,
          ...(current.users.length > 0 ? { initial_users: current.users } : {}),
        },
      },
      {
        type: 'input',
        block_id: f.channels.block,
        optional: true,
        label: plain(t('home.form.channels')),
        element: {
          type: 'multi_conversations_select',
          action_id: f.channels.action,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
          ...(current.channels.length > 0 ? { initial_conversations: current.channels } : {}),
        },
      },
      {
        type: 'input',
        block_id: f.groups.block,
        optional: true,
        label: plain(t('home.form.groups')),
        element: {
          type: 'plain_text_input',
          action_id: f.groups.action,
          max_length: 500,
          ...(current.groups.length > 0 ? { initial_value: current.groups.join(' ') } : {}),
        },
      },
      context(t('home.form.accessFooter')),
    ],
  };
}

export function renderAutoLookupModal(w: Words, channels: { channelId: string; cap: number }[]): ModalView {
  const { t } = w;
  const f = HOME_FORMS.autoLookup;
  const on = { text: plain(t('home.form.autoOn')), value: 'on' };
  const off = { text: plain(t('home.form.autoOff')), value: 'off' };
  const list =
    channels.length > 0
      ? channels
          .map((c) => t('home.form.autoModalLine', { channel: `<#${c.channelId}>`, cap: w.count(c.cap) }))
          .join('\n')
      : t('home.form.autoModalNone');
  return {
    type: 'modal',
    callback_id: f.callbackId,
    title: plain(t('home.form.autoTitle'), 24),
    submit: plain(t('home.form.save'), 24),
    close: plain(t('home.form.cancel'), 24),
    blocks: [
      section(t('home.form.autoNow', { list })),
      {
        type: 'input',
        block_id: f.channel.block,
        label: plain(t('home.form.channel')),
        element: {
          type: 'conversations_select',
          action_id: f.channel.action,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
        },
      },
      {
        type: 'input',
        block_id: f.mode.block,
        label: plain(t('home.form.autoMode')),
        element: { type: 'radio_buttons', action_id: f.mode.action, options: [on, off], initial_option: on },
      },
      {
        type: 'input',
        block_id: f.cap.block,
        optional: true,
        label: plain(t('home.form.autoCap')),
        element: {
          type: 'number_input',
          action_id: f.cap.action,
          is_decimal_allowed: false,
          min_value: '1',
          max_value: String(MAX_AUTO_CAP),
          initial_value: String(DEFAULT_AUTO_CAP),
        },
      },
      context(t('home.form.autoFooter')),
    ],
  };
}

/** "platdybw:1" → the operation and edition of a price option. */
export function priceOptionValue(operation: Operation, edition: number | null): string {
  return `${operation}:${edition ?? '*'}`;
}

export function parsePriceOption(
  value: string | undefined,
): { operation: Operation; edition: string } | null {
  const m = (value ?? '').match(/^([\w-]+):(\d{1,2}|\*)$/);
  if (!m?.[1] || !m[2] || !isOperation(m[1])) return null;
  return { operation: m[1], edition: m[2] };
}

export function renderPricesModal(
  w: Words,
  lines: QuoteLine[],
  overrides: AdminHome['overrides'],
): ModalView {
  const { t } = w;
  const f = HOME_FORMS.prices;
  const options: PlainTextOption[] = [];
  for (const op of OPERATION_NAMES) {
    if (OPERATIONS[op].charge === 'quota') continue;
    const editions = Object.keys(OPERATIONS[op].editions).map(Number);
    if (editions.length === 0)
      options.push({ text: plain(operationTitle(w, op)), value: priceOptionValue(op, null) });
    for (const e of editions)
      options.push({
        text: plain(operationLabel(w, { operation: op, edition: e })),
        value: priceOptionValue(op, e),
      });
  }
  const set = Object.entries(overrides).flatMap(([op, byEdition]) =>
    Object.entries(byEdition ?? {}).map(([e, points]) => {
      const operation = op as Operation;
      const label = operationLabel(w, { operation, edition: e === '*' ? null : Number(e) });
      return t('home.form.setLine', { label, points: w.points(points) });
    }),
  );
  return {
    type: 'modal',
    callback_id: f.callbackId,
    title: plain(t('home.form.pricesTitle'), 24),
    submit: plain(t('home.form.save'), 24),
    close: plain(t('home.form.cancel'), 24),
    blocks: [
      section(t('home.form.quotedNow', { lines: lines.map((l) => priceLine(w, l, overrides)).join('\n') })),
      section(
        t('home.form.setHere', { lines: set.length > 0 ? set.join('\n') : t('home.form.setHereNone') }),
      ),
      {
        type: 'input',
        block_id: f.operation.block,
        label: plain(t('home.form.operation')),
        element: { type: 'static_select', action_id: f.operation.action, options },
      },
      {
        type: 'input',
        block_id: f.points.block,
        optional: true,
        label: plain(t('home.form.points')),
        element: {
          type: 'number_input',
          action_id: f.points.action,
          is_decimal_allowed: true,
          min_value: '0',
          max_value: '100000',
        },
      },
      context(t('home.form.pricesFooter')),
    ],
  };
}
