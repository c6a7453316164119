import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { registerAlertForm } from './alert-form.js';
import { registerAppHomeOpened } from './app-home-opened.js';
import { registerDigestForm } from './digest-form.js';
import { registerHomeLanguage } from './language.js';
import { registerMcpConnect } from './mcp-connect.js';
import { registerPlatAccountForm } from './plat-account.js';
import { registerSettingsForms } from './settings-forms.js';

/** `distributed`: the plat-account and data-deletion forms of distributed mode are registered too. */
export function registerHome(app: App, deps: SlackDeps, distributed: boolean): void {
  registerAppHomeOpened(app, deps);
  registerSettingsForms(app, deps);
  registerDigestForm(app, deps);
  registerAlertForm(app, deps);
  registerHomeLanguage(app, deps);
  registerMcpConnect(app, deps);
  if (distributed) registerPlatAccountForm(app, deps);
}
