/**
 * `/orders` end to end: a page with its pager (each page its own charged, single-use lookup),
 * the filter form (views.open, view_submission), and no receiver data in any message.
 */

import { describe, expect, it } from 'vitest';
import { ORDERS_FORM } from '../../src/blocks/orders-form.js';
import { buildOrderBook } from '../../src/sandbox/fixtures.js';
import { SANDBOX_FIXTURES } from '../../src/sandbox/index.js';
import {
  buttonOf,
  buttonsOf,
  confirmationOf,
  looksLikeStackTrace,
  type SlackMessage,
  textOf,
  useHarness,
} from '../helpers/platdesk-harness.js';
import { SLACK } from '../helpers/slack-payloads.js';
import { ENGINES } from '../helpers/store-engines.js';

const { owners, orderCounts } = SANDBOX_FIXTURES;
const PAGES = Math.ceil(orderCounts.busy / 20);

function formValues(input: { owner: string; size?: string; from?: Date; to?: Date }) {
  const values: Record<string, Record<string, { type: string; [k: string]: unknown }>> = {
    [ORDERS_FORM.owner.block]: {
      [ORDERS_FORM.owner.action]: { type: 'plain_text_input', value: input.owner },
    },
    [ORDERS_FORM.size.block]: {
      [ORDERS_FORM.size.action]: {
        type: 'static_select',
        selected_option: {
          text: { type: 'plain_text', text: input.size ?? '20' },
          value: input.size ?? '20',
        },
      },
    },
  };
  for (const [key, date] of [
    ['from', input.from],
    ['to', input.to],
  ] as const) {
    const field = ORDERS_FORM[key];
    values[field.block] = {
      [field.action]: {
        type: 'datetimepicker',
        selected_date_time: date ? Math.floor(date.getTime() / 1000) : null,
      },
    };
  }
  return values;
}

