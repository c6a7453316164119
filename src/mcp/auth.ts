/**
 * Who an MCP request is (issue 37): its `Authorization: Bearer` token, hashed and found in the
 * store (store/mcp-tokens.ts), live (not revoked, not expired), in a workspace that still has
 * platdesk installed and has MCP turned on. Anything else is refused with its reason, which the
 * server sends as 401 with a `WWW-Authenticate` header (RFC 6750 §3). A token never reaches a log.
 */
import type { McpAuthFailure } from '../blocks/mcp.js';
import { hashMcpToken, MCP_TOKEN_PREFIX, mcpEnabled } from '../lookups/mcp-tokens.js';
import type { McpToken, Settings, Store } from '../store/store.js';

export type McpAuth = { ok: true; token: McpToken } | { ok: false; reason: McpAuthFailure };

export interface McpAuthDeps {
  /** Any tenant's store: byHash spans tenants. */
  tokens: Pick<Store['mcpTokens'], 'byHash'>;
  /** The token's workspace's settings (MCP on or off). */
  settingsOf: (tenant: string) => Promise<Pick<Settings, 'get'>>;
  /** Distributed mode: whether platdesk is still installed in the tenant (absent: always). */
  installed?: (tenant: string) => Promise<boolean>;
  now: () => Date;
}

export async function authenticate(header: string | undefined, deps: McpAuthDeps): Promise<McpAuth> {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match?.[1]) return { ok: false, reason: 'missing' };
  const presented = match[1];
  if (!presented.startsWith(MCP_TOKEN_PREFIX)) return { ok: false, reason: 'invalid' };
  const token = await deps.tokens.byHash(hashMcpToken(presented));
  if (!token) return { ok: false, reason: 'invalid' };
  if (token.revokedAt !== null) return { ok: false, reason: 'revoked' };
  if (token.expiresAt.getTime() <= deps.now().getTime()) return { ok: false, reason: 'expired' };
  // An uninstalled workspace's tokens die with it, before its data is erased.
  if (deps.installed && !(await deps.installed(token.tenant))) return { ok: false, reason: 'uninstalled' };
  if (!(await mcpEnabled(await deps.settingsOf(token.tenant)))) return { ok: false, reason: 'off' };
  return { ok: true, token };
}
