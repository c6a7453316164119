/**
 * Every renderer of src/blocks, each with realistic and with extreme data, for any language:
 * test/blocks/i18n.test.ts renders the set in English, Chinese and a pseudo-locale and checks it
 * against Slack's limits, the Block Kit schema and the catalog.
 *
 * `texts` is the foreign text put into the messages (titles, names, remarks): hostile and long for
 * the limit checks, plain Chinese for the pseudo-locale (whose check must tell data from words).
 */

import type { HomeView, KnownBlock, ModalView } from '@slack/types';
import type { PlanRecord, PlanRecordStep } from '../../src/agent/plans.js';
import { renderAdminOnlyButton } from '../../src/blocks/admin-only.js';
import {
  renderAgentNotice,
  renderPlanClosedLate,
  renderPlanCutOff,
  renderPlanNotRun,
  renderRunSummary,
} from '../../src/blocks/agent.js';
import {
  renderAlert,
  renderAlertApproval,
  renderAlertFailure,
  renderAlertHelp,
  renderAlertList,
  renderAlertReminder,
  renderAlertUnverified,
  renderClaimRefusal,
} from '../../src/blocks/alerts.js';
import {
  renderConfirmation,
  renderConfirmationClosed,
  renderInterrupted,
} from '../../src/blocks/confirmation.js';
import {
  digestAddedText,
  digestCostLine,
  renderDigest,
  renderDigestAdded,
  renderDigestAlert,
  renderDigestApproval,
  renderDigestHelp,
  renderDigestList,
  renderDigestNotice,
  renderDigestProgress,
  renderDigestRerunQuestion,
  renderDigestThread,
} from '../../src/blocks/digest.js';
import { renderPlatError } from '../../src/blocks/errors.js';
import { renderHelp, SLASH_COMMANDS } from '../../src/blocks/help.js';
import {
  alertText,
  renderAccessModal,
  renderAutoLookupModal,
  renderHome,
  renderPricesModal,
} from '../../src/blocks/home.js';
import { renderAlertAddModal } from '../../src/blocks/home-alert-form.js';
import { renderDigestAddedModal, renderDigestAddModal } from '../../src/blocks/home-digest-form.js';
import type { Words } from '../../src/blocks/i18n/words.js';
import { renderInvalidInput } from '../../src/blocks/invalid-input.js';
import { type RenderedMessage, section } from '../../src/blocks/kit.js';
import { renderOrdersForm } from '../../src/blocks/orders-form.js';
import { renderOutcome } from '../../src/blocks/outcome.js';
import { renderPlatdeskResult } from '../../src/blocks/platdesk.js';
import {
  nothingFoundText,
  renderChooseModal,
  renderNothingFound,
  renderTextModal,
  shortcutClosedText,
} from '../../src/blocks/shortcut.js';
import { renderRefusal, withRefreshButton } from '../../src/blocks/spend.js';
import { renderEarlierAnswer, renderUnfurl } from '../../src/blocks/unfurl.js';
import { describeDigestProblem } from '../../src/blocks/words-of.js';
import { spendChartAlt, spendChartData } from '../../src/charts/spend-days.js';
import { summarize } from '../../src/digest/summarize.js';
import type { AdminHome, HomeData } from '../../src/lookups/home-data.js';
import { parseOrdersCommand, parseWaybillCommand } from '../../src/lookups/parse/command-text.js';
import type { Problem } from '../../src/lookups/parse/problems.js';
import type { PlatdeskResult } from '../../src/lookups/platdesk-command.js';
import { budgetsSchema } from '../../src/lookups/settings.js';
import { STEP_IDS } from '../../src/lookups/steps.js';
import type { LookupOutcome, LookupRequest, Pending } from '../../src/lookups/types.js';
import { PlatBudgetError, PlatShopUnauthorizedError } from '../../src/plat/errors.js';
import type { Order } from '../../src/plat/types.js';
import type {
  AlertCheck,
  AlertOrder,
  AlertSubscription,
  DigestSubscription,
  LedgerEntry,
} from '../../src/store/store.js';
import {
  allPlatErrors,
  HOUR,
  ITEM_ID,
  makeAlertSubscription,
  makeDigestRun,
  makeItem,
  makeItemPrices,
  makeOrder,
  makeOrdersOutcome,
  makeQuote,
  makeQuoteLine,
  makeShopInfo,
  makeSku,
  makeWaybillInfoRecord,
  makeWaybillPrintOutcome,
  NOW,
  OWNER_ID,
  PENDING_ID,
} from '../helpers/domain-factories.js';
import { HOSTILE } from './render-fixtures.js';

export type Rendered = RenderedMessage | ModalView | HomeView;

export interface Render {
  name: string;
  payload: Rendered;
  surface: 'message' | 'modal' | 'home';
}

/** The foreign text a render set carries. */
export interface ForeignText {
  /** An item or shop title. */
  title: string;
  /** A person-written remark or note. */
  remark: string;
  /** An account id, alias or other short value a user typed. */
  short: string;
  /** Long lists (300 SKUs, 100 orders…) instead of a few entries. */
  extreme: boolean;
}

export const EXTREME_TEXT: ForeignText = {
  title: `${HOSTILE} ${'亚麻 Linen & <cotton> 长标题'.repeat(200)}`.slice(0, 5000),
  remark: `${HOSTILE} ${'remark 备注 '.repeat(200)}`,
  short: `${HOSTILE}${'x'.repeat(100)}`,
  extreme: true,
};

export const REALISTIC_TEXT: ForeignText = {
  title: '夏季新款亚麻衬衫 男士宽松短袖',
  remark: '请尽快发货，送人用，包装好一点',
  short: '蜂蜜服饰旗舰店',
  extreme: false,
};

const message = (text: string): RenderedMessage => ({ text, blocks: [section(text)] });
const m = (name: string, payload: RenderedMessage): Render => ({ name, payload, surface: 'message' });
const modal = (name: string, payload: ModalView): Render => ({ name, payload, surface: 'modal' });

const SUB: DigestSubscription = {
  id: 7,
  tenantId: '',
  ownerId: '2200001002',
  shopLabel: '蜂蜜',
  channelId: 'C1234',
  localTime: '09:00',
  timeZone: 'Asia/Shanghai',
  createdBy: 'UADMIN',
  createdAt: NOW,
  times: ['09:00'],
  days: null,
  layout: 'single',
  flags: null,
  statuses: null,
};

