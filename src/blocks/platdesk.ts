/**
 * Answers of `/platdesk`: help, spend reports, settings and the ledger export's CSV, worded from
 * the data lookups/platdesk-command.ts returns. Mentions of validated ids are intended.
 */
import type { KnownBlock, TableBlock } from '@slack/types';
import type { McpCommandResult } from '../lookups/mcp-tokens.js';
import type { PlatdeskProblem, PlatdeskResult } from '../lookups/platdesk-command.js';
import { ledgerCsv, type UsageReport } from '../lookups/reports.js';
import type { Budgets, Caps } from '../lookups/settings.js';
import type { AutoLookupView } from '../lookups/unfurls.js';
import { isOperation, OPERATION_NAMES } from '../plat/operations.js';
import type { LedgerEntry } from '../store/store.js';
import type { TKey, Words } from './i18n/words.js';
import { context, header, message, type RenderedMessage, section } from './kit.js';
import { packSections } from './limits.js';
import { renderMcpResult } from './mcp.js';
import { stepApprovalLines } from './steps.js';
import { tableBlocks } from './table.js';
import { escapeClip, escapeText } from './text.js';
import { operationTitle } from './words-of.js';

const HELP_ALL: TKey[] = [
  'platdesk.help.lookups',
  'platdesk.help.usage',
  'platdesk.help.confirm',
  'platdesk.help.language',
  'mcp.help',
];
const HELP_ADMIN: TKey[] = [
  'platdesk.helpAdmin.usage',
  'platdesk.helpAdmin.export',
  'platdesk.helpAdmin.access',
  'platdesk.helpAdmin.budget',
  'platdesk.helpAdmin.shop',
  'platdesk.helpAdmin.cache',
  'platdesk.helpAdmin.digestCap',
  'platdesk.helpAdmin.autolookup',
  'platdesk.helpAdmin.language',
  'platdesk.helpAdmin.admins',
  'platdesk.helpAdmin.steps',
  'mcp.helpAdmin',
];

const AUDIT_ACTIONS = {
  'settings.set': 'platdesk.auditAction.settings_set',
  'settings.delete': 'platdesk.auditAction.settings_delete',
  'plat_account.set': 'platdesk.auditAction.plat_account_set',
  'workspace.erase_requested': 'platdesk.auditAction.workspace_erase_requested',
  alert: 'platdesk.auditAction.alert',
} as const satisfies Record<string, TKey>;

/** An audit record's action in words; one this version does not know stays a code, marked as one. */
function auditAction(w: Words, action: string): string {
  const key = (AUDIT_ACTIONS as Record<string, TKey>)[action];
  return key ? w.t(key) : `\`${escapeText(action.replace(/`/g, "'"))}\``;
}

/** "2026-11-20 14:03 UTC" (the audit log's own clock). */
const utc = (w: Words, d: Date) => `${w.dateTime(d, 'UTC')} UTC`;

/** Spend per operation with a total row: points, yuan, calls and item-quota calls, right-aligned. */
function operationTable(w: Words, r: UsageReport): TableBlock {
  const row = (name: string, g: { points: number; calls: number; quotaCalls: number }) => [
    name,
    w.count(g.points),
    w.yuan(g.points / 100),
    w.count(g.calls),
    w.count(g.quotaCalls),
  ];
  const rows = r.byOperation.map((g) => row(isOperation(g.key) ? operationTitle(w, g.key) : g.key, g));
  rows.push(row(w.t('table.total'), r.totals));
  const right = { align: 'right' } as const;
  const [table] = tableBlocks(
    [
      { header: w.t('table.operation'), wrap: true },
      { header: w.t('table.points'), ...right },
      { header: w.t('table.amount'), ...right },
      { header: w.t('table.calls'), ...right },
      { header: w.t('table.quotaCalls'), ...right },
    ],
    rows,
  );
  return table as TableBlock;
}

