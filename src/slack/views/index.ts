import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { registerOrdersForm } from './orders-form.js';

export function registerViews(app: App, deps: SlackDeps): void {
  registerOrdersForm(app, deps);
}
