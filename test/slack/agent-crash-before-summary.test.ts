/**
 * An agent's confirmed plan whose process is killed with SIGKILL after its last step's answer and
 * before its closing summary (issue 36), on both store engines. Every step ran and was charged;
 * the process waits for Slack to take the last answer (the stand-in never answers that post) and
 * is killed there. platdesk starts again on the same database and the same Slack stand-in (the
 * thread as the killed process left it) and posts the closing summary once: every step done and
 * its charge, the ledger's total — three calls, the sandbox's three. A second sweep posts nothing
 * more (another restart sweeps again), and a Confirm clicked again runs nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type CrashRig, startCrashRig } from '../helpers/agent-plan-crash.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { ENGINES } from '../helpers/store-engines.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe.each(ENGINES)('an agent plan whose process is killed before its summary (%s)', (engine) => {
  let rig: CrashRig | undefined;
  afterAll(async () => {
    await rig?.dispose();
  });

  it('gets its closing summary once, from the restarted process, as the ledger holds it; nothing runs again', async () => {
    rig = await startCrashRig(engine);
    const offered = await rig.ask();
    const inThread = (c: { body: Record<string, unknown> }) => c.body.thread_ts === offered.threadTs;
    // The third answer's post (the last step's) is taken and never answered: the plan waits there.
    let posts = 0;
    rig.fake.fault('chat.postMessage', 'timeout', 1, (c) => inThread(c) && ++posts === 3);
    await rig.confirm(offered, '1700000500.000001');
    for (let waited = 0; posts < 3; waited += 50) {
      if (waited > 20_000) throw new Error('the last answer was never posted');
      await sleep(50);
    }
    const steps = await rig.stepsOf(offered.planId);
    const store = await rig.store();
    for (const id of steps) expect((await store.pending.get(id))?.state).toBe('done');
    expect(rig.sandbox.stats().calls).toBe(3);
    const summaries = () =>
      rig?.fake
        .replies('D1234', offered.threadTs)
        .filter((m) => JSON.stringify(m.blocks ?? []).includes(`agent-summary:${offered.planId}`)) ?? [];
    expect(summaries()).toHaveLength(0);

    const h = await rig.killAndRestart({ sameSlack: true });
    const told = await rig.fake.waitFor(
      'chat.postMessage',
      (c) => inThread(c) && textOf(c.body).includes('platdesk restarted before it could post this summary'),
      10_000,
    );
    const said = textOf({ blocks: told.body.blocks });
    expect(said).toMatch(
      /1\. information on 1 waybill of owner 2200001001 \(773012345678901\): done — Charged 4 points \(¥0\.04\)/,
    );
    expect(said).toMatch(/2\. orders of owner 2200001001, [^\n]*: done — Charged 2 points \(¥0\.02\)/);
    expect(said).toMatch(/3\. orders of owner 2200001001, [^\n]*: done — Charged 2 points \(¥0\.02\)/);
    expect(said).toContain('*In total*, as the ledger records it: Charged 8 points (¥0.08).');
    const rows = await rig.ledgerOf(offered.planId);
    expect(rows.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(rows.length).toBe(rig.sandbox.stats().calls);
    expect(rows.reduce((n, r) => n + r.points, 0)).toBe(rig.sandbox.stats().charges.points);
    expect(rig.sandbox.stats().charges.points).toBe(8);

    // platdesk started once more (its sweep at start) and a Confirm clicked again post nothing
    // more and run nothing.
    await h.close();
    const h2 = await rig.killAndRestart({ sameSlack: true });
    const again = await h2.click('platdesk.agent.confirm', offered.planId, { label: offered.label });
    expect(textOf(await h2.nextResponse(again.responseUrlId))).not.toContain('Plan done');
    await sleep(300);
    expect(summaries()).toHaveLength(1);
    expect(rig.sandbox.stats().calls).toBe(3);
    expect(h.calls() + h2.calls()).toBe(0);
  }, 60_000);
});
