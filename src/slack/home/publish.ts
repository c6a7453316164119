/** Renders and publishes a user's App Home (views.publish), admins seeing their part too. */
import type { WebClient } from '@slack/web-api';
import { renderHome } from '../../blocks/home.js';
import { wordsFor } from '../../blocks/i18n/words.js';
import { homeData } from '../../lookups/home-data.js';
import type { SlackDeps } from '../deps.js';
import { createSpendCharts, type SpendCharts } from './spend-chart.js';

/** One spend-chart cache per app (its deps), on the first client that publishes. */
const spendCharts = new WeakMap<SlackDeps, SpendCharts>();

export async function publishHome(deps: SlackDeps, client: WebClient, userId: string): Promise<void> {
  const now = deps.now();
  const data = await homeData(
    { store: deps.store, lookups: deps.lookups, isAdmin: deps.isAdmin },
    userId,
    now,
  );
  // Distributed mode: the workspace's admins see its plat account; members, that there is none yet.
  if (deps.installs) data.platAccount = await deps.installs.platAccountStatus(deps.store.tenant);
  const effective = await deps.language.forUser(userId);
  const language = { effective, own: await deps.language.settings.user(userId) };
  const w = wordsFor(effective);
  let charts = spendCharts.get(deps);
  if (!charts) {
    charts = createSpendCharts({ client, logger: deps.logger });
    spendCharts.set(deps, charts);
  }
  const chart = data.adminHome ? await charts(w, data.adminHome) : null;
  await client.views.publish({ user_id: userId, view: renderHome(w, data, now, language, chart) });
}
