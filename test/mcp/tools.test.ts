/**
 * The MCP tools as issue 37 names them, from the one tool catalog (lookups/tools.ts), driven by
 * the SDK's own client over real HTTP against the real app, the Slack stand-in and the sandbox:
 * exactly `lookup_waybill`, `lookup_item`, `item_prices`, `lookup_shop`, `orders_page`,
 * `orders_due` and `spend`; the four that are Workflow steps take and give what the manifest's
 * `functions:` declare; `item_prices` and `orders_page` are real lookups (one call each after the
 * owner's Confirm, in the ledger with source mcp); a page of orders says what /orders shows and
 * no more: no receiver field, remarks masked as in every answer. The protocol version is
 * negotiated by the SDK: the current one, or an older one the client asks for.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { manifestFunctions } from '../../src/blocks/tools.js';
import {
  type ToolName,
  toolInputJsonSchema,
  toolOutputJsonSchema,
  toolsFor,
} from '../../src/lookups/tools.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { buttonsOf, textOf, useHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';
import { en } from '../helpers/words.js';

const { owners, items } = SANDBOX_FIXTURES;
const TOKEN = /pdmcp_[A-Za-z0-9_-]{43}/;
const ISSUE_TOOLS = [
  'lookup_waybill',
  'lookup_item',
  'item_prices',
  'lookup_shop',
  'orders_page',
  'orders_due',
  'spend',
];

/** Orders whose remarks hold receiver data (injected at the sandbox, as test/security/m4 does). */
const SECRETS = ['13812345678', '浙江省', '文三路', '33010619900101123X', '13900001111'];
const ORDERS = [
  { remark: '改地址：浙江省杭州市西湖区文三路90号 电话13812345678', tagName: '电话13900001111' },
  { remark: '清关需要身份证号 33010619900101123X', tagName: null },
  { remark: '请尽快发货', tagName: null },
].map((o, i) => ({
  order_sn: `260101-00000000${String(i + 10)}`,
  goods_name: `山楂条 ${i}`,
  goods_spec: '500g',
  goods_count: 1,
  pay_amount: 9.9,
  order_status: 1,
  confirm_time: Math.floor(Date.now() / 1000) - 3600,
  last_ship_time: Math.floor(Date.now() / 1000) + 3600,
  receiver_name: '张**',
  receiver_phone: '138****1234',
  receiver_address: '文三路**号**室',
  remark: o.remark,
  remark_tag: 1,
  remark_tag_name: o.tagName,
}));

let seq = 0;

describe('the catalog’s MCP tools are the issue’s, and the Workflow steps’ definitions', () => {
  it('offers exactly the seven; each step tool’s MCP schemas are the step’s parameters', () => {
    expect(new Set(toolsFor('mcp').map((t) => t.name))).toEqual(new Set(ISSUE_TOOLS));
    const functions = manifestFunctions(en);
    const steps = toolsFor('step').map((t) => t.name);
    expect(steps.length).toBe(4);
    for (const name of steps) {
      const step = functions[name];
      if (!step) throw new Error(`no manifest function ${name}`);
      const { user_context: _u, channel: _c, ...inputs } = step.input_parameters;
      const keys = (schema: Record<string, unknown>) => Object.keys(schema.properties as object).sort();
      expect(keys(toolInputJsonSchema(name as ToolName))).toEqual(Object.keys(inputs).sort());
      expect(keys(toolOutputJsonSchema(name as ToolName))).toEqual(
        Object.keys(step.output_parameters).sort(),
      );
    }
  });
});

