/**
 * The global shortcut "platdesk lookup": a modal with a free-text box; what it holds (item
 * links and ids, waybill numbers, seller account ids) is listed in the same modal as a message
 * shortcut's. Nothing recognizable is said under the text box.
 */
import type { App, GlobalShortcut } from '@slack/bolt';
import { nothingFoundText, renderTextModal, SHORTCUT_FORM, SHORTCUT_IDS } from '../../blocks/shortcut.js';
import { describeRefusal } from '../../blocks/words-of.js';
import { findInTexts } from '../../lookups/message-refs.js';
import { openBatch } from '../../lookups/shortcut-lookups.js';
import type { SlackDeps } from '../deps.js';
import { noAccountRefusal } from '../no-plat-account.js';
import { chooseView, initialChoice } from './choose-view.js';

export function registerGlobalShortcut(app: App, deps: SlackDeps): void {
  app.shortcut<GlobalShortcut>(SHORTCUT_IDS.global, async ({ ack, shortcut, client }) => {
    await ack();
    const w = await deps.language.user(shortcut.user.id);
    await client.views.open({ trigger_id: shortcut.trigger_id, view: renderTextModal(w) });
  });

  app.view(SHORTCUT_FORM.textCallbackId, async ({ ack, view, body }) => {
    const text = view.state.values[SHORTCUT_FORM.text.block]?.[SHORTCUT_FORM.text.action]?.value ?? '';
    const found = findInTexts('any', [text]);
    const w = await deps.language.user(body.user.id);
    const refusal = await noAccountRefusal(deps);
    if (refusal) {
      await ack({
        response_action: 'errors',
        errors: { [SHORTCUT_FORM.text.block]: describeRefusal(w, refusal).slice(0, 1900) },
      });
      return;
    }
    if (found.candidates.length === 0) {
      await ack({
        response_action: 'errors',
        errors: { [SHORTCUT_FORM.text.block]: nothingFoundText(w, 'any', found).slice(0, 1900) },
      });
      return;
    }
    const batch = await openBatch(deps.store, {
      userId: body.user.id,
      kind: 'any',
      channelId: null,
      threadTs: null,
      found,
    });
    const { view: next } = await chooseView(deps, w, batch, { kind: 'any', found }, initialChoice(found));
    await ack({ response_action: 'update', view: next });
  });
}
