/**
 * One clock for a charge (issue 33 finding 8), on both engines, through the real lookup path
 * (the REAL plat client against the REAL sandbox over loopback): a call reserved by the app's
 * clock at 23:59:59.8 is booked in that day, whoever makes it — a digest's or alert check's page
 * (the charge event their runners write to the ledger), and a workflow step's call — however
 * late its answer comes, so the counters it was reserved on are the ones it is paid on.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { leasedRunCalls } from '../../src/digest/sent-calls.js';
import { type Actor, createLookupService, summarize } from '../../src/lookups/lookup-service.js';
import { budgetsSchema } from '../../src/lookups/settings.js';
import type { LookupRequest } from '../../src/lookups/types.js';
import type { ChargeEvent } from '../../src/plat/types.js';
import { createChargeRecorder } from '../../src/store/ledger.js';
import { periodsOf } from '../../src/store/periods.js';
import { type PlatHarness, startPlatHarness } from '../helpers/plat-harness.js';
import { ENGINES, type TestDatabase, testDatabase } from '../helpers/store-engines.js';

const ZONE = 'Asia/Shanghai';
/** 23:59:59.800 on 2025-01-15 in Shanghai; the answers come in real time, long after. */
const LAST_MOMENT = new Date('2025-01-15T15:59:59.800Z');
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let h: PlatHarness;
beforeAll(async () => {
  h = await startPlatHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
  h.sandbox.setFaults([{ kind: 'latency', ms: 250 }]);
});
const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((d) => d.dispose()));
});

describe.each(ENGINES)('a charge is booked in the period its call was reserved in (%s)', (engine) => {
  async function rig() {
    const db = await testDatabase(engine);
    databases.push(db);
    const store = await db.open();
    const charges = createChargeRecorder({ ledger: store.ledger, logger: quiet });
    const lookups = createLookupService({
      client: h.client,
      store,
      prices: { 'get-shop-id': { '*': 2 } },
      now: () => LAST_MOMENT,
      charges,
    });
    await lookups.settings.setBudgets(budgetsSchema.parse({ workspace: { daily: 2 } }), 'UADMIN');
    const workspaceOn = async (at: Date) => {
      const { daily } = periodsOf(at, ZONE);
      const [use] = await store.budgets.uses([
        { scope: 'workspace', subject: '*', period: 'daily', key: daily.key, cap: 0 },
      ]);
      return use?.spent ?? 0;
    };
    return { store, charges, lookups, workspaceOn };
  }

  it("a digest's page: its charge event carries the reservation's instant, so its ledger row counts in that day", async () => {
    const { store, charges, lookups, workspaceOn } = await rig();
    const events: ChargeEvent[] = [];
    await lookups.scheduledClient.shopId(
      { wwid: 'scheduled-midnight' },
      { onCharge: (e) => events.push(e), channelId: 'C1' },
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.at).toEqual(LAST_MOMENT);
    // The runner writes its row from the event, under the id it wrote ahead (digest/sent-calls.ts).
    await leasedRunCalls({
      store,
      charges,
      now: () => LAST_MOMENT.getTime(),
      runKey: 'digest:1',
      epoch: 1,
      source: 'digest',
      channelId: 'C1',
      correlationId: 'digest-1',
      edition: null,
    }).record(events[0] as ChargeEvent);
    expect((await store.ledger.list({ from: new Date(0), to: new Date(8.64e15) })).map((r) => r.at)).toEqual([
      LAST_MOMENT,
    ]);
    expect(await workspaceOn(LAST_MOMENT)).toBe(2);
    // That day's cap is spent: the next page, reserved by the same clock, is refused unsent.
    const before = h.sandbox.stats().calls;
    await expect(lookups.scheduledClient.shopId({ wwid: 'scheduled-next' })).rejects.toMatchObject({
      code: 'budget_exceeded',
    });
    expect(h.sandbox.stats().calls).toBe(before);
    expect(await store.budgets.reconcile(Object.values(periodsOf(LAST_MOMENT, ZONE)))).toEqual([]);
  });

  it("a workflow step's call is booked in the day it was reserved in", async () => {
    const { store, lookups, workspaceOn } = await rig();
    const request: LookupRequest = { kind: 'shop-id', wwid: 'step-midnight' };
    const actor: Actor = { userId: 'U1', channelId: 'C1', teamId: 'T1', responseUrl: null };
    const pending = await lookups.prepareFollowUp(request, actor, summarize(request));
    const claimed = await lookups.claim(pending.id, actor.userId);
    if (!claimed.ok) throw new Error(claimed.reason);
    const outcome = await lookups.run(claimed.pending, {
      source: 'workflow',
      step: { workflowExecutionId: 'Wx1', stepId: 'lookup_shop', caps: { daily: 10, monthly: null } },
    });
    expect(outcome.chargedPoints).toBe(2);
    const rows = await store.ledger.byPending(pending.id);
    expect(rows.map((r) => r.at)).toEqual([LAST_MOMENT]);
    expect(await workspaceOn(LAST_MOMENT)).toBe(2);
    expect(await store.budgets.reconcile(Object.values(periodsOf(LAST_MOMENT, ZONE)))).toEqual([]);
  });
});
