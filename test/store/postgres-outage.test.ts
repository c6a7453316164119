/**
 * PostgreSQL going away while platdesk runs, with a real server of its own (stopped and started
 * again by the test): the store reports "unavailable" instead of hanging or crashing, a charge
 * that arrives meanwhile is kept and written once the server is back, and the store serves again
 * by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/engine.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { createChargeRecorder } from '../../src/store/ledger.js';
import type { NewLedgerEntry, Store } from '../../src/store/store.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let charges = 0;
const charge = (points: number): NewLedgerEntry =>
  ledgerEntry({ chargeId: `outage-charge-${++charges}`, points });
const allTime = () => ({ from: new Date(0), to: new Date(Date.now() + 86_400_000) });

describe('PostgreSQL stopped and started again under a running store', () => {
  let server: PostgresServer;
  let store: Store;
  beforeAll(async () => {
    server = await startPostgres();
    store = await openStore({ url: await server.createDatabase('outage'), poolMax: 4 });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await server?.remove();
  });

  it('claims fail as unavailable (nothing runs), a charge is kept, and both recover by themselves', async () => {
    const pending = await store.pending.create({
      userId: 'U1',
      channelId: 'C1',
      teamId: 'T1',
      request: { kind: 'shop-id', wwid: 'x' },
      quote: {},
      summary: 'the shop id of account x',
      responseUrl: null,
      ttlMs: 10 * 60_000,
    });
    const charges = createChargeRecorder({ ledger: store.ledger, logger: quiet, retryMs: 100 });
    await server.stop();

    expect(await store.ping(1000)).toBe(false);
    await expect(
      store.pending.claim(pending.id, 'U1', { instanceId: 'outage-test', leaseMs: 30_000 }),
    ).rejects.toThrow(StoreUnavailableError);
    // A charge reported by a call that was already under way: kept, not lost, not thrown.
    void charges.record(charge(7));
    await new Promise((r) => setTimeout(r, 300));
    expect(charges.backlog()).toBe(1);

    await server.start();
    const deadline = Date.now() + 15_000;
    while (charges.backlog() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(charges.backlog()).toBe(0);
    expect(await store.ping(1000)).toBe(true);
    expect((await store.ledger.list(allTime())).map((e) => e.points)).toEqual([7]);
    // The claim that failed changed nothing: the confirmation is still there to be used once.
    expect(
      (await store.pending.claim(pending.id, 'U1', { instanceId: 'outage-test', leaseMs: 30_000 })).ok,
    ).toBe(true);
    charges.stop();
  }, 60_000);

  it('a process stopping while the ledger cannot be written logs every kept charge in full, for an operator to enter', async () => {
    const logged: { o: object; msg: string }[] = [];
    const capture = { ...quiet, error: (o: object, msg: string) => logged.push({ o, msg }) };
    const charges = createChargeRecorder({ ledger: store.ledger, logger: capture, retryMs: 100 });
    await server.stop();
    try {
      void charges.record(charge(3));
      void charges.record(charge(5));
      await new Promise((r) => setTimeout(r, 300));
      expect(charges.backlog()).toBe(2);
      charges.stop();
      expect(logged).toHaveLength(1);
      expect(logged[0]?.msg).toBe('stopping with charges not written to the ledger');
      const kept = ((logged[0] as { o: object }).o as { charges: NewLedgerEntry[] }).charges;
      expect(kept.map((c) => [c.operation, c.points, c.userId])).toEqual([
        ['get-shop-info', 3, 'U1'],
        ['get-shop-info', 5, 'U1'],
      ]);
    } finally {
      await server.start();
    }
  }, 60_000);
});
