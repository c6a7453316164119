/**
 * `app_uninstalled` and `tokens_revoked` (distributed mode): the tenant's tokens and plat
 * account are deleted at once, its data after the retention (lookups/tenancy.ts). Bolt runs
 * these two events without authorize (there is no token left to authorize with).
 */
import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { tenantOf } from '../../store/installations.js';

interface Envelope {
  team_id?: string;
  enterprise_id?: string;
  is_enterprise_install?: boolean;
  authorizations?: {
    enterprise_id?: string | null;
    team_id?: string | null;
    is_enterprise_install?: boolean;
  }[];
}

/** The tenant an Events API envelope belongs to. */
export function tenantOfEnvelope(body: Envelope): string {
  const auth = body.authorizations?.[0];
  return tenantOf({
    enterpriseId: body.enterprise_id ?? auth?.enterprise_id ?? undefined,
    teamId: body.team_id ?? auth?.team_id ?? undefined,
    isEnterpriseInstall: body.is_enterprise_install ?? auth?.is_enterprise_install ?? false,
  });
}

export function registerUninstall(
  app: App,
  deps: { uninstall(tenant: string, reason: string): Promise<void>; logger: Pick<Logger, 'info'> },
): void {
  app.event('app_uninstalled', async ({ body }) => {
    const tenant = tenantOfEnvelope(body as Envelope);
    await deps.uninstall(tenant, 'app_uninstalled');
    deps.logger.info({ tenant }, 'platdesk uninstalled: tokens deleted, data erased after the retention');
  });
  app.event('tokens_revoked', async ({ body, event }) => {
    // Only the bot token matters: platdesk holds no user token.
    if ((event.tokens.bot ?? []).length === 0) return;
    const tenant = tenantOfEnvelope(body as Envelope);
    await deps.uninstall(tenant, 'tokens_revoked');
    deps.logger.info({ tenant }, 'bot token revoked: tokens deleted, data erased after the retention');
  });
}
