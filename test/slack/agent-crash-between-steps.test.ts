/**
 * An agent's confirmed plan cut by a crash between two paid steps (issue 36), on both store
 * engines: the first step (a waybill) was answered and charged, the next two were confirmed but
 * none of their calls had left when the process was killed with SIGKILL (it was waiting for Slack
 * to take the first answer: the stand-in never answers that post). platdesk starts again on the
 * same database and tells the plan in its thread: the first step done and what it cost, the
 * others not run and not charged, the total as the ledger holds it — one call, the sandbox's one.
 * A Confirm clicked again runs nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type CrashRig, startCrashRig } from '../helpers/agent-plan-crash.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { ENGINES } from '../helpers/store-engines.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe.each(ENGINES)('an agent plan cut off between its steps by SIGKILL (%s)', (engine) => {
  let rig: CrashRig | undefined;
  afterAll(async () => {
    await rig?.dispose();
  });

  it('is told in its thread: the step that ran and its charge, the steps that never ran uncharged; nothing runs again', async () => {
    rig = await startCrashRig(engine);
    const offered = await rig.ask();
    // The first answer's post in the thread is taken and never answered: the plan waits there,
    // its first step done, the next ones not yet sent.
    rig.fake.fault('chat.postMessage', 'timeout', 1, (c) => c.body.thread_ts === offered.threadTs);
    await rig.confirm(offered, '1700000400.000001');
    await rig.fake.waitFor('chat.postMessage', (c) => c.body.thread_ts === offered.threadTs, 20_000);
    const [waybill, ordersToday, ordersYesterday] = (await rig.stepsOf(offered.planId)) as [
      string,
      string,
      string,
    ];
    const store = await rig.store();
    expect((await store.pending.get(waybill))?.state).toBe('done');
    expect((await store.pending.get(ordersToday))?.callsSent).toBe(0);
    expect(rig.sandbox.stats().calls).toBe(1);

    const h = await rig.killAndRestart();
    const told = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.body.thread_ts === offered.threadTs && textOf(c.body).includes('This plan was cut off'),
      10_000,
    );
    const said = textOf({ blocks: told.body.blocks });
    expect(said).toMatch(
      /1\. information on 1 waybill of owner 2200001001 \(773012345678901\): done — Charged 4 points \(¥0\.04\)/,
    );
    expect(said).toMatch(/2\. orders of owner 2200001001, [^\n]*: not run — no charge/);
    expect(said).toMatch(/3\. orders of owner 2200001001, [^\n]*: not run — no charge/);
    expect(said).toContain('*In total*, as the ledger records it: Charged 4 points (¥0.04).');
    expect(said).not.toContain('unanswered');
    const rows = await rig.ledgerOf(offered.planId);
    expect(rows.map((r) => ({ pendingId: r.pendingId, code: r.code, points: r.points }))).toEqual([
      { pendingId: waybill, code: 0, points: 4 },
    ]);
    expect(rig.sandbox.stats().charges.points).toBe(4);
    for (const id of [ordersToday, ordersYesterday])
      expect((await h.platdesk.store.pending.get(id))?.state).toBe('interrupted');

    const again = await h.click('platdesk.agent.confirm', offered.planId, { label: offered.label });
    expect(textOf(await h.nextResponse(again.responseUrlId))).toContain('This plan was cut off');
    await sleep(300);
    expect(rig.sandbox.stats().calls).toBe(1);
    expect(h.calls()).toBe(0);
  }, 60_000);
});
