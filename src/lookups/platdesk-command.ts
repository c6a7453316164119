/**
 * `/platdesk`: spend reports for everyone, the user's own confirmation preference, and the
 * admin settings (who may spend, budgets, the shop registry, cache lifetimes, admins). Every
 * change is stored (and audited with who made it) through the store's settings.
 */
import { digestCap, MAX_POINTS_SETTING } from '../digest/runner.js';
import { isOperation, OPERATION_NAMES, type Operation } from '../plat/operations.js';
import type { AuditRecord, LedgerEntry, Store } from '../store/store.js';
import { capped, MAX_COMMAND_TEXT } from '../text-limits.js';
import { canonicalTimeZone, localDateOf } from '../zoned-time.js';
import { type Locale, type LocaleSettings, toLocale } from './locale.js';
import { type McpCommandResult, runMcpCommand } from './mcp-tokens.js';
import { type ReportPeriod, reportRange, type UsageReport, usageReport } from './reports.js';
import type { AccessPolicy, Budgets, RegisteredShop, ShopRegistry, SpendSettings } from './settings.js';
import { SETTING_KEYS } from './settings.js';
import { isStepId, type StepId, type StepsAdmin, type StepView } from './steps.js';
import { type AutoLookupView, runAutoLookupCommand } from './unfurls.js';

/** Why `/platdesk …` was not understood: a code and the values its sentence names (blocks/ words it). */
export interface PlatdeskProblem {
  code:
    | 'unknown_subcommand'
    | 'channel_mention'
    | 'usage_arg'
    | 'month_format'
    | 'export_arg'
    | 'access_only'
    | 'access_arg'
    | 'not_zone'
    | 'budget_usage'
    | 'budget_amount'
    | 'budget_who'
    | 'registered_only'
    | 'no_shop'
    | 'shop_usage'
    | 'alias'
    | 'not_understood'
    | 'shop_ids'
    | 'cache_usage'
    | 'digest_cap'
    | 'admins_usage'
    | 'autolookup_channel'
    | 'autolookup_usage'
    | 'autolookup_cap'
    | 'language_usage'
    | 'steps_usage'
    | 'steps_unknown';
  values?: Record<string, string | number>;
}

/** What `/platdesk` answers, as data; blocks/platdesk.ts words it in the person's language. */
export type PlatdeskResult =
  | McpCommandResult
  | { kind: 'help'; admin: boolean }
  | { kind: 'usage'; report: UsageReport }
  | { kind: 'export'; filename: string; entries: LedgerEntry[] }
  | { kind: 'denied'; reason: 'admin_only'; subcommand: string }
  | { kind: 'denied'; reason: 'others_spend' }
  | { kind: 'invalid'; problems: PlatdeskProblem[] }
  | { kind: 'confirm'; threshold: number | null; changed: boolean }
  | { kind: 'access'; policy: AccessPolicy }
  | { kind: 'budgets'; budgets: Budgets }
  | { kind: 'shops'; registry: ShopRegistry }
  | { kind: 'cache'; ttl: Record<Operation, number> }
  | { kind: 'digest-cap'; points: number }
  | { kind: 'admins'; admins: string[]; kept: string[] }
  | { kind: 'audit'; records: AuditRecord[] }
  | { kind: 'autolookup'; view: AutoLookupView }
  | { kind: 'steps'; steps: StepView[]; changed: StepId | null }
  | {
      kind: 'language';
      /** Whose language was shown or set: the person's, a channel's or the workspace default. */
      scope: 'user' | 'channel' | 'workspace';
      channelId?: string;
      /** The language chosen there; null: automatic (a person) or the workspace default (a channel). */
      choice: Locale | null;
      workspace: Locale;
      changed: boolean;
    };

const invalid = (
  code: PlatdeskProblem['code'],
  values?: Record<string, string | number>,
): PlatdeskResult => ({
  kind: 'invalid',
  problems: [values === undefined ? { code } : { code, values }],
});

