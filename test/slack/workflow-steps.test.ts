/**
 * Workflow Builder steps end to end (issue 25): `function_executed` delivered to the REAL Bolt app
 * as signed HTTP (on both store engines: money) and over Socket Mode, the plat API a sandbox on
 * loopback whose call counter proves "no call" and "one call", and the local Slack server
 * recording `functions.completeSuccess` / `functions.completeError`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Platdesk, startPlatdesk } from '../../src/main.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { freePort } from '../helpers/free-port.js';
import {
  type PlatdeskHarness,
  SIGNING_SECRET,
  startPlatdeskHarness,
  textOf,
} from '../helpers/platdesk-harness.js';
import { type FakeSlack, type SlackCall, startSlackApiServer } from '../helpers/slack-api-server.js';
import { postEvent } from '../helpers/slack-http.js';
import {
  appHomeOpened,
  eventCallback,
  functionExecuted,
  SLACK,
  slashCommand,
  userContext,
} from '../helpers/slack-payloads.js';
import { socketModeConfig } from '../helpers/socket-mode-config.js';
import { ENGINES } from '../helpers/store-engines.js';

const { waybills, owners, wwids, items, links } = SANDBOX_FIXTURES;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let executions = 0;
const nextExecution = () => `Fx0700000${String(++executions).padStart(4, '0')}`;

/** A step's completion (success or error) for one execution, as the fake recorded it. */
function completionOf(fake: FakeSlack, executionId: string, timeoutMs = 5000): Promise<SlackCall> {
  const mine = (c: SlackCall) => c.body.function_execution_id === executionId;
  return Promise.race([
    fake.waitFor('functions.completeSuccess', mine, timeoutMs),
    fake.waitFor('functions.completeError', mine, timeoutMs),
  ]);
}

const completions = (fake: FakeSlack, executionId: string) =>
  [...fake.callsTo('functions.completeSuccess'), ...fake.callsTo('functions.completeError')].filter(
    (c) => c.body.function_execution_id === executionId,
  );

