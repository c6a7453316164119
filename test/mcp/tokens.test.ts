/**
 * `/platdesk mcp …` (issue 37) through the real Bolt app against the Slack stand-in, on both store
 * engines: a token is shown once, only to its owner (one ephemeral answer), kept only as its
 * hash, listed and revoked by its owner; admins list and revoke anyone's and turn MCP off.
 */
import { describe, expect, it } from 'vitest';
import { hashMcpToken } from '../../src/lookups/mcp-tokens.js';
import { textOf, useHarness } from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const TOKEN = /pdmcp_[A-Za-z0-9_-]{43}/;

describe.each(ENGINES)('/platdesk mcp (%s)', (engine) => {
  const h = useHarness({ engine, env: { PLATDESK_PUBLIC_URL: 'https://platdesk.example.com/' } });

  async function run(text: string, userId: string = SLACK.userId) {
    const sent = await h().command('/platdesk', text, { userId });
    expect(sent.status).toBe(200);
    return h().nextResponse(sent.responseUrlId);
  }

  it('a token is shown once, only to its owner, with the setup lines; only its hash is kept', async () => {
    const answer = await run('mcp token laptop');
    expect(answer.response_type).toBe('ephemeral');
    const text = textOf(answer);
    const token = text.match(TOKEN)?.[0] ?? '';
    expect(token).not.toBe('');
    expect(text).toContain('https://platdesk.example.com/mcp');
    expect(text).toContain('Streamable HTTP');
    expect(text).toContain('Authorization: Bearer');
    // Nowhere else: no other Slack message or call holds it, no log line either.
    const holding = h().fake.calls.filter((c) => JSON.stringify(c.body).includes(token));
    expect(holding).toHaveLength(1);
    expect(
      h()
        .logs()
        .some((l) => l.includes(token)),
    ).toBe(false);
    const row = await h().platdesk.store.mcpTokens.byHash(hashMcpToken(token));
    expect(row).toMatchObject({ userId: SLACK.userId, name: 'laptop', revokedAt: null });
    expect(JSON.stringify(row)).not.toContain(token);
    // 90 days by default.
    const days = ((row?.expiresAt.getTime() ?? 0) - (row?.createdAt.getTime() ?? 0)) / 86_400_000;
    expect(Math.round(days)).toBe(90);

    // A second live token of the same name is refused; another name is fine.
    expect(textOf(await run('mcp token laptop'))).toContain('already have a token named');
    const other = textOf(await run('mcp token ci days:7'));
    expect(other.match(TOKEN)?.[0]).not.toBe(token);
    expect(textOf(await run('mcp token x days:999'))).toContain('1 to 365 days');
    expect(textOf(await run('mcp token <@U999>'))).toContain('is not a token name');
  });

  it('people list and revoke their own; admins list and revoke anyone’s', async () => {
    const mine = textOf(await run('mcp tokens'));
    expect(mine).toContain('laptop');
    expect(mine).toContain('never used');
    expect(textOf(await run('mcp tokens', SLACK.adminId))).not.toContain('laptop');
    expect(textOf(await run('mcp tokens all'))).toContain('Only an admin');
    const all = textOf(await run('mcp tokens all', SLACK.adminId));
    expect(all).toContain('laptop');
    expect(all).toContain(`<@${SLACK.userId}>`);

    expect(textOf(await run(`mcp revoke ci <@${SLACK.adminId}>`))).toContain('Only an admin');
    expect(textOf(await run(`mcp revoke ci <@${SLACK.userId}>`, SLACK.adminId))).toContain(
      'Token *ci* revoked',
    );
    expect(textOf(await run('mcp revoke ci'))).toContain('No live token named');
    expect(textOf(await run('mcp revoke laptop'))).toContain('Token *laptop* revoked');
    expect(textOf(await run('mcp tokens'))).toContain('No MCP tokens');
    // Revoked: the name is free again.
    expect(textOf(await run('mcp token laptop'))).toMatch(TOKEN);
  });

  it('admins turn MCP off for the workspace (audited); then no token is made', async () => {
    expect(textOf(await run('mcp off'))).toContain('Only an admin');
    expect(textOf(await run('mcp off', SLACK.adminId))).toContain('are off');
    const off = textOf(await run('mcp token phone'));
    expect(off).toContain('turned off');
    expect(off).not.toMatch(TOKEN);
    expect(textOf(await run('mcp tokens'))).toContain('turned off');
    const audit = await h().platdesk.store.audit.list(5);
    expect(audit.some((a) => a.actorId === SLACK.adminId && a.detail.includes('mcp.enabled'))).toBe(true);
    expect(textOf(await run('mcp on', SLACK.adminId))).toContain('are on');
    expect(textOf(await run('mcp token phone'))).toMatch(TOKEN);
  });

  it('the help names the mcp subcommands, in English and Chinese', async () => {
    expect(textOf(await run('help'))).toContain('/platdesk mcp token');
    await run('language zh-CN');
    expect(textOf(await run('mcp tokens'))).toContain('MCP 令牌');
    await run('language en');
  });
});
