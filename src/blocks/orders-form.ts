/**
 * The /orders filter form (a modal): owner, time window, remark, flag and page size. Filters
 * are offered only with the enhanced edition (spec §9), and the form says so otherwise.
 */
import type { KnownBlock, ModalView } from '@slack/types';
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

const FLAGS = ['Red', 'Yellow', 'Green', 'Blue', 'Purple'];
const SIZES = [20, 50, 100];

const plain = (text: string) => ({ type: 'plain_text' as const, text });

export function renderOrdersForm(input: { privateMetadata: string; edition: number }): ModalView {
  const blocks: KnownBlock[] = [
    {
      type: 'input',
      block_id: ORDERS_FORM.owner.block,
      label: plain('Shop owner id'),
      element: { type: 'plain_text_input', action_id: ORDERS_FORM.owner.action, max_length: 64 },
    },
  ];
  if (input.edition === 1) {
    blocks.push(
      {
        type: 'input',
        block_id: ORDERS_FORM.from.block,
        optional: true,
        label: plain('Confirmed from'),
        element: { type: 'datetimepicker', action_id: ORDERS_FORM.from.action },
        hint: plain('At most 24 hours between from and to.'),
      },
      {
        type: 'input',
        block_id: ORDERS_FORM.to.block,
        optional: true,
        label: plain('Confirmed until'),
        element: { type: 'datetimepicker', action_id: ORDERS_FORM.to.action },
      },
      {
        type: 'input',
        block_id: ORDERS_FORM.remark.block,
        optional: true,
        label: plain('Remark contains'),
        element: { type: 'plain_text_input', action_id: ORDERS_FORM.remark.action, max_length: 200 },
      },
      {
        type: 'input',
        block_id: ORDERS_FORM.flag.block,
        optional: true,
        label: plain('Flag'),
        element: {
          type: 'static_select',
          action_id: ORDERS_FORM.flag.action,
          options: FLAGS.map((name, i) => ({ text: plain(`${i + 1} ${name}`), value: String(i + 1) })),
        },
      },
    );
  } else {
    blocks.push(context('Time, remark and flag filters need the enhanced edition of the orders interface.'));
  }
  blocks.push({
    type: 'input',
    block_id: ORDERS_FORM.size.block,
    label: plain('Orders per page'),
    element: {
      type: 'static_select',
      action_id: ORDERS_FORM.size.action,
      initial_option: { text: plain('20'), value: '20' },
      options: SIZES.map((n) => ({ text: plain(String(n)), value: String(n) })),
    },
  });
  blocks.push(context('Submitting shows the charge first; nothing is charged until you confirm.'));
  return {
    type: 'modal',
    callback_id: ORDERS_FORM.callbackId,
    private_metadata: input.privateMetadata,
    title: plain('Orders'),
    submit: plain('Continue'),
    close: plain('Cancel'),
    blocks,
  };
}
