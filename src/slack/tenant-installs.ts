/**
 * Distributed mode's installation steps for the listeners (deps.ts TenantInstalls): uninstall,
 * erase on an admin's request, a changed plat account, and the account's status for the Home.
 * Each drops what the process holds for the tenant (`forget`: its cached installation and parts).
 */
import type { Logger } from '../logger.js';
import { platAccountStatus } from '../lookups/plat-accounts.js';
import { uninstallTenant } from '../lookups/tenancy.js';
import { type AddressPolicy, platUrlProblem } from '../plat/address-guard.js';
import type { Store } from '../store/store.js';
import type { TenantInstalls } from './deps.js';
import type { SlackInstalls } from './installs.js';

export interface TenantInstallsOptions {
  slack: SlackInstalls;
  store: Store;
  now: () => Date;
  /** Days an uninstalled workspace's data is kept (PLATDESK_RETENTION_DAYS). */
  retentionDays: number;
  /** Where a workspace's own plat account may connect (PLAT_ACCOUNTS_LOOPBACK). */
  guard: AddressPolicy;
  /** Whether the operator's default plat account serves the tenant (the Home says so). */
  servesByDefault(tenant: string): Promise<boolean>;
  /** Drops the tenant's parts, so the next request builds them anew. */
  forgetParts(tenant: string): Promise<void>;
  logger: Logger;
}

export function tenantInstalls(o: TenantInstallsOptions): TenantInstalls {
  const { slack, store, now, logger } = o;
  const dropped = async (tenant: string) => {
    slack.forget(tenant);
    await o.forgetParts(tenant);
  };
  return {
    async uninstall(tenant, reason) {
      const uninstalled = await uninstallTenant({ store, now }, tenant, reason, o.retentionDays);
      await dropped(tenant);
      return uninstalled;
    },
    async eraseNow(tenant, actorId) {
      // Uninstalled in Slack too (apps.uninstall with the workspace's token), then as an
      // uninstall with no retention: the next housekeeping erases the data.
      const client = await slack.clients.clientFor(tenant);
      await client?.apps
        .uninstall({ client_id: slack.clientId, client_secret: slack.clientSecret })
        .catch((err: unknown) =>
          logger.warn({ err, tenant }, 'apps.uninstall failed; tokens are deleted anyway'),
        );
      await store
        .forTenant(tenant)
        .audit.record({ actorId, action: 'workspace.erase_requested', detail: tenant });
      await uninstallTenant({ store, now }, tenant, 'admin_request', 0);
      await dropped(tenant);
    },
    accountChanged: (tenant) => o.forgetParts(tenant),
    platUrlProblem: (baseUrl) => platUrlProblem(baseUrl, o.guard),
    platAccountStatus: async (tenant) =>
      platAccountStatus(store.platAccounts, tenant, await o.servesByDefault(tenant)),
  };
}