/** The spend report's fallback text: the title line and the per-operation lines. */
function usageText(w: Words, r: UsageReport): string {
  const calls = (n: number) => w.t('common.calls', { count: n, n: w.count(n) });
  const lines = r.byOperation.map((g) => {
    const values = {
      operation: isOperation(g.key) ? operationTitle(w, g.key) : escapeClip(g.key, 40),
      points: w.points(g.points),
      calls: calls(g.calls),
      quota: w.count(g.quotaCalls),
    };
    return g.quotaCalls > 0
      ? w.t('platdesk.operationLineQuota', values)
      : w.t('platdesk.operationLine', values);
  });
  return [w.t('platdesk.spendFallback'), ...lines].join('\n');
}

function usageBlocks(w: Words, r: UsageReport): KnownBlock[] {
  const { t } = w;
  const whose = r.userId ? `<@${r.userId}>` : t('platdesk.workspace');
  const period = t(`platdesk.period.${r.period}`);
  const calls = (n: number) => t('common.calls', { count: n, n: w.count(n) });
  const users = r.byUser.map((g) =>
    t('platdesk.userLine', {
      who: g.key ? `<@${g.key}>` : t('platdesk.scheduledDigests'),
      points: w.points(g.points),
      calls: calls(g.calls),
    }),
  );
  return [
    header(t('platdesk.spendTitle', { period })),
    section(
      t('platdesk.spendLine', {
        whose,
        period,
        points: w.points(r.totals.points),
        calls: t('platdesk.chargedCalls', { count: r.totals.calls, n: w.count(r.totals.calls) }),
        quota: t('platdesk.itemQuota', { count: r.totals.quotaCalls, n: w.count(r.totals.quotaCalls) }),
      }),
    ),
    // A heading only over entries: a personal report has no "By user", a quiet day no "By operation".
    // By operation as a table (issue 26): a handful of operations, one table; the lines stay in
    // the message's fallback text (usageText) for clients without tables.
    ...(r.byOperation.length > 0 ? [section(t('platdesk.byOperation')), operationTable(w, r)] : []),
    ...(users.length > 0
      ? packSections(users, {
          maxBlocks: 3,
          title: t('platdesk.byUser'),
          more: (n) => t('platdesk.moreUsers', { count: n, n: w.count(n) }),
        })
      : []),
    // The budget zone, as the caps count days and months (one zone per view).
    context(
      t('platdesk.fromLedger', {
        from: w.dateTime(r.from, r.timeZone),
        to: w.dateTime(r.to, r.timeZone),
        zone: escapeText(w.zone(r.timeZone)),
      }),
    ),
  ];
}

function describeProblem(w: Words, p: PlatdeskProblem): string {
  return w.t(`platdesk.problem.${p.code}`, { ...p.values });
}

function capText(w: Words, v: number | null): string {
  return v === null ? w.t('platdesk.noCap') : w.t('platdesk.capPoints', { n: w.count(v) });
}

function caps(w: Words, c: Caps) {
  return { daily: capText(w, c.daily), monthly: capText(w, c.monthly) };
}

/**
 * Every cap, one line each: the workspace, every user, each user and each channel with a cap of
 * its own (`/platdesk budget` and the App Home's settings list the same lines).
 */
export function budgetLines(w: Words, b: Budgets): string[] {
  const { t } = w;
  return [
    t('platdesk.budgetWorkspace', caps(w, b.workspace)),
    t('platdesk.budgetEachUser', caps(w, b.perUser)),
    ...Object.entries(b.users).map(([u, c]) => t('platdesk.budgetUser', { user: `<@${u}>`, ...caps(w, c) })),
    ...Object.entries(b.channels).map(([c, capsOf]) =>
      t('platdesk.budgetChannel', { channel: `<#${c}>`, ...caps(w, capsOf) }),
    ),
  ];
}

