/**
 * The App Home's "Connect an AI client" (issue 37) through the real Bolt app against the Slack
 * stand-in, with the payload Slack sends for a click in a view (no response_url, no channel): the
 * click opens a modal, which only the clicker sees, holding a new token of theirs and the lines
 * to paste (server URL, Streamable HTTP, the Authorization header), made exactly as
 * `/platdesk mcp token` makes one (hashed, 90 days, listed by `/platdesk mcp tokens`); the token
 * is in that modal and nowhere else (no message, no log line) and an MCP client gets in with it.
 * A redelivered click makes no second token; a second click makes a second one. While an admin
 * has MCP off the Home has no such button, and a click from an older Home makes nothing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/blocks/action-ids.js';
import { hashMcpToken } from '../../src/lookups/mcp-tokens.js';
import { buttonsOf, SIGNING_SECRET, textOf, useHarness } from '../helpers/platdesk-harness.js';
import type { SlackCall } from '../helpers/slack-api-server.js';
import { postAction, postEvent } from '../helpers/slack-http.js';
import { appHomeOpened, eventCallback, SLACK, viewBlockAction } from '../helpers/slack-payloads.js';
import { en, zh } from '../helpers/words.js';

type Json = Record<string, unknown>;
const TOKEN = /pdmcp_[A-Za-z0-9_-]{43}/g;
const URL_SHOWN = 'https://platdesk.example.com/mcp';

describe('App Home: Connect an AI client', () => {
  const h = useHarness({ env: { PLATDESK_PUBLIC_URL: 'https://platdesk.example.com' } });
  let seq = 0;

  async function homeButtons(userId: string = SLACK.userId): Promise<string[]> {
    const from = h().fake.callsTo('views.publish').length;
    await postEvent(
      h().eventsUrl,
      SIGNING_SECRET,
      eventCallback(appHomeOpened(userId), { eventId: `EvMCP${++seq}` }),
    );
    const published = await h().fake.waitFor(
      'views.publish',
      (c) => c.body.user_id === userId && h().fake.callsTo('views.publish').indexOf(c) >= from,
      5000,
    );
    return buttonsOf(published.body.view as Json).map((b) => b.actionId);
  }
  async function clickConnect(options: { actionTs?: string; userId?: string } = {}): Promise<SlackCall> {
    const opened = h().fake.callsTo('views.open').length;
    const payload = viewBlockAction({
      actionId: ACTIONS.homeMcpConnect,
      value: 'connect',
      surface: 'home',
      actionTs: options.actionTs ?? `1700000077.${String(++seq).padStart(6, '0')}`,
      ...(options.userId ? { userId: options.userId } : {}),
    });
    expect('response_url' in payload).toBe(false);
    const res = await postAction(h().eventsUrl, SIGNING_SECRET, payload);
    expect(res.status).toBe(200);
    return h().fake.waitFor('views.open', () => h().fake.callsTo('views.open').length > opened, 5000);
  }
  const tokensOf = (call: SlackCall) => [...new Set(JSON.stringify(call.body).match(TOKEN) ?? [])];

  it('shows a new token once, in a modal only the clicker sees, with the lines to paste; the token works', async () => {
    expect(await homeButtons()).toContain(ACTIONS.homeMcpConnect);
    const open = await clickConnect();
    expect(open.body.trigger_id).toBe(SLACK.triggerId);
    const view = open.body.view as Json;
    expect(view.type).toBe('modal');
    const text = textOf(view);
    const [token, ...more] = tokensOf(open);
    expect(token).toBeDefined();
    expect(more).toEqual([]);
    expect(text).toContain(en.t('mcp.connectTitle'));
    // The lines an MCP client's settings take: the URL, the transport, the header with the token.
    expect(text).toContain(`URL: ${URL_SHOWN}`);
    expect(text).toContain('Streamable HTTP');
    expect(text).toContain(`Authorization: Bearer ${token}`);
    // Made as /platdesk mcp token makes one: only its hash kept, 90 days, the clicker's.
    const row = await h().platdesk.store.mcpTokens.byHash(hashMcpToken(token ?? ''));
    expect(row).toMatchObject({ userId: SLACK.userId, name: 'ai-client', revokedAt: null });
    expect(Math.round(((row?.expiresAt.getTime() ?? 0) - (row?.createdAt.getTime() ?? 0)) / 86_400_000)).toBe(
      90,
    );
    // Only in that modal: no message, no response_url, no other call holds it; no log line either.
    const holding = h().fake.calls.filter((c) => JSON.stringify(c.body).includes(token ?? ''));
    expect(holding).toEqual([open]);
    expect(
      h()
        .fake.callsTo('response_url')
        .filter((c) => JSON.stringify(c.body).includes('pdmcp_')),
    ).toEqual([]);
    expect(
      h()
        .logs()
        .some((l) => l.includes(token ?? '')),
    ).toBe(false);
    // An MCP client gets in with it.
    const client = new Client({ name: 'Cursor', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h().platdesk.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect((await client.listTools()).tools.length).toBe(7);
    await client.close();
    // /platdesk mcp tokens lists it, with the client that used it.
    const sent = await h().command('/platdesk', 'mcp tokens');
    expect(textOf(await h().nextResponse(sent.responseUrlId))).toContain('*ai-client*');
  });

  it('a redelivered click makes no second token; another click makes a second one; in Chinese for a Chinese reader', async () => {
    const before = (await h().platdesk.store.mcpTokens.list(SLACK.userId)).length;
    const actionTs = '1700000088.000001';
    await clickConnect({ actionTs });
    const opened = h().fake.callsTo('views.open').length;
    // Slack delivers the same click again (same action_ts): dropped.
    const again = await postAction(
      h().eventsUrl,
      SIGNING_SECRET,
      viewBlockAction({ actionId: ACTIONS.homeMcpConnect, value: 'connect', surface: 'home', actionTs }),
    );
    expect(again.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(h().fake.callsTo('views.open')).toHaveLength(opened);
    const names = (await h().platdesk.store.mcpTokens.list(SLACK.userId)).map((t) => t.name);
    expect(names).toHaveLength(before + 1);
    expect(names).toContain('ai-client-2');

    const language = await h().command('/platdesk', 'language zh-CN', { userId: SLACK.secondUserId });
    await h().nextResponse(language.responseUrlId);
    const open = await clickConnect({ userId: SLACK.secondUserId });
    expect(textOf(open.body.view)).toContain(zh.t('mcp.connectTitle'));
    expect(textOf(open.body.view)).toContain(zh.t('mcp.tokenSetup'));
    expect(await h().platdesk.store.mcpTokens.list(SLACK.secondUserId)).toEqual([
      expect.objectContaining({ name: 'ai-client' }),
    ]);
  });

  it('a token whose modal Slack did not open (the trigger expired) is revoked at once, and the clicker is told', async () => {
    const live = async () => (await h().platdesk.store.mcpTokens.list(SLACK.userId)).map((t) => t.name);
    const before = await live();
    const dms = h().fake.callsTo('chat.postMessage').length;
    h().fake.failNext('views.open', { error: 'expired_trigger_id' });
    const failed = await clickConnect();
    const [token] = tokensOf(failed);
    const row = await h().platdesk.store.mcpTokens.byHash(hashMcpToken(token ?? ''));
    await expect
      .poll(async () => (await h().platdesk.store.mcpTokens.byHash(hashMcpToken(token ?? '')))?.revokedAt)
      .not.toBeNull();
    expect(row?.userId).toBe(SLACK.userId);
    expect(await live()).toEqual(before);
    const told = await h().fake.waitFor(
      'chat.postMessage',
      () => h().fake.callsTo('chat.postMessage').length > dms,
      5000,
    );
    expect(told.body.channel).toBe(SLACK.userId);
    expect(textOf(told.body)).toContain(en.t('mcp.connectFailed'));
    expect(JSON.stringify(told.body)).not.toContain('pdmcp_');
  });

  it('hidden while an admin has MCP off; a click from an older Home makes nothing and says why', async () => {
    const off = await h().command('/platdesk', 'mcp off', { userId: SLACK.adminId });
    await h().nextResponse(off.responseUrlId);
    expect(await homeButtons()).not.toContain(ACTIONS.homeMcpConnect);
    const before = (await h().platdesk.store.mcpTokens.list(null)).length;
    const republished = h().fake.callsTo('views.publish').length;
    const open = await clickConnect();
    expect(tokensOf(open)).toEqual([]);
    expect(textOf(open.body.view)).toContain(en.t('mcp.off'));
    expect(await h().platdesk.store.mcpTokens.list(null)).toHaveLength(before);
    // The older Home is published again, without the button.
    const home = await h().fake.waitFor(
      'views.publish',
      (c) => h().fake.callsTo('views.publish').indexOf(c) >= republished,
      5000,
    );
    expect(buttonsOf(home.body.view as Json).map((b) => b.actionId)).not.toContain(ACTIONS.homeMcpConnect);
    const on = await h().command('/platdesk', 'mcp on', { userId: SLACK.adminId });
    await h().nextResponse(on.responseUrlId);
    expect(await homeButtons()).toContain(ACTIONS.homeMcpConnect);
  });
});
