/**
 * MCP in words (issue 37): `/platdesk mcp …` answers (the token shown once, only to its owner),
 * the closing line of the owner's Confirm DM, and what an AI client reads back: each tool's
 * structured output (the catalog's output shapes, lookups/tools.ts) with a short text, or a
 * tool error that says why nothing (or what) was charged. Outputs hold what the person's own
 * Slack answer would show and no receiver data (orders are listed as /orders shows them: no
 * receiver fields, remarks masked).
 */

import type { ModalView } from '@slack/types';
import type { Refusal } from '../lookups/access.js';
import type { McpCommandResult } from '../lookups/mcp-tokens.js';
import type { Problem } from '../lookups/parse/problems.js';
import type { UsageReport } from '../lookups/reports.js';
import type { StepResult } from '../lookups/steps.js';
import type { ToolAsk, ToolName } from '../lookups/tools.js';
import type { LookupOutcome } from '../lookups/types.js';
import { isPlatError } from '../plat/errors.js';
import type { PriceValue } from '../plat/types.js';
import { chargeNoteText } from './charge-note.js';
import { errorChargeText, errorRemedy, errorTitle } from './errors.js';
import { buyerText } from './hidden.js';
import type { TKey, Words } from './i18n/words.js';
import { priceValueText } from './item.js';
import { context, header, message, type RenderedMessage, section } from './kit.js';
import { packSections } from './limits.js';
import { flagLabel, lastPage, orderStatusLabel } from './orders.js';
import { stepOutputs } from './steps.js';
import { escapeClip, truncate } from './text.js';
import { describeProblem, describeRefusal } from './words-of.js';

// ---- /platdesk mcp ----------------------------------------------------------------------------

export function renderMcpResult(w: Words, result: McpCommandResult): RenderedMessage {
  const { t } = w;
  const one = (text: string) => message(text, [section(text)]);
  switch (result.kind) {
    case 'mcp-token': {
      const name = escapeClip(result.name, 40);
      const url = result.url ? escapeClip(result.url, 300) : t('mcp.urlUnknown');
      return message(t('mcp.tokenFallback', { name }), [
        section(t('mcp.tokenTitle', { name })),
        // Code blocks: the token is copied as it is (it holds only [A-Za-z0-9_-]).
        section(`\`\`\`${result.token}\`\`\``),
        // What an MCP client's settings take, ready to paste (docs/mcp.md: Claude, Cursor).
        section(`${t('mcp.tokenPaste')}\n\`\`\`URL: ${url}\nAuthorization: Bearer ${result.token}\`\`\``),
        section(t('mcp.tokenOnce', { name, date: w.date(result.expiresAt) })),
        context(t('mcp.tokenSetup')),
      ]);
    }
    case 'mcp-tokens': {
      const lines = result.tokens.map((k) =>
        t('mcp.tokenLine', {
          name: escapeClip(k.name, 40),
          owner: result.everyone ? t('mcp.owner', { user: k.userId }) : '',
          created: w.date(k.createdAt),
          expiry:
            k.expiresAt.getTime() <= result.now.getTime()
              ? t('mcp.expired', { date: w.date(k.expiresAt) })
              : t('mcp.expires', { date: w.date(k.expiresAt) }),
          used:
            k.lastUsedAt === null
              ? t('mcp.neverUsed')
              : k.clientName
                ? t('mcp.lastUsedBy', {
                    date: w.dateTime(k.lastUsedAt),
                    client: escapeClip(k.clientName, 60),
                  })
                : t('mcp.lastUsed', { date: w.dateTime(k.lastUsedAt) }),
        }),
      );
      const body = lines.length > 0 ? lines : [t('mcp.tokensNone')];
      return message(t('mcp.tokensTitle'), [
        header(t('mcp.tokensTitle')),
        ...packSections(body, { maxBlocks: 20, more: (n) => t('common.more', { count: n, n: w.count(n) }) }),
        ...(result.enabled ? [] : [context(t('mcp.off'))]),
      ]);
    }
    case 'mcp-revoked':
      return one(t('mcp.revoked', { name: escapeClip(result.name, 40) }));
    case 'mcp-feature':
      return one(t(result.enabled ? 'mcp.turnedOn' : 'mcp.turnedOff'));
    case 'mcp-off':
      return one(t('mcp.off'));
    case 'mcp-admin-only':
      return one(t('mcp.adminOnly'));
    case 'mcp-invalid':
      return one(t(`mcp.problem.${result.problem}`, result.values ?? {}));
  }
}

/**
 * The App Home's "Connect an AI client": the answer `/platdesk mcp token` gives, in a modal, which
 * only the clicker sees and Slack keeps nowhere once it is closed (a view click has no
 * response_url for an ephemeral answer).
 */
