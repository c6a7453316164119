/**
 * What the App Home shows (issue 5), read from the store: for everyone their own spend and
 * lookups; for admins the workspace's spend of the last 30 days, the alerts sent to admins, and
 * the settings they can change there. Pure reads: blocks/home.ts renders it.
 */

import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { PlatNoAccountError } from '../plat/errors.js';
import { isOperation, OPERATION_NAMES, type Operation } from '../plat/operations.js';
import type {
  AgentFeedback,
  AlertSubscription,
  CounterDifference,
  DigestSubscription,
  LedgerEntry,
  LedgerTotals,
  Store,
} from '../store/store.js';
import { localDateOf } from '../zoned-time.js';
import { type CapFigure, periodStarts } from './budgets.js';
import { BUDGET_ALERT_PREFIX, type LookupService } from './lookup-service.js';
import { mcpEnabled } from './mcp-tokens.js';
import type { PlatAccountStatus } from './plat-accounts.js';
import { type UsageReport, usageReport } from './reports.js';
import type { AccessPolicy, Budgets, PriceOverrides } from './settings.js';
import { createStepsAdmin, type StepView } from './steps.js';
import type { LookupRequest, Quote, QuoteLine } from './types.js';
import { autoLookupDay, autoLookupSettings } from './unfurls.js';

/** The audit action of an alert sent to the admins. */
export const ALERT_ACTION = 'alert';

export const HOME_RECENT_DAYS = 7;
export const HOME_RECENT_MAX = 15;

export interface HomeLookupLine {
  at: Date;
  /** What was looked up (the pending lookup's request), when it is still kept. */
  request: LookupRequest | null;
  operations: Operation[];
  points: number;
  quotaCalls: number;
  failed: boolean;
  source: LedgerEntry['source'];
}

export interface AdminHome {
  report: UsageReport;
  alerts: { at: Date; alert: AdminAlert | null; text: string }[];
  /** Budget caps the admins were told about, with the day (the store's alerts sent). */
  budgetAlerts: { cap: string; day: string }[];
  access: AccessPolicy;
  autoLookup: { channelId: string; cap: number; usedToday: number }[];
  /** The price each operation is quoted at now, for its configured edition. */
  prices: QuoteLine[];
  overrides: PriceOverrides;
  digests: DigestSubscription[];
  /** Ship-by alerts with the points each spent today (its own zone's day). */
  shipAlerts: { subscription: AlertSubscription; spentToday: number }[];
  /** Workflow steps with their price per run, approval and spend (issue 25). */
  steps: StepView[];
  /** The workspace's daily cap in points (the spend chart's line); null when none is set. */
  dailyCap: number | null;
  /** Every cap: workspace, per user, each user's and each channel's (the settings list them). */
  budgets: Budgets;
  /** Votes on the agent's answers in the last 30 days, and the newest few (issue 36). */
  agentFeedback: { good: number; bad: number; recent: AgentFeedback[] };
  /** What the agent's plans were charged in the last 30 days, as the ledger holds it (source 'agent'). */
  agentSpend: LedgerTotals;
}

export interface HomeData {
  userId: string;
  admin: boolean;
  timeZone: string;
  today: LedgerTotals;
  month: LedgerTotals;
  recent: HomeLookupLine[];
  /** Lookups of the last 7 days not listed. */
  recentMore: number;
  adminHome: AdminHome | null;
  /** Whether AI clients (MCP) are on here: the Home offers "Connect an AI client" only then. */
  mcpEnabled: boolean;
  /** Distributed mode: the workspace's plat account (lookups/plat-accounts.ts); admins see it all, members only 'none'. */
  platAccount?: PlatAccountStatus;
}

