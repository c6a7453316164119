/**
 * `link_shared` → `chat.unfurl` (issue 5). An unfurl never charges by itself; only a channel an
 * admin set to auto-lookup looks items up, within its daily cap (lookups/unfurls.ts). Bolt does
 * not de-duplicate Events API retries (spec/notes.md "Slack"): a delivery whose event id was
 * handled before (`x-slack-retry-num`, Bolt's context.retryNum) does nothing at all.
 */
import type { App } from '@slack/bolt';
import type { EntityMetadata } from '@slack/types';
import { renderUnfurl } from '../../blocks/unfurl.js';
import { itemEntity } from '../../blocks/work-objects.js';
import { MAX_LINKS_PER_EVENT } from '../../lookups/unfurls.js';
import type { SlackDeps } from '../deps.js';
import { type Unfurls, type UnfurlTarget, unfurlWithEntities } from './unfurl-send.js';
import { itemEntityOf } from './work-objects.js';

/** chat.unfurl takes unfurl_id + source (both or neither), else channel + ts. */
function unfurlTarget(event: {
  channel: string;
  message_ts: string;
  unfurl_id?: string;
  source?: string;
}): UnfurlTarget {
  const source = event.source;
  if (event.unfurl_id && (source === 'composer' || source === 'conversations_history'))
    return { unfurl_id: event.unfurl_id, source };
  return { channel: event.channel, ts: event.message_ts };
}

export function registerLinkShared(app: App, deps: SlackDeps): void {
  app.event('link_shared', async ({ event, body, context, client }) => {
    // Events are acknowledged by Bolt before listeners run; this is the work after the ack.
    const eventId = body.event_id;
    if (eventId && !(await deps.unfurls.firstDelivery(eventId))) {
      deps.logger.info(
        { eventId, retryNum: context.retryNum ?? null },
        'link_shared delivered again: ignored',
      );
      return;
    }
    // In the composer Slack sends channel "COMPOSER": the channel is not known, nothing is looked up.
    const composer = event.source === 'composer' || event.channel === 'COMPOSER';
    const place = {
      channelId: composer ? null : event.channel,
      userId: event.user,
      teamId: body.team_id ?? null,
    };
    // Everyone in the channel reads the unfurl: the channel's language (the composer: the poster's).
    const words = place.channelId
      ? await deps.language.channel(place.channelId)
      : await deps.language.user(event.user);
    const found: Unfurls = {};
    const entities: EntityMetadata[] = [];
    for (const link of event.links.slice(0, MAX_LINKS_PER_EVENT)) {
      if (found[link.url]) continue;
      try {
        const decision = await deps.unfurls.decide(link.url, place);
        if (!decision) continue;
        if (decision.kind === 'auto_failed')
          await deps.alerts.notifyIfAccountError(decision.error, { userId: event.user });
        found[link.url] = { blocks: renderUnfurl(words, decision, { now: deps.now() }) };
        const entity = await itemEntityOf(deps, decision, link.url);
        if (entity) entities.push(itemEntity(words, entity));
      } catch (err) {
        deps.logger.error({ err, url: link.url }, 'unfurl failed');
      }
    }
    if (Object.keys(found).length === 0) return;
    await unfurlWithEntities(client, unfurlTarget(event), found, entities, deps.logger);
  });
}