function autoLines(w: Words, view: AutoLookupView): string[] {
  const { t } = w;
  const changed = view.changed
    ? [
        view.changed.cap === null
          ? t('platdesk.autoOff', { channel: `<#${view.changed.channelId}>` })
          : t('platdesk.autoOn', { channel: `<#${view.changed.channelId}>`, cap: w.count(view.changed.cap) }),
      ]
    : [];
  const list =
    view.channels.length === 0
      ? [t('platdesk.autoNone')]
      : view.channels.map((c) =>
          t('platdesk.autoLine', {
            channel: `<#${c.channelId}>`,
            cap: w.count(c.cap),
            used: w.count(c.usedToday),
          }),
        );
  return [...changed, ...list];
}

/** A settings answer: a title and mrkdwn lines. */
function settings(w: Words, result: PlatdeskResult): { title: string; lines: string[] } | null {
  const { t } = w;
  switch (result.kind) {
    case 'confirm': {
      const lines =
        result.changed && result.threshold === null
          ? [t('platdesk.confirmAlways')]
          : result.changed
            ? [
                t('platdesk.confirmUnderSet', { points: w.count(result.threshold ?? 0) }),
                t('platdesk.confirmAgain'),
              ]
            : [
                result.threshold === null
                  ? t('platdesk.confirmDefault')
                  : t('platdesk.confirmUnder', { points: w.count(result.threshold) }),
                t('platdesk.confirmChange'),
              ];
      return { title: t('platdesk.confirmTitle'), lines };
    }
    case 'access': {
      const p = result.policy;
      const who = [
        ...p.users.map((u) => `<@${u}>`),
        ...p.groups.map((g) => `<!subteam^${g}>`),
        ...p.channels.map((c) => t('platdesk.membersIn', { channel: `<#${c}>` })),
      ];
      return {
        title: t('platdesk.accessTitle'),
        lines: [
          p.mode === 'everyone'
            ? t('platdesk.accessEveryone')
            : t('platdesk.accessOnly', { who: w.join(who) || t('platdesk.nobodyListed') }),
        ],
      };
    }
    case 'budgets': {
      return {
        title: t('platdesk.budgetsTitle'),
        lines: [
          ...budgetLines(w, result.budgets),
          t('platdesk.budgetZone', { zone: escapeText(w.zone(result.budgets.timezone)) }),
        ],
      };
    }
    case 'shops': {
      const r = result.registry;
      const shopLines = r.shops.map((s) => {
        const ids = [
          s.ownerId ? t('platdesk.shopOwner', { id: escapeText(s.ownerId) }) : null,
          s.shopId ? t('platdesk.shopShop', { id: escapeText(s.shopId) }) : null,
        ].filter((x): x is string => x !== null);
        const where =
          s.channels.length > 0 ? s.channels.map((c) => `<#${c}>`).join(' ') : t('platdesk.anyChannel');
        return t('platdesk.shopLine', {
          alias: escapeText(s.alias),
          ids: w.join(ids) || t('platdesk.noIds'),
          where,
        });
      });
      return {
        title: t('platdesk.shopsTitle'),
        lines: [
          ...(shopLines.length > 0 ? shopLines : [t('platdesk.noShops')]),
          r.registeredOnly ? t('platdesk.registeredOnly') : t('platdesk.unregisteredToo'),
        ],
      };
    }
    case 'cache':
      return {
        title: t('platdesk.cacheTitle'),
        lines: OPERATION_NAMES.map((op) =>
          t('platdesk.cacheLine', {
            operation: operationTitle(w, op),
            id: op,
            ttl:
              result.ttl[op] === 0
                ? t('platdesk.notCached')
                : t('platdesk.seconds', { n: w.count(result.ttl[op]) }),
          }),
        ),
      };
    case 'digest-cap':
      return {
        title: t('platdesk.digestCapTitle'),
        lines: [t('platdesk.digestCap', { points: w.count(result.points) }), t('platdesk.digestCapChange')],
      };
    case 'admins': {
      const list = w.join(result.admins.map((u) => `<@${u}>`));
      return {
        title: t('platdesk.adminsTitle'),
        lines: [
          t('platdesk.adminsLine', { admins: list || t('platdesk.adminsNone') }),
          ...(result.kept.length > 0
            ? [t('platdesk.adminsKept', { admins: w.join(result.kept.map((u) => `<@${u}>`)) })]
            : []),
        ],
      };
    }
    case 'audit':
      return {
        title: t('platdesk.auditTitle'),
        // The action in words; the detail is stored data (a setting and its JSON value), shown as
        // code: its & < > are escaped so it cannot mention or link anyone, and backticks dropped
        // so it cannot end the code span early.
        lines: result.records.map((a) =>
          t('platdesk.auditLine', {
            time: utc(w, a.at),
            actor: `<@${a.actorId}>`,
            action: auditAction(w, a.action),
            detail: `\`${escapeText(a.detail.replace(/`/g, "'"))}\``,
          }),
        ),
      };
    case 'autolookup':
      return { title: t('platdesk.autoTitle'), lines: autoLines(w, result.view) };
    case 'steps':
      return { title: t('platdesk.stepsTitle'), lines: stepApprovalLines(w, result.steps, result.changed) };
    case 'language': {
      const name = (l: 'en' | 'zh-CN') => t(`platdesk.languageName.${l}`);
      const workspace = name(result.workspace);
      const channel = `<#${result.channelId ?? ''}>`;
      const line =
        result.scope === 'workspace'
          ? t('platdesk.languageWorkspace', { language: workspace })
          : result.scope === 'channel'
            ? result.choice === null
              ? t('platdesk.languageChannelDefault', { channel, workspace })
              : t('platdesk.languageChannel', { channel, language: name(result.choice) })
            : result.choice === null
              ? t('platdesk.languageUserAuto', { workspace })
              : t('platdesk.languageUser', { language: name(result.choice) });
      return { title: t('platdesk.languageTitle'), lines: [line] };
    }
    default:
      return null;
  }
}