/** One representative request per operation, to read its current quote line. */
const SAMPLE_REQUESTS: LookupRequest[] = [
  { kind: 'waybill-print', shopId: 'sample', waybills: [{ waybillCode: 'SF0000000000000', carrier: 'SF' }] },
  { kind: 'item', itemId: '0', withPrices: true },
  { kind: 'shop-info', url: 'https://item.taobao.com/item.htm?id=0', shopType: '0' },
  { kind: 'shop-id', wwid: 'sample' },
  { kind: 'waybill-info', ownerId: 'sample', waybills: [{ waybillCode: 'SF0000000000000', carrier: 'SF' }] },
  { kind: 'orders', ownerId: 'sample', page: 0, pageSize: 20, filters: {} },
];

/** The quote line of each operation; none while the workspace has no plat account. */
export async function currentPrices(lookups: Pick<LookupService, 'quote'>): Promise<QuoteLine[]> {
  let quotes: Quote[];
  try {
    quotes = await Promise.all(SAMPLE_REQUESTS.map((r) => lookups.quote(r)));
  } catch (error) {
    if (error instanceof PlatNoAccountError) return [];
    throw error;
  }
  const lines = quotes.flatMap((q) => q.lines);
  return OPERATION_NAMES.map((op) => lines.find((l) => l.operation === op)).filter(
    (l): l is QuoteLine => l !== undefined,
  );
}

/** Ledger rows (one per call) grouped into lookups by their pending lookup, newest first. */
async function lookupLines(store: Store, entries: LedgerEntry[]): Promise<HomeLookupLine[]> {
  const byKey = new Map<string, HomeLookupLine>();
  for (const e of entries) {
    const key = e.pendingId ?? `call:${e.id}`;
    let line = byKey.get(key);
    if (!line) {
      line = {
        at: e.at,
        request: e.pendingId
          ? ((await store.pending.get<LookupRequest, unknown>(e.pendingId))?.request ?? null)
          : null,
        operations: [],
        points: 0,
        quotaCalls: 0,
        failed: false,
        source: e.source,
      };
      byKey.set(key, line);
    }
    if (isOperation(e.operation) && !line.operations.includes(e.operation)) line.operations.push(e.operation);
    line.points += e.points;
    line.quotaCalls += e.quotaCalls;
    if (e.outcome === 'error') line.failed = true;
  }
  return [...byKey.values()];
}

export async function homeData(
  deps: { store: Store; lookups: LookupService; isAdmin: (userId: string) => Promise<boolean> },
  userId: string,
  now: Date,
): Promise<HomeData> {
  const { store, lookups } = deps;
  const budgets = await lookups.settings.budgets();
  const timeZone = budgets.timezone;
  const admin = await deps.isAdmin(userId);
  const mine = async (period: 'today' | 'month') =>
    (await usageReport(store, { period, userId, now, timeZone })).totals;
  const to = periodStarts(now, timeZone).nextDay;
  const entries = await store.ledger.list({
    from: new Date(now.getTime() - HOME_RECENT_DAYS * 86_400_000),
    to,
    userId,
    limit: 500,
  });
  const lines = await lookupLines(store, entries);

  let adminHome: AdminHome | null = null;
  if (admin) {
    const day = await autoLookupDay(now, lookups.settings);
    const channels = (await autoLookupSettings(store.settings).get()).channels;
    adminHome = {
      report: await usageReport(store, { period: 'last30', userId: null, now, timeZone }),
      alerts: (await store.audit.list(10, { action: ALERT_ACTION })).map((a) => ({
        at: a.at,
        alert: parseAlert(a.detail),
        text: a.detail,
      })),
      budgetAlerts: (await store.alertsSent.recent(BUDGET_ALERT_PREFIX, 10)).map(({ key }) => {
        const [at = '', cap = key] = key.slice(BUDGET_ALERT_PREFIX.length).split('|');
        // The key holds the instant the local day began: its date in the zone, not in UTC.
        const ms = Date.parse(at);
        return { cap, day: Number.isNaN(ms) ? at.slice(0, 10) : localDateOf(ms, timeZone) };
      }),
      access: await lookups.settings.access(),
      autoLookup: await Promise.all(
        Object.entries(channels).map(async ([channelId, { cap }]) => ({
          channelId,
          cap,
          usedToday: await store.unfurls.autoUsed(channelId, day),
        })),
      ),
      prices: await currentPrices(lookups),
      overrides: await lookups.settings.priceOverrides(),
      steps: await createStepsAdmin({ lookups, store }).view(now),
      digests: await store.digests.list(),
      dailyCap: budgets.workspace.daily,
      budgets,
      agentFeedback: await store.agent.feedback(new Date(now.getTime() - 30 * 86_400_000), 5),
      agentSpend: await store.ledger.totals({
        from: new Date(now.getTime() - 30 * 86_400_000),
        to: new Date(now.getTime() + 1),
        source: 'agent',
      }),
      shipAlerts: await Promise.all(
        (await store.alerts.list()).map(async (subscription) => ({
          subscription,
          spentToday: await store.alerts.spentOn(
            subscription.id,
            localDateOf(now.getTime(), subscription.timeZone),
          ),
        })),
      ),
    };
  }
  return {
    userId,
    admin,
    timeZone,
    today: await mine('today'),
    month: await mine('month'),
    recent: lines.slice(0, HOME_RECENT_MAX),
    recentMore: Math.max(0, lines.length - HOME_RECENT_MAX),
    adminHome,
    mcpEnabled: await mcpEnabled(store.settings),
  };
}

