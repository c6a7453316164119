/**
 * The /orders form's submission: validated by the same rules as the command text; problems are
 * shown on the form's fields; a valid request gets the usual confirmation in the channel.
 */
import type { App, ViewOutput } from '@slack/bolt';
import { ORDERS_FORM, renderOrdersForm } from '../../blocks/orders-form.js';
import { ordersRequestFrom } from '../../lookups/parse/command-text.js';
import { offerLookup } from '../answer.js';
import type { SlackDeps } from '../deps.js';
import { sendPrivately } from '../private-reply.js';

export function ordersFormView(input: { channelId: string; edition: number }) {
  return renderOrdersForm({
    privateMetadata: JSON.stringify({ channelId: input.channelId }),
    edition: input.edition,
  });
}

type Values = ViewOutput['state']['values'];

function readForm(values: Values) {
  const get = (f: { block: string; action: string }) => values[f.block]?.[f.action];
  const time = (f: { block: string; action: string }) => {
    const seconds = get(f)?.selected_date_time;
    return typeof seconds === 'number' ? new Date(seconds * 1000) : undefined;
  };
  const flag = get(ORDERS_FORM.flag)?.selected_option?.value;
  return {
    ownerId: (get(ORDERS_FORM.owner)?.value ?? '').trim(),
    page: 1,
    pageSize: Number(get(ORDERS_FORM.size)?.selected_option?.value ?? 20),
    startTime: time(ORDERS_FORM.from),
    endTime: time(ORDERS_FORM.to),
    remark: get(ORDERS_FORM.remark)?.value?.trim() || undefined,
    remarkTag: flag ? Number(flag) : undefined,
  };
}

/** Which form block a problem belongs to, so Slack shows it under that field. */
function blockOf(problem: string): string {
  if (/owner/i.test(problem)) return ORDERS_FORM.owner.block;
  if (/window|time|end/i.test(problem)) return ORDERS_FORM.to.block;
  if (/remark/i.test(problem)) return ORDERS_FORM.remark.block;
  if (/flag/i.test(problem)) return ORDERS_FORM.flag.block;
  return ORDERS_FORM.size.block;
}

export function registerOrdersForm(app: App, deps: SlackDeps): void {
  app.view(ORDERS_FORM.callbackId, async ({ ack, view, body, client }) => {
    const edition = deps.client.editionFor('paging-orders') ?? 1;
    const parsed = ordersRequestFrom(readForm(view.state.values), edition);
    if (parsed.kind !== 'request') {
      const problems = parsed.kind === 'invalid' ? parsed.problems : ['invalid form'];
      const errors: Record<string, string> = {};
      for (const p of problems) errors[blockOf(p)] = errors[blockOf(p)] ? `${errors[blockOf(p)]}; ${p}` : p;
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    const { channelId } = JSON.parse(view.private_metadata || '{}') as { channelId?: string };
    const userId = body.user.id;
    // A modal has no response_url: the confirmation is posted as an ephemeral message in the
    // channel, or by direct message when Slack refuses that (channel gone, rate limit).
    const reply = async (msg: { text?: string; blocks?: unknown[] }) => {
      await sendPrivately(client, { userId, channelId: channelId ?? null }, msg, deps.logger);
    };
    await offerLookup(
      deps,
      parsed.request,
      { userId, channelId: channelId ?? null, teamId: body.team?.id ?? null, responseUrl: null },
      reply,
    );
  });
}
