/**
 * An agent's confirmed plan whose process is killed with SIGKILL between using the plan's Confirm
 * and claiming its steps (issue 36), on both store engines. A trigger of this test's own holds the
 * first step's claim (PostgreSQL: it sleeps; SQLite: it keeps the writer busy), so the process is
 * stopped there with the Confirm used and no step claimed, and killed. platdesk starts again on
 * the same database and the same Slack stand-in and tells the thread once that the plan did not
 * run and nothing was charged (ask again); its steps are cancelled. A Confirm clicked again and
 * Cancel say the same and run nothing: 0 calls at the sandbox, 0 ledger rows.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type CrashRig, startCrashRig } from '../helpers/agent-plan-crash.js';
import { textOf } from '../helpers/platdesk-harness.js';
import { ENGINES, type EngineName } from '../helpers/store-engines.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Holds a step's claim (pending → running) until the process is killed. */
const HOLD: Record<EngineName, { on: string; off: string }> = {
  postgres: {
    on: `CREATE FUNCTION hold_claim() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(120); RETURN NEW; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER hold_claim BEFORE UPDATE ON pending_lookups FOR EACH ROW
        WHEN (OLD.state = 'pending' AND NEW.state = 'running') EXECUTE FUNCTION hold_claim();`,
    // The killed process's backend still sleeps in the claim's UPDATE: ended, so it rolls back.
    off: `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event = 'PgSleep';
      DROP TRIGGER hold_claim ON pending_lookups; DROP FUNCTION hold_claim();`,
  },
  sqlite: {
    // SQLite has no sleep: a cross join of a billion rows keeps the (synchronous) writer busy.
    on: `CREATE TABLE hold_rows (n INTEGER); WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000)
        INSERT INTO hold_rows SELECT n FROM c;
      CREATE TRIGGER hold_claim BEFORE UPDATE ON pending_lookups
        WHEN OLD.state = 'pending' AND NEW.state = 'running'
        BEGIN SELECT count(*) FROM hold_rows a, hold_rows b, hold_rows c; END;`,
    off: 'DROP TRIGGER hold_claim; DROP TABLE hold_rows;',
  },
};

describe.each(ENGINES)('an agent plan killed between its Confirm and its steps (%s)', (engine) => {
  let rig: CrashRig | undefined;
  afterAll(async () => {
    await rig?.dispose();
  });

  it('is told in its thread once that it did not run and cost nothing; Confirm and Cancel again run nothing', async () => {
    rig = await startCrashRig(engine);
    const offered = await rig.ask();
    // Opened first: opening a SQLite store writes, which the held writer would block.
    const store = await rig.store();
    await rig.sql(HOLD[engine].on);
    await rig.confirm(offered, '1700000600.000001');
    for (let waited = 0; (await store.shortcutBatches.get(offered.planId))?.state !== 'used'; waited += 20) {
      if (waited > 20_000) throw new Error('the Confirm was never used');
      await sleep(20);
    }
    await sleep(300);
    const steps = await rig.stepsOf(offered.planId);
    for (const id of steps) expect((await store.pending.get(id))?.state).toBe('pending');

    const h = await rig.killAndRestart({
      sameSlack: true,
      beforeRestart: () => rig?.sql(HOLD[engine].off) ?? Promise.resolve(),
    });
    const inThread = (c: { body: Record<string, unknown> }) => c.body.thread_ts === offered.threadTs;
    const told = await rig.fake.waitFor(
      'chat.postMessage',
      (c) => inThread(c) && textOf(c.body).includes('This plan did not run'),
      10_000,
    );
    const said = textOf({ blocks: told.body.blocks });
    expect(said).toContain('Nothing was charged and nothing will run. Ask again');
    expect(said).toMatch(
      /1\. information on 1 waybill of owner 2200001001 \(773012345678901\): not run — no charge/,
    );
    expect(said).toMatch(/2\. orders of owner 2200001001, [^\n]*: not run — no charge/);
    expect(said).toMatch(/3\. orders of owner 2200001001, [^\n]*: not run — no charge/);
    expect(said).toContain('*In total*, as the ledger records it: No charge reported (0 points).');
    for (const id of steps) expect((await h.platdesk.store.pending.get(id))?.state).toBe('cancelled');

    const again = await h.click('platdesk.agent.confirm', offered.planId, { label: offered.label });
    expect(textOf(await h.nextResponse(again.responseUrlId))).toContain('This plan did not run');
    const cancel = await h.click('platdesk.agent.stop', offered.planId);
    expect(textOf(await h.nextResponse(cancel.responseUrlId))).toContain('This plan did not run');
    await sleep(300);
    expect(rig.sandbox.stats().calls).toBe(0);
    expect(await rig.ledgerOf(offered.planId)).toEqual([]);
    expect(h.calls()).toBe(0);
    expect(
      rig.fake
        .callsTo('chat.postMessage')
        .filter((c) => inThread(c) && textOf(c.body).includes('did not run')),
    ).toHaveLength(1);
  }, 60_000);
});