export function renderMcpConnectModal(w: Words, result: McpCommandResult): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: truncate(w.t('mcp.connectTitle'), 24) },
    close: { type: 'plain_text', text: truncate(w.t('mcp.connectClose'), 24) },
    blocks: renderMcpResult(w, result).blocks,
  };
}

/** What an answer cost, as its charge note says it. */
function chargeOf(w: Words, outcome: LookupOutcome & { shared?: boolean }, ageMs: number | null): string {
  return chargeNoteText(w, {
    chargedPoints: outcome.chargedPoints,
    quotaCalls: 'quotaCalls' in outcome ? outcome.quotaCalls : 0,
    ...(ageMs !== null ? { cached: { ageMs } } : {}),
    ...(outcome.shared ? { shared: true } : {}),
    ...(outcome.attempts !== undefined ? { attempts: outcome.attempts } : {}),
  });
}

// ---- the owner's DM once decided ---------------------------------------------------------------

export type McpDecision =
  | { kind: 'confirmed'; outcome: LookupOutcome & { shared?: boolean } }
  | { kind: 'denied' }
  | { kind: 'failed'; error: unknown };

/** What replaces the Confirm DM once its owner clicked. */
export function renderMcpDecided(w: Words, client: string, decision: McpDecision): RenderedMessage {
  const c = escapeClip(client, 100);
  const text =
    decision.kind === 'confirmed'
      ? w.t('mcp.confirmedLine', { client: c, charge: chargeOf(w, decision.outcome, null) })
      : decision.kind === 'denied'
        ? w.t('mcp.deniedLine', { client: c })
        : w.t('mcp.failedLine', {
            client: c,
            reason: mcpErrorText(w, { kind: 'failed', error: decision.error }),
          });
  return message(text, [section(text)]);
}

// ---- what the AI client reads ------------------------------------------------------------------

/** A tool's structured output: the catalog's output shape (orders_page lists its orders). */
export type ToolOutputs = Record<string, string | number | boolean | readonly Record<string, unknown>[]>;

type LookupAsk = Extract<ToolAsk, { kind: 'lookup' }>;

