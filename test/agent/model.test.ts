/**
 * The optional model (agent/model.ts) against a local OpenAI-compatible server over real HTTP:
 * its tools are the catalog's agent tools with the Workflow steps' schemas; its calls are
 * validated against them; a model that is down, past its deadline or proposes an invalid call is
 * reported as such (the caller then plans without it); phone and ID numbers never reach it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelPlanner } from '../../src/agent/model.js';
import { EMPTY_CONTEXT } from '../../src/agent/planner.js';
import { toolDescription } from '../../src/blocks/tools.js';
import { toolsFor } from '../../src/lookups/tools.js';
import { type ModelServer, startModelServer } from '../helpers/model-server.js';
import {
  type PlatdeskHarness,
  SIGNING_SECRET,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import { postEvent } from '../helpers/slack-http.js';
import { eventCallback, SLACK } from '../helpers/slack-payloads.js';
import { en } from '../helpers/words.js';

const NOW = new Date('2026-11-20T04:00:00Z');

describe('the model planner over HTTP (openai-compatible)', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const planner = (timeoutMs = 3000) =>
    createModelPlanner(
      {
        provider: 'openai-compatible',
        baseUrl: server.baseUrl,
        model: 'test-model',
        key: 'k-test',
        timeoutMs,
      },
      (name) => toolDescription(en, name),
    );
  const input = (text: string) => ({ text, now: NOW, shops: ['bee'], context: EMPTY_CONTEXT });

  it('offers the catalog’s agent tools, and returns the scripted calls once they validate', async () => {
    server.script({
      kind: 'tools',
      calls: [{ name: 'lookup_waybill', arguments: { waybills: '773012345678901', owner_id: '2200001001' } }],
    });
    const result = await planner().propose(input('where is 773012345678901 of 2200001001, call 13812345678'));
    expect(result).toEqual({
      ok: true,
      calls: [{ tool: 'lookup_waybill', input: { waybills: '773012345678901', owner_id: '2200001001' } }],
    });
    const sent = server.requests.at(-1) as { tools: { function: { name: string } }[]; messages: unknown[] };
    expect(sent.tools.map((t) => t.function.name)).toEqual(toolsFor('agent').map((t) => t.name));
    // A phone number in the question is masked before it leaves.
    expect(JSON.stringify(sent.messages)).not.toContain('13812345678');
    expect(JSON.stringify(sent.messages)).toContain('[phone]');
  });

  it('a call to no tool of the catalog, or with input its schema refuses: invalid', async () => {
    server.script({ kind: 'tools', calls: [{ name: 'delete_everything', arguments: {} }] });
    expect(await planner().propose(input('x'))).toMatchObject({ ok: false, failure: 'invalid' });
    server.script({ kind: 'tools', calls: [{ name: 'orders_due', arguments: { hours_ahead: 'soon' } }] });
    expect(await planner().propose(input('x'))).toMatchObject({ ok: false, failure: 'invalid' });
  });

  it('a server error: down; no answer within the deadline: timeout', async () => {
    server.script({ kind: 'status', status: 500 });
    expect(await planner().propose(input('x'))).toMatchObject({ ok: false, failure: 'down' });
    server.script({ kind: 'delay', ms: 1500, after: { kind: 'tools', calls: [] } });
    const started = Date.now();
    expect(await planner(300).propose(input('x'))).toMatchObject({ ok: false, failure: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1400);
  });
});

describe('the agent with a model, through the real Bolt app', () => {
  let server: ModelServer;
  let h: PlatdeskHarness;
  beforeAll(async () => {
    server = await startModelServer();
    h = await startPlatdeskHarness({
      env: {
        PLAT_PRICES: 'platdzmd:1=4',
        AGENT_MODEL_PROVIDER: 'openai-compatible',
        AGENT_MODEL_BASE_URL: server.baseUrl,
        AGENT_MODEL: 'test-model',
        AGENT_MODEL_TIMEOUT_MS: '1000',
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await server?.close();
  });
  let seq = 0;
  async function ask(text: string): Promise<string> {
    const ts = `1700000200.${String(++seq).padStart(6, '0')}`;
    await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      eventCallback({
        type: 'message',
        channel: SLACK.imChannelId,
        channel_type: 'im',
        user: SLACK.userId,
        text,
        ts,
        event_ts: ts,
      }),
    );
    const start = await h.fake.waitFor('chat.startStream', (c) => c.body.thread_ts === ts, 5000);
    const streamTs = h.fake.replies(String(start.body.channel), ts).find((m) => m.stream)?.ts;
    const stop = await h.fake.waitFor('chat.stopStream', (c) => c.body.ts === streamTs, 5000);
    return textOf({ blocks: stop.body.blocks });
  }

  it('the model’s tool calls become the plan, priced and confirmed like any other; no plat call before it', async () => {
    server.script({
      kind: 'tools',
      calls: [
        {
          name: 'lookup_waybill',
          arguments: { waybills: '773012345678901', owner_id: '2200001001', carrier: 'ZTO' },
        },
      ],
    });
    const said = await ask('那个中通的件现在到哪了');
    expect(said).toContain('information on 1 waybill of owner 2200001001 (773012345678901): 4 points');
    expect(said).toContain('Confirm plan (4 points)');
    expect(h.calls()).toBe(0);
  });

  it('a model that is down, or slow: the deterministic planner plans, and the plan says so', async () => {
    server.script({ kind: 'status', status: 500 });
    const down = await ask('tracking for ZTO 773012345678901 owner:2200001001');
    expect(down).toContain('The language model did not answer; planned without it.');
    expect(down).toContain('Confirm plan (4 points)');
    server.script({ kind: 'delay', ms: 3000, after: { kind: 'tools', calls: [] } });
    const slow = await ask('tracking for ZTO 773012345678901 owner:2200001001');
    expect(slow).toContain('The language model took too long; planned without it.');
    expect(h.calls()).toBe(0);
  });
});
