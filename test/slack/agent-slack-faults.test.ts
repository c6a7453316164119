/**
 * A confirmed plan whose streamed reply meets Slack's unclear answers (issue 36), through the real
 * Bolt app against the Slack stand-in, on both store engines: chat.startStream never answered,
 * chat.appendStream taken and then answered 500, chat.stopStream taken and its connection cut or
 * never answered, chat.stopStream refused with a 500, an answer's post taken and cut. Whatever
 * Slack answers, the step runs once (one plat call, one ledger row), the summary reaches the
 * thread exactly once and states what the ledger holds, and an answer Slack did not confirm is
 * said to be possibly missing. Nothing a Slack call does or fails to do is retried into a
 * second chunk, a second answer or a second charge.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { askForPlan } from '../helpers/agent-dm.js';
import { textOf, useHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall, SlackFault } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { owners } = SANDBOX_FIXTURES;
let seq = 0;
const nextTs = () => `1700000500.${String(++seq).padStart(6, '0')}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** One paid step: the waybill, 4 points. */
const QUESTION = `tracking for ZTO 773012345678901 owner:${owners.busy}`;

describe.each(ENGINES)('a confirmed plan whose streamed reply meets unclear Slack answers (%s)', (engine) => {
  const h = useHarness({
    engine,
    env: { PLAT_PRICES: 'platdzmd:1=4' },
    // A Slack call of the run past this is taken as unclear (the app's default is 10 s).
    agentSlackTimeoutMs: 400,
  });

  /** Asks in the DM, waits for the plan's Confirm; returns the thread and the Confirm's value. */
  const offered = () => askForPlan(h(), nextTs(), QUESTION);

  /** The thread's messages that hold the plan's summary, once it is done (and a little after). */
  async function summaries(threadTs: string): Promise<{ ts: string; text: string; stream: boolean }[]> {
    const found = () =>
      h()
        .fake.replies(SLACK.imChannelId, threadTs)
        .filter((m) => textOf({ blocks: m.blocks ?? [] }).includes('Plan done.'))
        .map((m) => ({ ts: m.ts, text: textOf({ blocks: m.blocks }), stream: m.stream !== undefined }));
    for (let i = 0; i < 200 && found().length === 0; i++) await sleep(25);
    // Anything more (a summary posted a second time) would come at once: the run is over.
    await sleep(300);
    return found();
  }

  const agentRows = async (planId: string) => {
    const store = h().platdesk.store;
    const batch = await store.shortcutBatches.get(planId);
    const steps = (JSON.parse(batch?.payloadJson ?? '{"steps":[]}') as { steps: { pendingId: string }[] })
      .steps;
    return (await Promise.all(steps.map((s) => store.ledger.byPending(s.pendingId)))).flat();
  };

  /** Confirms with Slack's `method` meeting `fault` once (its run's call, picked by `when`). */
  async function confirmWith(
    method: string,
    fault: SlackFault | { status: 500 },
    when: (c: SlackCall) => boolean = () => true,
  ) {
    const { threadTs, planId } = await offered();
    const before = h().calls();
    if (typeof fault === 'object') h().fake.failNext(method, { error: 'internal_error', status: 500 });
    else h().fake.fault(method, fault, 1, when);
    await h().click('platdesk.agent.confirm', planId, { label: 'Confirm plan (4 points)' });
    const said = await summaries(threadTs);
    await h().settle(100);
    const rows = await agentRows(planId);
    return { threadTs, planId, said, calls: h().calls() - before, rows };
  }

  const answersIn = (threadTs: string) =>
    h()
      .fake.replies(SLACK.imChannelId, threadTs)
      .map((m) => (m.stream ? '' : textOf({ blocks: m.blocks ?? [] })))
      .filter((text) => text.includes('773012345678901') && !text.includes('Plan done.')).length;

  it('chat.startStream taken and never answered: the step runs once; the summary is posted in the thread, every step listed with its charge', async () => {
    const run = await confirmWith('chat.startStream', 'timeout', (c) =>
      JSON.stringify(c.body.chunks ?? '').includes('in_progress'),
    );
    expect(run.calls).toBe(1);
    expect(run.rows.map((r) => r.points)).toEqual([4]);
    expect(run.said).toHaveLength(1);
    expect(run.said[0]?.stream).toBe(false);
    expect(run.said[0]?.text).toContain('In total, as the ledger records it: Charged 4 points (¥0.04)');
    expect(run.said[0]?.text).toMatch(
      /1\. information on 1 waybill of owner 2200001001 \(773012345678901\): done — Charged 4 points/,
    );
    expect(answersIn(run.threadTs)).toBe(1);
  });

  it('chat.appendStream taken, then 500: not sent again; the summary closes the stream and lists every step', async () => {
    const appendsBefore = h().fake.callsTo('chat.appendStream').length;
    const run = await confirmWith('chat.appendStream', 'store-then-500');
    expect(run.calls).toBe(1);
    expect(run.rows.map((r) => r.points)).toEqual([4]);
    // The chunk Slack took is not sent again (the app's client would retry a 500).
    expect(h().fake.callsTo('chat.appendStream').length - appendsBefore).toBe(1);
    expect(run.said).toHaveLength(1);
    expect(run.said[0]?.stream).toBe(true);
    expect(run.said[0]?.text).toMatch(/1\. information on 1 waybill[^\n]*: done — Charged 4 points/);
  });

  for (const fault of ['accept-then-cut', 'timeout'] as const)
    it(`chat.stopStream taken, then ${fault === 'timeout' ? 'never answered' : 'its connection cut'}: the summary is found in the thread, not posted again`, async () => {
      const run = await confirmWith('chat.stopStream', fault);
      expect(run.calls).toBe(1);
      expect(run.said).toHaveLength(1);
      expect(run.said[0]?.stream).toBe(true);
      expect(run.said[0]?.text).toContain('In total, as the ledger records it: Charged 4 points (¥0.04)');
    });

  it('chat.stopStream refused with a 500 (not taken): the summary is posted once, as the ledger holds it', async () => {
    const run = await confirmWith('chat.stopStream', { status: 500 });
    expect(run.calls).toBe(1);
    expect(run.said).toHaveLength(1);
    expect(run.said[0]?.stream).toBe(false);
    expect(run.said[0]?.text).toContain('In total, as the ledger records it: Charged 4 points (¥0.04)');
  });

  it('an answer’s post taken, then its connection cut: posted once, and the summary says it may be missing', async () => {
    const run = await confirmWith('chat.postMessage', 'accept-then-cut', (c) =>
      textOf(c.body).includes('773012345678901'),
    );
    expect(run.calls).toBe(1);
    expect(answersIn(run.threadTs)).toBe(1);
    expect(run.said).toHaveLength(1);
    expect(run.said[0]?.text).toContain('1 answer may not have reached you');
  });
});
