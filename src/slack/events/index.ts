import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { registerLinkShared } from './link-shared.js';
import { registerUnfurlLookup } from './unfurl-lookup.js';

/** Item-link unfurls: the link_shared event and the unfurl's Look up button share one service. */
export function registerEvents(app: App, deps: SlackDeps): void {
  registerLinkShared(app, deps);
  registerUnfurlLookup(app, deps);
}
