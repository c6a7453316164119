import type { App } from '@slack/bolt';
import { createUnfurlService } from '../../lookups/unfurls.js';
import type { SlackDeps } from '../deps.js';
import { registerLinkShared } from './link-shared.js';
import { registerUnfurlLookup } from './unfurl-lookup.js';
import { registerWorkObjects } from './work-objects.js';

/** Item-link unfurls: the link_shared event and the unfurl's Look up button share one service. */
export function registerEvents(app: App, deps: SlackDeps): void {
  const unfurls = createUnfurlService({ lookups: deps.lookups, store: deps.store, now: deps.now });
  registerLinkShared(app, deps, unfurls);
  registerUnfurlLookup(app, deps, unfurls);
  registerWorkObjects(app, deps);
}
