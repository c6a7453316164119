/**
 * Issue 37, "an uninstalled workspace's tokens die with it", end to end in distributed mode: two
 * workspaces installed through Slack's OAuth flow (the local Slack-compatible server), a person in
 * each makes a token with `/platdesk mcp token`; both get in with the SDK's client. Then
 * `app_uninstalled` arrives from one: from that moment its token is refused (401, WWW-Authenticate
 * naming the reason), before its data is erased; the other workspace's token still works.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PlatdeskHarness, startPlatdeskHarness, textOf } from '../helpers/platdesk-harness.js';
import { postCommand, postEvent } from '../helpers/slack-http.js';
import {
  distributedModeEnv,
  fromWorkspace,
  installFakeOAuth,
  installThroughOAuth,
} from '../helpers/slack-oauth.js';
import { eventCallback, slashCommand } from '../helpers/slack-payloads.js';

const SIGNING_SECRET = 'test-secret';
const TOKEN = /pdmcp_[A-Za-z0-9_-]{43}/;
const GONE = { teamId: 'T0MCP1', userId: 'UMCP1' };
const STAYS = { teamId: 'T0MCP2', userId: 'UMCP2' };

describe('MCP tokens of an uninstalled workspace (distributed mode)', () => {
  let h: PlatdeskHarness;
  const tokens: Record<string, string> = {};
  let seq = 0;

  beforeAll(async () => {
    h = await startPlatdeskHarness({ signingSecret: SIGNING_SECRET, env: distributedModeEnv() });
    const oauth = installFakeOAuth(h.fake);
    for (const ws of [GONE, STAYS]) {
      const installed = await installThroughOAuth(h.platdesk.url, oauth, {
        teamId: ws.teamId,
        installerUserId: ws.userId,
      });
      expect(installed.status).toBe(200);
      const id = `mcp-uninstall-${++seq}`;
      const sent = await postCommand(
        h.eventsUrl,
        SIGNING_SECRET,
        slashCommand({
          command: '/platdesk',
          text: 'mcp token laptop',
          userId: ws.userId,
          teamId: ws.teamId,
          responseUrl: h.fake.responseUrl(id),
        }),
      );
      expect(sent.status).toBe(200);
      const token = textOf(await h.nextResponse(id)).match(TOKEN)?.[0];
      if (!token) throw new Error(`no token shown in ${ws.teamId}`);
      tokens[ws.teamId] = token;
    }
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const post = (token: string) =>
    fetch(`${h.platdesk.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  it('each workspace’s token gets in; after app_uninstalled that workspace’s is refused with the reason, the other’s is not', async () => {
    for (const ws of [GONE, STAYS]) {
      const client = new Client({ name: 'Cursor', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${h.platdesk.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${tokens[ws.teamId]}` } },
        }),
      );
      expect((await client.listTools()).tools.length).toBe(7);
      await client.close();
    }

    const uninstalled = await postEvent(
      h.eventsUrl,
      SIGNING_SECRET,
      fromWorkspace(eventCallback({ type: 'app_uninstalled' }, { eventId: 'EvMCPUNINSTALL' }), GONE.teamId),
    );
    expect(uninstalled.status).toBe(200);
    await expect.poll(() => h.platdesk.store.installations.get(GONE.teamId), { timeout: 5000 }).toBeNull();

    const refused = await post(tokens[GONE.teamId] ?? '');
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('no longer installed');
    expect((await refused.json()) as object).toMatchObject({
      error: { message: expect.stringContaining('no longer installed') },
    });
    expect((await post(tokens[STAYS.teamId] ?? '')).status).toBe(200);
  });
});
