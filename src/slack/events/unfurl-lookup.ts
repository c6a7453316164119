/**
 * The `Look up (charge)` button of an item-link unfurl: the clicker gets the normal confirmation
 * (offerLookup, answered only to them), or the earlier result when the item was looked up in this
 * channel within 30 minutes. The unfurl itself stays as it is.
 */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { parseUnfurlButtonValue, renderEarlierAnswer } from '../../blocks/unfurl.js';
import { canonicalItemUrl } from '../../lookups/parse/item-link.js';
import { itemRequest } from '../../lookups/unfurls.js';
import { offerLookup, type Reply } from '../answer.js';
import { onMessageClick } from '../clicks/message-click.js';
import type { SlackDeps } from '../deps.js';

export function registerUnfurlLookup(app: App, deps: SlackDeps): void {
  onMessageClick(app, deps, ACTIONS.unfurlLookup, async ({ action, body, respond }) => {
    const ref = parseUnfurlButtonValue(action.value);
    if (!ref) {
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        text: (await deps.language.user(body.user.id)).t('notice.notItemLink'),
      });
      return;
    }
    const userId = body.user.id;
    const channelId = body.channel?.id ?? null;
    const url = canonicalItemUrl(ref.itemId, ref.marketplace ?? '0');
    const earlier = channelId ? await deps.unfurls.earlier(channelId, ref.itemId) : null;
    if (earlier) {
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...renderEarlierAnswer(await deps.language.user(userId), earlier, url, deps.now()),
      });
      return;
    }
    // Never replace the message holding the unfurl (someone else's message): answers are new ephemerals.
    const reply: Reply = (message) =>
      respond({ ...message, response_type: 'ephemeral', replace_original: false });
    await offerLookup(
      deps,
      itemRequest(ref.itemId),
      { userId, channelId, teamId: body.team?.id ?? null, responseUrl: body.response_url },
      reply,
      {
        onPrepared: async (prepared) => {
          if (channelId && (prepared.kind === 'confirm' || prepared.kind === 'auto'))
            await deps.unfurls.rememberOffered(channelId, ref.itemId, userId, prepared.pending.id);
        },
      },
    );
  });
}
