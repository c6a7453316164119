/**
 * "Run anyway" on a digest over the cost cap: admins only, single-use (the run record's
 * conditional claim), and the button's message is replaced so it reads as done. "Run again" on a
 * digest already posted today: admins only, single-use (run-now.ts).
 */
import type { App } from '@slack/bolt';
import { ACTIONS, parseDigestRunAgainValue } from '../../blocks/action-ids.js';
import { renderDigestAnswer } from '../../blocks/digest.js';
import { onMessageClick } from '../clicks/message-click.js';
import type { SlackDeps } from '../deps.js';
import { answerOf, runAgainAndAnswer } from './run-now.js';

export function registerDigestActions(app: App, deps: SlackDeps): void {
  onMessageClick(app, deps, ACTIONS.digestRunAnyway, async ({ action, body, respond }) => {
    const digests = deps.digests;
    if (!digests) return;
    const w = await deps.language.user(body.user.id);
    if (!(await deps.isAdmin(body.user.id))) {
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
    await respond({ replace_original: true, ...(await answerOf(deps, w, result)) });
  });

  onMessageClick(app, deps, ACTIONS.digestRunAgain, async ({ action, body, respond }) => {
    const digests = deps.digests;
    if (!digests) return;
    if (!(await deps.isAdmin(body.user.id))) {
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...renderDigestAnswer((await deps.language.user(body.user.id)).t('digest.answer.onlyAdmins')),
      });
      return;
    }
    const value = parseDigestRunAgainValue(action.value);
    if (!value) return;
    await runAgainAndAnswer(deps, digests.scheduler, value, body.user.id, (message) =>
      respond({ response_type: 'ephemeral', replace_original: true, ...message }),
    );
  });
}
