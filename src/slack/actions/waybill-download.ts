/**
 * "Download print data": the print data file kept with the finished lookup is sent to the user
 * who asked, in their direct messages with platdesk, never to the channel (it holds
 * encryptedData and signature). No plat call is made: the file is what was already paid for.
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { ackFirst } from '../ack.js';
import type { SlackDeps } from '../deps.js';
import { privateReply } from '../private-reply.js';

export function registerWaybillDownload(app: App, deps: SlackDeps): void {
  app.action<BlockButtonAction>(ACTIONS.waybillDownload, async ({ ack, action, body, respond, client }) => {
    await ackFirst(ack);
    const reply = privateReply({ respond, client, body, logger: deps.logger });
    const pending = await deps.store.pending.get(action.value ?? '');
    if (!pending || pending.userId !== body.user.id || !pending.resultJson) {
      await reply({
        response_type: 'ephemeral',
        replace_original: false,
        text: 'That print data is no longer available to you; run the waybill lookup again.',
      });
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
        title: 'Waybill print data',
        initial_comment: `Print data for ${pending.summary}, for your printing tool.`,
      });
    } catch (error) {
      deps.logger.error({ err: error, pendingId: pending.id }, 'print data file not delivered');
      await reply({
        response_type: 'ephemeral',
        replace_original: false,
        text: 'The print data file could not be sent to you; try the button again in a moment (no new charge).',
      });
      return;
    }
    await reply({
      response_type: 'ephemeral',
      replace_original: false,
      text: 'The print data file is in your direct messages with platdesk.',
    });
  });
}
