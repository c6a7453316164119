/** Renders and publishes a user's App Home (views.publish), admins seeing their part too. */
import type { WebClient } from '@slack/web-api';
import { renderHome } from '../../blocks/home.js';
import { wordsFor } from '../../blocks/i18n/words.js';
import { homeData } from '../../lookups/home-data.js';
import type { SlackDeps } from '../deps.js';

export async function publishHome(
  deps: SlackDeps,
  client: WebClient,
  userId: string,
  /** Distributed mode: the workspace, so its admins see its plat account. */
  tenant?: string,
): Promise<void> {
  const now = deps.now();
  const data = await homeData(
    { store: deps.store, lookups: deps.lookups, isAdmin: deps.isAdmin },
    userId,
    now,
  );
  if (data.adminHome && deps.installs && tenant !== undefined)
    data.platAccount = await deps.installs.platAccountStatus(tenant);
  const effective = await deps.language.forUser(userId);
  const language = { effective, own: await deps.language.settings.user(userId) };
  await client.views.publish({ user_id: userId, view: renderHome(wordsFor(effective), data, now, language) });
}
