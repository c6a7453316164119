/**
 * The shortcut modal's interactions: a changed choice restates the total (views.update), and
 * the submit is the one Confirm for every chosen lookup. The batch is claimed once, so a double
 * submit or a Slack retry never runs anything twice; a submit whose choice differs from the
 * stated total is shown the new total first.
 */
import type { App, BlockElementAction } from '@slack/bolt';
import { describePlanProblem, SHORTCUT_FORM, shortcutClosedText } from '../../blocks/shortcut.js';
import { claimBatch, readPayload } from '../../lookups/shortcut-lookups.js';
import { onViewClick } from '../clicks/view-click.js';
import type { SlackDeps } from '../deps.js';
import { blockOfProblem, chooseView, fingerprint, readChoice, readMetadata } from './choose-view.js';
import { type Destination, runBatch } from './run-batch.js';

const DISPATCHING = [
  SHORTCUT_FORM.pickActionPattern,
  SHORTCUT_FORM.target.action,
  SHORTCUT_FORM.targetText.action,
  SHORTCUT_FORM.carrier.action,
] as const;

export function registerChooseModal(app: App, deps: SlackDeps): void {
  for (const actionId of DISPATCHING) {
    onViewClick<BlockElementAction>(app, deps, actionId, async ({ view, userId, client, words }) => {
      const meta = view ? readMetadata(view.private_metadata) : null;
      const batch = meta ? await deps.store.shortcutBatches.get(meta.b) : null;
      const payload = batch ? readPayload(batch) : null;
      if (!view || !batch || !payload || batch.userId !== userId || batch.state !== 'open') return;
      const w = await words();
      const next = (await chooseView(deps, w, batch, payload, readChoice(view.state.values, payload.found)))
        .view;
      await client.views.update({ view_id: view.id, hash: view.hash, view: next });
    });
  }

  app.view(SHORTCUT_FORM.chooseCallbackId, async ({ ack, view, body, client }) => {
    const userId = body.user.id;
    // Slack wants the answer within 3 s: the language is cached from opening the modal.
    const w = await deps.language.user(userId);
    const meta = readMetadata(view.private_metadata);
    const batch = meta ? await deps.store.shortcutBatches.get(meta.b) : null;
    const payload = batch ? readPayload(batch) : null;
    const firstPick = SHORTCUT_FORM.pickBlock(0);
    if (!meta || !batch || !payload) {
      await ack({ response_action: 'errors', errors: { [firstPick]: shortcutClosedText(w, 'not_found') } });
      return;
    }
    const choice = readChoice(view.state.values, payload.found);
    const { view: restated, plan } = await chooseView(deps, w, batch, payload, choice, true);
    if (plan.problems.length > 0) {
      const errors: Record<string, string> = {};
      for (const p of plan.problems) {
        const block = blockOfProblem(p.field);
        const text = describePlanProblem(w, p);
        errors[block] = errors[block] ? `${errors[block]}; ${text}` : text;
      }
      await ack({ response_action: 'errors', errors });
      return;
    }
    if (fingerprint(choice) !== meta.s) {
      await ack({ response_action: 'update', view: restated });
      return;
    }
    const claimed = await claimBatch(deps.store, batch.id, userId);
    if (!claimed.ok) {
      // Already confirmed: a double submit or a retry. The first one is running; do nothing twice.
      if (claimed.reason === 'already_used') await ack();
      else
        await ack({
          response_action: 'errors',
          errors: { [firstPick]: shortcutClosedText(w, claimed.reason) },
        });
      return;
    }
    await ack();
    const to: Destination =
      batch.channelId === null
        ? { kind: 'dm' }
        : choice.answer === 'thread' && batch.threadTs
          ? { kind: 'thread', channelId: batch.channelId, threadTs: batch.threadTs }
          : { kind: 'ephemeral', channelId: batch.channelId };
    await runBatch(deps, client, {
      lookups: plan.lookups,
      actor: { userId, channelId: batch.channelId, teamId: body.team?.id ?? null, responseUrl: null },
      to,
    });
  });
}
