/** `/platdesk`: spend reports, the user's confirmation preference, admin settings (README "Spend control"). */
import type { App } from '@slack/bolt';
import { renderLedgerCsv, renderPlatdeskResult } from '../../blocks/platdesk.js';
import { runPlatdeskCommand } from '../../lookups/platdesk-command.js';
import { createStepsAdmin } from '../../lookups/steps.js';
import { ackFirst } from '../ack.js';
import type { SlackDeps } from '../deps.js';
import { privateReply } from '../private-reply.js';

export function registerPlatdeskCommand(app: App, deps: SlackDeps): void {
  app.command('/platdesk', async ({ ack, command, respond, client, body }) => {
    await ackFirst(ack);
    // Made per request: deps reads the request's tenant (slack/tenant.ts).
    const steps = createStepsAdmin({ lookups: deps.lookups, store: deps.store });
    const reply = privateReply({ respond, client, body, logger: deps.logger });
    const result = await runPlatdeskCommand(command.text, {
      locales: deps.language.settings,
      userId: command.user_id,
      isAdmin: deps.isAdmin,
      configuredAdmins: deps.configuredAdmins,
      store: deps.store,
      settings: deps.lookups.settings,
      now: deps.now(),
      steps,
      mcpUrl: deps.mcpUrl ?? null,
    });
    // After the command ran: `/platdesk language en` answers in the language just chosen.
    const w = await deps.language.user(command.user_id);
    if (result.kind === 'export') {
      // The ledger holds who spent what: it goes to the admin's direct messages, not the channel.
      try {
        const dm = await client.conversations.open({ users: command.user_id });
        if (!dm.channel?.id) throw new Error('conversations.open returned no channel');
        await client.files.uploadV2({
          channel_id: dm.channel.id,
          filename: result.filename,
          content: renderLedgerCsv(w, result.entries),
          title: w.t('notice.exportTitle'),
        });
      } catch (error) {
        deps.logger.error({ err: error }, 'ledger export not delivered');
        await reply({
          response_type: 'ephemeral',
          text: w.t('notice.exportFailed'),
        });
        return;
      }
    }
    await reply({ response_type: 'ephemeral', ...renderPlatdeskResult(w, result) });
  });
}
