/**
 * Every listener of the one Bolt app, and the one error handler (CONVENTIONS 2: errors a
 * listener does not turn into a useful answer end here).
 */
import type { App } from '@slack/bolt';
import { registerActions } from './actions/index.js';
import { registerAlertActions } from './alerts/actions.js';
import { registerCommands } from './commands/index.js';
import type { SlackDeps } from './deps.js';
import { registerDigestActions } from './digest/actions.js';
import { registerEvents } from './events/index.js';
import { registerUninstall } from './events/uninstall.js';
import { registerHome } from './home/index.js';
import { isNotInstalled } from './installs.js';
import { registerRequestLog } from './request-log.js';
import { registerShortcuts } from './shortcuts/index.js';
import { registerStoreOutage } from './store-outage.js';
import { registerViews } from './views/index.js';

export function registerListeners(app: App, deps: SlackDeps): void {
  registerRequestLog(app, deps);
  registerStoreOutage(app, deps);
  registerCommands(app, deps);
  registerActions(app, deps);
  registerViews(app, deps);
  registerDigestActions(app, deps);
  registerAlertActions(app, deps);
  registerEvents(app, deps);
  registerShortcuts(app, deps);
  registerHome(app, deps);
  if (deps.installs) registerUninstall(app, { uninstall: deps.installs.uninstall, logger: deps.logger });
  app.error(async (error) => {
    // A request from a workspace without an installation (uninstalled, or a forged team id):
    // nothing is answered, and it is not an error of platdesk's.
    if (isNotInstalled(error)) {
      deps.metrics.inc('platdesk_not_installed_total', 'Requests from workspaces without an installation');
      deps.logger.debug('a request from a workspace without an installation was ignored');
      return;
    }
    const code = (error as { code?: string }).code ?? 'unhandled';
    deps.metrics.inc('platdesk_errors_total', 'Errors by source and code', { source: 'slack', code });
    deps.logger.error({ err: error, code }, 'unhandled error in a Slack listener');
  });
}
