/**
 * The Slack Web client of a tenant, for work outside a listener (digest and alert posts, admin
 * alerts, telling users of interrupted lookups): inside a listener Bolt's own `client` already
 * carries the token its `authorize` found.
 *
 * Single-workspace mode: the one bot client for the one tenant. Distributed mode: one client per
 * installed tenant, null for a tenant with none. That client holds no token of its own: each call
 * reads the tenant's installation (the same cached read as Bolt's authorize, refreshed when due),
 * so a token rotated by this replica or another is used by the next job with no rebuild; a call
 * Slack refuses for its token (invalid_auth, token_expired, token_revoked) reads the installation
 * again, bypassing the cache, and is sent once more only with a different token; an uninstalled
 * tenant's calls are not sent at all (TenantNotInstalledError).
 */

import { ErrorCode, WebClient, type WebClientOptions } from '@slack/web-api';
import { LruMap } from '../lru-map.js';
import { slackClientOptions } from './web-fetch.js';

export interface SlackClients {
  clientFor(tenant: string): Promise<WebClient | null>;
}

/** The one bot client (single-workspace mode). */
export function singleSlackClient(client: WebClient): SlackClients {
  return { clientFor: async () => client };
}

/** Where an installed tenant's bot token is read (slack/installs.ts, or a test's installations). */
export interface BotTokens {
  /** The tenant's current bot token (a cached read is fine), null once it is not installed. */
  tokenOf(tenant: string): Promise<string | null>;
  /** Drops what tokenOf cached for the tenant, so its next read is from the store. */
  forget?(tenant: string): void;
}

/** Slack's answers that say the token itself is no good (its call did nothing). */
export const TOKEN_REFUSALS: ReadonlySet<string> = new Set([
  'invalid_auth',
  'not_authed',
  'token_expired',
  'token_revoked',
  'account_inactive',
]);

export class TenantNotInstalledError extends Error {
  readonly code = 'tenant_not_installed';
  constructor(readonly tenant: string) {
    super(`platdesk is not installed in ${tenant}: nothing sent`);
    this.name = 'TenantNotInstalledError';
  }
}

function isTokenRefusal(error: unknown): boolean {
  const e = error as { code?: unknown; data?: { error?: unknown } } | null;
  return (
    e?.code === ErrorCode.PlatformError &&
    typeof e.data?.error === 'string' &&
    TOKEN_REFUSALS.has(e.data.error)
  );
}

/** A tenant's client whose every call carries the tenant's current bot token (never logged). */
class CurrentTokenClient extends WebClient {
  constructor(
    private readonly ofTenant: string,
    private readonly botTokens: BotTokens,
    options: WebClientOptions,
  ) {
    super(undefined, slackClientOptions(options));
  }

  withOptions(options: WebClientOptions): CurrentTokenClient {
    return new CurrentTokenClient(this.ofTenant, this.botTokens, options);
  }

  private async currentToken(): Promise<string> {
    const token = await this.botTokens.tokenOf(this.ofTenant);
    if (token === null) throw new TenantNotInstalledError(this.ofTenant);
    return token;
  }

  override async apiCall(
    method: string,
    options: Record<string, unknown> = {},
  ): ReturnType<WebClient['apiCall']> {
    // A token given by the caller (a file upload's inner calls get the one below) is kept.
    if (typeof options.token === 'string') return super.apiCall(method, options);
    const token = await this.currentToken();
    try {
      return await super.apiCall(method, { ...options, token });
    } catch (error) {
      if (!isTokenRefusal(error)) throw error;
      // Refused for its token: Slack did nothing. Read the installation again, past the cache.
      this.botTokens.forget?.(this.ofTenant);
      const again = await this.currentToken();
      if (again === token) throw error;
      return super.apiCall(method, { ...options, token: again });
    }
  }
}

/**
 * A client on the same token as `client` with other options (keyed posts: no automatic retries):
 * a tenant's job client keeps reading its current token at each call.
 */
export function clientLike(client: WebClient, options: WebClientOptions): WebClient {
  return client instanceof CurrentTokenClient
    ? client.withOptions(options)
    : new WebClient(client.token, slackClientOptions(options));
}

/** Tenants whose Slack client is kept for the next job (the workspaces' parts bound: tenant-services.ts). */
export const CLIENTS_KEPT = 1_000;

/** One client per installed tenant (its token read at each call), with the app's client options. */
export function installedSlackClients(tokens: BotTokens, options: WebClientOptions): SlackClients {
  // The clients of the tenants used lately (issue 39): one that is let go is made again (it holds
  // no token of its own, so nothing is lost); a tenant's parts keep the one they were built with.
  const byTenant = new LruMap<string, WebClient>(CLIENTS_KEPT);
  return {
    async clientFor(tenant) {
      if ((await tokens.tokenOf(tenant)) === null) return null;
      let client = byTenant.get(tenant);
      if (!client) {
        client = new CurrentTokenClient(tenant, tokens, options);
        byTenant.set(tenant, client);
      }
      return client;
    },
  };
}