export interface PlatdeskContext {
  userId: string;
  isAdmin: (userId: string) => Promise<boolean>;
  /** Admins named in PLATDESK_ADMINS (cannot be removed from the app). */
  configuredAdmins: readonly string[];
  store: Store;
  settings: SpendSettings;
  /** Language choices (`/platdesk language`). */
  locales: LocaleSettings;
  now: Date;
  /** Workflow steps' approvals and what one run of each costs (`/platdesk steps`). */
  steps: StepsAdmin;
  /** The MCP server's URL for `/platdesk mcp token` (PLATDESK_PUBLIC_URL + /mcp); null: not set. */
  mcpUrl?: string | null;
}

/** At most this many people, groups or channels are read from one command (issue 34 M3: bounded). */
export const MAX_MENTIONS = 500;

/** Slack mentions in escaped command text: <@U…|name>, <!subteam^S…|@team>, <#C…|name>, or bare ids. */
export function mentions(all: readonly string[]) {
  const tokens = all.slice(0, MAX_MENTIONS);
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
  'steps',
]);

/**
 * `/platdesk language #channel …` and `language workspace …` change what others read: admins only.
 * `workspace` in any case of letters (language() reads it so); channel ids are upper case.
 */
const adminLanguageScope = (first: string) =>
  first.toLowerCase() === 'workspace' || /^(<#|[CG][A-Z0-9]{2,})/.test(first);

export async function runPlatdeskCommand(text: string, ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const tokens = capped(text, MAX_COMMAND_TEXT).trim().split(/\s+/).filter(Boolean);
  const [sub = 'help', ...rest] = tokens.map((t, i) => (i === 0 ? t.toLowerCase() : t));
  const admin = await ctx.isAdmin(ctx.userId);
  if (sub === 'help' || sub === '?' || sub === '帮助') return { kind: 'help', admin };
  if (ADMIN_ONLY.has(sub) && !admin) return { kind: 'denied', reason: 'admin_only', subcommand: sub };
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
    case 'language':
      if (rest[0] && adminLanguageScope(rest[0]) && !admin)
        return { kind: 'denied', reason: 'admin_only', subcommand: 'language' };
      return language(rest, ctx);
    case 'autolookup': {
      // Item links posted in these channels are looked up without asking, within a daily cap (issue 5).
      const [first, ...others] = rest;
      const channel = first ? (mentions([first]).channels[0] ?? null) : null;
      if (first && !channel) return invalid('channel_mention');
      return runAutoLookupCommand(
        { channelId: channel, rest: others },
        { store: ctx.store, spend: ctx.settings, userId: ctx.userId, now: ctx.now },
      );
    }
    case 'digest-cap':
      return digestCapCommand(rest, ctx);
    case 'steps':
      return steps(rest, ctx);
    case 'audit':
      return { kind: 'audit', records: await ctx.store.audit.list(20) };
    case 'mcp':
      // Tokens for AI clients (issue 37): the original text, as a token name keeps its case.
      return runMcpCommand(
        rest,
        { userId: ctx.userId, admin, store: ctx.store, now: ctx.now, url: ctx.mcpUrl ?? null },
        (t) => mentions([t]).users[0] ?? null,
      );
    default:
      return invalid('unknown_subcommand', { subcommand: sub });
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
      else return invalid('usage_arg', { arg: t });
    }
  }
  if (userId !== ctx.userId && !admin) return { kind: 'denied', reason: 'others_spend' };
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
    if (m < 1 || m > 12) return invalid('month_format');
    // Mid-month of that month in the zone gives its month range.
    range = reportRange('month', new Date(Date.UTC(y, m - 1, 15)), timeZone);
    label = arg;
  } else if (arg === 'month' || arg === 'today' || arg === 'last30') {
    range = reportRange(arg, ctx.now, timeZone);
    // The month as the budget zone counts it (range.from in UTC is the day before east of Greenwich).
    label = arg === 'month' ? localMonth(ctx.now, timeZone) : arg;
  } else return invalid('export_arg');
  const entries: LedgerEntry[] = [];
  for await (const entry of ctx.store.ledger.iterate(range)) entries.push(entry);
  return { kind: 'export', filename: `platdesk-ledger-${label}.csv`, entries };
}

/** "2026-11": the year and month of `at` in `timeZone`. */
function localMonth(at: Date, timeZone: string): string {
  return localDateOf(at.getTime(), timeZone).slice(0, 7);
}