/**
 * An alert sent to the admins, as data: each admin reads it in their language, and the App Home
 * words it again for whoever opens it.
 */
export type AdminAlert =
  | { kind: 'account'; code: 'credential_invalid' | 'quota_exhausted'; userId: string | null }
  | { kind: 'budget'; figure: CapFigure; userId: string | null; refused: boolean }
  /** The nightly reconciliation (reconcile.ts): `count` running totals differ from the ledger. */
  | { kind: 'spend-totals'; day: string; count: number; sample: CounterDifference[] }
  /** A charge the store refused for good, set aside (store/ledger.ts PARK_AFTER_REFUSALS). */
  | { kind: 'charge-parked'; chargeId: string; operation: string; points: number; at: string }
  /** Someone who is not an admin installed platdesk again (tenancy.ts afterInstall): no admin was added. */
  | { kind: 'reinstalled'; userId: string };

const ALERT_SCHEMA = lazySchema(() =>
  z.union([
    z.object({
      kind: z.literal('account'),
      code: z.enum(['credential_invalid', 'quota_exhausted']),
      userId: z.string().nullable(),
    }),
    z.object({
      kind: z.literal('budget'),
      figure: z
        .object({
          scope: z.enum(['user', 'workspace', 'channel']),
          channelId: z.string().optional(),
          period: z.enum(['daily', 'monthly']),
          cap: z.number(),
          spent: z.number(),
        })
        // exactOptionalPropertyTypes: a figure without a channel has no channelId key at all.
        .transform(({ channelId, ...figure }) =>
          channelId === undefined ? figure : { ...figure, channelId },
        ),
      userId: z.string().nullable(),
      refused: z.boolean(),
    }),
    z.object({ kind: z.literal('reinstalled'), userId: z.string() }),
    z.object({
      kind: z.literal('spend-totals'),
      day: z.string(),
      count: z.number(),
      sample: z.array(
        z.object({
          scope: z.enum(['user', 'channel', 'workspace']),
          subject: z.string(),
          period: z.enum(['daily', 'monthly']),
          key: z.string(),
          field: z.enum(['spent', 'reserved']),
          counter: z.number(),
          expected: z.number(),
        }),
      ),
    }),
    z.object({
      kind: z.literal('charge-parked'),
      chargeId: z.string(),
      operation: z.string(),
      points: z.number(),
      at: z.string(),
    }),
  ]),
);

/** The alert a record holds; null for a record written before alerts were kept as data. */
export function parseAlert(detail: string): AdminAlert | null {
  try {
    const parsed = ALERT_SCHEMA.safeParse(JSON.parse(detail));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Records an alert sent to the admins, so the App Home can show the recent ones. */
export function recordAlert(store: Store, alert: AdminAlert): Promise<void> {
  return store.audit.record({ actorId: 'platdesk', action: ALERT_ACTION, detail: JSON.stringify(alert) });
}
