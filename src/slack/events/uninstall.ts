/**
 * `app_uninstalled` and `tokens_revoked` (distributed mode): the tenant's tokens and plat
 * account are deleted at once, its data after the retention (lookups/tenancy.ts). Bolt runs
 * these two events without authorize (there is no token left to authorize with), and platdesk
 * before anything that would need one.
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

const UNINSTALL_EVENTS = new Set(['app_uninstalled', 'tokens_revoked']);

/**
 * The first global middleware (issue 34, H2): `app_uninstalled` and `tokens_revoked` are handled
 * here, before the tenant middleware, and go no further. They must not build the workspace's
 * parts or read its bot token: the token is dead by then, and with token rotation a refresh of it
 * fails, which left the uninstall undone. The store alone does it, so any replica does it, the
 * one that never served the workspace too; a second event (Slack sends both, and may redeliver)
 * finds nothing left to do and says so at info.
 */
export function registerUninstall(
  app: App,
  deps: { uninstall(tenant: string, reason: string): Promise<boolean>; logger: Pick<Logger, 'info'> },
): void {
  app.use(async ({ body, next }) => {
    const envelope = body as Envelope & {
      type?: string;
      event?: { type?: string; tokens?: { bot?: string[] } };
    };
    const type = envelope.type === 'event_callback' ? envelope.event?.type : undefined;
    if (type === undefined || !UNINSTALL_EVENTS.has(type)) {
      await next();
      return;
    }
    // Only the bot token matters: platdesk holds no user token.
    if (type === 'tokens_revoked' && (envelope.event?.tokens?.bot ?? []).length === 0) return;
    const tenant = tenantOfEnvelope(envelope);
    if (!(await deps.uninstall(tenant, type))) {
      deps.logger.info({ tenant, event: type }, 'platdesk already uninstalled there: nothing to do');
      return;
    }
    deps.logger.info(
      { tenant, event: type },
      'platdesk uninstalled: tokens and plat account deleted, data erased after the retention',
    );
  });
}