describe.each(ENGINES)('workflow steps over signed HTTP (%s)', (engine) => {
  let h: PlatdeskHarness;

  beforeAll(async () => {
    h = await startPlatdeskHarness({ engine, plat: 'sandbox' });
  });
  afterAll(async () => {
    await h?.close();
  });
  afterEach(() => {
    h.fake.reset();
  });

  /** Delivers one function_executed (signed, as Slack does) and waits for its completion. */
  async function runStep(
    callbackId: string,
    inputs: Record<string, unknown>,
    executionId = nextExecution(),
    retryNum?: number,
  ) {
    const before = h.calls();
    const envelope = eventCallback(functionExecuted({ callbackId, inputs, executionId }), {
      eventId: `Ev${executionId}`,
    });
    const sent = await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      envelope,
      retryNum === undefined ? {} : { retryNum },
    );
    expect(sent.status).toBe(200);
    const call = await completionOf(h.fake, executionId);
    await h.settle(50);
    return { executionId, call, calls: h.calls() - before };
  }

  async function platdesk(text: string) {
    const sent = await h.command('/platdesk', text, { userId: SLACK.adminId });
    return textOf(await h.nextResponse(sent.responseUrlId));
  }

  it('without an approval a step fails with the reason and makes no call', async () => {
    const { call, calls } = await runStep('lookup_waybill', {
      waybills: waybills.ok[0],
      owner_id: owners.small,
      ...userContext(SLACK.userId),
    });
    expect(call.method).toBe('functions.completeError');
    expect(String(call.body.error)).toContain('an admin has not approved spending for this step');
    expect(String(call.body.error)).toContain('Nothing was charged');
    expect(calls).toBe(0);
  });

  it("bad input fails with the parser's reason and makes no call, even when approved", async () => {
    expect(await platdesk('steps approve lookup_waybill daily 100')).toContain('Changed: Waybill lookup');
    const { call, calls } = await runStep('lookup_waybill', {
      waybills: 'not a number!',
      ...userContext(SLACK.userId),
    });
    expect(call.method).toBe('functions.completeError');
    expect(String(call.body.error)).toMatch(
      /^Waybill lookup: the input cannot be looked up: .+Nothing was charged\.$/,
    );
    expect(calls).toBe(0);
    await platdesk('steps revoke lookup_waybill');
  });

  it("an approved step completes with outputs typed as declared; the ledger row names the workflow's run (workflow_execution_id) and the step", async () => {
    const shown = await platdesk('steps approve lookup_waybill daily 1000');
    expect(shown).toMatch(
      /Waybill lookup\* \(`lookup_waybill`\): .*4 points.* a run · approved: daily 1,000 points/,
    );
    const { call, calls, executionId } = await runStep('lookup_waybill', {
      waybills: waybills.ok[0],
      owner_id: owners.small,
      ...userContext(SLACK.userId),
    });
    expect(call.method).toBe('functions.completeSuccess');
    expect(calls).toBe(1);
    expect(call.headers.authorization).toBe('Bearer xwfp-test-token');
    const outputs = call.body.outputs as Record<string, unknown>;
    expect(outputs).toEqual({
      carrier: '顺丰速运',
      state: '已签收',
      last_event: expect.any(String),
      last_event_time: expect.any(Number),
      summary: expect.stringMatching(
        new RegExp(`^Waybill ${waybills.ok[0]}: 已签收, last: .+ \\(顺丰速运\\)$`),
      ),
    });
    expect(Number.isInteger(outputs.last_event_time)).toBe(true);
    const rows = await h.platdesk.store.ledger.byPending(`step:${executionId}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      source: 'workflow',
      workflowExecutionId: 'Wx0700000WF01',
      stepId: 'lookup_waybill',
      userId: SLACK.userId,
      operation: 'platdzmd',
    });
    expect(rows[0]?.points).toBeGreaterThan(0);

    // /platdesk export shows it under its true name.
    const sent = await h.command('/platdesk', 'export today', { userId: SLACK.adminId });
    await h.nextResponse(sent.responseUrlId);
    const upload = await h.fake.waitFor('file_upload', undefined, 5000);
    const [header, ...lines] = (upload.bytes?.toString('utf8') ?? '').trimEnd().split('\r\n');
    const columns = header?.split(',') ?? [];
    expect(columns).toContain('workflow_execution_id');
    expect(columns).not.toContain('workflow_id');
    const row = lines
      .map((l) => l.split(','))
      .find((cells) => cells[columns.indexOf('pending_id')] === `step:${executionId}`);
    expect(row?.[columns.indexOf('workflow_execution_id')]).toBe('Wx0700000WF01');
    expect(row?.[columns.indexOf('step_id')]).toBe('lookup_waybill');
  });

  it('lookup_item: a link output only for an item link (its marketplace’s documented page), none for a bare id; no stock output', async () => {
    expect(await platdesk('steps approve lookup_item daily 100')).toContain('Changed: Item lookup');
    const linked = await runStep('lookup_item', {
      item: `<${links.brandedStore}>`,
      ...userContext(SLACK.userId),
    });
    expect(linked.call.method).toBe('functions.completeSuccess');
    expect(linked.calls).toBe(1);
    const out = linked.call.body.outputs as Record<string, unknown>;
    expect(Object.keys(out).sort()).toEqual(['link', 'price_range', 'shop', 'summary', 'title']);
    // spec/notes.md "Item links": the branded store's form.
    expect(out.link).toBe(`https://detail.tmall.com/item.htm?id=${items.tea}`);

    const bare = await runStep('lookup_item', { item: items.basic, ...userContext(SLACK.userId) });
    expect(bare.call.method).toBe('functions.completeSuccess');
    const bareOut = bare.call.body.outputs as Record<string, unknown>;
    expect(Object.keys(bareOut).sort()).toEqual(['price_range', 'shop', 'summary', 'title']);
    // The fixture item lists 9 SKUs; nothing is said of stock.
    expect(String(bareOut.summary)).toMatch(/ · 9 SKUs listed$/);
    await platdesk('steps revoke lookup_item');
  });

  it("the admin's App Home shows each step with its price, approval and spend", async () => {
    await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(SLACK.adminId), { eventId: `EvHOMESTEPS${executions}` }),
    );
    const view = await h.fake.waitFor('views.publish', (c) => c.body.user_id === SLACK.adminId, 5000);
    const text = textOf(view.body.view);
    expect(text).toContain('Workflow steps');
    expect(text).toMatch(
      /Waybill lookup\* \(`lookup_waybill`\): .* a run · approved: daily 1,000 points, monthly no cap · spent today \d+ points/,
    );
    expect(text).toContain(
      'Item lookup* (`lookup_item`): 1 quota call a run · not approved: it spends nothing',
    );
  });

  it('a redelivered function_executed is never charged again and completes with the first outputs', async () => {
    const inputs = { waybills: waybills.ok[1], owner_id: owners.small, ...userContext(SLACK.userId) };
    const first = await runStep('lookup_waybill', inputs);
    expect(first.calls).toBe(1);
    const again = await runStep('lookup_waybill', inputs, first.executionId, 1);
    expect(again.calls).toBe(0);
    expect(again.call.method).toBe('functions.completeSuccess');
    expect(again.call.body.outputs).toEqual(first.call.body.outputs);
    expect(await h.platdesk.store.ledger.byPending(`step:${first.executionId}`)).toHaveLength(1);
  });

  it('identical runs share the cache: the second run makes no call and says so', async () => {
    await platdesk('steps approve lookup_shop daily 1000');
    const inputs = { shop: wwids.known, ...userContext(SLACK.userId) };
    const first = await runStep('lookup_shop', inputs);
    const second = await runStep('lookup_shop', inputs);
    expect([first.calls, second.calls]).toEqual([1, 0]);
    const a = first.call.body.outputs as Record<string, unknown>;
    const b = second.call.body.outputs as Record<string, unknown>;
    expect(a).toEqual({
      shop_id: expect.stringMatching(/^\d+$/),
      name: wwids.known,
      type: 'unknown',
      summary: `${wwids.known} (shop id ${String(a.shop_id)}, unknown)`,
    });
    expect(b.shop_id).toBe(a.shop_id);
    expect(String(b.summary)).toMatch(/\(from cache, .+ old: no charge\)$/);
    expect(await h.platdesk.store.ledger.byPending(`step:${second.executionId}`)).toEqual([]);
  });

  it('a run whose process stopped mid-call (interrupted at start-up) is failed on redelivery, never run again', async () => {
    await platdesk('steps approve lookup_waybill daily 1000');
    const executionId = nextExecution();
    const { store } = h.platdesk;
    // What a process that died while its run held the claim leaves behind, as start-up finds it.
    const row = await store.pending.create({
      id: `step:${executionId}`,
      userId: SLACK.userId,
      channelId: null,
      teamId: null,
      request: {
        kind: 'waybill-info',
        ownerId: owners.small,
        waybills: [{ waybillCode: waybills.ok[0], carrier: null }],
      },
      quote: { lines: [], totalPoints: null, quotaCalls: 0 },
      summary: 'lookup_waybill',
      responseUrl: null,
      ttlMs: 60_000,
    });
    const claimed = await store.pending.claim(row.id, SLACK.userId, { instanceId: 'gone', leaseMs: 1 });
    expect(claimed.ok).toBe(true);
    expect(await store.pending.interrupt(row.id, 'gone', undefined, { holderGone: true })).not.toBeNull();
    const { call, calls } = await runStep(
      'lookup_waybill',
      { waybills: waybills.ok[0], owner_id: owners.small, ...userContext(SLACK.userId) },
      executionId,
      1,
    );
    expect(call.method).toBe('functions.completeError');
    expect(String(call.body.error)).toContain('it is not run again');
    expect(calls).toBe(0);
  });

  it('a cap of N runs: N calls, then clear failures that cost nothing', async () => {
    // orders_due pages orders (never cached): every run is a call.
    const shown = await platdesk('steps approve orders_due daily 1');
    const price = Number(/Orders due to ship\* \(`orders_due`\): [^\d]*([\d.]+) points?/.exec(shown)?.[1]);
    expect(price).toBeGreaterThan(0);
    const n = 3;
    await platdesk(`steps approve orders_due daily ${n * price}`);
    const inputs = { shop: owners.small, hours_ahead: 12, ...userContext(SLACK.userId) };
    const results = [];
    for (let i = 0; i < n + 2; i++) results.push(await runStep('orders_due', inputs));
    expect(results.map((r) => [r.call.method, r.calls])).toEqual([
      ['functions.completeSuccess', 1],
      ['functions.completeSuccess', 1],
      ['functions.completeSuccess', 1],
      ['functions.completeError', 0],
      ['functions.completeError', 0],
    ]);
    const refusal = String(results[n]?.call.body.error);
    expect(refusal).toContain('Orders due to ship: ');
    expect(refusal).toContain("this workflow step's approved daily cap");
    expect(refusal).toContain('Nothing was charged');
  });
});