/** An order time as an AI client reads it: ISO 8601 in China time, the zone the spec's times are in. */
const chinaTime = (d: Date): string =>
  new Date(d.getTime() + 8 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+08:00');

/**
 * One page of orders: what the person's own /orders answer shows (blocks/orders.ts), and no
 * more. Orders carry no receiver fields (plat/types.ts drops them); remarks and flag names are
 * masked as in every answer (blocks/hidden.ts buyerText); API text escaped and clipped.
 */
function ordersOutputs(w: Words, outcome: LookupOutcome): ToolOutputs {
  if (outcome.kind !== 'orders') return { page: 0, pages: 0, count: 0, total: 0, orders: [], summary: '' };
  const { page } = outcome;
  const orders = page.orders.map((o) => {
    const flag = flagLabel(w, o.remarkTag, o.remarkTagName);
    const remark = o.remark?.trim()
      ? escapeClip(buyerText(w, o.remark.trim().replace(/\s+/g, ' ')), 300)
      : '';
    return {
      order_sn: escapeClip(o.orderSn, 64),
      status: orderStatusLabel(w, o.status),
      goods: `${escapeClip(o.goodsName.trim(), 200) || w.t('orders.goodsUnnamed')}${
        o.goodsSpec?.trim() ? ` — ${escapeClip(o.goodsSpec.trim(), 150)}` : ''
      }`,
      quantity: o.goodsCount,
      amount_yuan: o.payAmount,
      ...(o.lastShipTime ? { ship_by: chinaTime(o.lastShipTime) } : {}),
      ...(o.confirmTime ? { confirmed: chinaTime(o.confirmTime) } : {}),
      pre_sale: o.isPreSale,
      ...(flag ? { flag } : {}),
      ...(remark ? { remark } : {}),
    };
  });
  // The page as /orders numbers it (from 1); the API counts from 0 (spec §4.7).
  const number = page.page + 1;
  const pages = lastPage(page);
  return {
    page: number,
    pages,
    count: orders.length,
    total: page.totalElements,
    orders,
    summary: w.t('mcp.summary.orders', {
      shop: escapeClip(outcome.ownerId, 64),
      page: w.count(number),
      pages: w.count(pages),
      n: w.count(orders.length),
      all: w.count(page.totalElements),
    }),
  };
}

/** An item's prices: in yuan where the service gave a number; the summary says them all. */
function pricesOutputs(w: Words, outcome: LookupOutcome): ToolOutputs {
  if (outcome.kind !== 'item-prices') return { summary: '' };
  const { prices } = outcome;
  const yuan = (v: PriceValue | null) =>
    v !== null && v.value !== null && Number.isFinite(v.value) ? v.value : undefined;
  const figures = {
    price: yuan(prices.price),
    original_price: yuan(prices.originalPrice),
    reference_price: yuan(prices.referencePrice),
  };
  return {
    ...Object.fromEntries(Object.entries(figures).filter(([, v]) => v !== undefined)),
    summary: w.t('mcp.summary.prices', {
      id: escapeClip(prices.itemId, 64),
      price: priceValueText(w, prices.price),
      original: priceValueText(w, prices.originalPrice),
      reference: priceValueText(w, prices.referencePrice),
    }),
  };
}

/** A paid tool's structured output (its catalog output shape) from the lookup's outcome. */
export function lookupToolOutputs(
  w: Words,
  ask: LookupAsk,
  outcome: LookupOutcome,
  ageMs: number | null,
  now: Date,
): ToolOutputs {
  switch (ask.tool) {
    case 'lookup_waybill':
    case 'lookup_item':
    case 'orders_due':
    case 'lookup_shop': {
      const done: Extract<StepResult, { kind: 'done' }> = {
        kind: 'done',
        ask: {
          ok: true,
          stepId: ask.tool,
          request: ask.request,
          hoursAhead: ask.hoursAhead,
          itemLink: ask.itemLink,
        },
        outcome,
        ageMs,
        // An AI client's call is its token owner's, who confirmed it in Slack.
        byWorkflow: false,
      };
      return stepOutputs(w, done, now) as ToolOutputs;
    }
    case 'item_prices':
      return pricesOutputs(w, outcome);
    case 'orders_page':
      return ordersOutputs(w, outcome);
    case 'waybill_print':
    case 'spend':
      // waybill_print is the agent's only; spend is a free read (spendToolOutputs).
      throw new Error(`${ask.tool} has no MCP lookup output`);
  }
}

/** The free spend tool's output (the ledger's figures for the period). */
export function spendToolOutputs(w: Words, report: UsageReport): ToolOutputs {
  const { totals } = report;
  return {
    points: totals.points,
    calls: totals.calls,
    quota_calls: totals.quotaCalls,
    summary: w.t('mcp.summary.spend', {
      period: w.t(`mcp.summary.period.${report.period}`),
      points: w.points(totals.points),
      calls: w.count(totals.calls),
      quota: w.count(totals.quotaCalls),
    }),
  };
}

/** The short text beside a paid tool's output: its summary and what was charged. */
export function lookupToolText(
  w: Words,
  outputs: ToolOutputs,
  outcome: LookupOutcome & { shared?: boolean },
  ageMs: number | null,
): string {
  return `${String(outputs.summary ?? '')}\n${chargeOf(w, outcome, ageMs)}`;
}

export type McpError =
  | { kind: 'denied' }
  | { kind: 'expired'; minutes: number }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'invalid'; problems: readonly Problem[] }
  | { kind: 'failed'; error: unknown }
  | { kind: 'interrupted'; charge: string }
  | { kind: 'spend_denied' }
  | { kind: 'busy' };

/** Why a tool call got no answer, and what it cost (nothing, unless a sent call was charged). */
export function mcpErrorText(w: Words, e: McpError): string {
  const { t } = w;
  switch (e.kind) {
    case 'denied':
      return t('mcp.error.denied');
    case 'expired':
      return t('mcp.error.expired', { n: w.count(e.minutes) });
    case 'refused':
      return t('mcp.error.refused', { reason: describeRefusal(w, e.refusal) });
    case 'invalid':
      return t('mcp.error.invalid', { problems: w.list(e.problems.map((p) => describeProblem(w, p))) });
    case 'interrupted':
      return t('mcp.error.interrupted', { charge: e.charge });
    case 'spend_denied':
      return t('mcp.error.spendDenied');
    case 'busy':
      return t('mcp.error.busy');
    case 'failed': {
      const error = e.error;
      if (!isPlatError(error)) return escapeClip(error instanceof Error ? error.message : String(error), 300);
      return t('mcp.error.failed', {
        title: errorTitle(w, error.code),
        remedy: errorRemedy(w, error),
        charge: errorChargeText(w, error),
      });
    }
  }
}

/** Words an HTTP client reads in `WWW-Authenticate` (ASCII: a header value), always English. */
export type McpAuthFailure = 'missing' | 'invalid' | 'expired' | 'revoked' | 'off' | 'uninstalled' | 'rate';
export const mcpAuthText = (w: Words, reason: McpAuthFailure): string => w.t(`mcp.auth.${reason}` as TKey);

/** The progress message while the owner has not clicked yet. */
export const mcpWaitingText = (w: Words, short: string): string => w.t('mcp.waiting', { short });

/** Every tool's title and description for an MCP client (the catalog's words). */
export type { ToolName };
