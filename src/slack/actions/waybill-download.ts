/**
 * "Download print data": the print data file kept with the finished lookup is sent to the user
 * who asked, in their direct messages with platdesk, never to the channel (it holds
 * encryptedData and signature). No plat call is made: the file is what was already paid for.
 */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { escapeText } from '../../blocks/text.js';
import { describeRequest } from '../../blocks/words-of.js';
import type { LookupRequest } from '../../lookups/types.js';
import { onMessageClick } from '../clicks/message-click.js';
import type { SlackDeps } from '../deps.js';

export function registerWaybillDownload(app: App, deps: SlackDeps): void {
  onMessageClick(app, deps, ACTIONS.waybillDownload, async ({ action, body, client, reply }) => {
    const pending = await deps.store.pending.get<LookupRequest, unknown>(action.value ?? '');
    const w = await deps.language.user(body.user.id);
    if (!pending || pending.userId !== body.user.id || !pending.resultJson) {
      await reply({ response_type: 'ephemeral', replace_original: false, text: w.t('notice.printDataGone') });
      return;
    }
    const file = JSON.parse(pending.resultJson) as { filename: string; content: string };
    try {
      const dm = await client.conversations.open({ users: body.user.id });
      const channel = dm.channel?.id;
      if (!channel) throw new Error('conversations.open returned no channel');
      await client.files.uploadV2({
        channel_id: channel,
        filename: file.filename,
        content: file.content,
        title: w.t('notice.printDataTitle'),
        initial_comment: w.t('notice.printDataComment', {
          summary: escapeText(describeRequest(w, pending.request)),
        }),
      });
    } catch (error) {
      deps.logger.error({ err: error, pendingId: pending.id }, 'print data file not delivered');
      await reply({
        response_type: 'ephemeral',
        replace_original: false,
        text: w.t('notice.printDataFailed'),
      });
      return;
    }
    await reply({
      response_type: 'ephemeral',
      replace_original: false,
      text: w.t('notice.printDataSent'),
    });
  });
}
