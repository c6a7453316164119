/**
 * `/platdesk`: spend reports for everyone, the user's own confirmation preference, and the
 * admin settings (who may spend, budgets, the shop registry, cache lifetimes, admins). Every
 * change is stored (and audited with who made it) through the store's settings.
 */
import { digestCap, MAX_POINTS_SETTING } from '../digest/runner.js';
import { canonicalTimeZone, localDateOf } from '../digest/zoned-time.js';
import { isOperation, OPERATION_NAMES } from '../plat/operations.js';
import type { LedgerEntry, Store } from '../store/store.js';
import { ledgerCsv, type ReportPeriod, reportRange, type UsageReport, usageReport } from './reports.js';
import type { AccessPolicy, Budgets, RegisteredShop, SpendSettings } from './settings.js';
import { SETTING_KEYS } from './settings.js';
import { runAutoLookupCommand } from './unfurls.js';

export type PlatdeskResult =
  | { kind: 'help'; admin: boolean }
  | { kind: 'text'; title: string; lines: string[] }
  | { kind: 'usage'; report: UsageReport }
  | { kind: 'export'; filename: string; content: string; rows: number }
  | { kind: 'denied'; message: string }
  | { kind: 'invalid'; problems: string[] };

export interface PlatdeskContext {
  userId: string;
  isAdmin: (userId: string) => Promise<boolean>;
  /** Admins named in PLATDESK_ADMINS (cannot be removed from the app). */
  configuredAdmins: readonly string[];
  store: Store;
  settings: SpendSettings;
  now: Date;
}

