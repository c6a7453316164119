/**
 * A charge reported by the plat API as a ledger row: one mapping for every caller (lookups,
 * unfurls, digests), so the ledger always matches what the service withheld.
 */
import type { LedgerSource, NewLedgerEntry } from '../store/store.js';
import type { ChargeEvent } from './types.js';

export interface ChargeContext {
  /** null for scheduled work (digests). */
  userId: string | null;
  channelId: string | null;
  pendingId: string | null;
  source: LedgerSource;
}

export function ledgerEntryFor(event: ChargeEvent, context: ChargeContext): NewLedgerEntry {
  return {
    at: event.at,
    userId: context.userId,
    channelId: context.channelId,
    operation: event.operation,
    edition: event.edition,
    points: event.points,
    // The item operations are charged one call of the quota (spec §8), with no points reported.
    quotaCalls: event.quotaCalls,
    code: event.code,
    outcome: event.code === 0 ? 'ok' : 'error',
    requestId: event.requestId,
    correlationId: event.correlationId,
    pendingId: context.pendingId,
    source: context.source,
  };
}
