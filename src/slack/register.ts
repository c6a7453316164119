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
import { registerFunctions } from './functions/index.js';
import { registerHome } from './home/index.js';
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
  registerFunctions(app, deps);
  registerShortcuts(app, deps);
  registerHome(app, deps);
  app.error(async (error) => {
    const code = (error as { code?: string }).code ?? 'unhandled';
    deps.metrics.inc('platdesk_errors_total', 'Errors by source and code', { source: 'slack', code });
    deps.logger.error({ err: error, code }, 'unhandled error in a Slack listener');
  });
}
