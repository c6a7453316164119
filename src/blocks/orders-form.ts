/**
 * The /orders filter form (a modal): owner, time window, remark, flag and page size. Filters
 * are offered only with the enhanced edition (spec §9), and the form says so otherwise.
 */
import type { KnownBlock, ModalView } from '@slack/types';
import type { Words } from './i18n/words.js';
import { context } from './kit.js';

/** Every action_id is unique across the view, as Block Kit validation requires. */
export const ORDERS_FORM = {
  callbackId: 'platdesk.orders.form',
  owner: { block: 'owner', action: 'orders.owner' },
  from: { block: 'from', action: 'orders.from' },
  to: { block: 'to', action: 'orders.to' },
  remark: { block: 'remark', action: 'orders.remark' },
  flag: { block: 'flag', action: 'orders.flag' },
  size: { block: 'size', action: 'orders.size' },
} as const;

const FLAGS = [1, 2, 3, 4, 5] as const;
const SIZES = [20, 50, 100];

const plain = (text: string) => ({ type: 'plain_text' as const, text });

export function renderOrdersForm(w: Words, input: { privateMetadata: string; edition: number }): ModalView {
  const { t } = w;
  const blocks: KnownBlock[] = [
    {
      type: 'input',
      block_id: ORDERS_FORM.owner.block,
      label: plain(t('orders.form.owner')),
      element: { type: 'plain_text_input', action_id: ORDERS_FORM.owner.action, max_length: 64 },
    },
  ];
  if (input.edition === 1) {
    blocks.push(
      {
        type: 'input',
        block_id: ORDERS_FORM.from.block,
        optional: true,
        label: plain(t('orders.form.from')),
        element: { type: 'datetimepicker', action_id: ORDERS_FORM.from.action },
        hint: plain(t('orders.form.fromHint')),
      },
      {
        type: 'input',
        block_id: ORDERS_FORM.to.block,
        optional: true,
        label: plain(t('orders.form.to')),
        element: { type: 'datetimepicker', action_id: ORDERS_FORM.to.action },
      },
      {
        type: 'input',
        block_id: ORDERS_FORM.remark.block,
        optional: true,
        label: plain(t('orders.form.remark')),
        element: { type: 'plain_text_input', action_id: ORDERS_FORM.remark.action, max_length: 200 },
      },
      {
        type: 'input',
        block_id: ORDERS_FORM.flag.block,
        optional: true,
        label: plain(t('orders.form.flag')),
        element: {
          type: 'static_select',
          action_id: ORDERS_FORM.flag.action,
          options: FLAGS.map((n) => ({
            text: plain(t('orders.form.flagOption', { n, name: t(`orders.flagName.${n}`) })),
            value: String(n),
          })),
        },
      },
    );
  } else {
    blocks.push(context(t('orders.form.needsEnhanced')));
  }
  blocks.push({
    type: 'input',
    block_id: ORDERS_FORM.size.block,
    label: plain(t('orders.form.size')),
    element: {
      type: 'static_select',
      action_id: ORDERS_FORM.size.action,
      initial_option: { text: plain('20'), value: '20' },
      options: SIZES.map((n) => ({ text: plain(String(n)), value: String(n) })),
    },
  });
  blocks.push(context(t('orders.form.footer')));
  return {
    type: 'modal',
    callback_id: ORDERS_FORM.callbackId,
    private_metadata: input.privateMetadata,
    title: plain(t('orders.form.title')),
    submit: plain(t('orders.form.submit')),
    close: plain(t('orders.form.close')),
    blocks,
  };
}