async function confirmPreference(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const [mode, value] = rest.map((t) => t.toLowerCase());
  if (mode === 'always') {
    await ctx.store.prefs.setConfirmThreshold(ctx.userId, null);
    return { kind: 'confirm', threshold: null, changed: true };
  }
  if (mode === 'under' && value !== undefined && /^\d{1,6}$/.test(value)) {
    await ctx.store.prefs.setConfirmThreshold(ctx.userId, Number(value));
    return { kind: 'confirm', threshold: Number(value), changed: true };
  }
  return {
    kind: 'confirm',
    threshold: await ctx.store.prefs.getConfirmThreshold(ctx.userId),
    changed: false,
  };
}

async function access(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const [mode, ...who] = rest;
  if (!mode) return { kind: 'access', policy: await ctx.settings.access() };
  if (mode.toLowerCase() === 'everyone') {
    const policy: AccessPolicy = { mode: 'everyone', users: [], groups: [], channels: [] };
    await ctx.settings.setAccess(policy, ctx.userId);
    return { kind: 'access', policy };
  }
  if (mode.toLowerCase() === 'only') {
    const m = mentions(who);
    if (m.unknown.length > 0 || m.users.length + m.groups.length + m.channels.length === 0)
      return invalid('access_only');
    const policy: AccessPolicy = { mode: 'listed', users: m.users, groups: m.groups, channels: m.channels };
    await ctx.settings.setAccess(policy, ctx.userId);
    return { kind: 'access', policy };
  }
  return invalid('access_arg');
}

async function budget(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const current = await ctx.settings.budgets();
  if (rest.length === 0) return { kind: 'budgets', budgets: current };
  if (rest[0]?.toLowerCase() === 'timezone') {
    const zone = rest[1] ?? '';
    if (canonicalTimeZone(zone) === null) {
      return invalid('not_zone', { zone });
    }
    const next = { ...current, timezone: canonicalTimeZone(zone) ?? zone };
    await ctx.settings.setBudgets(next, ctx.userId);
    return { kind: 'budgets', budgets: next };
  }
  const [whoRaw = '', periodRaw = '', amountRaw = ''] = rest;
  const period = periodRaw.toLowerCase();
  if (period !== 'daily' && period !== 'monthly') return invalid('budget_usage');
  const amount =
    amountRaw.toLowerCase() === 'off' ? null : /^\d{1,9}$/.test(amountRaw) ? Number(amountRaw) : undefined;
  if (amount === undefined) return invalid('budget_amount');
  const next: Budgets = structuredClone(current);
  const who = whoRaw.toLowerCase();
  const named = mentions([whoRaw]);
  const user = named.users[0];
  const channel = named.channels[0];
  if (who === 'workspace') next.workspace[period] = amount;
  else if (who === 'user' || who === 'users') next.perUser[period] = amount;
  else if (user)
    next.users[user] = { ...(next.users[user] ?? { daily: null, monthly: null }), [period]: amount };
  else if (channel) {
    const caps = { ...(next.channels[channel] ?? { daily: null, monthly: null }), [period]: amount };
    // A channel with no cap left is no channel cap at all (and is not listed).
    if (caps.daily === null && caps.monthly === null) delete next.channels[channel];
    else next.channels[channel] = caps;
  } else return invalid('budget_who');
  await ctx.settings.setBudgets(next, ctx.userId);
  return { kind: 'budgets', budgets: next };
}

