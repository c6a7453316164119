/**
 * An agent's confirmed plan cut by a crash in the middle of a paid step (issue 36: "a crash
 * mid-plan is told truthfully, as for commands"), on both store engines. platdesk runs as a real
 * child process (test/helpers/agent-plan-crash.ts); the plan's first step (a waybill) is answered,
 * the second's call (orders) reaches the sandbox and never answers, and the process is killed with
 * SIGKILL while it waits. platdesk starts again on the same database: the claim sweep marks the cut
 * steps interrupted, and the plan is told in its thread — which step ran and what it cost, which
 * was cut off after its call was sent (its charge not known), which never ran — as the ledger
 * holds it, whose calls are the sandbox's. Confirm clicked again (and Slack's redelivery of the
 * first click) and Cancel run nothing: the plat calls stay the sandbox's two.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { NO_ANSWER_CODE } from '../../src/plat/codes.js';
import { type CrashRig, startCrashRig } from '../helpers/agent-plan-crash.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { ENGINES } from '../helpers/store-engines.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe.each(ENGINES)('an agent plan cut off mid-call by SIGKILL (%s)', (engine) => {
  let rig: CrashRig | undefined;
  afterAll(async () => {
    await rig?.dispose();
  });

  it('is told in its thread by the restarted process as the ledger holds it; nothing runs again or twice', async () => {
    rig = await startCrashRig(engine);
    const offered = await rig.ask();
    expect(rig.sandbox.stats().calls).toBe(0);
    // The waybill is answered; every orders call hangs (in flight, never answered).
    rig.sandbox.setFaults([{ kind: 'hang', operations: ['paging-orders'] }]);
    const firstClick = '1700000300.000001';
    await rig.confirm(offered, firstClick);

    const store = await rig.store();
    const steps = await rig.stepsOf(offered.planId);
    expect(steps).toHaveLength(3);
    const [waybill, ordersToday, ordersYesterday] = steps as [string, string, string];
    // The second step's call was written ahead and marked sent, and reached the sandbox.
    for (;;) {
      const written = await store.sentCalls.unanswered(`lookup:${ordersToday}`, Number.MAX_SAFE_INTEGER);
      if (written[0]?.sent === true && rig.sandbox.stats().calls === 2) break;
      await sleep(20);
    }

    const h = await rig.killAndRestart();
    const told = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.body.thread_ts === offered.threadTs && textOf(c.body).includes('This plan was cut off'),
      10_000,
    );
    expect(told.body.channel).toBe('D1234');
    const said = textOf({ blocks: told.body.blocks });
    expect(said).toMatch(
      /1\. information on 1 waybill of owner 2200001001 \(773012345678901\): done — Charged 4 points \(¥0\.04\)/,
    );
    expect(said).toMatch(
      /2\. orders of owner 2200001001, page 1 \(20 per page\), \d{4}-\d\d-\d\d 00:00 – [^\n]*: cut off after its call was sent — sent, but its answer was never read: the data service may have charged it/,
    );
    expect(said).toMatch(
      /3\. orders of owner 2200001001, page 1 \(20 per page\), \d{4}-\d\d-\d\d 00:00 – [^\n]*: not run — no charge/,
    );
    expect(said).toContain('*In total*, as the ledger records it: Charged 4 points (¥0.04).');
    expect(said).toContain('1 call went unanswered');

    // The ledger: the waybill's charge, and the cut call's row (cost unknown); its calls are the
    // sandbox's, and the points it knows are what the sandbox charged.
    const rows = await rig.ledgerOf(offered.planId);
    expect(
      rows
        .map((r) => ({ pendingId: r.pendingId, code: r.code, points: r.points, source: r.source }))
        .sort((a, b) => a.code - b.code),
    ).toEqual([
      { pendingId: ordersToday, code: NO_ANSWER_CODE, points: 0, source: 'agent' },
      { pendingId: waybill, code: 0, points: 4, source: 'agent' },
    ]);
    expect(rows.length).toBe(rig.sandbox.stats().calls);
    expect(rows.reduce((n, r) => n + r.points, 0)).toBe(rig.sandbox.stats().charges.points);
    expect((await h.platdesk.store.pending.get(ordersToday))?.state).toBe('interrupted');
    expect((await h.platdesk.store.pending.get(ordersYesterday))?.state).toBe('interrupted');

    // Slack redelivers the first click (same action_ts): dropped. A new click on Confirm and a
    // click on Cancel: told what became of the plan; nothing runs.
    const redelivered = await h.click('platdesk.agent.confirm', offered.planId, {
      label: offered.label,
      actionTs: firstClick,
    });
    const again = await h.click('platdesk.agent.confirm', offered.planId, { label: offered.label });
    expect(textOf(await h.nextResponse(again.responseUrlId))).toContain('This plan was cut off');
    const cancel = await h.click('platdesk.agent.stop', offered.planId);
    expect(textOf(await h.nextResponse(cancel.responseUrlId))).toContain('This plan was cut off');
    await sleep(300);
    expect(h.responses(redelivered.responseUrlId)).toEqual([]);
    expect(rig.sandbox.stats().calls).toBe(2);
    expect(h.calls()).toBe(0);
    // Told once, in the thread.
    expect(
      h.fake.callsTo('chat.postMessage').filter((c) => textOf(c.body).includes('This plan was cut off')),
    ).toHaveLength(1);
  }, 60_000);
});
