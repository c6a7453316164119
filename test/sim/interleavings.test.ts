/**
 * In-process interleavings of the store operations a leased run's holder and a replica taking the
 * run over make, explored by fast-check's scheduler (issue 33, "What must hold" 2): each actor's
 * steps are a sequence, the scheduler interleaves them in every order it draws, and a failure
 * shrinks to the smallest order that breaks the property, printed with fast-check's seed.
 * The process-level simulator (sim/) meets the same races with real processes and real time;
 * here each order is tried on purpose, in milliseconds, on both engines.
 *
 * The holder of a digest run writes each call's charge id ahead (`sent_calls`), sends it, and
 * writes the answer's charge to the ledger when it reads it; a late holder (its store was slow,
 * or it was paused) may read an answer after another replica claimed the run. The claimer first
 * settles every earlier call without a ledger row as "sent, no answer" (code -1, 0 points). The
 * holder's fence stops it from SENDING after the claim; an answer already on its way is still
 * read. What must hold: every call that was sent is in the ledger once, with the charge its
 * answer reported (finding 2: a placeholder written first must not hide the real charge).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leasedRunCalls, settleUnanswered } from '../../src/digest/sent-calls.js';
import { chargeIdOf, createChargeRecorder, ledgerEntryFor } from '../../src/store/ledger.js';
import { periodKeys, periodsOf } from '../../src/store/periods.js';
import type { Store } from '../../src/store/store.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const silent = { warn: () => {}, error: () => {}, info: () => {} };

describe.each(ENGINES)('a late holder and a takeover, every order (fast-check scheduler) on %s', (engine) => {
  let db: TestDatabase;
  let store: Store;
  let run = 0;

  beforeAll(async () => {
    db = await testDatabase(engine);
    store = await db.open();
  });
  afterAll(async () => {
    await db.dispose();
  });

  it('every call the holder sent is in the ledger once, with the charge its answer reported', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 3 }),
        async (s, prices) => {
          run += 1;
          const runKey = `digest:${run}`;
          const charges = createChargeRecorder({ ledger: store.ledger, logger: silent });
          const holder = leasedRunCalls({
            store,
            charges,
            now: Date.now,
            runKey,
            epoch: 1,
            source: 'digest',
            channelId: 'CSIMDG1',
            correlationId: `digest-${run}`,
            edition: 1,
          });
          let taken = false;
          const sent: number[] = [];
          // The holder: send call i (its fence refuses once the run is taken), later read its answer.
          const holderSteps = prices.flatMap((points, i) => [
            {
              label: `holder sends call ${i}`,
              builder: async () => {
                if (taken) return;
                await holder.writeAhead.beforeSend?.('paging-orders', 0);
                sent.push(i);
              },
            },
            {
              label: `holder records call ${i} (${points} points)`,
              builder: async () => {
                if (!sent.includes(i)) return;
                await holder.record({
                  operation: 'paging-orders',
                  edition: 1,
                  points,
                  quotaCalls: 0,
                  code: 0,
                  requestId: `${runKey}-answer-${i}`,
                  correlationId: `digest-${run}`,
                  attempt: 0,
                  at: new Date(),
                });
              },
            },
          ]);
          const holderDone = s.scheduleSequence(holderSteps);
          const takeoverDone = s.scheduleSequence([
            {
              label: 'another replica claims the run and settles its unanswered calls',
              builder: async () => {
                taken = true;
                await settleUnanswered({ store, charges, runKey, epoch: 2 }, async () => {});
              },
            },
          ]);
          await s.waitFor(Promise.all([holderDone.task, takeoverDone.task]));
          await charges.flush();
          charges.stop();

          const rows = (
            await store.ledger.list({ from: new Date(0), to: new Date(Date.now() + 86_400_000) })
          ).filter((e) => e.chargeId.startsWith(`${runKey}:`));
          expect(rows).toHaveLength(sent.length);
          for (const i of sent) {
            const row = rows.find((r) => r.requestId === `${runKey}-answer-${i}`);
            expect(
              row,
              `call ${i}'s answer (${prices[i]} points) in the ledger: ${JSON.stringify(rows)}`,
            ).toBeDefined();
            expect(row?.points).toBe(prices[i]);
          }
        },
      ),
      { numRuns: engine === 'sqlite' ? 60 : 25 },
    );
  }, 60_000);

  it('lookups reserving, charging and releasing against one cap, in every order: the cap holds, totals = ledger, nothing left reserved', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 5, max: 40 }),
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 2, maxLength: 6 }),
        async (s, cap, prices) => {
          run += 1;
          const userId = `UCAP${run}`;
          const now = new Date();
          const { daily } = periodKeys(now, 'Asia/Shanghai');
          const caps = [
            { scope: 'user' as const, subject: userId, period: 'daily' as const, key: daily, cap },
          ];
          const lookups = prices.map((points, i) => {
            let reservation: string | null = null;
            return s.scheduleSequence([
              {
                label: `lookup ${i} reserves ${points}`,
                builder: async () => {
                  const r = await store.budgets.reserve({ userId, points, caps, ttlMs: 60_000 });
                  if (r.ok) reservation = r.id;
                },
              },
              {
                label: `lookup ${i} records its charge`,
                builder: async () => {
                  if (reservation === null) return;
                  await store.ledger.record(
                    ledgerEntryFor(
                      {
                        operation: 'get-shop-id',
                        edition: null,
                        points,
                        quotaCalls: 0,
                        code: 0,
                        requestId: null,
                        correlationId: null,
                        at: now,
                      },
                      {
                        chargeId: chargeIdOf(`cap-${run}-${i}`, 0, 0),
                        userId,
                        channelId: null,
                        pendingId: null,
                        source: 'interactive',
                      },
                    ),
                    { reservationId: reservation },
                  );
                },
              },
              {
                label: `lookup ${i} releases`,
                builder: async () => {
                  if (reservation !== null) await store.budgets.release(reservation);
                },
              },
            ]);
          });
          await s.waitFor(Promise.all(lookups.map((l) => l.task)));

          const spent = (
            await store.ledger.totals({ from: new Date(0), to: new Date(Date.now() + 86_400_000), userId })
          ).points;
          expect(spent).toBeLessThanOrEqual(cap);
          const [counter] = (await store.budgets.reconcile([periodOf(now)])).filter(
            (d) => d.subject === userId,
          );
          expect(counter, 'the totals agree with the ledger and the live reservations').toBeUndefined();
          const use = await store.budgets.reserve({ userId, points: 0, caps, ttlMs: 1 });
          const mine = use.uses.find((u) => u.subject === userId);
          expect(mine?.spent, 'spent + reserved once every lookup released').toBe(spent);
          if (use.ok) await store.budgets.release(use.id);
        },
      ),
      { numRuns: engine === 'sqlite' ? 60 : 25 },
    );
  }, 60_000);
});

/** The day of `at` in the default budget zone, as reconcile() takes it. */
function periodOf(at: Date) {
  const { daily } = periodsOf(at, 'Asia/Shanghai');
  return daily;
}