async function shops(sub: 'shop' | 'shops', rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const registry = await ctx.settings.shops();
  const list = (): PlatdeskResult => ({ kind: 'shops', registry });
  const [action = 'list', alias = '', ...options] = rest;
  if (sub === 'shops' && action.toLowerCase() === 'registered-only') {
    const on = alias.toLowerCase() === 'on';
    if (!['on', 'off'].includes(alias.toLowerCase())) return invalid('registered_only');
    registry.registeredOnly = on;
    await ctx.settings.setShops(registry, ctx.userId);
    return list();
  }
  if (sub === 'shops' || action.toLowerCase() === 'list') return list();
  if (action.toLowerCase() === 'remove') {
    const before = registry.shops.length;
    registry.shops = registry.shops.filter((s) => s.alias.toLowerCase() !== alias.toLowerCase());
    if (registry.shops.length === before) return invalid('no_shop', { alias });
    await ctx.settings.setShops(registry, ctx.userId);
    return list();
  }
  if (action.toLowerCase() !== 'add') return invalid('shop_usage');
  if (!/^[\w.-]{1,40}$/.test(alias)) return invalid('alias');
  const shop: RegisteredShop = { alias, ownerId: null, shopId: null, channels: [] };
  const problems: PlatdeskProblem[] = [];
  for (const o of options) {
    const m = o.match(/^(owner|shop):([\w.:@-]{1,64})$/i);
    if (m?.[1]?.toLowerCase() === 'owner') shop.ownerId = m[2] ?? null;
    else if (m?.[1]?.toLowerCase() === 'shop') shop.shopId = m[2] ?? null;
    else {
      const c = mentions([o.replace(/^channels?:/i, '')]);
      if (c.channels[0]) shop.channels.push(c.channels[0]);
      else problems.push({ code: 'not_understood', values: { text: o } });
    }
  }
  if (!shop.ownerId && !shop.shopId) problems.push({ code: 'shop_ids' });
  if (problems.length > 0) return { kind: 'invalid', problems };
  registry.shops = [...registry.shops.filter((s) => s.alias.toLowerCase() !== alias.toLowerCase()), shop];
  await ctx.settings.setShops(registry, ctx.userId);
  return list();
}

async function cache(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const [operation = '', seconds = ''] = rest;
  if (operation) {
    if (!isOperation(operation) || !/^\d{1,7}$/.test(seconds))
      return invalid('cache_usage', { operations: OPERATION_NAMES.map((op) => `\`${op}\``).join(' ') });
    const stored = (await ctx.store.settings.get<Record<string, number>>(SETTING_KEYS.cacheTtl)) ?? {};
    await ctx.settings.setCacheTtl({ ...stored, [operation]: Number(seconds) }, ctx.userId);
  }
  return { kind: 'cache', ttl: await ctx.settings.cacheTtlS() };
}

/** A digest estimated above this many points asks an admin before fetching (issue 6). */
async function digestCapCommand(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const [value] = rest;
  if (value !== undefined) {
    if (!/^\d{1,7}$/.test(value)) return invalid('digest_cap');
    await ctx.store.settings.set(MAX_POINTS_SETTING, Number(value), ctx.userId);
  }
  return { kind: 'digest-cap', points: await digestCap(ctx.store) };
}

async function admins(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const stored = (await ctx.store.settings.get<string[]>(SETTING_KEYS.admins)) ?? [];
  const [action = '', ...who] = rest;
  const m = mentions(who);
  if (action === 'add' || action === 'remove') {
    if (m.users.length === 0) return invalid('admins_usage', { action });
    const next =
      action === 'add' ? [...new Set([...stored, ...m.users])] : stored.filter((u) => !m.users.includes(u));
    await ctx.store.settings.set(SETTING_KEYS.admins, next, ctx.userId);
    const kept = action === 'remove' ? m.users.filter((u) => ctx.configuredAdmins.includes(u)) : [];
    return { kind: 'admins', admins: [...new Set([...ctx.configuredAdmins, ...next])], kept };
  }
  return { kind: 'admins', admins: [...new Set([...ctx.configuredAdmins, ...stored])], kept: [] };
}

/**
 * `/platdesk language [zh-CN|en|auto]`: the person's own language (auto: their Slack language,
 * else the workspace default). Admins: `language #channel zh-CN|en|default` for what a channel
 * reads (digests, unfurls, public answers), `language workspace zh-CN|en` for the default.
 */
