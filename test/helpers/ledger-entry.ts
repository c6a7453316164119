/**
 * A ledger row as a test writes it: an ok, interactive get-shop-info charge of 10 points by U1 in
 * C1, now, with a charge id of its own; `fields` sets what the test is about.
 */
import { randomUUID } from 'node:crypto';
import type { NewLedgerEntry } from '../../src/store/store.js';

export function ledgerEntry(fields: Partial<NewLedgerEntry> = {}): NewLedgerEntry {
  return {
    chargeId: `test-charge-${randomUUID()}`,
    at: new Date(),
    userId: 'U1',
    channelId: 'C1',
    operation: 'get-shop-info',
    edition: 1,
    points: 10,
    quotaCalls: 0,
    code: 0,
    outcome: 'ok',
    requestId: null,
    correlationId: null,
    pendingId: null,
    source: 'interactive',
    ...fields,
  };
}
