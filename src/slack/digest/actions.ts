/**
 * "Run anyway" on a digest over the cost cap: admins only, single-use (the run record's
 * conditional claim), and the button's message is replaced so it reads as done.
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { renderDigestAnswer } from '../../blocks/digest.js';
import type { SlackDeps } from '../deps.js';
import { answerOf } from './run-now.js';

export function registerDigestActions(app: App, deps: SlackDeps): void {
  app.action<BlockButtonAction>(ACTIONS.digestRunAnyway, async ({ ack, action, body, respond }) => {
    await ack();
    const digests = deps.digests;
    if (!digests) return;
    const w = await deps.language.user(body.user.id);
    if (!deps.isAdmin(body.user.id)) {
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...renderDigestAnswer(w.t('digest.answer.approveOnlyAdmins')),
      });
      return;
    }
    const runId = Number(action.value);
    if (!Number.isInteger(runId)) return;
    await respond({
      replace_original: true,
      ...renderDigestAnswer(w.t('digest.answer.approved', { user: `<@${body.user.id}>` })),
    });
    const result = await digests.scheduler.approve(runId, body.user.id);
    await respond({ replace_original: true, ...answerOf(deps, w, result) });
  });
}
