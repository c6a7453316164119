/**
 * The agent's money path under faults (issue 36), through the real Bolt app, on both store
 * engines, calls counted at the sandbox and compared with the ledger and with what the thread says:
 * - a Confirm Slack delivers again (same action_ts) runs the plan once;
 * - Cancel clicked at the same moment as Confirm: whichever wins, no call is made that the ledger
 *   and the thread do not show, and nothing runs after the Cancel was taken;
 * - the plat server stopped while a step's call is in flight: that call is in the ledger once
 *   (its charge not known), the next step's call never reaches anything and costs nothing, and the
 *   summary says both, as the ledger holds them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, SANDBOX_FIXTURES, type Sandbox } from '../../src/sandbox/index.js';
import { askForPlan } from '../helpers/agent-dm.js';
import { textOf, useHarness } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { owners } = SANDBOX_FIXTURES;
let seq = 0;
const nextTs = () => `1700000600.${String(++seq).padStart(6, '0')}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const TOKEN = 'agent-faults';

describe.each(ENGINES)('the agent’s money path under faults (%s)', (engine) => {
  // The plat service this app calls: the test's own, so the test can stop it.
  const sandbox: Sandbox = createSandbox({ token: TOKEN });
  let platUrl = '';
  beforeAll(async () => {
    platUrl = await sandbox.listen(0);
  });
  afterAll(async () => {
    await sandbox.close().catch(() => undefined);
  });
  const h = useHarness({
    engine,
    env: {
      PLAT_PRICES: 'platdzmd:1=4,paging-orders=5',
      get PLAT_BASE_URL() {
        return platUrl;
      },
      PLAT_TOKEN: TOKEN,
    },
  });

  const offered = (text: string) => askForPlan(h(), nextTs(), text);

  /** The plan's summary in its thread, once it is there (null if none comes within `ms`). */
  async function summaryOf(threadTs: string, ms = 5000): Promise<string | null> {
    for (let waited = 0; waited <= ms; waited += 25) {
      const found = h()
        .fake.replies(SLACK.imChannelId, threadTs)
        .map((m) => textOf({ blocks: m.blocks ?? [] }))
        .filter((t) => t.includes('Plan done.'));
      if (found.length > 0) {
        expect(found).toHaveLength(1);
        return found[0] ?? null;
      }
      await sleep(25);
    }
    return null;
  }

  const rowsOf = async (planId: string) => {
    const store = h().platdesk.store;
    const batch = await store.shortcutBatches.get(planId);
    const steps = (JSON.parse(batch?.payloadJson ?? '{"steps":[]}') as { steps: { pendingId: string }[] })
      .steps;
    return (await Promise.all(steps.map((s) => store.ledger.byPending(s.pendingId)))).flat();
  };

  it('a Confirm delivered again by Slack (same action_ts) runs the plan once', async () => {
    const plan = await offered(`tracking for ZTO 773012345678901 owner:${owners.busy}`);
    const before = sandbox.stats().calls;
    const actionTs = '1700000601.000001';
    const first = await h().click('platdesk.agent.confirm', plan.planId, { label: plan.label, actionTs });
    const again = await h().click('platdesk.agent.confirm', plan.planId, { label: plan.label, actionTs });
    const said = await summaryOf(plan.threadTs);
    await h().settle(200);
    expect(sandbox.stats().calls - before).toBe(1);
    const rows = await rowsOf(plan.planId);
    expect(rows.map((r) => ({ operation: r.operation, points: r.points, source: r.source }))).toEqual([
      { operation: 'platdzmd', points: 4, source: 'agent' },
    ]);
    expect(said).toContain('In total, as the ledger records it: Charged 4 points (¥0.04)');
    // The redelivery is dropped without a word (the first delivery answers in the thread).
    expect([...h().responses(first.responseUrlId), ...h().responses(again.responseUrlId)]).toEqual([]);
  });

  it('Cancel clicked with Confirm: whatever wins, every call is in the ledger and in the thread’s words, and nothing runs after it', async () => {
    for (let round = 0; round < 2; round++) {
      const plan = await offered(`orders of ${owners.busy} in the last 3 days`);
      const before = sandbox.stats().calls;
      const [, cancel] = await Promise.all([
        h().click('platdesk.agent.confirm', plan.planId, { label: plan.label }),
        h().click('platdesk.agent.stop', plan.planId),
      ]);
      const told = textOf(await h().nextResponse(cancel.responseUrlId));
      const said = await summaryOf(plan.threadTs, told.includes('Cancelled.') ? 300 : 5000);
      await h().settle(200);
      const calls = sandbox.stats().calls - before;
      const rows = await rowsOf(plan.planId);
      expect(rows).toHaveLength(calls);
      // One step at most was under way when the Cancel was taken: the rest never ran.
      expect(calls).toBeLessThanOrEqual(1);
      if (told.includes('Cancelled.')) {
        // The Cancel closed the plan first: the Confirm ran nothing.
        expect(calls).toBe(0);
        expect(said).toBeNull();
      } else {
        expect(told).toMatch(/Stopped|already confirmed or cancelled/);
        const points = rows.reduce((n, r) => n + r.points, 0);
        expect(said).toContain(
          points > 0 ? `In total, as the ledger records it: Charged ${points} points` : 'No charge reported',
        );
        expect(said).toMatch(/[23] steps were not run \(stopped\)/);
      }
    }
  });

  it('the plat server stopped while a step’s call is in flight: that call is in the ledger once, cost unknown; the next one reaches nothing; the summary says so', async () => {
    const plan = await offered(
      `where is ZTO 773012345678901 owner:${owners.busy}, and orders of ${owners.busy} in the last 2 days`,
    );
    const before = sandbox.stats().calls;
    const charged = sandbox.stats().charges.points;
    sandbox.setFaults([{ kind: 'hang', operations: ['paging-orders'] }]);
    await h().click('platdesk.agent.confirm', plan.planId, { label: plan.label });
    while (sandbox.stats().calls - before < 2) await sleep(10);
    const calls = sandbox.stats().calls - before;
    const points = sandbox.stats().charges.points - charged;
    // Stopped mid-call: every socket closed, nothing listening any more.
    await sandbox.close();
    const said = await summaryOf(plan.threadTs, 10_000);
    const rows = await rowsOf(plan.planId);
    expect(calls).toBe(2);
    expect(points).toBe(4);
    expect(
      rows
        .map((r) => ({ operation: r.operation, code: r.code, points: r.points }))
        .sort((a, b) => a.code - b.code),
    ).toEqual([
      { operation: 'paging-orders', code: -1, points: 0 },
      { operation: 'platdzmd', code: 0, points: 4 },
    ]);
    expect(said).toContain('In total, as the ledger records it: Charged 4 points (¥0.04)');
    expect(said).toContain('1 call went unanswered');
    // Each failed step is said in the thread with why, and with what is known of its charge: the
    // cut call may have been counted; the one that never connected was not sent.
    const failures = h()
      .fake.replies(SLACK.imChannelId, plan.threadTs)
      .map((m) => textOf({ blocks: m.blocks ?? [] }))
      .filter((t) => t.includes('The data service could not be reached'));
    expect(failures).toHaveLength(2);
    expect(failures[0]).toContain('the service may still have counted the call');
    expect(failures[1]).toContain('No charge was reported.');
  });
});