/** Slack mentions in escaped command text: <@U…|name>, <!subteam^S…|@team>, <#C…|name>, or bare ids. */
export function mentions(tokens: readonly string[]) {
  const users: string[] = [];
  const groups: string[] = [];
  const channels: string[] = [];
  const unknown: string[] = [];
  for (const t of tokens) {
    const user = t.match(/^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$/) ?? t.match(/^([UW][A-Z0-9]{2,})$/);
    const group = t.match(/^<!subteam\^(S[A-Z0-9]+)(?:\|[^>]*)?>$/) ?? t.match(/^(S[A-Z0-9]{2,})$/);
    const channel = t.match(/^<#([CG][A-Z0-9]+)(?:\|[^>]*)?>$/) ?? t.match(/^([CG][A-Z0-9]{2,})$/);
    if (user?.[1]) users.push(user[1]);
    else if (group?.[1]) groups.push(group[1]);
    else if (channel?.[1]) channels.push(channel[1]);
    else unknown.push(t);
  }
  return { users, groups, channels, unknown };
}

const ADMIN_ONLY = new Set([
  'access',
  'budget',
  'shop',
  'shops',
  'cache',
  'admins',
  'audit',
  'export',
  'autolookup',
  'digest-cap',
]);

export async function runPlatdeskCommand(text: string, ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const tokens = text.trim().split(/\s+/).filter(Boolean);
  const [sub = 'help', ...rest] = tokens.map((t, i) => (i === 0 ? t.toLowerCase() : t));
  const admin = await ctx.isAdmin(ctx.userId);
  if (sub === 'help' || sub === '?') return { kind: 'help', admin };
  if (ADMIN_ONLY.has(sub) && !admin)
    return { kind: 'denied', message: `\`/platdesk ${sub}\` is for platdesk admins.` };
  switch (sub) {
    case 'usage':
      return usage(rest, ctx, admin);
    case 'export':
      return exportCsv(rest, ctx);
    case 'confirm':
      return confirmPreference(rest, ctx);
    case 'access':
      return access(rest, ctx);
    case 'budget':
      return budget(rest, ctx);
    case 'shop':
    case 'shops':
      return shops(sub, rest, ctx);
    case 'cache':
      return cache(rest, ctx);
    case 'admins':
      return admins(rest, ctx);
    case 'autolookup': {
      // Item links posted in these channels are looked up without asking, within a daily cap (issue 5).
      const [first, ...others] = rest;
      const channel = first ? (mentions([first]).channels[0] ?? null) : null;
      if (first && !channel) return { kind: 'invalid', problems: ['name the channel as #channel'] };
      return runAutoLookupCommand(
        { channelId: channel, rest: others },
        { store: ctx.store, spend: ctx.settings, userId: ctx.userId, now: ctx.now },
      );
    }
    case 'digest-cap':
      return digestCapCommand(rest, ctx);
    case 'audit':
      return {
        kind: 'text',
        title: 'Recent settings changes',
        // The detail is stored JSON: its & < > are escaped so it cannot mention or link anyone.
        lines: (await ctx.store.audit.list(20)).map(
          (a) =>
            `${a.at.toISOString().slice(0, 16).replace('T', ' ')} <@${a.actorId}> ${a.action}: ${a.detail.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}`,
        ),
      };
    default:
      return { kind: 'invalid', problems: [`unknown subcommand ${sub}`] };
  }
}

async function usage(rest: string[], ctx: PlatdeskContext, admin: boolean): Promise<PlatdeskResult> {
  let period: ReportPeriod = 'today';
  let userId: string | null = ctx.userId;
  for (const t of rest) {
    const lower = t.toLowerCase();
    if (lower === 'today' || lower === 'month') period = lower;
    else if (lower === 'all' || lower === 'workspace') userId = null;
    else if (lower === 'me') userId = ctx.userId;
    else {
      const m = mentions([t]);
      if (m.users[0]) userId = m.users[0];
      else return { kind: 'invalid', problems: [`usage takes today, month, me, all or a user, not ${t}`] };
    }
  }
  if (userId !== ctx.userId && !admin)
    return { kind: 'denied', message: 'Only admins can see the spend of others or of the workspace.' };
  const report = await usageReport(ctx.store, {
    period,
    userId,
    now: ctx.now,
    timeZone: (await ctx.settings.budgets()).timezone,
  });
  return { kind: 'usage', report };
}

async function exportCsv(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const arg = rest[0]?.toLowerCase() ?? 'month';
  const timeZone = (await ctx.settings.budgets()).timezone;
  let range: { from: Date; to: Date };
  let label: string;
  const ym = arg.match(/^(\d{4})-(\d{2})$/);
  if (ym) {
    const [y, m] = [Number(ym[1]), Number(ym[2])];
    if (m < 1 || m > 12) return { kind: 'invalid', problems: ['month must be YYYY-MM'] };
    // Mid-month of that month in the zone gives its month range.
    range = reportRange('month', new Date(Date.UTC(y, m - 1, 15)), timeZone);
    label = arg;
  } else if (arg === 'month' || arg === 'today' || arg === 'last30') {
    range = reportRange(arg, ctx.now, timeZone);
    // The month as the budget zone counts it (range.from in UTC is the day before east of Greenwich).
    label = arg === 'month' ? localMonth(ctx.now, timeZone) : arg;
  } else return { kind: 'invalid', problems: ['export takes month, today, last30 or YYYY-MM'] };
  const entries: LedgerEntry[] = [];
  for await (const entry of ctx.store.ledger.iterate(range)) entries.push(entry);
  return {
    kind: 'export',
    filename: `platdesk-ledger-${label}.csv`,
    content: await ledgerCsv(entries),
    rows: entries.length,
  };
}

/** "2026-11": the year and month of `at` in `timeZone`. */
function localMonth(at: Date, timeZone: string): string {
  return localDateOf(at.getTime(), timeZone).slice(0, 7);
}

async function confirmPreference(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const [mode, value] = rest.map((t) => t.toLowerCase());
  if (mode === 'always') {
    await ctx.store.prefs.setConfirmThreshold(ctx.userId, null);
    return {
      kind: 'text',
      title: 'Confirmations',
      lines: ['You will be asked to confirm every charged lookup.'],
    };
  }
  if (mode === 'under' && value !== undefined && /^\d{1,6}$/.test(value)) {
    await ctx.store.prefs.setConfirmThreshold(ctx.userId, Number(value));
    return {
      kind: 'text',
      title: 'Confirmations',
      lines: [
        `Lookups quoted under ${value} points run without asking; others (and lookups of unknown price) still ask.`,
        'Use `/platdesk confirm always` to be asked every time again.',
      ],
    };
  }
  const current = await ctx.store.prefs.getConfirmThreshold(ctx.userId);
  return {
    kind: 'text',
    title: 'Confirmations',
    lines: [
      current === null
        ? 'You are asked to confirm every charged lookup (the default).'
        : `Lookups under ${current} points run without asking.`,
      'Change it with `/platdesk confirm under <points>` or `/platdesk confirm always`.',
    ],
  };
}

function describeAccess(p: AccessPolicy): string[] {
  if (p.mode === 'everyone') return ['Everyone in the workspace may run charged lookups.'];
  const who = [
    ...p.users.map((u) => `<@${u}>`),
    ...p.groups.map((g) => `<!subteam^${g}>`),
    ...p.channels.map((c) => `members in <#${c}>`),
  ];
  return [`Only these may run charged lookups (and admins): ${who.join(', ') || 'nobody listed'}.`];
}

async function access(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const [mode, ...who] = rest;
  if (!mode)
    return { kind: 'text', title: 'Who may spend', lines: describeAccess(await ctx.settings.access()) };
  if (mode.toLowerCase() === 'everyone') {
    const policy: AccessPolicy = { mode: 'everyone', users: [], groups: [], channels: [] };
    await ctx.settings.setAccess(policy, ctx.userId);
    return { kind: 'text', title: 'Who may spend', lines: describeAccess(policy) };
  }
  if (mode.toLowerCase() === 'only') {
    const m = mentions(who);
    if (m.unknown.length > 0 || m.users.length + m.groups.length + m.channels.length === 0)
      return { kind: 'invalid', problems: ['access only takes @users, @user-groups and #channels'] };
    const policy: AccessPolicy = { mode: 'listed', users: m.users, groups: m.groups, channels: m.channels };
    await ctx.settings.setAccess(policy, ctx.userId);
    return { kind: 'text', title: 'Who may spend', lines: describeAccess(policy) };
  }
  return {
    kind: 'invalid',
    problems: ['access takes everyone, or only followed by @users, @groups, #channels'],
  };
}

function describeBudgets(b: Budgets): string[] {
  const cap = (v: number | null) => (v === null ? 'no cap' : `${v} points`);
  return [
    `Workspace: daily ${cap(b.workspace.daily)}, monthly ${cap(b.workspace.monthly)}`,
    `Each user: daily ${cap(b.perUser.daily)}, monthly ${cap(b.perUser.monthly)}`,
    ...Object.entries(b.users).map(([u, c]) => `<@${u}>: daily ${cap(c.daily)}, monthly ${cap(c.monthly)}`),
    `Days and months are counted in ${b.timezone}; a warning comes at 80 %.`,
  ];
}

async function budget(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const current = await ctx.settings.budgets();
  if (rest.length === 0) return { kind: 'text', title: 'Budgets', lines: describeBudgets(current) };
  if (rest[0]?.toLowerCase() === 'timezone') {
    const zone = rest[1] ?? '';
    if (canonicalTimeZone(zone) === null) {
      return { kind: 'invalid', problems: [`${zone || 'that'} is not a time zone (e.g. Asia/Shanghai)`] };
    }
    const next = { ...current, timezone: canonicalTimeZone(zone) ?? zone };
    await ctx.settings.setBudgets(next, ctx.userId);
    return { kind: 'text', title: 'Budgets', lines: describeBudgets(next) };
  }
  const [whoRaw = '', periodRaw = '', amountRaw = ''] = rest;
  const period = periodRaw.toLowerCase();
  if (period !== 'daily' && period !== 'monthly')
    return { kind: 'invalid', problems: ['budget <workspace|user|@user> <daily|monthly> <points|off>'] };
  const amount =
    amountRaw.toLowerCase() === 'off' ? null : /^\d{1,9}$/.test(amountRaw) ? Number(amountRaw) : undefined;
  if (amount === undefined)
    return { kind: 'invalid', problems: ['the cap must be a whole number of points, or off'] };
  const next: Budgets = structuredClone(current);
  const who = whoRaw.toLowerCase();
  if (who === 'workspace') next.workspace[period] = amount;
  else if (who === 'user' || who === 'users') next.perUser[period] = amount;
  else {
    const user = mentions([whoRaw]).users[0];
    if (!user) return { kind: 'invalid', problems: ['say workspace, user (every user) or an @user'] };
    next.users[user] = { ...(next.users[user] ?? { daily: null, monthly: null }), [period]: amount };
  }
  await ctx.settings.setBudgets(next, ctx.userId);
  return { kind: 'text', title: 'Budgets', lines: describeBudgets(next) };
}

function describeShop(s: RegisteredShop): string {
  const ids = [s.ownerId ? `owner ${s.ownerId}` : null, s.shopId ? `shop ${s.shopId}` : null]
    .filter(Boolean)
    .join(', ');
  const where = s.channels.length > 0 ? s.channels.map((c) => `<#${c}>`).join(' ') : 'any channel';
  return `*${s.alias}*: ${ids || 'no ids'}; ${where}`;
}

async function shops(sub: 'shop' | 'shops', rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const registry = await ctx.settings.shops();
  const list = () => ({
    kind: 'text' as const,
    title: 'Shops',
    lines: [
      ...(registry.shops.length > 0 ? registry.shops.map(describeShop) : ['No shops registered.']),
      registry.registeredOnly
        ? 'Only registered shops may be queried.'
        : 'Unregistered shops may be queried too.',
    ],
  });
  const [action = 'list', alias = '', ...options] = rest;
  if (sub === 'shops' && action.toLowerCase() === 'registered-only') {
    const on = alias.toLowerCase() === 'on';
    if (!['on', 'off'].includes(alias.toLowerCase()))
      return { kind: 'invalid', problems: ['shops registered-only on|off'] };
    registry.registeredOnly = on;
    await ctx.settings.setShops(registry, ctx.userId);
    return list();
  }
  if (sub === 'shops' || action.toLowerCase() === 'list') return list();
  if (action.toLowerCase() === 'remove') {
    const before = registry.shops.length;
    registry.shops = registry.shops.filter((s) => s.alias.toLowerCase() !== alias.toLowerCase());
    if (registry.shops.length === before) return { kind: 'invalid', problems: [`no shop ${alias}`] };
    await ctx.settings.setShops(registry, ctx.userId);
    return list();
  }
  if (action.toLowerCase() !== 'add') return { kind: 'invalid', problems: ['shop add|remove|list'] };
  if (!/^[\w.-]{1,40}$/.test(alias))
    return { kind: 'invalid', problems: ['alias: 1 to 40 letters, digits, . _ -'] };
  const shop: RegisteredShop = { alias, ownerId: null, shopId: null, channels: [] };
  const problems: string[] = [];
  for (const o of options) {
    const m = o.match(/^(owner|shop):([\w.:@-]{1,64})$/i);
    if (m?.[1]?.toLowerCase() === 'owner') shop.ownerId = m[2] ?? null;
    else if (m?.[1]?.toLowerCase() === 'shop') shop.shopId = m[2] ?? null;
    else {
      const c = mentions([o.replace(/^channels?:/i, '')]);
      if (c.channels[0]) shop.channels.push(c.channels[0]);
      else problems.push(`not understood: ${o}`);
    }
  }
  if (!shop.ownerId && !shop.shopId) problems.push('give owner:<owner id> and/or shop:<shop id>');
  if (problems.length > 0) return { kind: 'invalid', problems };
  registry.shops = [...registry.shops.filter((s) => s.alias.toLowerCase() !== alias.toLowerCase()), shop];
  await ctx.settings.setShops(registry, ctx.userId);
  return list();
}

async function cache(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const [operation = '', seconds = ''] = rest;
  if (operation) {
    if (!isOperation(operation) || !/^\d{1,7}$/.test(seconds))
      return {
        kind: 'invalid',
        problems: [`cache <operation> <seconds>; operations: ${OPERATION_NAMES.join(', ')}`],
      };
    const stored = (await ctx.store.settings.get<Record<string, number>>(SETTING_KEYS.cacheTtl)) ?? {};
    await ctx.settings.setCacheTtl({ ...stored, [operation]: Number(seconds) }, ctx.userId);
  }
  const ttl = await ctx.settings.cacheTtlS();
  return {
    kind: 'text',
    title: 'Cache lifetimes',
    lines: OPERATION_NAMES.map((op) => `${op}: ${ttl[op] === 0 ? 'not cached' : `${ttl[op]} s`}`),
  };
}

/** A digest estimated above this many points asks an admin before fetching (issue 6). */
async function digestCapCommand(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const [value] = rest;
  if (value !== undefined) {
    if (!/^\d{1,7}$/.test(value))
      return { kind: 'invalid', problems: ['digest-cap takes a whole number of points'] };
    await ctx.store.settings.set(MAX_POINTS_SETTING, Number(value), ctx.userId);
  }
  return {
    kind: 'text',
    title: 'Digest cost cap',
    lines: [
      `A digest estimated above ${await digestCap(ctx.store)} points asks an admin before fetching its orders.`,
      'Change it with `/platdesk digest-cap <points>`.',
    ],
  };
}

async function admins(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const stored = (await ctx.store.settings.get<string[]>(SETTING_KEYS.admins)) ?? [];
  const [action = '', ...who] = rest;
  const m = mentions(who);
  if (action === 'add' || action === 'remove') {
    if (m.users.length === 0) return { kind: 'invalid', problems: [`admins ${action} @user…`] };
    const next =
      action === 'add' ? [...new Set([...stored, ...m.users])] : stored.filter((u) => !m.users.includes(u));
    await ctx.store.settings.set(SETTING_KEYS.admins, next, ctx.userId);
    const kept = action === 'remove' ? m.users.filter((u) => ctx.configuredAdmins.includes(u)) : [];
    return {
      kind: 'text',
      title: 'Admins',
      lines: [
        `Admins: ${[...new Set([...ctx.configuredAdmins, ...next])].map((u) => `<@${u}>`).join(', ')}`,
        ...(kept.length > 0
          ? [`${kept.map((u) => `<@${u}>`).join(', ')} stay admins: they are set in PLATDESK_ADMINS.`]
          : []),
      ],
    };
  }
  return {
    kind: 'text',
    title: 'Admins',
    lines: [
      `Admins: ${[...new Set([...ctx.configuredAdmins, ...stored])].map((u) => `<@${u}>`).join(', ') || 'none'}`,
    ],
  };
}
