/**
 * Every listener of the one Bolt app, and the one error handler (CONVENTIONS 2: errors a
 * listener does not turn into a useful answer end here).
 */
import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import { registerActions } from './actions/index.js';
import { registerAgent } from './agent/index.js';
import { registerAlertActions } from './alerts/actions.js';
import { registerCommands } from './commands/index.js';
import type { SlackDeps, TenantInstalls } from './deps.js';
import { registerDigestActions } from './digest/actions.js';
import { registerEvents } from './events/index.js';
import { registerUninstall } from './events/uninstall.js';
import { registerFunctions } from './functions/index.js';
import { registerHome } from './home/index.js';
import { registerRequestLog } from './request-log.js';
import { registerShortcuts } from './shortcuts/index.js';
import { registerStoreOutage } from './store-outage.js';
import { registerTenantScope, type SlackMode, scopedDeps, UnknownTenantError } from './tenant.js';
import { registerViews } from './views/index.js';

export interface ListenerOptions {
  mode: SlackMode;
  /** The tenant's deps (tenant-services.ts), resolved once per request by the tenant middleware. */
  depsFor: (tenant: string) => Promise<SlackDeps>;
  /** Single-workspace mode: the one tenant's deps, for code that runs outside a request. */
  outside: SlackDeps | null;
  logger: Logger;
  metrics: Metrics;
  /** Distributed mode: uninstall events (they name their tenant; no tenant's deps needed). */
  installs?: Pick<TenantInstalls, 'uninstall'>;
}

export function registerListeners(app: App, options: ListenerOptions): void {
  // First of all: an uninstall is done from the store alone, before any tenant's parts (its
  // token is dead by then), and goes no further.
  if (options.installs)
    registerUninstall(app, { uninstall: options.installs.uninstall, logger: options.logger });
  // Then every listener and middleware below runs with its request's tenant in scope.
  registerTenantScope(app, options);
  const deps = scopedDeps(options.outside);
  registerRequestLog(app, deps);
  registerStoreOutage(app, deps);
  registerCommands(app, deps);
  registerActions(app, deps);
  registerViews(app, deps);
  registerDigestActions(app, deps);
  registerAlertActions(app, deps);
  registerEvents(app, deps);
  registerFunctions(app, deps);
  registerShortcuts(app, deps);
  registerHome(app, deps, options.installs !== undefined);
  registerAgent(app, deps);
  app.error(async (error) => {
    // A payload of no installed tenant (authorize refused it): ignored, the ids logged, no secret.
    if (error.original instanceof UnknownTenantError) {
      const { teamId, enterpriseId } = error.original;
      options.logger.warn(
        { teamId, enterpriseId },
        'a payload from a workspace that is not installed: ignored',
      );
      options.metrics.inc('platdesk_not_installed_total', 'Requests from workspaces without an installation');
      return;
    }
    const code = (error as { code?: string }).code ?? 'unhandled';
    options.metrics.inc('platdesk_errors_total', 'Errors by source and code', { source: 'slack', code });
    options.logger.error({ err: error, code }, 'unhandled error in a Slack listener');
  });
}
