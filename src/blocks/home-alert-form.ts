/**
 * The App Home's "Add ship-by alert" form: the fields of `/orders alert add`, each prefilled with
 * its default; the Slack layer checks the answers with the command's grammar (alerts/grammar.ts).
 */
import type { ModalView, PlainTextOption } from '@slack/types';
import { ALERT_DEFAULTS } from '../alerts/grammar.js';
import { DIGEST_TIME_ZONES } from './home-digest-form.js';
import type { Words } from './i18n/words.js';
import { section } from './kit.js';
import { truncate } from './text.js';

export const HOME_ALERT_FORM = {
  callbackId: 'platdesk.home.alert.form',
  // One action_id per input: the validator wants them unique in the whole view.
  shop: { block: 'shop', action: 'alert.shop' },
  channel: { block: 'channel', action: 'alert.channel' },
  within: { block: 'within', action: 'alert.within' },
  every: { block: 'every', action: 'alert.every' },
  hours: { block: 'hours', action: 'alert.hours' },
  timeZone: { block: 'zone', action: 'alert.zone' },
  cap: { block: 'cap', action: 'alert.cap' },
} as const;

const plain = (text: string, max = 75) => ({ type: 'plain_text' as const, text: truncate(text, max) || '—' });
const option = (text: string, value: string): PlainTextOption => ({ text: plain(text), value });

function textInput(
  field: { block: string; action: string },
  label: string,
  initial: string | null,
  max: number,
  hint?: string,
) {
  return {
    type: 'input' as const,
    block_id: field.block,
    label: plain(label),
    optional: initial === null,
    ...(hint ? { hint: plain(hint, 150) } : {}),
    element: {
      type: 'plain_text_input' as const,
      action_id: field.action,
      max_length: max,
      ...(initial !== null ? { initial_value: initial } : {}),
    },
  };
}

export function renderAlertAddModal(w: Words): ModalView {
  const { t } = w;
  const f = HOME_ALERT_FORM;
  // A zone as people say it (Asia/Shanghai: "Beijing time" / "北京时间"); its value stays the IANA name.
  const zones = DIGEST_TIME_ZONES.map((z) => option(w.zone(z), z));
  return {
    type: 'modal',
    callback_id: f.callbackId,
    title: plain(t('alertForm.title'), 24),
    submit: plain(t('alertForm.submit'), 24),
    close: plain(t('alertForm.close'), 24),
    blocks: [
      section(t('alertForm.intro')),
      { ...textInput(f.shop, t('alertForm.shop'), '', 64), optional: false },
      {
        type: 'input',
        block_id: f.channel.block,
        label: plain(t('alertForm.channel')),
        element: {
          type: 'conversations_select',
          action_id: f.channel.action,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
        },
      },
      textInput(f.within, t('alertForm.within'), String(ALERT_DEFAULTS.withinHours), 3),
      textInput(f.every, t('alertForm.every'), String(ALERT_DEFAULTS.everyMinutes), 4),
      textInput(f.hours, t('alertForm.hours'), `${ALERT_DEFAULTS.hoursFrom}-${ALERT_DEFAULTS.hoursTo}`, 11),
      {
        type: 'input',
        block_id: f.timeZone.block,
        label: plain(t('alertForm.timeZone')),
        element: {
          type: 'static_select',
          action_id: f.timeZone.action,
          options: zones,
          ...(zones[0] ? { initial_option: zones[0] } : {}),
        },
      },
      textInput(f.cap, t('alertForm.cap'), null, 8, t('alertForm.capHint')),
    ],
  };
}