/** A threaded digest twice a day on weekdays, with both filters. */
const THREAD_SUB: DigestSubscription = {
  ...SUB,
  times: ['09:00', '17:30'],
  days: [1, 2, 3, 4, 5],
  layout: 'thread',
  flags: [1, 2],
  statuses: [1],
};

const ALERT_SUB: AlertSubscription = makeAlertSubscription({ shopLabel: '蜂蜜' });

function alertOrder(i: number, text: ForeignText, o: Partial<AlertOrder> = {}): AlertOrder {
  return {
    subscriptionId: 4,
    orderSn: `261120-4004${String(i).padStart(11, '0')}`,
    checkId: 1,
    state: 'alerted',
    messageTs: '1.1',
    goodsName: text.title,
    goodsCount: 2,
    amountFen: 25_600,
    lastShipTime: new Date(NOW.getTime() + (i - 1) * HOUR),
    claimedBy: null,
    claimedAt: null,
    doneBy: null,
    doneAt: null,
    remindedAt: null,
    ...o,
  };
}

const ALERT_CHECK: AlertCheck = {
  id: 9,
  tenantId: '',
  subscriptionId: 4,
  slotAt: NOW,
  localDate: '2026-11-20',
  state: 'awaiting_approval',
  attempts: 1,
  leaseOwner: null,
  leaseExpiresAt: null,
  nextAttemptAt: null,
  lastError: null,
  messageTs: null,
  chargedPoints: 0,
  calls: 0,
  epoch: 1,
  postAttemptAt: null,
  checkProgress: null,
  estimatePoints: 14,
  createdAt: NOW,
};

function orders(text: ForeignText): Order[] {
  const n = text.extreme ? 100 : 4;
  return Array.from({ length: n }, (_, i) =>
    makeOrder(i, {
      goodsName: text.title,
      goodsSpec: text.extreme ? text.remark : '白色, XL',
      remark: text.remark,
      remarkTag: (i % 6) + 1,
      remarkTagName: text.extreme ? text.short : '加急',
      status: (i % 4) + 1,
      isPreSale: i % 3 === 0,
      lastShipTime: new Date(NOW.getTime() + ((i % 5) - 2) * 12 * HOUR),
    }),
  );
}

function problemsOf(parsed: { kind: string; problems?: Problem[] }): Problem[] {
  if (parsed.kind !== 'invalid' || !parsed.problems) throw new Error(`expected problems, got ${parsed.kind}`);
  return parsed.problems;
}

