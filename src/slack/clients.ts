/**
 * The Slack Web client of a tenant, for work outside a listener (digest and alert posts, admin
 * alerts, telling users of interrupted lookups): inside a listener Bolt's own `client` already
 * carries the token its `authorize` found.
 *
 * Single-workspace mode: the one bot client for the one tenant. Distributed mode: a client per
 * installed tenant (an installation's bot token), null for a tenant with none.
 */
import { WebClient, type WebClientOptions } from '@slack/web-api';

export interface SlackClients {
  clientFor(tenant: string): Promise<WebClient | null>;
}

/** The one bot client (single-workspace mode). */
export function singleSlackClient(client: WebClient): SlackClients {
  return { clientFor: async () => client };
}

/**
 * One client per bot token, built from `tokenOf` (an installation store's bot token of the
 * tenant) with the app's client options; the token is never logged.
 */
export function installedSlackClients(
  tokenOf: (tenant: string) => Promise<string | null>,
  options: WebClientOptions,
): SlackClients {
  const byToken = new Map<string, WebClient>();
  return {
    async clientFor(tenant) {
      const token = await tokenOf(tenant);
      if (token === null) return null;
      let client = byToken.get(token);
      if (!client) {
        client = new WebClient(token, options);
        byToken.set(token, client);
      }
      return client;
    },
  };
}
