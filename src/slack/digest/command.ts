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
import type { DigestSubscription } from '../../store/store.js';
import type { SlackDeps } from '../deps.js';
import { type DigestAdd, parseDigestCommand } from './parse.js';
import { runNowAndAnswer } from './run-now.js';
import type { DigestSlackDeps } from './types.js';

/** Whether the text is a digest command (`digest` first), for the /orders router. */
export function isDigestCommand(text: string): boolean {
  return /^\s*digests?(\s|$)/i.test(text);
}

const ONLY_ADMINS = ':no_entry: Only platdesk admins can add, remove or run digests.';

export type DigestAddResult =
  | { kind: 'added'; subscription: DigestSubscription; nextRunAt: number }
  /** The shop alias names no owner id. */
  | { kind: 'unknown_shop' }
  /** The same owner, channel, time and zone is already subscribed. */
  | { kind: 'exists'; subscription: DigestSubscription };

/** Why a shop alias cannot be subscribed (plain text: the shop passed checkDigestAdd). */
export function unknownShopProblem(shop: string): string {
  return `No shop is known as "${shop.slice(0, 64)}"; give its owner id.`;
}

/**
 * Adds a digest the one way `/orders digest add` and the App Home's form both use: the shop alias
 * resolved to its owner id, a duplicate refused, the subscription stored (audited with `userId`)
 * and the scheduler planning again at once. The caller has checked the fields (checkDigestAdd)
 * and that `userId` is an admin.
 */
export async function addDigestSubscription(
  deps: SlackDeps,
  digests: DigestSlackDeps,
  add: DigestAdd,
  userId: string,
): Promise<DigestAddResult> {
  const store = deps.store.digests;
  const ownerId = await (digests.resolveShop ?? (async (s: string) => s))(add.shop);
  if (ownerId === null) return { kind: 'unknown_shop' };
  const same = (await store.list()).find(
    (s) =>
      s.ownerId === ownerId &&
      s.channelId === add.channelId &&
      s.localTime === add.localTime &&
      s.timeZone === add.timeZone,
  );
  if (same) return { kind: 'exists', subscription: same };
  const subscription = await store.add({
    ownerId,
    shopLabel: add.shop,
    channelId: add.channelId,
    localTime: add.localTime,
    timeZone: add.timeZone,
    createdBy: userId,
  });
  digests.scheduler.reschedule();
  return { kind: 'added', subscription, nextRunAt: digests.scheduler.nextRunAt(subscription) };
}

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
  const admin = await deps.isAdmin(command.user_id);

  switch (parsed.kind) {
    case 'help':
      await reply(renderDigestHelp());
      return;
    case 'invalid':
      await reply(renderDigestHelp(parsed.problems));
      return;
    case 'list': {
      const rows: DigestListRow[] = await Promise.all(
        (await store.list()).map(async (subscription) => ({
          subscription,
          nextRunAt: digests.scheduler.nextRunAt(subscription),
          lastRun: await store.lastRun(subscription.id),
        })),
      );
      await reply(renderDigestList(rows));
      return;
    }
    case 'add': {
      if (!admin) return void (await reply(renderDigestAnswer(ONLY_ADMINS)));
      const added = await addDigestSubscription(deps, digests, parsed, command.user_id);
      if (added.kind === 'unknown_shop') {
        await reply(renderDigestAnswer(`:warning: ${escapeClip(unknownShopProblem(parsed.shop), 200)}`));
        return;
      }
      if (added.kind === 'exists') {
        await reply(renderDigestAnswer(`That digest already exists: #${added.subscription.id}.`));
        return;
      }
      const sub = added.subscription;
      const next = formatZonedTime(added.nextRunAt, sub.timeZone);
      await reply(
        renderDigestAnswer(
          `:white_check_mark: Digest #${sub.id} added: orders of owner ${escapeClip(sub.ownerId, 64)} every day at ` +
            `${sub.localTime} ${sub.timeZone} in <#${sub.channelId}>. First run: ${next}. ` +
            'Invite platdesk to that channel if it is not a member.',
        ),
      );
      return;
    }
    case 'remove': {
      if (!admin) return void (await reply(renderDigestAnswer(ONLY_ADMINS)));
      const removed = await store.remove(parsed.id, command.user_id);
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
