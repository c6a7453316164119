/**
 * Answers of `/platdesk`: help, spend reports and settings. Text lines from
 * lookups/platdesk-command.ts are mrkdwn built from validated ids (mentions are intended).
 */
import type { PlatdeskResult } from '../lookups/platdesk-command.js';
import type { UsageReport } from '../lookups/reports.js';
import { isOperation, OPERATIONS } from '../plat/operations.js';
import { context, header, message, type RenderedMessage, section } from './kit.js';
import { packSections } from './limits.js';
import { escapeClip, escapeText, formatPoints, formatTimeIn, plural } from './text.js';

const HELP_ALL = [
  '`/platdesk usage [today|month]`: your spend',
  '`/platdesk confirm under <points>` / `/platdesk confirm always`: skip confirmations for cheap lookups, or not',
];
const HELP_ADMIN = [
  '`/platdesk usage [today|month] [all|@user]`: spend of the workspace or a user',
  '`/platdesk export [month|YYYY-MM|last30]`: the ledger as CSV, sent to you',
  '`/platdesk access everyone` / `/platdesk access only @user @group #channel`: who may spend',
  '`/platdesk budget <workspace|user|@user> <daily|monthly> <points|off>`, `/platdesk budget timezone <zone>`',
  '`/platdesk shop add <alias> owner:<id> shop:<id> [#channel…]`, `shop remove <alias>`, `shops`, `shops registered-only on|off`',
  '`/platdesk cache <operation> <seconds>`: how long answers are reused (0 = never)',
  '`/platdesk digest-cap <points>`: a daily digest estimated above this asks an admin first',
  '`/platdesk autolookup [#channel on [cap N] | #channel off]`: channels whose item links are looked up without asking, up to N a day',
  '`/platdesk admins [add|remove @user]`, `/platdesk audit`: admins and recent settings changes',
];

function usageBlocks(r: UsageReport) {
  const whose = r.userId ? `<@${r.userId}>` : 'the workspace';
  const period = r.period === 'today' ? 'today' : r.period === 'month' ? 'this month' : 'the last 30 days';
  const lines = r.byOperation.map(
    (g) =>
      `• ${isOperation(g.key) ? OPERATIONS[g.key].title : escapeClip(g.key, 40)}: ${formatPoints(g.points)}, ${plural(g.calls, 'call')}${g.quotaCalls > 0 ? `, ${g.quotaCalls} of the quota` : ''}`,
  );
  const users = r.byUser.map(
    (g) =>
      `• ${g.key ? `<@${g.key}>` : 'scheduled digests'}: ${formatPoints(g.points)}, ${plural(g.calls, 'call')}`,
  );
  return [
    header(`Spend ${period}`),
    section(
      `Spend of ${whose} ${period}: *${formatPoints(r.totals.points)}* in ${plural(r.totals.calls, 'call')} (charged or not), ${plural(r.totals.quotaCalls, 'call')} of the item quota.`,
    ),
    // A heading only over entries: a personal report has no "By user", a quiet day no "By operation".
    ...(lines.length > 0
      ? packSections(lines, { maxBlocks: 3, title: '*By operation*', more: (n) => `…and ${n} more` })
      : []),
    ...(users.length > 0
      ? packSections(users, { maxBlocks: 3, title: '*By user*', more: (n) => `…and ${n} more users` })
      : []),
    // The budget zone, as the caps count days and months (one zone per view).
    context(
      `From the ledger, ${formatTimeIn(r.from, r.timeZone)} to ${formatTimeIn(r.to, r.timeZone)} (${escapeText(r.timeZone)}).`,
    ),
  ];
}

export function renderPlatdeskResult(result: PlatdeskResult): RenderedMessage {
  switch (result.kind) {
    case 'help': {
      const lines = result.admin ? [...HELP_ALL, ...HELP_ADMIN] : HELP_ALL;
      return message('/platdesk help', [header('platdesk'), section(lines.join('\n'))]);
    }
    case 'text':
      return message(result.title, [
        section(`*${escapeClip(result.title, 100)}*`),
        ...packSections(result.lines, { maxBlocks: 20, more: (n) => `…and ${n} more` }),
      ]);
    case 'usage':
      return message('Spend report', usageBlocks(result.report));
    case 'export':
      return message('Ledger export', [
        section(
          `The ledger export (${plural(result.rows, 'row')}) is in your direct messages with platdesk.`,
        ),
      ]);
    case 'denied':
      return message(result.message, [section(`:lock: ${result.message}`)]);
    case 'invalid':
      return message('/platdesk: not understood', [
        section(`:warning: ${result.problems.map((p) => escapeClip(p, 300)).join('\n')}`),
        context('Type `/platdesk help` for the subcommands.'),
      ]);
  }
}