async function language(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const { locales } = ctx;
  const [first = '', second = ''] = rest;
  const base = { workspace: await locales.workspace() };
  if (first.toLowerCase() === 'workspace') {
    if (second === '') return { kind: 'language', scope: 'workspace', choice: null, changed: false, ...base };
    const locale = toLocale(second);
    if (!locale) return invalid('language_usage');
    await locales.setWorkspace(locale, ctx.userId);
    return { kind: 'language', scope: 'workspace', choice: null, changed: true, workspace: locale };
  }
  const channelId = first ? (mentions([first]).channels[0] ?? null) : null;
  if (channelId) {
    if (second === '')
      return {
        kind: 'language',
        scope: 'channel',
        channelId,
        choice: await locales.channel(channelId),
        changed: false,
        ...base,
      };
    const isDefault = /^(default|auto)$/i.test(second);
    const locale = toLocale(second);
    if (!isDefault && !locale) return invalid('language_usage');
    await locales.setChannel(channelId, locale, ctx.userId);
    return { kind: 'language', scope: 'channel', channelId, choice: locale, changed: true, ...base };
  }
  if (first === '')
    return {
      kind: 'language',
      scope: 'user',
      choice: await locales.user(ctx.userId),
      changed: false,
      ...base,
    };
  const isAuto = /^(auto|automatic|自动)$/i.test(first);
  const locale = toLocale(first);
  if ((!isAuto && !locale) || rest.length > 1) return invalid('language_usage');
  await locales.setUser(ctx.userId, locale);
  return { kind: 'language', scope: 'user', choice: locale, changed: true, ...base };
}

/**
 * `steps`: each workflow step with its price per run, its approval and its spend;
 * `steps approve <step> [daily|monthly <points|off>] [shops:<a,b>] [channels:<#c>,<#d>]` sets a
 * step's approved caps (as `budget` sets the workspace's) and what it is narrowed to (issue 34
 * H1: `shops:all`, `channels:all` lift a narrowing); `steps revoke <step>` withdraws the approval
 * (it spends nothing). An approval needs a cap: narrowing alone approves nothing.
 */
async function steps(rest: string[], ctx: PlatdeskContext): Promise<PlatdeskResult> {
  const view = async (changed: StepId | null): Promise<PlatdeskResult> => ({
    kind: 'steps',
    steps: await ctx.steps.view(ctx.now),
    changed,
  });
  if (rest.length === 0) return view(null);
  const [verbRaw = '', stepRaw = '', ...args] = rest;
  const verb = verbRaw.toLowerCase();
  const step = stepRaw.toLowerCase();
  if (verb !== 'approve' && verb !== 'revoke') return invalid('steps_usage');
  if (!isStepId(step)) return invalid('steps_unknown', { step });
  if (verb === 'revoke') {
    await ctx.steps.approvals.set(step, null, ctx.userId);
    return view(step);
  }
  const next = {
    daily: null,
    monthly: null,
    shops: [],
    channels: [],
    ...(await ctx.steps.approvals.get(step)),
  };
  if (args.length === 0) return invalid('steps_usage');
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const period = arg.toLowerCase();
    if (period === 'daily' || period === 'monthly') {
      const amountRaw = (args[++i] ?? '').toLowerCase();
      const amount = amountRaw === 'off' ? null : /^\d{1,9}$/.test(amountRaw) ? Number(amountRaw) : undefined;
      if (amount === undefined) return invalid('budget_amount');
      next[period] = amount;
      continue;
    }
    const list = /^(shops?|channels?):(.*)$/i.exec(arg);
    if (!list) return invalid('steps_usage');
    const items = (list[2] ?? '').split(',').filter(Boolean);
    const all = items.length === 1 && /^(all|any)$/i.test(items[0] ?? '');
    if (list[1]?.toLowerCase().startsWith('shop')) {
      // Only these steps look up a shop's orders or waybills; an item or a seller account names none.
      if (step !== 'orders_due' && step !== 'lookup_waybill') return invalid('steps_usage');
      if (!all && (items.length === 0 || !items.every((s) => /^[\w.:@-]{1,64}$/.test(s))))
        return invalid('steps_usage');
      next.shops = all ? [] : items;
    } else {
      const channels = items.map((c) => mentions([c]).channels[0]);
      if (!all && (channels.length === 0 || channels.some((c) => c === undefined)))
        return invalid('steps_usage');
      next.channels = all ? [] : (channels as string[]);
    }
  }
  if (next.daily === null && next.monthly === null) return invalid('steps_usage');
  await ctx.steps.approvals.set(step, next, ctx.userId);
  return view(step);
}