describe.each(ENGINES)('/orders (%s store)', (engine) => {
  const h = useHarness({ engine });

  it.each([
    [`${owners.busy} size:101`, 'size must be 1 to 100'],
    [`${owners.busy} flag:9`, 'flag must be 1 to 5'],
    [`${owners.busy} page:0`, 'page must be 1 or more'],
    [`${owners.busy} ${owners.small}`, 'give exactly one owner id'],
    [`${owners.busy} from:2026-11-20 to:2026-11-22`, 'the time window can be at most 24 hours'],
    [`${owners.busy} from:yesterday`, 'from must be YYYY-MM-DD'],
    [`${owners.busy} colour:red`, 'unknown option colour:red'],
  ])('answers %j with the usage line and its problems, and makes no call', async (text, problem) => {
    const said = await h().refused('/orders', text);
    expect(said).toContain(problem);
  });

  describe('pages', () => {
    let page1: SlackMessage;
    let page2: SlackMessage;

    it('page 1 of N after one call, with a Next button that states its charge', async () => {
      const before = h().calls();
      const { confirmation } = await h().ask('/orders', owners.busy);
      expect(confirmation.text).toContain('Orders (enhanced)');
      expect(confirmation.text).toContain(
        `Orders (enhanced)* for owner ${owners.busy}, page 1 (20 per page)`,
      );
      const { answer } = await h().confirm(confirmation);
      page1 = answer;
      const said = textOf(answer);
      expect(answer.response_type).toBe('ephemeral');
      expect(said).toContain(`page 1 of ${PAGES}, ${orderCounts.busy} orders`);
      expect(said).toContain('Charged 2 points (¥0.02)');
      const next = buttonOf(answer, 'platdesk.orders.next');
      expect(next.label).toBe('Next ▶ (2 points)');
      expect(buttonsOf(answer).some((b) => b.actionId === 'platdesk.orders.prev')).toBe(false);
      await h().settle();
      expect(h().calls()).toBe(before + 1);
    });

    it('Next shows page 2 after one more call', async () => {
      const before = h().calls();
      const next = buttonOf(page1, 'platdesk.orders.next');
      const click = await h().click(next.actionId, next.value);
      expect(click.ms).toBeLessThan(1000);
      expect((await h().nextResponse(click.responseUrlId)).text).toContain('Looking up');
      page2 = await h().nextResponse(click.responseUrlId);
      expect(textOf(page2)).toContain(`page 2 of ${PAGES}`);
      expect(buttonOf(page2, 'platdesk.orders.prev').label).toBe('◀ Previous (2 points)');
      await h().settle();
      expect(h().calls()).toBe(before + 1);
    });

    it('Previous goes back to page 1 after one more call', async () => {
      const before = h().calls();
      const prev = buttonOf(page2, 'platdesk.orders.prev');
      const click = await h().click(prev.actionId, prev.value);
      await h().nextResponse(click.responseUrlId);
      expect(textOf(await h().nextResponse(click.responseUrlId))).toContain(`page 1 of ${PAGES}`);
      await h().settle();
      expect(h().calls()).toBe(before + 1);
    });

    it('the same Next button clicked again makes no call: already used', async () => {
      const before = h().calls();
      const next = buttonOf(page1, 'platdesk.orders.next');
      const click = await h().click(next.actionId, next.value);
      const refusal = await h().nextResponse(click.responseUrlId);
      expect(textOf(refusal)).toContain('already used');
      // The page the button sits on is a delivered answer: a refusal never replaces it.
      expect(refusal.replace_original).toBe(false);
      await h().settle(100);
      expect(h().calls()).toBe(before);
    });

    it('an expired pager button offers a fresh confirmation beside the page, not in its place', async () => {
      const before = h().calls();
      const next = buttonOf(page2, 'platdesk.orders.next');
      h().advance(11 * 60_000);
      const click = await h().click(next.actionId, next.value);
      const offer = await h().nextResponse(click.responseUrlId);
      expect(confirmationOf(offer).text).toContain('page 3');
      expect(offer.replace_original).toBe(false);
      await h().settle(100);
      expect(h().calls()).toBe(before);
    });

    it('no message holds receiver names, phones or addresses', () => {
      // Receiver fields come from a seeded PRNG that does not depend on the anchor time.
      const orders = buildOrderBook(Date.now()).get(owners.busy) ?? [];
      expect(orders.length).toBe(orderCounts.busy);
      const everything = h()
        .fake.calls.map((c) => c.raw.toString('utf8') + JSON.stringify(c.body))
        .join('\n');
      expect(everything).toContain(orders[0]?.goods_name ?? '-');
      for (const o of orders) {
        expect(everything).not.toContain(o.receiver_phone);
        expect(everything).not.toContain(o.receiver_address);
        expect(everything).not.toContain(o.receiver_name);
      }
      const logs = h().logs().join('\n');
      for (const o of orders) expect(logs).not.toContain(o.receiver_phone);
    });
  });

  describe('past the last page (issue 35)', () => {
    const SMALL_PAGES_OF_50 = Math.ceil(orderCounts.small / 50);

    it('a typed page past the last, its count not known yet: one call, and the answer says so with the count, offering the last page (never a page past it)', async () => {
      const before = h().calls();
      const { confirmation } = await h().ask('/orders', `${owners.small} page:2 size:50`);
      const { answer } = await h().confirm(confirmation);
      const said = textOf(answer);
      expect(said).toContain(
        `Page 2 is past the last page: ${orderCounts.small} orders fit on ${SMALL_PAGES_OF_50} page of 50.`,
      );
      expect(said).not.toContain('page 2 of 1');
      expect(said).toContain('Charged 2 points (¥0.02)');
      // The pager offers the last page (page 1), and no Next.
      const buttons = buttonsOf(answer).map((b) => b.actionId);
      expect(buttons).toContain('platdesk.orders.prev');
      expect(buttons).not.toContain('platdesk.orders.next');
      await h().settle();
      expect(h().calls()).toBe(before + 1);
    });

    it('once the count is known, a typed page past the last is refused with it before any charge', async () => {
      const before = h().calls();
      const sent = await h().command('/orders', `${owners.small} page:3`);
      const answer = await h().nextResponse(sent.responseUrlId);
      const said = textOf(answer);
      expect(() => confirmationOf(answer)).toThrow();
      expect(said).toContain('Page 3 is past the last page');
      expect(said).toContain(`${orderCounts.small} orders`);
      expect(said).toContain('Nothing was sent or charged.');
      expect(said).not.toContain('Ask an admin');
      await h().settle(100);
      expect(h().calls()).toBe(before);
    });
  });

  describe('the form', () => {
    it('/orders with no arguments opens the form (views.open) and makes no call', async () => {
      const before = h().calls();
      const sent = await h().command('/orders', '');
      expect(sent.status).toBe(200);
      expect(sent.ms).toBeLessThan(1000);
      const open = await h().fake.waitFor('views.open');
      expect(open.body.trigger_id).toBe(SLACK.triggerId);
      const view = open.body.view as {
        callback_id: string;
        private_metadata: string;
        blocks: { block_id?: string }[];
      };
      expect(view.callback_id).toBe(ORDERS_FORM.callbackId);
      expect(JSON.parse(view.private_metadata)).toEqual({ channelId: SLACK.channelId });
      expect(view.blocks.map((b) => b.block_id)).toEqual(
        expect.arrayContaining([ORDERS_FORM.owner.block, ORDERS_FORM.from.block, ORDERS_FORM.size.block]),
      );
      expect(h().calls()).toBe(before);
      expect(h().responses(sent.responseUrlId)).toEqual([]);
    });

    it('a valid submission gets the confirmation by chat.postEphemeral, and Confirm runs it once', async () => {
      const before = h().calls();
      const ephemerals = h().fake.callsTo('chat.postEphemeral').length;
      const res = await h().submitView({
        callbackId: ORDERS_FORM.callbackId,
        privateMetadata: JSON.stringify({ channelId: SLACK.channelId }),
        values: formValues({ owner: owners.small }),
      });
      expect(res.status).toBe(200);
      expect(res.body).toBe('');
      const posted = await h().fake.waitFor(
        'chat.postEphemeral',
        () => h().fake.callsTo('chat.postEphemeral').length > ephemerals,
      );
      expect(posted.body.channel).toBe(SLACK.channelId);
      expect(posted.body.user).toBe(SLACK.userId);
      const confirmation = confirmationOf(posted.body);
      expect(confirmation.text).toContain(`for owner ${owners.small}`);
      expect(h().calls()).toBe(before);

      const { answer } = await h().confirm(confirmation);
      expect(textOf(answer)).toContain(`page 1 of 1, ${orderCounts.small} orders`);
      await h().settle();
      expect(h().calls()).toBe(before + 1);
    });

    it('a 30-hour window is refused on the form (response_action errors) with no call', async () => {
      const before = h().calls();
      const ephemerals = h().fake.callsTo('chat.postEphemeral').length;
      const from = new Date('2026-11-20T00:00:00+08:00');
      const res = await h().submitView({
        callbackId: ORDERS_FORM.callbackId,
        privateMetadata: JSON.stringify({ channelId: SLACK.channelId }),
        values: formValues({ owner: owners.busy, from, to: new Date(from.getTime() + 30 * 3_600_000) }),
      });
      expect(res.status).toBe(200);
      const body = JSON.parse(res.body) as { response_action: string; errors: Record<string, string> };
      expect(body.response_action).toBe('errors');
      expect(body.errors[ORDERS_FORM.to.block]).toContain('at most 24 hours');
      await h().settle(100);
      expect(h().calls()).toBe(before);
      expect(h().fake.callsTo('chat.postEphemeral').length).toBe(ephemerals);
    });
  });

  it('every message and view the fake received fits Slack limits', () => {
    h().assertAllWithinLimits();
    for (const m of h().messages()) expect(looksLikeStackTrace(textOf(m))).toBe(false);
  });
});
