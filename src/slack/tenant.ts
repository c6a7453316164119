/** The tenant of a Slack request, from the context Bolt's authorize filled in (store/installations.ts tenantOf). */
import type { Context } from '@slack/bolt';
import { tenantOf } from '../store/installations.js';

export function tenantOfContext(context: Context): string {
  return tenantOf({
    enterpriseId: context.enterpriseId,
    teamId: context.teamId,
    isEnterpriseInstall: context.isEnterpriseInstall,
  });
}
