/**
 * A Slack Web client for a tenant, for work that runs outside a Slack request (digests, alerts,
 * admin notices): in distributed mode its installation's bot token (refreshed when it rotates),
 * in single-workspace mode the one bot token. The tenant of single-workspace mode is ''.
 */
import type { WebClient } from '@slack/web-api';

export interface SlackClients {
  /** Throws NotInstalledError when the tenant has no installation (it uninstalled platdesk). */
  clientFor(tenant: string): Promise<WebClient>;
}
