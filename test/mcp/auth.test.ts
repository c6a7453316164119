/**
 * Who an MCP request is (mcp/auth.ts), on a real store: tokens of two workspaces are told apart by
 * their hash alone; a workspace that uninstalled platdesk (distributed mode) or turned MCP off
 * refuses its tokens; the other workspace's still work. (The per-token rate: rate.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashMcpToken, MCP_ENABLED_KEY, newMcpToken } from '../../src/lookups/mcp-tokens.js';
import { authenticate } from '../../src/mcp/auth.js';
import type { Store } from '../../src/store/store.js';
import { openTestStore } from '../helpers/store-engines.js';

describe('MCP authentication', () => {
  let store: Store;
  const tokens: Record<string, string> = {};
  const installed = new Set(['T1', 'T2']);
  const now = () => new Date();

  beforeAll(async () => {
    store = await openTestStore();
    for (const tenant of ['T1', 'T2']) {
      tokens[tenant] = newMcpToken();
      await store.forTenant(tenant).mcpTokens.create({
        id: `id-${tenant}`,
        userId: 'U1',
        name: 'laptop',
        hash: hashMcpToken(tokens[tenant] ?? ''),
        expiresAt: new Date(Date.now() + 86_400_000),
      });
    }
  });
  afterAll(() => store.close());

  const auth = (token: string | undefined) =>
    authenticate(token === undefined ? undefined : `Bearer ${token}`, {
      tokens: store.mcpTokens,
      settingsOf: async (t) => store.forTenant(t).settings,
      installed: async (t) => installed.has(t),
      now,
    });

  it('finds each token in its own workspace; refuses what it does not know', async () => {
    expect(await auth(tokens.T1)).toMatchObject({ ok: true, token: { tenant: 'T1', userId: 'U1' } });
    expect(await auth(tokens.T2)).toMatchObject({ ok: true, token: { tenant: 'T2' } });
    expect(await auth(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(await auth('xoxb-not-ours')).toEqual({ ok: false, reason: 'invalid' });
    expect(await auth(`${tokens.T1}x`)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('an uninstalled workspace’s tokens die with it; MCP turned off refuses its tokens only', async () => {
    installed.delete('T1');
    expect(await auth(tokens.T1)).toEqual({ ok: false, reason: 'uninstalled' });
    expect((await auth(tokens.T2)).ok).toBe(true);
    await store.forTenant('T2').settings.set(MCP_ENABLED_KEY, false, 'UADMIN');
    expect(await auth(tokens.T2)).toEqual({ ok: false, reason: 'off' });
  });
});
