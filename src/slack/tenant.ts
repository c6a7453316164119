/**
 * Which tenant a Slack request belongs to, resolved once per request by the one middleware every
 * listener runs behind (register.ts), and the listeners' dependencies bound to it.
 *
 * A tenant (store/tenants.ts) is the enterprise id of an org-wide Enterprise Grid install, else
 * the team id; single-workspace mode has the one tenant SINGLE_TENANT. The middleware puts the
 * tenant's SlackDeps in scope (AsyncLocalStorage) for the rest of the request, ack and work after
 * it included; `deps` handed to the listeners reads from that scope, so every listener (commands,
 * clicks, views, shortcuts, events, App Home) reaches its tenant's store, plat account, prices,
 * caps, admins and language with no code of its own, and none can reach another tenant's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { App, Authorize, Context } from '@slack/bolt';
import type { Logger } from 'pino';
import { SINGLE_TENANT } from '../store/tenants.js';
import type { SlackDeps } from './deps.js';

export type SlackMode = 'single' | 'distributed';

/** What Bolt's context (or an authorize source) says of the workspace. */
export interface TenantSource {
  isEnterpriseInstall?: boolean | undefined;
  enterpriseId?: string | undefined;
  teamId?: string | undefined;
}

/** The tenant of a request; null when a distributed-mode payload names no workspace. */
export function tenantOf(source: TenantSource, mode: SlackMode): string | null {
  if (mode === 'single') return SINGLE_TENANT;
  const id = source.isEnterpriseInstall ? source.enterpriseId : source.teamId;
  return id ? id : null;
}

const scope = new AsyncLocalStorage<SlackDeps>();

/**
 * The deps the listeners are registered with: each property is read from the request's tenant.
 * Outside a request (registration) single-workspace mode reads the one tenant's; distributed
 * mode has no tenant there, and says so rather than guess one.
 */
export function scopedDeps(outside: SlackDeps | null): SlackDeps {
  const current = (): SlackDeps => {
    const deps = scope.getStore() ?? outside;
    if (!deps) throw new Error('platdesk: no tenant in scope (a listener ran outside the tenant middleware)');
    return deps;
  };
  return new Proxy({} as SlackDeps, {
    get: (_, prop) => current()[prop as keyof SlackDeps],
    has: (_, prop) => prop in current(),
  });
}

/**
 * The first global middleware: resolves the tenant from the authorized context and runs the rest
 * of the request with that tenant's deps in scope. Authorization (Bolt's `authorize`) ran before
 * it: a payload of an unknown workspace never gets here.
 */
export function registerTenantScope(
  app: App,
  options: { mode: SlackMode; depsFor: (tenant: string) => Promise<SlackDeps>; logger: Pick<Logger, 'warn'> },
): void {
  app.use(async ({ context, next }) => {
    const tenant = tenantOf(context as Context, options.mode);
    if (tenant === null) {
      options.logger.warn({ teamId: context.teamId ?? null }, 'a request with no workspace: ignored');
      return;
    }
    context.tenant = tenant;
    const deps = await options.depsFor(tenant);
    await scope.run(deps, next);
  });
}

/**
 * Bolt's `authorize` over the installations (distributed mode): the bot of the payload's tenant,
 * or a refusal. Bolt then calls no listener and answers nothing (App.processEvent), so a payload
 * whose team or enterprise names no installed tenant (a forged team_id) gets nothing and is
 * charged nothing; it is logged at warn, with the ids only, by the error handler (register.ts).
 */
export function authorizeFrom(
  installations: (tenant: string) => Promise<{ botToken: string; botUserId: string; botId: string } | null>,
): Authorize<boolean> {
  return async (source) => {
    const tenant = tenantOf(source, 'distributed');
    const bot = tenant === null ? null : await installations(tenant);
    if (!bot) throw new UnknownTenantError(source.teamId ?? null, source.enterpriseId ?? null);
    return {
      botToken: bot.botToken,
      botUserId: bot.botUserId,
      botId: bot.botId,
      ...(source.teamId ? { teamId: source.teamId } : {}),
      ...(source.enterpriseId ? { enterpriseId: source.enterpriseId } : {}),
    };
  };
}

export class UnknownTenantError extends Error {
  readonly code = 'unknown_tenant';
  constructor(
    readonly teamId: string | null,
    readonly enterpriseId: string | null,
  ) {
    super(`no installation for team ${teamId ?? '-'} / enterprise ${enterpriseId ?? '-'}`);
    this.name = 'UnknownTenantError';
  }
}
