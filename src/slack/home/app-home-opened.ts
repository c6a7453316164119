/** `app_home_opened` (Home tab) → the user's App Home, fresh each time it is opened. */
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { publishHome } from './publish.js';

export function registerAppHomeOpened(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    await publishHome(deps, client, event.user);
  });
}
