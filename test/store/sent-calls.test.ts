/**
 * The calls written ahead (store.ts SentCalls; issue 33 findings 6, 11, 13, 16, 17), on both
 * engines: a write ahead written again has the new times and no mark; the mark; a withdrawal takes
 * a "may not have been sent" ledger row with it and nothing else; `unanswered` tells marked from
 * unmarked calls; `recent` dates every tenant's calls by the database's clock and says which were
 * answered; a lookup's fence writes its call ahead only when the claim holds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SentCall, Store } from '../../src/store/store.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const T0 = Date.parse('2026-03-01T09:00:00.000Z');
const HOLDER = { instanceId: 'host/1/a', leaseMs: 30_000 };

let db: TestDatabase | null = null;
afterEach(async () => {
  await db?.dispose();
  db = null;
});

describe.each(ENGINES)('calls written ahead on %s', (engine) => {
  let t = T0;
  async function fresh(): Promise<Store> {
    t = T0;
    db = await testDatabase(engine);
    return db.open({ clock: { now: () => t } });
  }
  const call = (chargeId: string, fields: Partial<SentCall> = {}): SentCall => ({
    chargeId,
    runKey: 'lookup:p-1',
    epoch: 1,
    source: 'interactive',
    operation: 'get-shop-id',
    edition: null,
    channelId: 'C1',
    correlationId: 'corr-1',
    attempt: 0,
    sentAt: new Date(t),
    userId: 'U1',
    pendingId: 'p-1',
    ...fields,
  });

  it('written again: its times are the new ones and its mark is cleared; marked: unanswered says sent', async () => {
    const store = await fresh();
    await store.sentCalls.record(call('p-1:0:0'));
    await store.sentCalls.markSent('p-1:0:0');
    expect(await store.sentCalls.unanswered('lookup:p-1', 2)).toMatchObject([
      { chargeId: 'p-1:0:0', sent: true, userId: 'U1', pendingId: 'p-1', sentAt: new Date(T0) },
    ]);
    // A preparation retried on a later grant writes it again: not yet sent, its new time.
    t += 5_000;
    await store.sentCalls.record(call('p-1:0:0'));
    expect(await store.sentCalls.unanswered('lookup:p-1', 2)).toMatchObject([
      { chargeId: 'p-1:0:0', sent: false, sentAt: new Date(T0 + 5_000) },
    ]);
    // Only calls of earlier epochs, and only those with no ledger row.
    expect(await store.sentCalls.unanswered('lookup:p-1', 1)).toEqual([]);
    await store.ledger.record(ledgerEntry({ chargeId: 'p-1:0:0', pendingId: 'p-1' }));
    expect(await store.sentCalls.unanswered('lookup:p-1', 2)).toEqual([]);
  });

  it('a withdrawal forgets the call and a "may not have been sent" row written for it, never another row', async () => {
    const store = await fresh();
    for (const id of ['p-1:0:0', 'p-1:1:0', 'p-1:2:0']) await store.sentCalls.record(call(id));
    await store.ledger.record(
      ledgerEntry({ chargeId: 'p-1:0:0', code: -2, outcome: 'error', points: 0, at: new Date(T0) }),
    );
    await store.ledger.record(
      ledgerEntry({ chargeId: 'p-1:1:0', code: -1, outcome: 'error', points: 0, at: new Date(T0) }),
    );
    for (const id of ['p-1:0:0', 'p-1:1:0', 'p-1:2:0']) await store.sentCalls.withdraw(id);
    const rows = await store.ledger.list({ from: new Date(T0 - 86_400_000), to: new Date(T0 + 86_400_000) });
    expect(rows.map((r) => [r.chargeId, r.code])).toEqual([['p-1:1:0', -1]]);
    expect(await store.sentCalls.unanswered('lookup:p-1', 2)).toEqual([]);
  });

  it('recent: every tenant’s calls of the last moments, by the database’s clock; none taken as answered', async () => {
    const store = await fresh();
    await store.sentCalls.record(call('p-1:0:0'));
    await store.forTenant('T2').sentCalls.record(call('p-2:0:0', { runKey: 'lookup:p-2', pendingId: 'p-2' }));
    await store.sentCalls.record(call('p-3:0:0', { runKey: 'lookup:p-3', pendingId: 'p-3' }));
    await store.ledger.record(ledgerEntry({ chargeId: 'p-1:0:0', at: new Date(t) }));
    // A placeholder is no answer.
    await store.ledger.record(ledgerEntry({ chargeId: 'p-3:0:0', code: -1, outcome: 'error', points: 0 }));
    t += 200;
    const recent = await store.sentCalls.recent(60_000);
    expect(recent).toHaveLength(3);
    for (const c of recent) {
      // SQLite dates by this process's (test) clock; PostgreSQL by its own, a moment ago.
      if (engine === 'sqlite') expect(c.writtenAgoMs).toBe(200);
      else expect(c.writtenAgoMs).toBeGreaterThanOrEqual(0);
      if (engine === 'sqlite') expect(c.writtenAgoMs).toBeLessThan(60_000);
    }
    // A ledger row's time is its reservation's, not its answer's: no call is taken as answered.
    expect(recent.filter((c) => c.answeredAgoMs !== null)).toEqual([]);
    // Older than the window: not read.
    if (engine === 'sqlite') {
      t += 60_000;
      expect(await store.sentCalls.recent(60_000)).toEqual([]);
    }
  });

  it("a lookup's fence writes its call ahead only while the claim holds, in the same write", async () => {
    const store = await fresh();
    const pending = await store.pending.create({
      userId: 'U1',
      channelId: 'C1',
      teamId: 'T1',
      request: { kind: 'shop-id', wwid: 'x' },
      quote: {},
      summary: 'shop-id:x',
      responseUrl: null,
      ttlMs: 60_000,
    });
    const claimed = await store.pending.claim(pending.id, 'U1', HOLDER);
    if (!claimed.ok) throw new Error(claimed.reason);
    const ahead = call(`${pending.id}:0:0`, { runKey: `lookup:${pending.id}`, pendingId: pending.id });
    expect(await store.pending.fence(pending.id, HOLDER, claimed.pending.claimEpoch, ahead)).toBe(true);
    expect(await store.sentCalls.unanswered(`lookup:${pending.id}`, Number.MAX_SAFE_INTEGER)).toMatchObject([
      { chargeId: `${pending.id}:0:0`, sent: false },
    ]);
    expect((await store.pending.get(pending.id))?.callsSent).toBe(1);
    // Another epoch (the claim was taken over): nothing written, nothing counted.
    const other = call(`${pending.id}:1:0`, { runKey: `lookup:${pending.id}`, pendingId: pending.id });
    expect(await store.pending.fence(pending.id, HOLDER, claimed.pending.claimEpoch + 1, other)).toBe(false);
    expect(await store.sentCalls.unanswered(`lookup:${pending.id}`, Number.MAX_SAFE_INTEGER)).toHaveLength(1);
    expect((await store.pending.get(pending.id))?.callsSent).toBe(1);
  });
});
