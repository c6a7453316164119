/**
 * Renders and publishes a user's App Home (views.publish), admins seeing their part too.
 * The Home is published at once: when the admins' spend chart of the current figures is not
 * uploaded yet (./spend-chart.ts), it is published without the chart, and again with it once the
 * chart is ready, unless a newer publish for that user happened meanwhile (a per-user publish
 * sequence), so a late chart never overwrites a newer Home. A chart failure leaves the first
 * publish as it is (logged).
 */
import type { WebClient } from '@slack/web-api';
import { renderHome } from '../../blocks/home.js';
import { wordsFor } from '../../blocks/i18n/words.js';
import { homeData } from '../../lookups/home-data.js';
import type { SlackDeps } from '../deps.js';
import { createSpendCharts, type SpendCharts } from './spend-chart.js';

interface Publisher {
  charts: SpendCharts;
  /** Publishes so far (all users): each publish's sequence number. */
  seq: number;
  /** By user with a chart on its way: the sequence number of their newest publish. */
  newest: Map<string, number>;
  /** By user: the chart's second publish in flight (a newer publish goes after it). */
  republishing: Map<string, Promise<void>>;
}

/** One publisher (spend-chart cache, sequences) per app (its deps), on the first client that publishes. */
const publishers = new WeakMap<SlackDeps, Publisher>();

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
  let p = publishers.get(deps);
  if (!p) {
    p = {
      charts: createSpendCharts({ client, logger: deps.logger }),
      seq: 0,
      newest: new Map(),
      republishing: new Map(),
    };
    publishers.set(deps, p);
  }
  const publisher = p;
  const chart = data.adminHome ? await publisher.charts(w, data.adminHome) : { ready: null, pending: null };
  const seq = ++publisher.seq;
  if (chart.pending) publisher.newest.set(userId, seq);
  else publisher.newest.delete(userId);
  // A late chart's publish already under way lands first, then this newer Home.
  await publisher.republishing.get(userId);
  await client.views.publish({
    user_id: userId,
    view: renderHome(w, data, now, language, chart.ready),
  });
  if (!chart.pending) return;
  void chart.pending.then((ready) => {
    if (publisher.newest.get(userId) !== seq) return;
    publisher.newest.delete(userId);
    if (!ready) return;
    const republish = client.views
      .publish({ user_id: userId, view: renderHome(w, data, now, language, ready) })
      .then(
        () => undefined,
        (err: unknown) => deps.logger.warn({ err }, 'the Home with its spend chart was not published'),
      )
      .finally(() => {
        if (publisher.republishing.get(userId) === republish) publisher.republishing.delete(userId);
      });
    publisher.republishing.set(userId, republish);
  });
}