describe.each(ENGINES)('MCP tools item_prices and orders_page (%s)', (engine) => {
  const h = useHarness({ engine, env: { PLAT_PRICES: 'paging-orders=5' } });

  async function connect(): Promise<Client> {
    const sent = await h().command('/platdesk', `mcp token tools${++seq}`);
    const token = textOf(await h().nextResponse(sent.responseUrlId)).match(TOKEN)?.[0];
    if (!token) throw new Error('no token shown');
    const client = new Client({ name: 'Claude Desktop', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h().platdesk.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }
  const dms = () =>
    h().fake.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === SLACK.userId);
  async function confirmNextDm(before: number): Promise<string> {
    await expect.poll(() => dms().length, { timeout: 5000 }).toBeGreaterThan(before);
    const dm = dms().at(-1) as SlackCall;
    const value = buttonsOf({ blocks: dm.body.blocks as unknown[] }).find(
      (b) => b.actionId === 'platdesk.mcp.confirm',
    )?.value;
    if (!value) throw new Error('no Confirm in the DM');
    await h().click('platdesk.mcp.confirm', value);
    return value;
  }
  const byOperation = (op: 'platiteminfoprice' | 'paging-orders') => h().sandbox.stats().callsByOperation[op];

  it('lists the seven tools with the catalog’s schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...ISSUE_TOOLS].sort());
    const prices = tools.find((t) => t.name === 'item_prices');
    expect(prices?.inputSchema.properties).toEqual(
      (toolInputJsonSchema('item_prices') as { properties: object }).properties,
    );
    await client.close();
  });

  it('negotiates the protocol version: the current one, an older one the client asks for, never an unknown one', async () => {
    const sent = await h().command('/platdesk', `mcp token proto${++seq}`);
    const token = textOf(await h().nextResponse(sent.responseUrlId)).match(TOKEN)?.[0] ?? '';
    const initialize = async (protocolVersion: string) => {
      const res = await fetch(`${h().platdesk.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
        }),
      });
      expect(res.status).toBe(200);
      const body = await res.text();
      // A JSON answer, or one server-sent event holding it.
      const json = body.trimStart().startsWith('{') ? body : (body.match(/^data: (.*)$/m)?.[1] ?? '{}');
      return (JSON.parse(json) as { result: { protocolVersion: string } }).result.protocolVersion;
    };
    expect(await initialize(LATEST_PROTOCOL_VERSION)).toBe(LATEST_PROTOCOL_VERSION);
    expect(await initialize('2025-03-26')).toBe('2025-03-26');
    expect(await initialize('1999-01-01')).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('item_prices: one quota call after the Confirm, the prices as structured output, source mcp', async () => {
    const client = await connect();
    const before = byOperation('platiteminfoprice');
    const all = h().calls();
    const n = dms().length;
    const call = client.callTool({ name: 'item_prices', arguments: { item: items.basic } });
    const pendingId = await confirmNextDm(n);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      price: expect.any(Number),
      summary: expect.stringContaining(items.basic),
    });
    expect(textOf(result.content)).toContain(en.t('charge.quotaUsed', { count: 1, n: '1' }));
    expect(byOperation('platiteminfoprice')).toBe(before + 1);
    expect(h().calls()).toBe(all + 1);
    const ledger = await h().platdesk.store.ledger.byPending(pendingId);
    expect(ledger).toEqual([
      expect.objectContaining({ source: 'mcp', userId: SLACK.userId, operation: 'platiteminfoprice' }),
    ]);

    // A bad link: a tool error, nothing asked, nothing called.
    const bad = await client.callTool({ name: 'item_prices', arguments: { item: 'https://m.tb.cn/abc' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad.content)).toContain('Nothing was charged');
    await h().settle(100);
    expect(h().calls()).toBe(all + 1);
    expect(dms().length).toBe(n + 1);
    await client.close();
  });

  it('orders_page: one call after the Confirm; the orders as /orders shows them, receiver data hidden', async () => {
    h().sandbox.setFaults([
      {
        kind: 'code',
        code: 0,
        operations: ['paging-orders'],
        data: { content: ORDERS, page: 0, pageSize: 5, total_elements: 7, withholding_money: 5 },
      },
    ]);
    const client = await connect();
    const before = byOperation('paging-orders');
    const n = dms().length;
    const call = client.callTool({ name: 'orders_page', arguments: { shop: owners.busy, size: 5 } });
    const pendingId = await confirmNextDm(n);
    const result = await call;
    h().sandbox.setFaults([]);
    expect(result.isError).toBeFalsy();
    expect(byOperation('paging-orders')).toBe(before + 1);
    const out = result.structuredContent as {
      page: number;
      pages: number;
      count: number;
      total: number;
      orders: Record<string, unknown>[];
      summary: string;
    };
    expect(out).toMatchObject({ page: 1, pages: 2, count: 3, total: 7 });
    expect(out.orders[0]).toMatchObject({
      order_sn: '260101-0000000010',
      status: en.t('orders.status.1'),
      quantity: 1,
      amount_yuan: 9.9,
      pre_sale: false,
      ship_by: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$/),
    });
    expect(out.orders[0]?.remark).toContain('[phone number hidden]');
    expect(out.orders[0]?.remark).toContain('改地址');
    expect(out.orders[1]?.remark).toContain('清关需要');
    expect(out.orders[2]?.remark).toBe('请尽快发货');
    // No receiver field, and nothing a buyer wrote about the receiver, anywhere in the answer.
    const all = JSON.stringify(result);
    for (const key of ['receiver', 'province', 'address', 'phone']) expect(all).not.toContain(`"${key}`);
    for (const secret of [...SECRETS, '张**', '138****1234']) expect(all).not.toContain(secret);
    expect(textOf(result.content)).toContain('Charged 5 points');
    const ledger = await h().platdesk.store.ledger.byPending(pendingId);
    expect(ledger).toEqual([expect.objectContaining({ source: 'mcp', points: 5 })]);
    await client.close();
  });
});
