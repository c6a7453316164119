/**
 * "Look up items", "Look up waybills", "Find shop" on any message (manifest: type message): what
 * the message holds (text, blocks, attachments) is listed in a modal to choose from, with the
 * total charge; a message with nothing recognizable gets an answer saying what was looked for.
 */
import type { App, MessageShortcut } from '@slack/bolt';
import { renderNothingFound, SHORTCUT_IDS } from '../../blocks/shortcut.js';
import { renderRefusal } from '../../blocks/spend.js';
import { findInTexts, messageTexts, type ShortcutKind } from '../../lookups/message-refs.js';
import { openBatch, type ShortcutPayload } from '../../lookups/shortcut-lookups.js';
import type { SlackDeps } from '../deps.js';
import { noAccountRefusal } from '../no-plat-account.js';
import { chooseView, initialChoice } from './choose-view.js';

const KINDS: [string, ShortcutKind][] = [
  [SHORTCUT_IDS.items, 'items'],
  [SHORTCUT_IDS.waybills, 'waybills'],
  [SHORTCUT_IDS.shops, 'shops'],
];

export function registerMessageShortcuts(app: App, deps: SlackDeps): void {
  for (const [callbackId, kind] of KINDS) {
    app.shortcut<MessageShortcut>(callbackId, async ({ ack, shortcut, respond, client }) => {
      await ack();
      const found = findInTexts(kind, messageTexts(shortcut.message));
      const w = await deps.language.user(shortcut.user.id);
      const refusal = await noAccountRefusal(deps);
      if (refusal) {
        await respond({
          response_type: 'ephemeral',
          replace_original: false,
          ...renderRefusal(w, refusal, await deps.admins()),
        });
        return;
      }
      if (found.candidates.length === 0) {
        await respond({
          response_type: 'ephemeral',
          replace_original: false,
          ...renderNothingFound(w, kind, found),
        });
        return;
      }
      const message = shortcut.message as { ts: string; thread_ts?: string };
      const batch = await openBatch(deps.store, {
        userId: shortcut.user.id,
        kind,
        channelId: shortcut.channel.id,
        threadTs: message.thread_ts ?? message.ts ?? shortcut.message_ts,
        found,
      });
      const payload: ShortcutPayload = { kind, found };
      const { view } = await chooseView(deps, w, batch, payload, initialChoice(found));
      await client.views.open({ trigger_id: shortcut.trigger_id, view });
    });
  }
}
