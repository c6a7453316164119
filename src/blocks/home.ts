/**
 * The App Home (issue 5). Everyone: how to use each command, their lookups of the last 7 days,
 * their spend today and this month. Admins also: the workspace's spend by user, operation and
 * day over 30 days, the alerts sent to admins, and the settings they can change there (each
 * behind a button opening a form). At most 100 blocks (Slack's limit for a Home view).
 */
import type { HomeView, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { AdminHome, HomeData, HomeLookupLine } from '../lookups/home-data.js';
import type { AccessPolicy } from '../lookups/settings.js';
import type { QuoteLine } from '../lookups/types.js';
import { DEFAULT_AUTO_CAP, MAX_AUTO_CAP } from '../lookups/unfurls.js';
import { editionName, isOperation, OPERATION_NAMES, OPERATIONS, type Operation } from '../plat/operations.js';
import type { LedgerTotals } from '../store/store.js';
import { ACTIONS, homeDigestRemoveActionId } from './action-ids.js';
import { operationLabel } from './confirmation.js';
import { SLASH_COMMANDS, usageLine } from './help.js';
import { button, context, fieldsSection, header, section } from './kit.js';
import { packSections, SLACK_LIMITS } from './limits.js';
import { escapeClip, formatPoints, formatTimeIn, plural, truncate } from './text.js';

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

function totalsText(t: LedgerTotals): string {
  return `${formatPoints(t.points)}, ${plural(t.calls, 'call')}${t.quotaCalls > 0 ? `, ${t.quotaCalls} of the item quota` : ''}`;
}

function lookupLine(l: HomeLookupLine, timeZone: string): string {
  const what =
    l.summary !== null
      ? escapeClip(l.summary, 200)
      : l.operations.map((op) => OPERATIONS[op].title).join(' + ');
  const cost = [
    l.points > 0 ? formatPoints(l.points) : null,
    l.quotaCalls > 0 ? plural(l.quotaCalls, 'quota call') : null,
  ]
    .filter(Boolean)
    .join(' + ');
  const via = l.source === 'interactive' ? '' : ` (${l.source})`;
  return `• ${formatTimeIn(l.at, timeZone)} ${what}${via}: ${cost || 'no charge'}${l.failed ? ' · failed' : ''}`;
}

const HOW_TO = [
  ...SLASH_COMMANDS.map((c) => usageLine(c)),
  '`/platdesk usage [today|month]`, `/platdesk confirm under &lt;points&gt;`: your spend and confirmations',
];

function everyoneBlocks(data: HomeData): KnownBlock[] {
  return [
    header('platdesk'),
    section(
      'Look up waybills, items, shops and orders from the plat data service. Every charged lookup states its charge and waits for your Confirm.',
    ),
    section(`*Commands* (each answers \`help\`)\n${HOW_TO.join('\n')}`),
    section(
      '*Also*\n• Paste an item link: its preview offers `Look up` with the charge.\n• On any message, *More actions* → *Look up items*, *Look up waybills* or *Find shop*.\n• The shortcut *platdesk lookup* (⚡ menu) takes pasted text.',
    ),
    { type: 'divider' },
    header('Your spend'),
    fieldsSection([`*Today*\n${totalsText(data.today)}`, `*This month*\n${totalsText(data.month)}`]),
    ...(data.recent.length > 0
      ? packSections(
          data.recent.map((l) => lookupLine(l, data.timeZone)),
          { maxBlocks: 4, title: '*Your lookups, last 7 days*', more: (n) => `…and ${n} more` },
        )
      : [context('No lookups in the last 7 days.')]),
    ...(data.recentMore > 0 ? [context(`…and ${data.recentMore} more lookups in the last 7 days.`)] : []),
    // One zone for the whole Home (admin part included): the budget zone the caps count in.
    context(`Times, days and months are in ${escapeClip(data.timeZone, 60)}.`),
  ];
}

function describeAccess(p: AccessPolicy): string {
  if (p.mode === 'everyone') return 'Everyone in the workspace.';
  const who = [
    ...p.users.map((u) => `<@${u}>`),
    ...p.groups.map((g) => `<!subteam^${g}>`),
    ...p.channels.map((c) => `members in <#${c}>`),
  ];
  return `Only ${who.join(', ') || 'nobody listed'} (and admins).`;
}

function priceLine(line: QuoteLine, overrides: AdminHome['overrides']): string {
  const label = operationLabel(line);
  if (line.unit === 'quota') return `• ${label}: 1 call of the item quota`;
  const byEdition = overrides[line.operation];
  const override = byEdition ? (byEdition[String(line.edition)] ?? byEdition['*']) : undefined;
  const price =
    line.configuredPoints !== null
      ? `${formatPoints(line.configuredPoints)}${override !== undefined ? ' (set here)' : ''}`
      : 'not configured';
  const last = line.lastSeenPoints !== null ? `, last charged ${line.lastSeenPoints}` : '';
  return `• ${label}: ${price}${last}`;
}

function adminBlocks(a: AdminHome, now: Date, timeZone: string): KnownBlock[] {
  const r = a.report;
  const opLines = r.byOperation.map(
    (g) => `• ${isOperation(g.key) ? OPERATIONS[g.key].title : escapeClip(g.key, 40)}: ${totalsText(g)}`,
  );
  const userLines = r.byUser.map((g) => `• ${g.key ? `<@${g.key}>` : 'scheduled digests'}: ${totalsText(g)}`);
  const dayLines = [...r.byDay].reverse().map((g) => `• ${escapeClip(g.key, 10)}: ${totalsText(g)}`);
  const alertLines = [
    ...a.alerts.map(
      (al) =>
        `• ${formatTimeIn(al.at, timeZone)} ${escapeClip(al.detail.replace(/<@([UW][A-Z0-9]+)>/g, '@$1'), 400)}`,
    ),
    ...a.budgetAlerts.map((b) => `• ${escapeClip(b.day, 10)}: budget cap alert (${escapeClip(b.cap, 80)})`),
  ];
  const auto =
    a.autoLookup.length === 0
      ? 'None: every item link offers a Look up button.'
      : a.autoLookup
          .map((c) => `<#${c.channelId}>: up to ${c.cap} a day, ${c.usedToday} used today`)
          .join('\n');
  const overrideCount = Object.values(a.overrides).reduce((n, e) => n + Object.keys(e ?? {}).length, 0);

  const blocks: KnownBlock[] = [
    { type: 'divider' },
    header('Workspace spend, last 30 days'),
    section(`*Total:* ${totalsText(r.totals)}`),
    ...(userLines.length > 0
      ? packSections(userLines, {
          maxBlocks: 2,
          title: '*By user*',
          maxEntries: 20,
          more: (n) => `…and ${n} more users`,
        })
      : []),
    ...(opLines.length > 0
      ? packSections(opLines, { maxBlocks: 2, title: '*By operation*', more: (n) => `…and ${n} more` })
      : []),
    ...(dayLines.length > 0
      ? packSections(dayLines, {
          maxBlocks: 3,
          title: `*By day* (${escapeClip(timeZone, 60)}, newest first)`,
          more: (n) => `…and ${n} more days`,
        })
      : []),
    header('Alerts'),
    ...(alertLines.length > 0
      ? packSections(alertLines, { maxBlocks: 3, maxEntries: 15, more: (n) => `…and ${n} more` })
      : [context('No balance, token or budget alerts sent to admins.')]),
    header('Settings'),
    section(
      `*Who may spend*\n${describeAccess(a.access)}`,
      button({ label: 'Edit', actionId: ACTIONS.homeAccess, value: 'edit' }),
    ),
    section(
      `*Channels that look item links up automatically*\n${auto}`,
      button({ label: 'Edit', actionId: ACTIONS.homeAutoLookup, value: 'edit' }),
    ),
    section(
      `*Prices per call* (quotes use these; ${plural(overrideCount, 'price')} set here)\n${a.prices.map((l) => priceLine(l, a.overrides)).join('\n')}`,
      button({ label: 'Edit', actionId: ACTIONS.homePrices, value: 'edit' }),
    ),
    section(
      `*Digest subscriptions* (${a.digests.length})${a.digests.length === 0 ? '\nNone yet. Add one here or with `/orders digest add`.' : ''}`,
      button({ label: 'Add digest', actionId: ACTIONS.homeDigestAdd, value: 'add', style: 'primary' }),
    ),
  ];
  for (const d of a.digests.slice(0, 10))
    blocks.push(
      section(
        `• #${d.id} ${escapeClip(d.shopLabel, 64)} → <#${d.channelId}> at ${escapeClip(d.localTime, 5)} ${escapeClip(d.timeZone, 40)}`,
        {
          ...button({
            label: 'Remove',
            actionId: ACTIONS.homeDigestRemove,
            value: String(d.id),
            style: 'danger',
          }),
          action_id: homeDigestRemoveActionId(d.id),
        },
      ),
    );
  if (a.digests.length > 10)
    blocks.push(context(`…and ${a.digests.length - 10} more: \`/orders digest list\`.`));
  blocks.push(
    context(
      `Run digests with \`/orders digest run\`. Every change is recorded with who made it (\`/platdesk audit\`). Updated ${formatTimeIn(now, timeZone)}.`,
    ),
  );
  return blocks;
}

export function renderHome(data: HomeData, now: Date): HomeView {
  const blocks = [
    ...everyoneBlocks(data),
    ...(data.adminHome ? adminBlocks(data.adminHome, now, data.timeZone) : []),
  ];
  return { type: 'home', blocks: blocks.slice(0, SLACK_LIMITS.viewBlocks) };
}

// ---- settings forms --------------------------------------------------------------------------

export function renderAccessModal(current: AccessPolicy): ModalView {
  const f = HOME_FORMS.access;
  const everyone = { text: plain('Everyone in the workspace'), value: 'everyone' };
  const listed = { text: plain('Only the people, groups and channels below (and admins)'), value: 'listed' };
  return {
    type: 'modal',
    callback_id: f.callbackId,
    title: plain('Who may spend', 24),
    submit: plain('Save', 24),
    close: plain('Cancel', 24),
    blocks: [
      {
        type: 'input',
        block_id: f.mode.block,
        label: plain('Who may run charged lookups'),
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
        label: plain('People'),
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
        label: plain('Members of these channels'),
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
        label: plain('User group ids (S…), separated by spaces'),
        element: {
          type: 'plain_text_input',
          action_id: f.groups.action,
          max_length: 500,
          ...(current.groups.length > 0 ? { initial_value: current.groups.join(' ') } : {}),
        },
      },
      context('Admins may always spend. The change is recorded with your name.'),
    ],
  };
}

export function renderAutoLookupModal(channels: { channelId: string; cap: number }[]): ModalView {
  const f = HOME_FORMS.autoLookup;
  const on = { text: plain('On: look item links up automatically'), value: 'on' };
  const off = { text: plain('Off: offer a Look up button'), value: 'off' };
  const list =
    channels.length > 0
      ? channels.map((c) => `• <#${c.channelId}>: up to ${c.cap} a day`).join('\n')
      : 'No channel looks item links up automatically.';
  return {
    type: 'modal',
    callback_id: f.callbackId,
    title: plain('Auto-lookup', 24),
    submit: plain('Save', 24),
    close: plain('Cancel', 24),
    blocks: [
      section(`*Now*\n${list}`),
      {
        type: 'input',
        block_id: f.channel.block,
        label: plain('Channel'),
        element: {
          type: 'conversations_select',
          action_id: f.channel.action,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
        },
      },
      {
        type: 'input',
        block_id: f.mode.block,
        label: plain('Item links posted there'),
        element: { type: 'radio_buttons', action_id: f.mode.action, options: [on, off], initial_option: on },
      },
      {
        type: 'input',
        block_id: f.cap.block,
        optional: true,
        label: plain('Automatic lookups a day, at most'),
        element: {
          type: 'number_input',
          action_id: f.cap.action,
          is_decimal_allowed: false,
          min_value: '1',
          max_value: String(MAX_AUTO_CAP),
          initial_value: String(DEFAULT_AUTO_CAP),
        },
      },
      context(
        'Each automatic lookup is charged like a confirmed one (to the person who posted the link) and the unfurl says so. The same item in the same channel is looked up at most once in 30 minutes.',
      ),
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

export function renderPricesModal(lines: QuoteLine[], overrides: AdminHome['overrides']): ModalView {
  const f = HOME_FORMS.prices;
  const options: PlainTextOption[] = [];
  for (const op of OPERATION_NAMES) {
    if (OPERATIONS[op].charge === 'quota') continue;
    const editions = Object.keys(OPERATIONS[op].editions).map(Number);
    if (editions.length === 0)
      options.push({ text: plain(OPERATIONS[op].title), value: priceOptionValue(op, null) });
    for (const e of editions)
      options.push({
        text: plain(`${OPERATIONS[op].title} (${editionName(op, e) ?? e})`),
        value: priceOptionValue(op, e),
      });
  }
  const set = Object.entries(overrides).flatMap(([op, byEdition]) =>
    Object.entries(byEdition ?? {}).map(([e, points]) => {
      const operation = op as Operation;
      const name = e === '*' ? null : editionName(operation, Number(e));
      return `• ${OPERATIONS[operation].title}${name ? ` (${name})` : ''}: ${formatPoints(points)}`;
    }),
  );
  return {
    type: 'modal',
    callback_id: f.callbackId,
    title: plain('Prices', 24),
    submit: plain('Save', 24),
    close: plain('Cancel', 24),
    blocks: [
      section(`*Quoted now*\n${lines.map((l) => priceLine(l, overrides)).join('\n')}`),
      section(
        `*Set here*\n${set.length > 0 ? set.join('\n') : 'Nothing: the prices come from PLAT_PRICES and the last charges seen.'}`,
      ),
      {
        type: 'input',
        block_id: f.operation.block,
        label: plain('Operation and edition'),
        element: { type: 'static_select', action_id: f.operation.action, options },
      },
      {
        type: 'input',
        block_id: f.points.block,
        optional: true,
        label: plain('Points per call (empty: remove the price set here)'),
        element: {
          type: 'number_input',
          action_id: f.points.action,
          is_decimal_allowed: true,
          min_value: '0',
          max_value: '100000',
        },
      },
      context('1 point = ¥0.01. Item details and prices use the item quota and have no price in points.'),
    ],
  };
}
