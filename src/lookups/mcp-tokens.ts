/**
 * `/platdesk mcp …` (issue 37): a person's tokens for AI clients. A token is 32 random bytes,
 * shown once (an ephemeral answer only its owner sees) and kept only as its SHA-256 hash, per
 * person and workspace, with an expiry (90 days unless the person says fewer or more, up to a
 * year). People list and revoke their own; admins list and revoke anyone's and can turn MCP off
 * for the workspace (a setting, audited); while it is off every token is refused.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { McpToken, Settings, Store } from '../store/store.js';

/** What an AI client sends as `Authorization: Bearer …`: recognisable in a leaked-secret scan. */
export const MCP_TOKEN_PREFIX = 'pdmcp_';
export const MCP_TOKEN_DAYS = 90;
export const MCP_TOKEN_MAX_DAYS = 365;
export const MCP_ENABLED_KEY = 'mcp.enabled';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

export const newMcpToken = (): string => `${MCP_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
export const hashMcpToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Whether the workspace lets AI clients in (default yes; an admin can turn it off). */
export async function mcpEnabled(settings: Pick<Settings, 'get'>): Promise<boolean> {
  return (await settings.get<boolean>(MCP_ENABLED_KEY)) !== false;
}

export type McpProblem = 'mcp_usage' | 'mcp_name' | 'mcp_taken' | 'mcp_days' | 'mcp_not_found';

export type McpCommandResult =
  | { kind: 'mcp-token'; name: string; token: string; expiresAt: Date; url: string | null }
  | { kind: 'mcp-tokens'; tokens: McpToken[]; everyone: boolean; enabled: boolean; now: Date }
  | { kind: 'mcp-revoked'; name: string; count: number }
  | { kind: 'mcp-feature'; enabled: boolean }
  | { kind: 'mcp-off' }
  | { kind: 'mcp-admin-only' }
  | { kind: 'mcp-invalid'; problem: McpProblem; values?: Record<string, string | number> };

export interface McpCommandContext {
  userId: string;
  admin: boolean;
  store: Pick<Store, 'mcpTokens' | 'settings'>;
  now: Date;
  /** The server URL clients paste (PLATDESK_PUBLIC_URL + /mcp); null when not configured. */
  url: string | null;
}

/** `mcp token [name] [days:N]` | `mcp tokens [all]` | `mcp revoke <name> [@person]` | `mcp on|off`. */
export async function runMcpCommand(
  rest: readonly string[],
  ctx: McpCommandContext,
  mentionedUser: (token: string) => string | null,
): Promise<McpCommandResult> {
  const [verb = 'tokens', ...args] = rest.map((t, i) => (i === 0 ? t.toLowerCase() : t));
  const enabled = await mcpEnabled(ctx.store.settings);
  switch (verb) {
    case 'token': {
      if (!enabled) return { kind: 'mcp-off' };
      let name = 'default';
      let days = MCP_TOKEN_DAYS;
      for (const a of args) {
        const d = a.match(/^days:(\d+)$/i);
        if (d) {
          days = Number(d[1]);
          if (days < 1 || days > MCP_TOKEN_MAX_DAYS)
            return { kind: 'mcp-invalid', problem: 'mcp_days', values: { max: MCP_TOKEN_MAX_DAYS } };
        } else if (NAME.test(a)) name = a;
        else return { kind: 'mcp-invalid', problem: 'mcp_name', values: { name: a.slice(0, 40) } };
      }
      const token = newMcpToken();
      const expiresAt = new Date(ctx.now.getTime() + days * 86_400_000);
      const created = await ctx.store.mcpTokens.create({
        id: randomUUID(),
        userId: ctx.userId,
        name,
        hash: hashMcpToken(token),
        expiresAt,
      });
      if (!created) return { kind: 'mcp-invalid', problem: 'mcp_taken', values: { name } };
      return { kind: 'mcp-token', name, token, expiresAt, url: ctx.url };
    }
    case 'tokens': {
      const everyone = args[0]?.toLowerCase() === 'all';
      if (everyone && !ctx.admin) return { kind: 'mcp-admin-only' };
      const tokens = await ctx.store.mcpTokens.list(everyone ? null : ctx.userId);
      return { kind: 'mcp-tokens', tokens, everyone, enabled, now: ctx.now };
    }
    case 'revoke': {
      const [name, whose] = args;
      if (!name || args.length > 2) return { kind: 'mcp-invalid', problem: 'mcp_usage' };
      let owner: string | null = ctx.userId;
      if (whose !== undefined) {
        if (whose.toLowerCase() === 'all') owner = null;
        else owner = mentionedUser(whose);
        if (owner === undefined || (whose.toLowerCase() !== 'all' && owner === null))
          return { kind: 'mcp-invalid', problem: 'mcp_usage' };
        if (owner !== ctx.userId && !ctx.admin) return { kind: 'mcp-admin-only' };
      }
      const count = await ctx.store.mcpTokens.revoke(name, owner, ctx.userId);
      if (count === 0)
        return { kind: 'mcp-invalid', problem: 'mcp_not_found', values: { name: name.slice(0, 40) } };
      return { kind: 'mcp-revoked', name, count };
    }
    case 'on':
    case 'off': {
      if (!ctx.admin) return { kind: 'mcp-admin-only' };
      await ctx.store.settings.set(MCP_ENABLED_KEY, verb === 'on', ctx.userId);
      return { kind: 'mcp-feature', enabled: verb === 'on' };
    }
    default:
      return { kind: 'mcp-invalid', problem: 'mcp_usage' };
  }
}

/** The names the App Home's "Connect an AI client" gives its tokens: ai-client, ai-client-2, … */
export const HOME_TOKEN_NAME = 'ai-client';
const HOME_TOKEN_NAMES = 20;

/**
 * The App Home's "Connect an AI client": `mcp token` as the command runs it, under the first
 * name of HOME_TOKEN_NAME's series that the person has no live token of. One mechanism: the
 * same token, expiry, hash and answer as `/platdesk mcp token`.
 */
export async function connectAiClient(ctx: McpCommandContext): Promise<McpCommandResult> {
  let result: McpCommandResult = {
    kind: 'mcp-invalid',
    problem: 'mcp_taken',
    values: { name: HOME_TOKEN_NAME },
  };
  for (let n = 1; n <= HOME_TOKEN_NAMES; n++) {
    const name = n === 1 ? HOME_TOKEN_NAME : `${HOME_TOKEN_NAME}-${n}`;
    result = await runMcpCommand(['token', name], ctx, () => null);
    if (result.kind !== 'mcp-invalid' || result.problem !== 'mcp_taken') return result;
  }
  return result;
}
