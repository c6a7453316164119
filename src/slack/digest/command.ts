/**
 * `/orders digest add|list|remove|run|help` (issue 6). Routed here by commands/orders.ts after
 * its ack. Adding, removing and running are for admins; anyone may list.
 */
import type { RespondFn, SlashCommand } from '@slack/bolt';
import {
  type DigestListRow,
  formatZonedTime,
  renderDigestAnswer,
  renderDigestHelp,
  renderDigestList,
} from '../../blocks/digest.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { escapeClip } from '../../blocks/text.js';
import type { SlackDeps } from '../deps.js';
import { parseDigestCommand } from './parse.js';
import { runNowAndAnswer } from './run-now.js';

/** Whether the text is a digest command (`digest` first), for the /orders router. */
export function isDigestCommand(text: string): boolean {
  return /^\s*digests?(\s|$)/i.test(text);
}

const ONLY_ADMINS = ':no_entry: Only platdesk admins can add, remove or run digests.';

export async function answerDigestCommand(
  deps: SlackDeps,
  command: SlashCommand,
  respond: RespondFn,
): Promise<void> {
  const reply = (m: RenderedMessage) => respond({ response_type: 'ephemeral', ...m });
  const digests = deps.digests;
  if (!digests) {
    await reply(renderDigestAnswer('Order digests are not enabled on this platdesk.'));
    return;
  }
  const text = command.text.replace(/^\s*digests?/i, '');
  const parsed = parseDigestCommand(text, {
    channelId: command.channel_id,
    channelName: command.channel_name,
  });
  const store = deps.store.digests;
  const admin = deps.isAdmin(command.user_id);

  switch (parsed.kind) {
    case 'help':
      await reply(renderDigestHelp());
      return;
    case 'invalid':
      await reply(renderDigestHelp(parsed.problems));
      return;
    case 'list': {
      const rows: DigestListRow[] = store.list().map((subscription) => ({
        subscription,
        nextRunAt: digests.scheduler.nextRunAt(subscription),
        lastRun: store.lastRun(subscription.id),
      }));
      await reply(renderDigestList(rows));
      return;
    }
    case 'add': {
      if (!admin) return void (await reply(renderDigestAnswer(ONLY_ADMINS)));
      const ownerId = (digests.resolveShop ?? ((s: string) => s))(parsed.shop);
      if (ownerId === null) {
        await reply(
          renderDigestAnswer(
            `:warning: No shop is known as "${escapeClip(parsed.shop, 64)}"; give its owner id.`,
          ),
        );
        return;
      }
      const same = store
        .list()
        .find(
          (s) =>
            s.ownerId === ownerId &&
            s.channelId === parsed.channelId &&
            s.localTime === parsed.localTime &&
            s.timeZone === parsed.timeZone,
        );
      if (same) {
        await reply(renderDigestAnswer(`That digest already exists: #${same.id}.`));
        return;
      }
      const sub = store.add({
        ownerId,
        shopLabel: parsed.shop,
        channelId: parsed.channelId,
        localTime: parsed.localTime,
        timeZone: parsed.timeZone,
        createdBy: command.user_id,
      });
      digests.scheduler.reschedule();
      const next = formatZonedTime(digests.scheduler.nextRunAt(sub), sub.timeZone);
      await reply(
        renderDigestAnswer(
          `:white_check_mark: Digest #${sub.id} added: orders of owner ${escapeClip(ownerId, 64)} every day at ` +
            `${sub.localTime} ${sub.timeZone} in <#${sub.channelId}>. First run: ${next}. ` +
            'Invite platdesk to that channel if it is not a member.',
        ),
      );
      return;
    }
    case 'remove': {
      if (!admin) return void (await reply(renderDigestAnswer(ONLY_ADMINS)));
      const removed = store.remove(parsed.id, command.user_id);
      if (removed) digests.scheduler.reschedule();
      await reply(
        renderDigestAnswer(
          removed
            ? `:wastebasket: Digest #${parsed.id} removed.`
            : `There is no digest #${parsed.id} (see \`/orders digest list\`).`,
        ),
      );
      return;
    }
    case 'run':
      if (!admin) return void (await reply(renderDigestAnswer(ONLY_ADMINS)));
      await runNowAndAnswer(deps, digests.scheduler, parsed.id, command.user_id, reply);
      return;
  }
}