export function renderPlatdeskResult(w: Words, result: PlatdeskResult): RenderedMessage {
  const { t } = w;
  if (result.kind.startsWith('mcp-')) return renderMcpResult(w, result as McpCommandResult);
  const worded = settings(w, result);
  if (worded)
    return message(escapeText(worded.title), [
      section(t('platdesk.titleLine', { title: escapeClip(worded.title, 100) })),
      ...packSections(worded.lines, {
        maxBlocks: 20,
        more: (n) => t('common.more', { count: n, n: w.count(n) }),
      }),
    ]);
  switch (result.kind) {
    case 'help': {
      const lines = (result.admin ? [...HELP_ALL, ...HELP_ADMIN] : HELP_ALL).map((k) => t(k));
      return message(t('platdesk.helpFallback'), [
        header(t('platdesk.helpTitle')),
        section(lines.join('\n')),
      ]);
    }
    case 'usage':
      return message(usageText(w, result.report), usageBlocks(w, result.report));
    case 'export':
      return message(t('platdesk.exportFallback'), [
        section(
          t('platdesk.exportDone', { count: result.entries.length, n: w.count(result.entries.length) }),
        ),
      ]);
    case 'denied': {
      const text =
        result.reason === 'admin_only'
          ? t('platdesk.denied.admin_only', { subcommand: escapeClip(result.subcommand, 40) })
          : t('platdesk.denied.others_spend');
      return message(text, [section(t('platdesk.deniedLine', { text }))]);
    }
    case 'invalid':
      return message(t('platdesk.notUnderstood'), [
        section(
          t('platdesk.problemsLine', {
            text: result.problems.map((p) => escapeClip(describeProblem(w, p), 300)).join('\n'),
          }),
        ),
        context(t('platdesk.helpHint')),
      ]);
    default:
      throw new Error(`no words for /platdesk result ${result.kind}`);
  }
}

/** The ledger export as CSV, its header in the reader's language. */
export function renderLedgerCsv(w: Words, entries: Iterable<LedgerEntry>): string {
  return ledgerCsv(entries, (column) => w.t(`platdesk.csv.${column}`));
}
