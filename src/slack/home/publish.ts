/** Renders and publishes a user's App Home (views.publish), admins seeing their part too. */
import type { WebClient } from '@slack/web-api';
import { renderHome } from '../../blocks/home.js';
import { homeData } from '../../lookups/home-data.js';
import type { SlackDeps } from '../deps.js';

export async function publishHome(deps: SlackDeps, client: WebClient, userId: string): Promise<void> {
  const now = deps.now();
  const data = await homeData(
    { store: deps.store, lookups: deps.lookups, isAdmin: deps.isAdmin },
    userId,
    now,
  );
  await client.views.publish({ user_id: userId, view: renderHome(data, now) });
}