export function everyRender(w: Words, text: ForeignText): Render[] {
  const quote = makeQuote([makeQuoteLine({ configuredPoints: 10, lastSeenPoints: 12 })]);
  const itemQuote = makeQuote([
    makeQuoteLine({
      operation: 'platiteminfo',
      edition: null,
      unit: 'quota',
      configuredPoints: null,
      lastSeenPoints: null,
    }),
  ]);
  const item = makeItem(
    {
      title: text.title,
      shopName: text.short,
      attributes: [{ name: '材质', value: text.remark }],
      categoryIds: text.extreme ? Array.from({ length: 500 }, (_, i) => i) : [50010850],
      videoUrl: 'https://video.example.com/v.mp4',
    },
    text.extreme ? { skus: 300, attributes: 200 } : { skus: 3, attributes: 2 },
  );
  if (text.extreme)
    item.skus.push(makeSku(999, { propNames: '颜色&'.repeat(500), propValues: '<红>'.repeat(500) }));
  const itemOutcome: Extract<LookupOutcome, { kind: 'item' }> = {
    kind: 'item',
    item,
    prices: makeItemPrices(),
    chargedPoints: 0,
    quotaCalls: 2,
  };
  const ordersOutcome = {
    ...makeOrdersOutcome(orders(text), { page: 1, totalElements: 350 }),
    filters: {
      startTime: new Date('2026-11-19T16:00:00Z'),
      endTime: new Date('2026-11-20T16:00:00Z'),
      remark: text.remark,
      remarkTag: 1,
    },
  };
  const waybillPrint = makeWaybillPrintOutcome(text.extreme ? 200 : 3);
  waybillPrint.failedBatches.push({
    waybillCodes: Array.from({ length: 25 }, (_, i) => `SF${String(1234567890100 + i)}`),
    error: new PlatShopUnauthorizedError(302, text.remark, 'https://auth.example.com/scan', {
      operation: 'platdybw',
    }),
  });
  const waybillInfo = {
    kind: 'waybill-info' as const,
    ownerId: OWNER_ID,
    records: Array.from({ length: text.extreme ? 200 : 3 }, (_, i) =>
      makeWaybillInfoRecord(i, { 物流状态: text.remark, 网点: text.short }),
    ),
    failedBatches: [],
    chargedPoints: 3,
  };
  const outcomes: [string, LookupOutcome & { shared?: boolean }][] = [
    ['item', itemOutcome],
    ['item-prices', { kind: 'item-prices', prices: makeItemPrices(), chargedPoints: 0, quotaCalls: 1 }],
    [
      'shop-info',
      { kind: 'shop-info', shop: makeShopInfo({ name: text.title }), url: 'https://x', chargedPoints: 20 },
    ],
    [
      'shop-id-found',
      { kind: 'shop-id', result: { found: true, wwid: text.short, shopId: '57301234' }, chargedPoints: 2 },
    ],
    [
      'shop-id-missing',
      {
        kind: 'shop-id',
        result: { found: false, wwid: text.short, message: text.remark },
        chargedPoints: 2,
        shared: true,
      },
    ],
    ['waybill-print', waybillPrint],
    ['waybill-info', waybillInfo],
    ['orders', ordersOutcome],
  ];
  const requests: LookupRequest[] = [
    { kind: 'item', itemId: ITEM_ID, withPrices: true },
    { kind: 'item-prices', itemId: ITEM_ID },
    { kind: 'shop-info', url: `https://item.taobao.com/item.htm?id=${ITEM_ID}`, shopType: '0' },
    { kind: 'shop-id', wwid: text.short },
    {
      kind: 'waybill-print',
      shopId: '57301234',
      waybills: [{ waybillCode: 'SF1234567890123', carrier: 'SF' }],
    },
    { kind: 'waybill-info', ownerId: OWNER_ID, waybills: [] },
    { kind: 'orders', ownerId: OWNER_ID, page: 1, pageSize: 50, filters: {} },
  ];
  const cap = { scope: 'user' as const, period: 'daily' as const, cap: 500, spent: 450 };
  const summary = summarize(orders(text), {
    window: { from: new Date(NOW.getTime() - 24 * HOUR), to: NOW },
    at: NOW,
  });
  const report = {
    period: 'month' as const,
    from: new Date('2026-10-31T16:00:00Z'),
    to: NOW,
    timeZone: 'Asia/Shanghai',
    userId: null,
    totals: { points: 1234, calls: 56, quotaCalls: 7 },
    byOperation: [
      { key: 'platdybw', points: 1000, calls: 50, quotaCalls: 0 },
      { key: 'platiteminfo', points: 0, calls: 7, quotaCalls: 7 },
    ],
    byUser: [
      { key: 'U1234', points: 1000, calls: 40, quotaCalls: 7 },
      { key: null, points: 234, calls: 16, quotaCalls: 0 },
    ],
    byDay: Array.from({ length: text.extreme ? 30 : 3 }, (_, i) => ({
      key: `2026-11-${String(i + 1).padStart(2, '0')}`,
      points: i,
      calls: i,
      quotaCalls: 0,
      byOperation: [{ key: 'platdybw', points: i, calls: i, quotaCalls: 0 }],
    })),
    days: Array.from({ length: 30 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`),
  };
  const admin: AdminHome = {
    report,
    agentSpend: { points: 1234, quotaCalls: 3, calls: 56 },
    agentFeedback: {
      good: 12,
      bad: 3,
      recent: Array.from({ length: 5 }, (_, i) => ({
        userId: 'U1234',
        channelId: 'D1234',
        messageTs: `1700000000.00000${i}`,
        value: i % 2 === 0 ? ('good' as const) : ('bad' as const),
        tools: text.extreme
          ? 'lookup_waybill,lookup_item,orders_due,lookup_shop,orders_page'
          : 'lookup_waybill',
        at: NOW,
      })),
    },
    alerts: [
      { at: NOW, alert: { kind: 'account', code: 'quota_exhausted', userId: 'U1234' }, text: '' },
      { at: NOW, alert: { kind: 'budget', figure: cap, userId: 'U1234', refused: true }, text: '' },
      { at: NOW, alert: null, text: text.remark },
    ],
    budgetAlerts: [{ cap: 'user:U1234:daily:refused', day: '2026-11-20' }],
    access: { mode: 'listed', users: ['U1234'], groups: ['S0001'], channels: ['C1234'] },
    autoLookup: [{ channelId: 'C1234', cap: 20, usedToday: 3 }],
    prices: [quote.lines[0] ?? makeQuoteLine(), itemQuote.lines[0] ?? makeQuoteLine()],
    overrides: { platdybw: { '1': 10 } },
    digests: Array.from({ length: text.extreme ? 12 : 1 }, (_, i) => ({
      ...SUB,
      id: i + 1,
      shopLabel: text.short,
    })),
    dailyCap: 500,
    budgets: budgetsSchema.parse({
      workspace: { daily: 500, monthly: 12_000 },
      users: Object.fromEntries(
        Array.from({ length: text.extreme ? 40 : 1 }, (_, i) => [
          `U${1000 + i}`,
          { daily: 50, monthly: null },
        ]),
      ),
      channels: Object.fromEntries(
        Array.from({ length: text.extreme ? 40 : 1 }, (_, i) => [
          `C${1000 + i}`,
          { daily: null, monthly: 900 },
        ]),
      ),
    }),
    shipAlerts: Array.from({ length: text.extreme ? 12 : 1 }, (_, i) => ({
      subscription: { ...ALERT_SUB, id: i + 1, shopLabel: text.short },
      spentToday: 182,
    })),
    steps: STEP_IDS.map((stepId, i) => ({
      stepId,
      quote: stepId === 'lookup_item' ? itemQuote : quote,
      approval:
        i % 2 === 0
          ? {
              daily: 1000,
              monthly: i === 0 ? null : 20000,
              // Narrowed to shops and channels (issue 34 H1), with a shop key as long as the text case.
              shops: i === 2 ? [text.short, 'tea'] : [],
              channels: i === 2 ? ['C1234'] : [],
            }
          : null,
      spent: { daily: 12 * i, monthly: 345 * i },
    })),
  };
  const home: HomeData = {
    userId: 'U1234',
    admin: true,
    timeZone: 'Asia/Shanghai',
    today: { points: 12, calls: 3, quotaCalls: 1 },
    month: { points: 1234, calls: 56, quotaCalls: 7 },
    recent: [
      {
        at: NOW,
        request: { kind: 'orders', ownerId: OWNER_ID, page: 0, pageSize: 20, filters: {} },
        operations: ['paging-orders'],
        points: 2,
        quotaCalls: 0,
        failed: false,
        source: 'interactive',
      },
      {
        at: NOW,
        request: null,
        operations: ['platiteminfo'],
        points: 0,
        quotaCalls: 1,
        failed: true,
        source: 'shortcut',
      },
    ],
    recentMore: text.extreme ? 40 : 0,
    mcpEnabled: true,
    adminHome: admin,
  };
  const entry: LedgerEntry = {
    id: 1,
    chargeId: 'p-1:0:0',
    at: NOW,
    userId: 'U1234',
    channelId: 'C1234',
    operation: 'platdybw',
    edition: 1,
    points: 10,
    quotaCalls: 0,
    code: 0,
    outcome: 'ok',
    requestId: 'r1',
    correlationId: 'c1',
    pendingId: PENDING_ID,
    source: 'interactive',
    workflowExecutionId: null,
    stepId: null,
  };
  const platdeskResults: [string, PlatdeskResult][] = [
    ['help', { kind: 'help', admin: true }],
    ['usage', { kind: 'usage', report }],
    ['export', { kind: 'export', filename: 'x.csv', entries: [entry] }],
    ['denied-admin', { kind: 'denied', reason: 'admin_only', subcommand: 'budget' }],
    ['denied-spend', { kind: 'denied', reason: 'others_spend' }],
    [
      'invalid',
      {
        kind: 'invalid',
        problems: [
          { code: 'unknown_subcommand', values: { subcommand: text.short } },
          { code: 'not_understood', values: { text: text.remark } },
        ],
      },
    ],
    ['confirm-default', { kind: 'confirm', threshold: null, changed: false }],
    ['confirm-under', { kind: 'confirm', threshold: 20, changed: true }],
    ['access', { kind: 'access', policy: admin.access }],
    [
      'budgets',
      {
        kind: 'budgets',
        budgets: {
          workspace: { daily: 5000, monthly: null },
          perUser: { daily: 500, monthly: null },
          users: { U1234: { daily: 10, monthly: 100 } },
          channels: { C1234: { daily: 50, monthly: null }, C5678: { daily: null, monthly: 900 } },
          timezone: 'Asia/Shanghai',
        },
      },
    ],
    [
      'shops',
      {
        kind: 'shops',
        registry: {
          registeredOnly: true,
          shops: [{ alias: 'tea', ownerId: '2200001002', shopId: null, channels: ['C1234'] }],
        },
      },
    ],
    [
      'cache',
      {
        kind: 'cache',
        ttl: {
          platdybw: 0,
          platiteminfo: 3600,
          platiteminfoprice: 600,
          'get-shop-info': 86400,
          'get-shop-id': 86400,
          platdzmd: 0,
          'paging-orders': 0,
        },
      },
    ],
    ['digest-cap', { kind: 'digest-cap', points: 200 }],
    ['admins', { kind: 'admins', admins: ['UADMIN', 'U1234'], kept: ['UADMIN'] }],
    [
      'audit',
      {
        kind: 'audit',
        records: [
          { at: NOW, actorId: 'UADMIN', action: 'budgets', detail: text.remark },
          { at: NOW, actorId: 'UADMIN', action: 'settings.set', detail: 'budget.timezone = "Asia/Shanghai"' },
        ],
      },
    ],
    [
      'autolookup',
      { kind: 'autolookup', view: { channels: admin.autoLookup, changed: { channelId: 'C1234', cap: 20 } } },
    ],
    ['steps', { kind: 'steps', steps: admin.steps, changed: 'lookup_waybill' }],
    ['language-user', { kind: 'language', scope: 'user', choice: 'zh-CN', workspace: 'en', changed: true }],
    ['language-auto', { kind: 'language', scope: 'user', choice: null, workspace: 'en', changed: false }],
    [
      'language-channel',
      {
        kind: 'language',
        scope: 'channel',
        channelId: 'C1234',
        choice: null,
        workspace: 'zh-CN',
        changed: false,
      },
    ],
    [
      'language-workspace',
      { kind: 'language', scope: 'workspace', choice: null, workspace: 'zh-CN', changed: true },
    ],
  ];
  const refOk = {
    ok: true as const,
    itemId: ITEM_ID,
    marketplace: '1' as const,
    url: 'https://detail.tmall.com/item.htm?id=1',
  };
  const earlier = {
    outcome: itemOutcome,
    at: new Date(NOW.getTime() - 10 * 60_000),
    userId: 'U1234',
    auto: false,
  };
  const found = {
    candidates: [
      { kind: 'item' as const, itemId: ITEM_ID, marketplace: '0' as const },
      {
        kind: 'shop-info' as const,
        url: 'https://item.taobao.com/item.htm?id=1',
        shopType: '2' as const,
        itemId: '1',
      },
      { kind: 'shop-id' as const, wwid: text.short },
      { kind: 'waybill' as const, waybillCode: 'SF1234567890123', carrier: 'SF' },
      { kind: 'waybill' as const, waybillCode: '773012345678901', carrier: null },
    ],
    shortLinks: ['https://m.tb.cn/h.abc'],
    more: 4,
    target: null,
  };
  const plan = {
    lookups: [{ request: requests[0] as LookupRequest, summary: 'x', quote: itemQuote }],
    total: makeQuote([...quote.lines, ...itemQuote.lines]),
    problems: [],
    needsTarget: false,
  };
  const unitAlert = new PlatBudgetError('platdybw', cap, 10);

  return [
    ...SLASH_COMMANDS.map((c) => m(`help-${c.slice(1)}`, renderHelp(w, c))),
    m(
      'invalid-orders',
      renderInvalidInput(
        w,
        '/orders',
        problemsOf(
          parseOrdersCommand(`a b size:0 flag:9 ${text.short}:1 date:x from:y to:z remark:`, { edition: 2 }),
        ),
      ),
    ),
    m(
      'invalid-waybill',
      renderInvalidInput(
        w,
        '/waybill',
        problemsOf(
          parseWaybillCommand(
            `773012345678901 ${'x'.repeat(3)} owner:a shop:b carrier:${'Z'.repeat(30)} bogus:1`,
          ),
        ),
      ),
    ),
    m(
      'confirmation',
      renderConfirmation(w, {
        pendingId: PENDING_ID,
        request: { kind: 'shop-id', wwid: text.title },
        quote: makeQuote(
          Array.from({ length: text.extreme ? 40 : 2 }, (_, i) => makeQuoteLine({ calls: i + 1 })),
        ),
        expiresInMinutes: 10,
        warnings: [cap, { ...cap, scope: 'workspace', period: 'monthly' }],
      }),
    ),
    ...requests.map((request, i) =>
      m(
        `confirmation-${i}-${request.kind}`,
        renderConfirmation(w, { pendingId: PENDING_ID, request, quote: itemQuote, expiresInMinutes: 1 }),
      ),
    ),
    m(
      'interrupted-not-sent-offer',
      renderInterrupted(w, requests[3] as LookupRequest, { sent: false }, { offerAgain: true }),
    ),
    m(
      'interrupted-not-sent-again',
      renderInterrupted(w, requests[6] as LookupRequest, { sent: false }, { offerAgain: false }),
    ),
    ...(
      [
        ['points', { points: 12.5, quotaCalls: 0, calls: 2 }],
        ['quota', { points: 0, quotaCalls: 1, calls: 1 }],
        ['points-and-quota', { points: 3, quotaCalls: 2, calls: 2 }],
        ['no-charge', { points: 0, quotaCalls: 0, calls: 1 }],
        ['unknown', { points: 0, quotaCalls: 0, calls: 0 }],
        ['no-answer', { points: 0, quotaCalls: 1, calls: 1 }],
        ['maybe-not-sent', { points: 0, quotaCalls: 0, calls: 0 }],
      ] as const
    ).flatMap(([name, charged]) =>
      [true, false].map((kept) =>
        m(
          `interrupted-sent-${name}-${kept ? 'answer' : 'lost'}`,
          renderInterrupted(
            w,
            requests[3] as LookupRequest,
            {
              sent: true,
              charged,
              costUnknown: name === 'no-answer' ? 1 : 0,
              maybeNotSent: name === 'maybe-not-sent' ? 1 : 0,
              answer: kept ? itemOutcome : null,
            },
            { offerAgain: false },
          ),
        ),
      ),
    ),
    ...(
      ['cancelled', 'expired', 'already_used', 'not_yours', 'running', 'interrupted', 'not_found'] as const
    ).map((r) => m(`closed-${r}`, renderConfirmationClosed(w, r))),
    ...(
      [
        { reason: 'not_allowed' },
        { reason: 'shop_unregistered', shop: text.short },
        { reason: 'shop_channel', shop: text.short },
        { reason: 'shop_no_owner', shop: text.short },
        { reason: 'shop_no_shop_id', shop: text.short },
        { reason: 'budget', wanted: 10, quoted: 10, cap, quotaCalls: 0, points: true },
        { reason: 'budget', wanted: 0, quoted: 0, cap, quotaCalls: 1, points: false },
        { reason: 'budget', wanted: 100, quoted: null, cap, quotaCalls: 0, points: true },
        {
          reason: 'budget',
          wanted: 12,
          quoted: 10,
          cap: { ...cap, scope: 'channel', channelId: 'C0123456789' },
          quotaCalls: 1,
          points: true,
        },
        {
          reason: 'price_unknown',
          operations: ['platdybw', 'get-shop-info'],
          caps: [cap, { ...cap, scope: 'workspace' }],
        },
      ] as const
    ).map((refusal, i) => m(`refusal-${i}-${refusal.reason}`, renderRefusal(w, refusal, ['UADMIN']))),
    m('refusal-no-admins', renderRefusal(w, { reason: 'not_allowed' }, [])),
    m('admin-only-button', renderAdminOnlyButton(w, ['UADMIN', 'U1234'])),
    m('admin-only-button-no-admins', renderAdminOnlyButton(w, [])),
    ...[
      ...allPlatErrors(),
      unitAlert,
      // A price not known yet (the ceiling held) against a channel's cap.
      new PlatBudgetError('get-shop-id', { ...cap, scope: 'channel', channelId: 'C0123456789' }, 100, null),
    ].map((error, i) => m(`error-${i}-${error.code}`, renderPlatError(w, error))),
    m('error-plain', renderPlatError(w, new Error(text.remark))),
    ...outcomes.map(([name, outcome]) =>
      m(
        `answer-${name}`,
        renderOutcome(w, outcome, {
          now: NOW,
          downloadValue: PENDING_ID,
          pager: { nextQuote: quote, pager: { previous: 'pl_prev', next: 'pl_next' } },
        }),
      ),
    ),
    m(
      'answer-cached-refresh',
      withRefreshButton(
        w,
        renderOutcome(w, itemOutcome, { now: NOW, cached: { ageMs: 5 * 60_000 } }),
        PENDING_ID,
        itemQuote,
      ),
    ),
    modal('orders-form-enhanced', renderOrdersForm(w, { privateMetadata: '{}', edition: 1 })),
    modal('orders-form-basic', renderOrdersForm(w, { privateMetadata: '{}', edition: 2 })),
    ...platdeskResults.map(([name, result]) => m(`platdesk-${name}`, renderPlatdeskResult(w, result))),
    {
      name: 'home-admin',
      surface: 'home',
      payload: renderHome(w, home, NOW, { effective: w.locale, own: null }),
    },
    {
      // With the spend chart (issue 26): alt text and title from the catalog.
      name: 'home-admin-chart',
      surface: 'home',
      payload: renderHome(
        w,
        home,
        NOW,
        { effective: w.locale, own: null },
        {
          fileId: 'F0SPEND01',
          alt: spendChartAlt(w, spendChartData(admin.report, admin.dailyCap)),
          title: w.t('chart.spendTitle'),
        },
      ),
    },
    {
      name: 'home-user',
      surface: 'home',
      payload: renderHome(w, { ...home, admin: false, adminHome: null, recent: [] }, NOW, {
        effective: w.locale,
        own: w.locale,
      }),
    },
    modal('home-access', renderAccessModal(w, admin.access)),
    modal('home-autolookup', renderAutoLookupModal(w, admin.autoLookup)),
    modal('home-autolookup-none', renderAutoLookupModal(w, [])),
    modal('home-prices', renderPricesModal(w, admin.prices, admin.overrides)),
    modal('home-prices-none', renderPricesModal(w, admin.prices, {})),
    modal(
      'home-digest-add',
      renderDigestAddModal(w, {
        shops: [{ alias: text.short, ownerId: '2200001002' }],
        defaultTimeZone: 'Asia/Shanghai',
        cost: { pagePoints: 5, capPoints: 200 },
      }),
    ),
    modal(
      'home-digest-add-empty',
      renderDigestAddModal(w, {
        shops: [],
        defaultTimeZone: 'Europe/Paris',
        cost: { pagePoints: null, capPoints: 200 },
      }),
    ),
    modal(
      'home-digest-added',
      renderDigestAddedModal(
        w,
        digestAddedText(w, SUB, Date.UTC(2026, 10, 27, 1)),
        digestCostLine(w, { pages: 3, pagePoints: 5, capPoints: 200 }),
      ),
    ),
    m(
      'digest-added',
      renderDigestAdded(
        digestAddedText(w, SUB, Date.UTC(2026, 10, 27, 1)),
        digestCostLine(w, { pages: 1, pagePoints: 5, capPoints: 200 }),
      ),
    ),
    m('alert-account', message(alertText(w, { kind: 'account', code: 'credential_invalid', userId: null }))),
    m('alert-reinstalled', message(alertText(w, { kind: 'reinstalled', userId: 'U1234' }))),
    m(
      'alert-budget',
      message(
        alertText(w, {
          kind: 'budget',
          figure: { ...cap, scope: 'workspace' },
          userId: null,
          refused: false,
        }),
      ),
    ),
    m(
      'alert-charge-parked',
      message(
        alertText(w, {
          kind: 'charge-parked',
          chargeId: 'f3a1c2d4-0000-4000-8000-000000000000:0:0',
          operation: 'get-shop-info',
          points: 12.5,
          at: '2026-11-19T08:30:00.000Z',
        }),
      ),
    ),
    m(
      'alert-spend-totals',
      message(
        alertText(w, {
          kind: 'spend-totals',
          day: '2026-11-19',
          count: 7,
          sample: [
            {
              scope: 'workspace',
              subject: '*',
              period: 'daily',
              key: '2026-11-19',
              field: 'spent',
              counter: 95,
              expected: 100,
            },
            {
              scope: 'user',
              subject: 'U1234',
              period: 'monthly',
              key: '2026-11',
              field: 'spent',
              counter: 10,
              expected: 12.5,
            },
            {
              scope: 'channel',
              subject: 'C1234',
              period: 'daily',
              key: '2026-11-19',
              field: 'reserved',
              counter: 5,
              expected: 0,
            },
          ],
        }),
      ),
    ),
    m(
      'digest',
      renderDigest(w, {
        subscription: { ...SUB, shopLabel: text.short },
        run: makeDigestRun(),
        summary,
        previous: {
          localDate: '2026-11-19',
          summary: summarize([], { window: { from: NOW, to: NOW }, at: NOW }),
        },
        cost: { points: 4, calls: 2 },
      }),
    ),
    m(
      'digest-empty-manual',
      renderDigest(w, {
        subscription: SUB,
        run: makeDigestRun({ kind: 'manual' }),
        summary: summarize([], { window: { from: NOW, to: NOW }, at: NOW }),
        previous: null,
        cost: { points: 0, calls: 1 },
      }),
    ),
    m(
      'digest-progress',
      renderDigestProgress(w, SUB, { pagesDone: 2, pagesPlanned: 5, exact: false } as never),
    ),
    m('digest-progress-start', renderDigestProgress(w, SUB, null)),
    m(
      'digest-notice-failed',
      renderDigestNotice(w, {
        kind: 'failed',
        subscription: SUB,
        run: makeDigestRun(),
        error: unitAlert,
        nextAttemptAt: NOW,
      }),
    ),
    m(
      'digest-notice-manual',
      renderDigestNotice(w, {
        kind: 'failed',
        subscription: SUB,
        run: makeDigestRun({ kind: 'manual' }),
        error: { data: { error: 'not_in_channel' } },
        nextAttemptAt: null,
      }),
    ),
    m(
      'digest-notice-resolved',
      renderDigestNotice(w, { kind: 'resolved', subscription: SUB, run: makeDigestRun() }),
    ),
    m(
      'digest-notice-approval',
      renderDigestNotice(w, {
        kind: 'awaiting_approval',
        subscription: SUB,
        run: makeDigestRun(),
        estimatePoints: 300,
      }),
    ),
    m(
      'digest-alert-failed',
      renderDigestAlert(w, {
        kind: 'failed',
        subscription: SUB,
        run: makeDigestRun(),
        error: new Error('x'),
        nextAttemptAt: null,
      }),
    ),
    m(
      'digest-alert-unverified',
      renderDigestAlert(w, {
        kind: 'unverified',
        subscription: SUB,
        run: makeDigestRun(),
        reason: 'refused',
      }),
    ),
    m(
      'digest-alert-unverified-busy',
      renderDigestAlert(w, {
        kind: 'unverified',
        subscription: SUB,
        run: makeDigestRun(),
        reason: 'too_busy',
      }),
    ),
    m(
      'digest-approval',
      renderDigestApproval(w, {
        subscription: SUB,
        run: makeDigestRun(),
        estimatePoints: 300,
        capPoints: 200,
        estimate: { chargedPoints: 0, pagesDone: 0, pagesLeft: 150, leftPoints: 300 },
      }),
    ),
    m(
      'digest-approval-partial',
      renderDigestApproval(w, {
        subscription: SUB,
        run: makeDigestRun(),
        estimatePoints: 300,
        capPoints: 200,
        estimate: { chargedPoints: 4, pagesDone: 2, pagesLeft: 148, leftPoints: 296 },
      }),
    ),
    m(
      'digest-list',
      renderDigestList(
        w,
        (['posted', 'failed', 'awaiting_approval', 'unknown', 'running'] as const).map((state, i) => ({
          subscription: { ...SUB, id: i + 1 },
          nextRunAt: NOW.getTime(),
          lastRun: makeDigestRun({
            state,
            kind: i === 0 ? 'manual' : 'scheduled',
            nextAttemptAt: state === 'failed' ? NOW : null,
          }),
        })),
      ),
    ),
    m('digest-list-empty', renderDigestList(w, [])),
    m(
      'digest-list-options',
      renderDigestList(w, [{ subscription: THREAD_SUB, nextRunAt: NOW.getTime(), lastRun: null }]),
    ),
    ...(() => {
      const { parent, replies } = renderDigestThread(w, {
        subscription: { ...THREAD_SUB, shopLabel: text.short },
        run: makeDigestRun({ localDate: '2026-11-20 17:30' }),
        summary,
        previous: null,
        cost: { points: 4, calls: 2 },
      });
      return [m('digest-thread-parent', parent), ...replies.map((r, i) => m(`digest-thread-reply-${i}`, r))];
    })(),
    m(
      'alert',
      renderAlert(
        w,
        { ...ALERT_SUB, shopLabel: text.short },
        [
          alertOrder(0, text),
          alertOrder(1, text, { claimedBy: 'U1234', claimedAt: NOW }),
          alertOrder(2, text, { state: 'handled', doneBy: 'U1234', doneAt: NOW }),
          alertOrder(3, text, { state: 'shipped', doneAt: NOW }),
          alertOrder(4, text, { state: 'pending', messageTs: null }),
        ],
        NOW.getTime(),
        text.extreme ? 40 : 1,
      ),
    ),
    m(
      'alert-20',
      renderAlert(
        w,
        ALERT_SUB,
        Array.from({ length: 20 }, (_, i) => alertOrder(i, text)),
        NOW.getTime(),
      ),
    ),
    m(
      'alert-reminder-claimer',
      renderAlertReminder(w, ALERT_SUB, alertOrder(2, text, { claimedBy: 'U1234' }), NOW.getTime()),
    ),
    m('alert-reminder-channel', renderAlertReminder(w, ALERT_SUB, alertOrder(2, text), NOW.getTime())),
    m(
      'alert-failed',
      renderAlertFailure(w, ALERT_SUB, {
        error: new Error(text.remark),
        nextAttemptAt: NOW,
        resolved: false,
      }),
    ),
    m(
      'alert-failed-next-slot',
      renderAlertFailure(w, ALERT_SUB, {
        error: { data: { error: text.short } },
        nextAttemptAt: null,
        resolved: false,
      }),
    ),
    m(
      'alert-resolved',
      renderAlertFailure(w, ALERT_SUB, { error: null, nextAttemptAt: null, resolved: true }),
    ),
    m(
      'alert-approval',
      renderAlertApproval(w, {
        subscription: ALERT_SUB,
        check: ALERT_CHECK,
        estimatePoints: 14,
        spentPoints: 190,
        capPoints: 200,
      }),
    ),
    m('alert-unverified', renderAlertUnverified(w, ALERT_SUB, ALERT_CHECK)),
    m('alert-unverified-busy', renderAlertUnverified(w, ALERT_SUB, ALERT_CHECK, 'too_busy')),
    m(
      'alert-refused-claim',
      renderClaimRefusal(w, ALERT_SUB, alertOrder(1, text, { claimedBy: 'U1234', claimedAt: NOW }), 'claim'),
    ),
    m(
      'alert-refused-handled',
      renderClaimRefusal(
        w,
        ALERT_SUB,
        alertOrder(1, text, { claimedBy: 'U1234', claimedAt: NOW }),
        'handled',
      ),
    ),
    m(
      'alert-refused-done',
      renderClaimRefusal(w, ALERT_SUB, alertOrder(1, text, { state: 'shipped' }), 'claim'),
    ),
    m(
      'alert-list',
      renderAlertList(
        w,
        Array.from({ length: text.extreme ? 60 : 2 }, (_, i) => ({
          subscription: { ...ALERT_SUB, id: i + 1, shopLabel: text.short },
          spentToday: 182,
          nextCheckAt: NOW.getTime(),
        })),
      ),
    ),
    m('alert-list-empty', renderAlertList(w, [])),
    m('alert-help', renderAlertHelp(w)),
    m(
      'alert-help-problems',
      renderAlertHelp(w, [
        { code: 'within_bad', values: { text: text.short } },
        { code: 'every_bad', values: { text: '5' } },
        { code: 'hours_bad', values: { text: '21-9' } },
        { code: 'cap_bad', values: { text: '-1' } },
        { code: 'alert_usage' },
        { code: 'alert_id_missing' },
        { code: 'alert_verb', values: { verb: text.short } },
        { code: 'not_channel', values: { token: text.short } },
        { code: 'days_bad', values: { text: text.short } },
        { code: 'flag_bad', values: { text: 'pink' } },
        { code: 'status_bad', values: { text: '9' } },
        { code: 'me_in_form' },
      ]),
    ),
    modal('home-alert-add', renderAlertAddModal(w)),
    m(
      'digest-rerun',
      renderDigestRerunQuestion(w, {
        subscription: SUB,
        posted: makeDigestRun(),
        orders: 12,
        newestRunId: 3,
        estimatePoints: 4,
      }),
    ),
    m(
      'digest-rerun-no-summary',
      renderDigestRerunQuestion(w, {
        subscription: SUB,
        posted: makeDigestRun(),
        orders: null,
        newestRunId: 3,
        estimatePoints: 1,
      }),
    ),
    m('digest-help', renderDigestHelp(w)),
    m(
      'digest-help-problems',
      renderDigestHelp(w, [
        describeDigestProblem(w, { code: 'channel_plain_text', values: { token: text.short } }),
        describeDigestProblem(w, { code: 'language_bad', values: { language: 'fr' } }),
      ]),
    ),
    ...(
      [
        { kind: 'short_link', url: 'https://m.tb.cn/h.abc' },
        { kind: 'offer', url: refOk.url, ref: refOk, quote: itemQuote, note: null },
        {
          kind: 'offer',
          url: refOk.url,
          ref: refOk,
          quote: itemQuote,
          note: { kind: 'capped', used: 20, cap: 20 },
        },
        {
          kind: 'offer',
          url: refOk.url,
          ref: refOk,
          quote: itemQuote,
          note: {
            kind: 'refused',
            refusal: { reason: 'budget', wanted: 1, quoted: 1, cap, quotaCalls: 0, points: true },
          },
        },
        { kind: 'offer', url: refOk.url, ref: refOk, quote: itemQuote, note: { kind: 'running' } },
        {
          kind: 'offer',
          url: refOk.url,
          ref: refOk,
          quote: itemQuote,
          note: { kind: 'failed_earlier', at: NOW },
        },
        { kind: 'earlier', url: refOk.url, ref: refOk, quote: itemQuote, earlier },
        {
          kind: 'earlier',
          url: refOk.url,
          ref: refOk,
          quote: itemQuote,
          earlier: { ...earlier, auto: true },
        },
        {
          kind: 'auto',
          url: refOk.url,
          ref: refOk,
          quote: itemQuote,
          outcome: itemOutcome,
          used: 3,
          cap: 20,
          cached: null,
        },
        {
          kind: 'auto',
          url: refOk.url,
          ref: refOk,
          quote: itemQuote,
          outcome: itemOutcome,
          used: 3,
          cap: 20,
          cached: { ageMs: 60_000 },
        },
        {
          kind: 'auto_failed',
          url: refOk.url,
          ref: refOk,
          quote: itemQuote,
          error: unitAlert,
          used: 3,
          cap: 20,
        },
      ] as const
    ).map((decision, i) => ({
      name: `unfurl-${i}-${decision.kind}`,
      surface: 'message' as const,
      // An unfurl is blocks only (chat.unfurl takes no fallback text).
      payload: {
        blocks: renderUnfurl(w, decision, { now: NOW }) as KnownBlock[],
      } as unknown as RenderedMessage,
    })),
    m('unfurl-earlier-answer', renderEarlierAnswer(w, earlier, refOk.url, NOW)),
    modal(
      'shortcut-choose',
      renderChooseModal(w, {
        kind: 'any',
        found,
        chosen: [0, 1, 2],
        target: null,
        carrier: null,
        answer: 'thread',
        allowThread: true,
        plan,
        each: found.candidates.map(() => itemQuote),
        targetOptions: [{ value: 'shop:57301234', label: text.short }],
        privateMetadata: '{}',
        notice: 'changed',
      }),
    ),
    modal(
      'shortcut-choose-waybills',
      renderChooseModal(w, {
        kind: 'waybills',
        found,
        chosen: [3, 4],
        target: 'owner:1',
        carrier: 'SF',
        answer: 'me',
        allowThread: false,
        plan: { ...plan, needsTarget: true },
        each: found.candidates.map(() => null),
        targetOptions: [],
        privateMetadata: '{}',
      }),
    ),
    modal(
      'shortcut-choose-none',
      renderChooseModal(w, {
        kind: 'shops',
        found,
        chosen: [],
        target: null,
        carrier: null,
        answer: 'me',
        allowThread: true,
        plan,
        each: [],
        targetOptions: [],
        privateMetadata: '{}',
      }),
    ),
    modal('shortcut-text', renderTextModal(w)),
    m('shortcut-nothing', renderNothingFound(w, 'items', found)),
    m('shortcut-nothing-text', message(nothingFoundText(w, 'shops', { shortLinks: [] }))),
    ...(['expired', 'already_used', 'not_yours', 'not_found'] as const).map((r) =>
      m(`shortcut-closed-${r}`, message(shortcutClosedText(w, r))),
    ),
    m('agent-plan-cut-off', renderPlanCutOff(w, agentPlanRecord(text))),
    m(
      'agent-plan-summary-late',
      renderPlanClosedLate(w, agentPlanRecord(text), 'summary', ['lookup_waybill', 'orders_page']),
    ),
    m('agent-plan-not-run', renderPlanClosedLate(w, agentPlanRecord(text), 'not_run', ['lookup_waybill'])),
    m('agent-plan-not-run-notice', renderPlanNotRun(w, agentPlanRecord(text))),
    m(
      'agent-unknown-shop',
      renderAgentNotice(w, {
        kind: 'ask',
        question: { code: 'unknown_shop', name: text.short, options: ['bee', 'tea'] },
      }),
    ),
    m(
      'agent-no-such-shop',
      renderAgentNotice(w, {
        kind: 'ask',
        question: { code: 'unknown_shop', name: text.short, options: [] },
      }),
    ),
    m(
      'agent-run-summary',
      renderRunSummary(w, {
        record: agentPlanRecord(text),
        points: 4,
        quotaCalls: 0,
        stopped: 1,
        tools: ['lookup_waybill', 'orders_page'],
        listSteps: true,
        undelivered: 2,
      }),
    ),
    m(
      'agent-run-summary-reported',
      renderRunSummary(w, {
        record: null,
        points: 9,
        quotaCalls: 1,
        stopped: 0,
        tools: ['lookup_item'],
        listSteps: false,
        undelivered: 1,
      }),
    ),
  ];
}

/** A confirmed agent plan as the store and the ledger hold it after a crash: every step's fate. */
function agentPlanRecord(text: ForeignText): PlanRecord {
  const pendingOf = (request: LookupRequest, state: Pending['state']): Pending => ({
    id: PENDING_ID,
    tenantId: '',
    userId: 'U1234',
    channelId: 'D1234',
    teamId: 'T1234',
    request,
    quote: makeQuote(),
    summary: 'plan step',
    responseUrl: null,
    createdAt: NOW,
    expiresAt: NOW,
    state,
    stateChangedAt: NOW,
    resultJson: null,
    claimedBy: null,
    leaseExpiresAt: null,
    claimEpoch: 1,
    callsSent: 1,
    planId: 'plan-1',
  });
  const waybills = Array.from({ length: text.extreme ? 40 : 2 }, (_, i) => ({
    waybillCode: `SF12345678901${String(i).padStart(2, '0')}`,
    carrier: 'SF',
  }));
  const orders: LookupRequest = {
    kind: 'orders',
    ownerId: text.short,
    page: 0,
    pageSize: 20,
    filters: { startTime: new Date(NOW.getTime() - 24 * HOUR), endTime: NOW },
  };
  const none = { points: 0, quotaCalls: 0, calls: 0 };
  const truth = {
    sent: true as const,
    charged: { ...none, calls: 1 },
    costUnknown: 1,
    maybeNotSent: 0,
    answer: null,
  };
  const steps: PlanRecordStep[] = [
    {
      index: 0,
      tool: 'lookup_waybill',
      pending: pendingOf({ kind: 'waybill-info', ownerId: text.short, waybills }, 'done'),
      fate: { kind: 'done' },
      charged: { points: 4, quotaCalls: 0, calls: 1 },
      costUnknown: 0,
      maybeNotSent: 0,
    },
    {
      index: 1,
      tool: 'orders_page',
      pending: pendingOf(orders, 'interrupted'),
      fate: { kind: 'cut', truth },
      charged: { ...none, calls: 1 },
      costUnknown: 1,
      maybeNotSent: 0,
    },
    {
      index: 2,
      tool: 'orders_page',
      pending: pendingOf(orders, 'interrupted'),
      fate: { kind: 'cut', truth: { ...truth, charged: none, costUnknown: 0, maybeNotSent: 1 } },
      charged: none,
      costUnknown: 0,
      maybeNotSent: 1,
    },
    {
      index: 3,
      tool: 'lookup_item',
      pending: pendingOf({ kind: 'item', itemId: ITEM_ID, withPrices: true }, 'failed'),
      fate: { kind: 'failed' },
      charged: { points: 0, quotaCalls: 1, calls: 1 },
      costUnknown: 0,
      maybeNotSent: 0,
    },
    ...Array.from({ length: text.extreme ? 20 : 1 }, (_, i) => ({
      index: 4 + i,
      tool: 'orders_page' as const,
      pending: null,
      fate: { kind: 'not_run' as const },
      charged: none,
      costUnknown: 0,
      maybeNotSent: 0,
    })),
  ];
  return {
    planId: 'plan-1',
    userId: 'U1234',
    channelId: 'D1234',
    threadTs: '1700000000.000100',
    confirmed: true,
    steps,
    charged: { points: 4, quotaCalls: 1, calls: 4 },
    costUnknown: 1,
    maybeNotSent: 1,
  };
}
