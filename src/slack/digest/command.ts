/**
 * `/orders digest add|list|remove|run|help` (issue 6). Routed here by commands/orders.ts after
 * its ack. Adding, removing and running are for admins; anyone may list.
 */
import type { RespondFn, SlashCommand } from '@slack/bolt';
import {
  type DigestListRow,
  digestAddedText,
  digestCostLine,
  renderDigestAdded,
  renderDigestAnswer,
  renderDigestHelp,
  renderDigestList,
} from '../../blocks/digest.js';
import type { RenderedMessage } from '../../blocks/kit.js';
import { escapeClip } from '../../blocks/text.js';
import { describeDigestProblem } from '../../blocks/words-of.js';
import { parseDigestCommand } from '../../digest/grammar.js';
import { addDigestSubscription } from '../../digest/subscriptions.js';
import { toLocale } from '../../lookups/locale.js';
import type { SlackDeps } from '../deps.js';
import { runNowAndAnswer } from './run-now.js';

/** Whether the text is a digest command (`digest` first), for the /orders router. */
export function isDigestCommand(text: string): boolean {
  return /^\s*digests?(\s|$)/i.test(text);
}

export async function answerDigestCommand(
  deps: SlackDeps,
  command: SlashCommand,
  respond: RespondFn,
): Promise<void> {
  const reply = (m: RenderedMessage) => respond({ response_type: 'ephemeral', ...m });
  const w = await deps.language.user(command.user_id);
  const { t } = w;
  const onlyAdmins = () => reply(renderDigestAnswer(t('digest.answer.onlyAdmins')));
  const digests = deps.digests;
  if (!digests) {
    await reply(renderDigestAnswer(t('digest.answer.notEnabled')));
    return;
  }
  const text = command.text.replace(/^\s*digests?/i, '');
  const parsed = parseDigestCommand(
    text,
    { channelId: command.channel_id, channelName: command.channel_name, userId: command.user_id },
    toLocale,
  );
  const store = deps.store.digests;
  const admin = await deps.isAdmin(command.user_id);

  switch (parsed.kind) {
    case 'help':
      await reply(renderDigestHelp(w));
      return;
    case 'invalid':
      await reply(
        renderDigestHelp(
          w,
          parsed.problems.map((p) => describeDigestProblem(w, p)),
        ),
      );
      return;
    case 'list': {
      const rows: DigestListRow[] = await Promise.all(
        (await store.list()).map(async (subscription) => ({
          subscription,
          nextRunAt: digests.scheduler.nextRunAt(subscription),
          lastRun: await store.lastRun(subscription.id),
        })),
      );
      await reply(renderDigestList(w, rows));
      return;
    }
    case 'add': {
      if (!admin) return void (await onlyAdmins());
      const added = await addDigestSubscription({ store: deps.store, ...digests }, parsed, command.user_id);
      if (added.kind === 'unknown_shop') {
        await reply(
          renderDigestAnswer(t('digest.answer.unknownShop', { shop: escapeClip(parsed.shop, 64) })),
        );
        return;
      }
      if (added.kind === 'exists') {
        await reply(renderDigestAnswer(t('digest.answer.exists', { id: added.subscription.id })));
        return;
      }
      const sub = added.subscription;
      // The digest speaks the channel's language: the one chosen here, else the workspace default.
      if (parsed.locale)
        await deps.language.settings.setChannel(sub.channelId, parsed.locale, command.user_id);
      await reply(renderDigestAdded(digestAddedText(w, sub, added.nextRunAt), digestCostLine(w, added.cost)));
      return;
    }
    case 'remove': {
      if (!admin) return void (await onlyAdmins());
      const removed = await store.remove(parsed.id, command.user_id);
      if (removed) digests.scheduler.reschedule();
      await reply(
        renderDigestAnswer(
          removed
            ? t('digest.answer.removed', { id: parsed.id })
            : t('digest.answer.noSuchId', { id: parsed.id }),
        ),
      );
      return;
    }
    case 'run':
      if (!admin) return void (await onlyAdmins());
      await runNowAndAnswer(deps, digests.scheduler, parsed.id, command.user_id, reply);
      return;
  }
}
