/**
 * The one path every entry point takes (slash command, shortcut, unfurl, button): quote the
 * charge, store the pending lookup, claim it once on Confirm, run it, and write every charge
 * to the ledger. Confirmation is server-side and single-use (DESIGN rule 2).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { PriceTable } from '../config.js';
import type { CallOptions, PlatClient } from '../plat/client.js';
import { OPERATIONS } from '../plat/operations.js';
import type { ChargeEvent } from '../plat/types.js';
import type { ClaimFailure, LedgerSource, PendingLookup, Store } from '../store/store.js';
import { executeLookup } from './execute.js';
import { quote } from './quote.js';
import type { LookupOutcome, LookupRequest, Quote } from './types.js';

/** DESIGN rule 2 / issue: a confirmation expires after 10 minutes. */
export const CONFIRM_TTL_MS = 10 * 60 * 1000;

export interface Actor {
  userId: string;
  channelId: string | null;
  teamId: string | null;
  /** Slack's response_url, kept with the pending lookup so the answer can replace the confirmation. */
  responseUrl: string | null;
}

export type Prepared =
  /** Show the confirmation; the button carries pending.id. */
  | { kind: 'confirm'; pending: PendingLookup; quote: Quote }
  /** The user chose to skip confirmations under a threshold and this quote is under it: already claimed. */
  | { kind: 'auto'; pending: PendingLookup; quote: Quote };

export type Claimed =
  | { ok: true; pending: PendingLookup }
  | { ok: false; reason: ClaimFailure; pending: PendingLookup | null };

export interface RunOptions {
  source?: LedgerSource;
  correlationId?: string;
  /** What to keep with the finished lookup (e.g. the print data file for a later download). */
  resultJson?: (outcome: LookupOutcome) => string | null;
}

export interface LookupServiceOptions {
  client: PlatClient;
  store: Store;
  prices: PriceTable;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  confirmTtlMs?: number;
}

export interface LookupService {
  quote(request: LookupRequest): Quote;
  /**
   * Quotes and stores the request; never calls the plat API. With `allowAuto` (default true) a
   * quote under the user's own threshold is claimed at once (kind 'auto').
   */
  prepare(request: LookupRequest, actor: Actor, summary: string, options?: { allowAuto?: boolean }): Prepared;
  /** Confirm: single-use, only by the user who asked, only before expiry. */
  claim(pendingId: string, userId: string): Claimed;
  cancel(pendingId: string, userId: string): Claimed;
  /** Runs a claimed lookup; records every charge; marks it done or failed. Rejects with PlatError. */
  run(pending: PendingLookup, options?: RunOptions): Promise<LookupOutcome>;
}

export function summarize(request: LookupRequest): string {
  switch (request.kind) {
    case 'item':
      return `item ${request.itemId}${request.withPrices ? ' with prices' : ''}`;
    case 'item-prices':
      return `prices of item ${request.itemId}`;
    case 'shop-info':
      return `the shop of ${request.url}`;
    case 'shop-id':
      return `the shop id of account ${request.wwid}`;
    case 'waybill-print':
      return `print data of ${request.waybills.length} waybill${request.waybills.length === 1 ? '' : 's'} of shop ${request.shopId}`;
    case 'waybill-info':
      return `information on ${request.waybills.length} waybill${request.waybills.length === 1 ? '' : 's'} of owner ${request.ownerId}`;
    case 'orders':
      return `orders of owner ${request.ownerId}, page ${request.page + 1} (${request.pageSize} per page)`;
  }
}

export function createLookupService(options: LookupServiceOptions): LookupService {
  const { client, store, logger } = options;
  const ttlMs = options.confirmTtlMs ?? CONFIRM_TTL_MS;

  const quoteOf = (request: LookupRequest) =>
    quote(request, {
      prices: options.prices,
      lastCharge: (operation, edition) => store.ledger.lastCharge(operation, edition),
      editionFor: (operation) => client.editionFor(operation),
    });

  /** Under the user's own threshold (default: always ask). Unknown prices always ask. */
  function skipsConfirmation(userId: string, q: Quote): boolean {
    const threshold = store.prefs.getConfirmThreshold(userId);
    return threshold !== null && q.totalPoints !== null && q.totalPoints < threshold;
  }

  return {
    quote: quoteOf,

    prepare(request, actor, summary, prepareOptions = {}) {
      const q = quoteOf(request);
      const pending = store.pending.create({
        userId: actor.userId,
        channelId: actor.channelId,
        teamId: actor.teamId,
        request,
        quote: q,
        summary,
        responseUrl: actor.responseUrl,
        ttlMs,
      });
      if ((prepareOptions.allowAuto ?? true) && skipsConfirmation(actor.userId, q)) {
        const claimed = store.pending.claim(pending.id, actor.userId);
        if (claimed.ok) return { kind: 'auto', pending: claimed.pending, quote: q };
      }
      return { kind: 'confirm', pending, quote: q };
    },

    claim: (pendingId, userId) => store.pending.claim(pendingId, userId),
    cancel: (pendingId, userId) => store.pending.cancel(pendingId, userId),

    async run(pending, runOptions = {}) {
      const correlationId = runOptions.correlationId ?? randomUUID();
      const record = (event: ChargeEvent) => {
        store.ledger.record({
          at: event.at,
          userId: pending.userId,
          channelId: pending.channelId,
          operation: event.operation,
          edition: event.edition,
          points: event.points,
          quotaCalls: OPERATIONS[event.operation].charge === 'quota' ? 1 : 0,
          code: event.code,
          outcome: event.code === 0 ? 'ok' : 'error',
          requestId: event.requestId,
          correlationId: event.correlationId,
          pendingId: pending.id,
          source: runOptions.source ?? 'interactive',
        });
      };
      const callOptions: CallOptions = { priority: 'interactive', correlationId, onCharge: record };
      try {
        const outcome = await executeLookup(client, pending.request, callOptions);
        store.pending.finish(pending.id, 'done', runOptions.resultJson?.(outcome) ?? null);
        return outcome;
      } catch (error) {
        store.pending.finish(pending.id, 'failed', null);
        logger?.warn(
          { err: error, pendingId: pending.id, kind: pending.request.kind, correlationId },
          'lookup failed',
        );
        throw error;
      }
    },
  };
}