describe('workflow steps over Socket Mode', () => {
  let fake: FakeSlack;
  let app: Platdesk;

  beforeAll(async () => {
    fake = await startSlackApiServer();
    app = await startPlatdesk(socketModeConfig(fake, await freePort()));
  });
  afterAll(async () => {
    await app?.stop();
    await fake?.close();
  });

  it('a function_executed envelope is acked and completes the step with one call', async () => {
    const command = slashCommand({
      command: '/platdesk',
      text: 'steps approve orders_due daily 1000',
      userId: SLACK.adminId,
      responseUrl: fake.responseUrl('steps'),
    });
    // PLATDESK_ADMINS is not set here: the workspace's first admin is set in the store.
    await app.store.settings.set('admins', [SLACK.adminId], SLACK.adminId);
    fake.socket.send({ type: 'slash_commands', payload: command, accepts_response_payload: true });
    await fake.waitFor('response_url', (c) => c.id === 'steps', 5000);
    const before = app.sandbox?.stats().calls ?? 0;
    const executionId = nextExecution();
    const envelopeId = fake.socket.send({
      type: 'events_api',
      payload: eventCallback(
        functionExecuted({
          callbackId: 'orders_due',
          inputs: { shop: owners.dueSoon, hours_ahead: 24, ...userContext(SLACK.userId) },
          executionId,
        }),
        { eventId: `Ev${executionId}` },
      ),
      accepts_response_payload: false,
    });
    await fake.socket.waitForAck(envelopeId, 3000);
    const call = await completionOf(fake, executionId);
    expect(call.method).toBe('functions.completeSuccess');
    const outputs = call.body.outputs as Record<string, unknown>;
    expect(Number.isInteger(outputs.count_due)).toBe(true);
    expect(Number.isInteger(outputs.count_overdue)).toBe(true);
    expect(outputs.count_due).toBeGreaterThan(0);
    expect(String(outputs.summary)).toContain(`${owners.dueSoon}: `);
    expect(String(outputs.list).split('\n').length).toBeGreaterThan(0);
    await sleep(100);
    expect((app.sandbox?.stats().calls ?? 0) - before).toBe(1);
    expect(completions(fake, executionId)).toHaveLength(1);
  });
});
