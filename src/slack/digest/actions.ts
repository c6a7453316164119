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
    if (!(await deps.isAdmin(body.user.id))) {
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...renderDigestAnswer(':no_entry: Only platdesk admins can approve a digest over the cost cap.'),
      });
      return;
    }
    const runId = Number(action.value);
    if (!Number.isInteger(runId)) return;
    await respond({
      replace_original: true,
      ...renderDigestAnswer(
        `:hourglass_flowing_sand: <@${body.user.id}> approved the cost; running the digest…`,
      ),
    });
    const result = await digests.scheduler.approve(runId, body.user.id);
    await respond({ replace_original: true, ...(await answerOf(deps, result)) });
  });
}
