import type { App } from '@slack/bolt';
import { recordAlert } from '../../lookups/home-data.js';
import type { SlackDeps } from '../deps.js';
import { registerAlertForm } from './alert-form.js';
import { registerAppHomeOpened } from './app-home-opened.js';
import { registerDigestForm } from './digest-form.js';
import { registerHomeLanguage } from './language.js';
import { registerPlatAccountForm } from './plat-account.js';
import { registerSettingsForms } from './settings-forms.js';

export function registerHome(app: App, deps: SlackDeps): void {
  // Alerts sent to admins (balance, token, budget caps) are kept so the admins' Home lists them.
  deps.alerts.onAlert?.((alert) => recordAlert(deps.store, alert));
  registerAppHomeOpened(app, deps);
  registerSettingsForms(app, deps);
  registerDigestForm(app, deps);
  registerAlertForm(app, deps);
  registerHomeLanguage(app, deps);
  if (deps.installs) registerPlatAccountForm(app, deps);
}
