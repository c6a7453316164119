/**
 * What the Slack listeners are given (CONVENTIONS 3: factories take their I/O as arguments).
 */
import type { Logger } from 'pino';
import type { ModelPlanner } from '../agent/model.js';
import type { LookupService } from '../lookups/lookup-service.js';
import type { PlatAccountStatus } from '../lookups/plat-accounts.js';
import type { UnfurlService } from '../lookups/unfurls.js';
import type { Metrics } from '../metrics.js';
import type { PlatUrlProblem } from '../plat/address-guard.js';
import type { PlatClient } from '../plat/client.js';
import type { Store } from '../store/store.js';
import type { AdminAlerts } from './admin-alerts.js';
import type { DigestSlackDeps } from './digest/types.js';
import type { LocaleResolver } from './locale-resolver.js';

export interface SlackDeps {
  lookups: LookupService;
  /** Item-link unfurls: the link_shared event and the unfurl's Look up button share it. */
  unfurls: UnfurlService;
  client: PlatClient;
  store: Store;
  logger: Logger;
  alerts: AdminAlerts;
  metrics: Metrics;
  /** Admins: PLATDESK_ADMINS plus those added from the app. */
  isAdmin: (userId: string) => Promise<boolean>;
  admins: () => Promise<string[]>;
  /** The admins set in PLATDESK_ADMINS (they cannot be removed from the app). */
  configuredAdmins: readonly string[];
  /** Clock for rendering (shipping deadlines) and expiries. */
  now: () => Date;
  /** Which language a person or a channel reads (slack/locale-resolver.ts). */
  language: LocaleResolver;
  /** Distributed mode: the tenant's installation and plat account (slack/installs.ts); absent in single-workspace mode. */
  installs?: TenantInstalls;
  /** The agent's optional language model (agent/model.ts); absent: the deterministic planner only. */
  agentModel?: ModelPlanner | null;
  /** Tests: how long a Slack call of a confirmed plan's run may take (default AGENT_SLACK_TIMEOUT_MS). */
  agentSlackTimeoutMs?: number;
  /** The MCP server's public URL (`/platdesk mcp token` shows it); null or absent: not configured. */
  mcpUrl?: string | null;
  /** Daily order digests (`/orders digest`); absent where no scheduler runs. */
  digests?: DigestSlackDeps;
}

/** What distributed mode adds for a tenant's listeners (main.ts builds it, tenant-services.ts hands it on). */
export interface TenantInstalls {
  /**
   * `app_uninstalled` / `tokens_revoked`: tokens and plat account deleted now, data after the
   * retention. False when it was not installed (already uninstalled): nothing changed.
   */
  uninstall(tenant: string, reason: string): Promise<boolean>;
  /** The tenant's plat account as the admins' Home shows it. */
  platAccountStatus(tenant: string): Promise<PlatAccountStatus>;
  /** Why an admin's plat base URL may not be used (https, a public address: plat/address-guard.ts). */
  platUrlProblem(baseUrl: string): Promise<PlatUrlProblem | null>;
  /** The tenant's plat account was set: its parts are rebuilt on the next request. */
  accountChanged(tenant: string): Promise<void>;
  /** An admin's request: uninstall from Slack, delete the tokens now and the data at the next housekeeping. */
  eraseNow(tenant: string, actorId: string): Promise<void>;
}
