/**
 * The MCP server (issue 37) driven by the SDK's own client over real HTTP against the real app
 * (startPlatdesk in HTTP mode), the local Slack stand-in and the plat sandbox, on both store
 * engines: the catalog's tools with their schemas; a paid call that waits for the owner's Confirm
 * clicked through the stand-in; Deny, expiry and a cap's refusal with 0 plat calls; a retried call
 * that pays once; bad, revoked and expired tokens refused with 401 and WWW-Authenticate. Calls are
 * counted at the sandbox and compared with the ledger (source 'mcp').
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { reportRange } from '../../src/lookups/reports.js';
import { toolInputJsonSchema, toolOutputJsonSchema, toolsFor } from '../../src/lookups/tools.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import { buttonsOf, textOf, useHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { owners } = SANDBOX_FIXTURES;
const TOKEN = /pdmcp_[A-Za-z0-9_-]{43}/;
let seq = 0;

describe.each(ENGINES)('MCP server (%s)', (engine) => {
  // Progress every 300 ms instead of 5 s: the wait is what is tested, not its length.
  const h = useHarness({
    engine,
    env: { PLAT_PRICES: 'platdzmd:1=4,paging-orders=5' },
    mcpProgressEveryMs: 300,
  });

  async function newToken(userId: string = SLACK.userId): Promise<string> {
    const sent = await h().command('/platdesk', `mcp token t${++seq}`, { userId });
    const token = textOf(await h().nextResponse(sent.responseUrlId)).match(TOKEN)?.[0];
    if (!token) throw new Error('no token shown');
    return token;
  }

  async function connect(token: string, name = 'Claude Desktop'): Promise<Client> {
    const client = new Client({ name, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${h().platdesk.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    return client;
  }

  const waybill = (n: number) => ({
    waybills: `77301234567${String(8900 + n).padStart(4, '0')}`,
    owner_id: owners.busy,
    carrier: 'ZTO',
  });
  const dmsTo = (userId: string) =>
    h().fake.calls.filter((c) => c.method === 'chat.postMessage' && c.body.channel === userId);
  const buttonOf = (dm: SlackCall, actionId: string) => {
    const b = buttonsOf({ blocks: dm.body.blocks as unknown[] }).find((x) => x.actionId === actionId);
    if (!b?.value) throw new Error(`no ${actionId} button`);
    return b;
  };
  async function nextDm(before: number, userId: string = SLACK.userId): Promise<SlackCall> {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const dms = dmsTo(userId);
      if (dms.length > before) return dms[dms.length - 1] as SlackCall;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no DM');
  }

  it('lists the catalog’s MCP tools with the catalog’s input and output schemas', async () => {
    const client = await connect(await newToken());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(toolsFor('mcp').map((t) => t.name));
    for (const tool of tools) {
      const name = tool.name as Parameters<typeof toolInputJsonSchema>[0];
      expect(tool.inputSchema).toMatchObject({
        type: 'object',
        properties: (toolInputJsonSchema(name) as { properties: object }).properties,
      });
      expect(tool.outputSchema).toMatchObject({
        properties: (toolOutputJsonSchema(name) as { properties: object }).properties,
      });
      expect(tool.description).toBeTruthy();
    }
    expect(client.getServerVersion()?.name).toBe('platdesk');
    await client.close();
  });

  it('refuses a missing, unknown, revoked or expired token with 401 and WWW-Authenticate', async () => {
    const post = (auth?: string) =>
      fetch(`${h().platdesk.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(auth ? { authorization: auth } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const missing = await post();
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer realm="platdesk"/);
    const unknown = await post(`Bearer pdmcp_${'x'.repeat(43)}`);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(unknown.headers.get('www-authenticate')).toContain('not known');

    const token = await newToken();
    expect((await post(`Bearer ${token}`)).status).toBe(200);
    const name = `t${seq}`;
    const sent = await h().command('/platdesk', `mcp revoke ${name}`);
    await h().nextResponse(sent.responseUrlId);
    const revoked = await post(`Bearer ${token}`);
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toContain('revoked');

    const short = await h().command('/platdesk', `mcp token shortlived days:1`);
    const shortToken = textOf(await h().nextResponse(short.responseUrlId)).match(TOKEN)?.[0] ?? '';
    h().advance(86_400_000 + 1000);
    const expired = await post(`Bearer ${shortToken}`);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('expired');
    // The SDK's client sees the 401 as a failed connection.
    await expect(connect(shortToken)).rejects.toThrow();
  });

  it('a paid call DMs its owner the charge; Confirm completes it with structured output, charged once (source mcp)', async () => {
    const client = await connect(await newToken(), 'Claude Desktop');
    const before = h().calls();
    const dmsBefore = dmsTo(SLACK.userId).length;
    const progress: string[] = [];
    const pending = client.callTool({ name: 'lookup_waybill', arguments: waybill(1) }, undefined, {
      onprogress: (p) => void progress.push(String(p.message)),
    });
    const dm = await nextDm(dmsBefore);
    const said = textOf({ blocks: dm.body.blocks });
    expect(said).toContain('Claude Desktop');
    expect(said).toContain('4 points');
    expect(h().calls()).toBe(before);
    const confirm = buttonOf(dm, 'platdesk.mcp.confirm');
    expect(confirm.label.startsWith('Confirm')).toBe(true);
    const click = await h().click('platdesk.mcp.confirm', confirm.value);
    expect(click.status).toBe(200);
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ summary: expect.stringContaining('7730123456789') });
    expect(textOf(result.content)).toContain('Charged 4 points');
    expect(h().calls()).toBe(before + 1);
    const ledger = await h().platdesk.store.ledger.byPending(confirm.value ?? '');
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ source: 'mcp', userId: SLACK.userId, points: 4 });
    // The DM is replaced by what happened.
    const replaced = await h().nextResponse(click.responseUrlId);
    expect(textOf(replaced)).toContain('Confirmed');
    // The token never reaches a log line.
    expect(
      h()
        .logs()
        .some((l) => l.includes('pdmcp_')),
    ).toBe(false);
    // A second click runs nothing.
    await h().click('platdesk.mcp.confirm', confirm.value);
    await h().settle(200);
    expect(h().calls()).toBe(before + 1);
    await client.close();
  });

  it('Deny, expiry and a cap refusal end the call with a clear tool error and 0 plat calls', async () => {
    const client = await connect(await newToken(), 'Cursor');
    const before = h().calls();

    let dms = dmsTo(SLACK.userId).length;
    const denied = client.callTool({ name: 'lookup_waybill', arguments: waybill(2) });
    const deny = buttonOf(await nextDm(dms), 'platdesk.mcp.deny');
    await h().click('platdesk.mcp.deny', deny.value);
    const d = await denied;
    expect(d.isError).toBe(true);
    expect(textOf(d.content)).toContain('Denied in Slack');

    dms = dmsTo(SLACK.userId).length;
    const expiring = client.callTool({ name: 'lookup_waybill', arguments: waybill(3) });
    const late = buttonOf(await nextDm(dms), 'platdesk.mcp.confirm');
    h().advance(5 * 60_000 + 1000);
    const e = await expiring;
    expect(e.isError).toBe(true);
    expect(textOf(e.content)).toContain('expired');
    // A click after the expiry runs nothing.
    await h().click('platdesk.mcp.confirm', late.value);

    const admin = await h().command('/platdesk', 'budget user daily 1', { userId: SLACK.adminId });
    await h().nextResponse(admin.responseUrlId);
    dms = dmsTo(SLACK.userId).length;
    const capped = await client.callTool({ name: 'lookup_waybill', arguments: waybill(4) });
    expect(capped.isError).toBe(true);
    expect(textOf(capped.content)).toContain('Nothing was charged');
    expect(dmsTo(SLACK.userId).length).toBe(dms);
    const off = await h().command('/platdesk', 'budget user daily off', { userId: SLACK.adminId });
    await h().nextResponse(off.responseUrlId);

    // Invalid input: nothing asked, nothing called.
    const bad = await client.callTool({ name: 'orders_page', arguments: { shop: owners.busy, size: 500 } });
    expect(bad.isError).toBe(true);

    await h().settle(200);
    expect(h().calls()).toBe(before);
    await client.close();
  });

  it('a call retried after the client timed out joins the first: one DM, one plat call, the same answer', async () => {
    const client = await connect(await newToken(), 'Claude Code');
    const before = h().calls();
    const dms = dmsTo(SLACK.userId).length;
    const params = { name: 'lookup_waybill', arguments: waybill(5), _meta: { 'platdesk/call-id': 'call-5' } };
    await expect(client.callTool(params, undefined, { timeout: 300 })).rejects.toThrow(/timed out/i);
    const dm = await nextDm(dms);
    const retry = client.callTool(params);
    await new Promise((r) => setTimeout(r, 300));
    expect(dmsTo(SLACK.userId).length).toBe(dms + 1);
    await h().click('platdesk.mcp.confirm', buttonOf(dm, 'platdesk.mcp.confirm').value);
    const result = await retry;
    expect(result.isError).toBeFalsy();
    // Retried once more after it completed: answered from its row, no call.
    const again = await client.callTool(params);
    expect(again.structuredContent).toEqual(result.structuredContent);
    await h().settle(200);
    expect(h().calls()).toBe(before + 1);
    expect(dmsTo(SLACK.userId).length).toBe(dms + 1);
    await client.close();
  });

  it('keeps the client informed while it waits, then: a cached answer is free, confirm-under-N skips the DM, MCP off is 401', async () => {
    const token = await newToken();
    const client = await connect(token, 'Claude Desktop');
    const before = h().calls();
    let dms = dmsTo(SLACK.userId).length;
    const progress: string[] = [];
    // A shop: its answer is cached for hours (waybill information is never cached).
    const shop = { shop: SANDBOX_FIXTURES.links.brandedStore };
    const waiting = client.callTool({ name: 'lookup_shop', arguments: shop }, undefined, {
      onprogress: (p) => void progress.push(String(p.message)),
    });
    const dm = await nextDm(dms);
    // Progress while the owner has not clicked (every 300 ms here; 5 s by default).
    await expect.poll(() => progress.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    expect(progress.some((m) => m.includes('Waiting for a Confirm in Slack'))).toBe(true);
    await h().click('platdesk.mcp.confirm', buttonOf(dm, 'platdesk.mcp.confirm').value);
    expect((await waiting).isError).toBeFalsy();
    expect(h().calls()).toBe(before + 1);

    // The same question from another call: the cached answer, no DM, no call.
    dms = dmsTo(SLACK.userId).length;
    const cached = await client.callTool({ name: 'lookup_shop', arguments: shop });
    expect(cached.isError).toBeFalsy();
    expect(textOf(cached.content)).toContain('From cache');
    expect(dmsTo(SLACK.userId).length).toBe(dms);
    expect(h().calls()).toBe(before + 1);

    // The person's own "confirm under 20": a 4-point call runs without a DM, charged once.
    const pref = await h().command('/platdesk', 'confirm under 20');
    await h().nextResponse(pref.responseUrlId);
    const auto = await client.callTool({ name: 'lookup_waybill', arguments: waybill(7) });
    expect(auto.isError).toBeFalsy();
    expect(textOf(auto.content)).toContain('Charged 4 points');
    expect(dmsTo(SLACK.userId).length).toBe(dms);
    expect(h().calls()).toBe(before + 2);
    const always = await h().command('/platdesk', 'confirm always');
    await h().nextResponse(always.responseUrlId);
    await client.close();

    // An admin turns MCP off: the same token is refused with 401.
    const off = await h().command('/platdesk', 'mcp off', { userId: SLACK.adminId });
    await h().nextResponse(off.responseUrlId);
    await expect(connect(token)).rejects.toThrow();
    const res = await fetch(`${h().platdesk.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('turned off');
    const on = await h().command('/platdesk', 'mcp on', { userId: SLACK.adminId });
    await h().nextResponse(on.responseUrlId);
  });

  it('the free spend tool answers from the ledger without a DM', async () => {
    const client = await connect(await newToken());
    const dms = dmsTo(SLACK.userId).length;
    const result = await client.callTool({ name: 'spend', arguments: { period: 'last30' } });
    expect(result.isError).toBeFalsy();
    // What the ledger holds for this person over the period (the 30 local days to the end of
    // today, in the budget zone: Asia/Shanghai here), as the tool says it.
    const range = reportRange('last30', h().now(), 'Asia/Shanghai');
    const totals = await h().platdesk.store.ledger.totals({ ...range, userId: SLACK.userId });
    expect(totals.calls).toBeGreaterThan(0);
    expect(result.structuredContent).toMatchObject({ points: totals.points, calls: totals.calls });
    const everyone = await client.callTool({ name: 'spend', arguments: { everyone: true } });
    expect(everyone.isError).toBe(true);
    expect(dmsTo(SLACK.userId).length).toBe(dms);
    await client.close();
  });
});
