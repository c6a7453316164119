/**
 * The App Home's ship-by alerts (admins): "Add alert" opens a form whose answers are checked by
 * the `/orders alert add` grammar and added the same way (alerts/subscriptions.ts addAlert);
 * each alert's Remove button removes it. The Home is published again either way.
 */
import type { App, ViewOutput } from '@slack/bolt';
import type { AlertProblem } from '../../alerts/grammar.js';
import { parseAlertCommand } from '../../alerts/grammar.js';
import { addAlert, removeAlert } from '../../alerts/subscriptions.js';
import { ACTIONS, HOME_ALERT_REMOVE_PATTERN } from '../../blocks/action-ids.js';
import { describeAlertProblem } from '../../blocks/alerts.js';
import { HOME_ALERT_FORM, renderAlertAddModal } from '../../blocks/home-alert-form.js';
import { toLocale } from '../../lookups/locale.js';
import { alertUseCase } from '../alerts/command.js';
import { onViewClick } from '../clicks/view-click.js';
import type { SlackDeps } from '../deps.js';
import { publishHome } from './publish.js';

const f = HOME_ALERT_FORM;
type Values = ViewOutput['state']['values'];

/** Where each problem of the grammar is shown. */
function blockOf(p: AlertProblem): string {
  switch (p.code) {
    case 'within_bad':
      return f.within.block;
    case 'every_bad':
      return f.every.block;
    case 'hours_bad':
      return f.hours.block;
    case 'cap_bad':
      return f.cap.block;
    case 'zone_bad':
      return f.timeZone.block;
    case 'here_in_dm':
    case 'channel_plain_text':
    case 'not_channel':
      return f.channel.block;
    default:
      return f.shop.block;
  }
}

/** The form's answers as the command's words, so one grammar checks both. */
function asCommand(values: Values): string {
  const value = (b: { block: string; action: string }) =>
    (values[b.block]?.[b.action]?.value ?? '').trim().replace(/\s+/g, '');
  const channel = values[f.channel.block]?.[f.channel.action]?.selected_conversation ?? '';
  const zone = values[f.timeZone.block]?.[f.timeZone.action]?.selected_option?.value ?? '';
  const cap = value(f.cap);
  return [
    'add',
    value(f.shop) || '-',
    channel || '-',
    `within:${value(f.within)}`,
    `every:${value(f.every)}`,
    `hours:${value(f.hours)}`,
    zone,
    cap ? `cap:${cap}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

export function registerAlertForm(app: App, deps: SlackDeps): void {
  onViewClick(
    app,
    deps,
    ACTIONS.homeAlertAdd,
    async (click) => {
      const w = await click.words();
      if (!deps.digests?.alerts) return click.refuse(w.t('shipAlert.answer.notEnabled'));
      await click.openModal(renderAlertAddModal(w));
    },
    { adminOnly: true },
  );

  app.view(f.callbackId, async ({ ack, view, body, client }) => {
    const userId = body.user.id;
    const w = await deps.language.user(userId);
    const scheduler = deps.digests?.alerts;
    if (!(await deps.isAdmin(userId)) || !deps.digests || !scheduler) {
      await ack({ response_action: 'errors', errors: { [f.shop.block]: w.t('alertForm.onlyAdmins') } });
      return;
    }
    const channel = view.state.values[f.channel.block]?.[f.channel.action]?.selected_conversation;
    const parsed = parseAlertCommand(
      asCommand(view.state.values),
      { channelId: '', channelName: '' },
      toLocale,
    );
    if (parsed.kind !== 'add') {
      const errors: Record<string, string> = {};
      const problems = parsed.kind === 'invalid' ? parsed.problems : [];
      for (const p of problems) errors[blockOf(p)] ??= describeAlertProblem(w, p);
      if (!channel) errors[f.channel.block] = w.t('alertForm.chooseChannel');
      await ack({ response_action: 'errors', errors });
      return;
    }
    const added = await addAlert(alertUseCase(deps, deps.digests, scheduler), parsed, userId);
    if (added.kind !== 'added') {
      await ack({
        response_action: 'errors',
        errors: {
          [f.shop.block]:
            added.kind === 'unknown_shop'
              ? w.t('shipAlert.answer.unknownShop', { shop: parsed.shop })
              : w.t('shipAlert.answer.exists', { id: added.subscription.id }),
        },
      });
      return;
    }
    await ack();
    await publishHome(deps, client, userId);
  });

  onViewClick(
    app,
    deps,
    HOME_ALERT_REMOVE_PATTERN,
    async (click) => {
      const scheduler = deps.digests?.alerts;
      if (!deps.digests || !scheduler)
        return click.refuse((await click.words()).t('shipAlert.answer.notEnabled'));
      const id = Number(click.action.value);
      if (Number.isInteger(id))
        await removeAlert(alertUseCase(deps, deps.digests, scheduler), id, click.userId);
      await click.republishHome();
    },
    { adminOnly: true },
  );
}
