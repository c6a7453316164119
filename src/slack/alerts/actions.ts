/**
 * The buttons of a ship-by alert: Claim (records who, refused politely when someone else has
 * it), Handled (marks it done), both updating the channel message for everyone; and "Run anyway"
 * on a check over its daily cap (admins only, single-use).
 */
import type { App } from '@slack/bolt';
import { messageCost } from '../../alerts/cost.js';
import { claimOrder, handleOrder, readOrderRef } from '../../alerts/subscriptions.js';
import { ACTIONS, ALERT_CLAIM_PATTERN, ALERT_HANDLED_PATTERN } from '../../blocks/action-ids.js';
import { renderAlert, renderClaimRefusal } from '../../blocks/alerts.js';
import { digestFailureReason, renderDigestAnswer } from '../../blocks/digest.js';
import { type MessageClick, onMessageClick } from '../clicks/message-click.js';
import type { SlackDeps } from '../deps.js';

export function registerAlertActions(app: App, deps: SlackDeps): void {
  const onOrder =
    (kind: 'claim' | 'handled') =>
    async ({ action, body, respond, client }: MessageClick) => {
      const w = await deps.language.user(body.user.id);
      const ref = readOrderRef(action.value);
      const sub = ref ? await deps.store.alerts.get(ref.subscriptionId) : null;
      if (!ref || !sub) {
        await respond({
          response_type: 'ephemeral',
          replace_original: false,
          ...renderDigestAnswer(w.t('shipAlert.gone')),
        });
        return;
      }
      const now = deps.now();
      const result = await (kind === 'claim' ? claimOrder : handleOrder)(
        deps.store,
        action.value,
        body.user.id,
        now,
      );
      if (!result.ok) {
        if (result.order)
          await respond({
            response_type: 'ephemeral',
            replace_original: false,
            ...renderClaimRefusal(w, sub, result.order, kind),
          });
        return;
      }
      // Everyone sees who has it: the channel message is rendered again from the store.
      const ts = result.order.messageTs;
      if (ts === null) return;
      const orders = await deps.store.alerts.ordersOfMessage(sub.id, ts);
      const m = renderAlert(
        await deps.language.channel(sub.channelId),
        sub,
        orders,
        now.getTime(),
        0,
        await messageCost(deps.store.alerts, orders),
      );
      await client.chat.update({ channel: sub.channelId, ts, text: m.text, blocks: m.blocks });
    };
  onMessageClick(app, deps, ALERT_CLAIM_PATTERN, onOrder('claim'));
  onMessageClick(app, deps, ALERT_HANDLED_PATTERN, onOrder('handled'));

  onMessageClick(app, deps, ACTIONS.alertRunAnyway, async ({ action, body, respond }) => {
    const w = await deps.language.user(body.user.id);
    const scheduler = deps.digests?.alerts;
    if (!scheduler) return;
    if (!(await deps.isAdmin(body.user.id))) {
      await respond({
        response_type: 'ephemeral',
        replace_original: false,
        ...renderDigestAnswer(w.t('shipAlert.answer.approveOnlyAdmins')),
      });
      return;
    }
    const checkId = Number(action.value);
    if (!Number.isInteger(checkId)) return;
    await respond({
      replace_original: true,
      ...renderDigestAnswer(w.t('shipAlert.answer.approved', { user: `<@${body.user.id}>` })),
    });
    const result = await scheduler.approve(checkId, body.user.id);
    const { t } = w;
    const text =
      result.kind === 'posted'
        ? t('shipAlert.answer.ran', { count: result.alerted, n: w.count(result.alerted) })
        : result.kind === 'failed'
          ? t('shipAlert.answer.failed', { reason: digestFailureReason(w, result.error) })
          : result.kind === 'not_found'
            ? t('shipAlert.answer.notFound')
            : result.kind === 'stopped'
              ? t('shipAlert.answer.stopped')
              : result.kind === 'unknown'
                ? t('shipAlert.answer.unknown')
                : t('shipAlert.answer.alreadyHandled');
    await respond({ replace_original: true, ...renderDigestAnswer(text) });
  });
}
