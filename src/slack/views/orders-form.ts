/**
 * The /orders form's submission: validated by the same rules as the command text; problems are
 * shown on the form's fields; a valid request gets the usual confirmation in the channel.
 */
import type { App, ViewOutput } from '@slack/bolt';
import type { Words } from '../../blocks/i18n/words.js';
import { ORDERS_FORM, renderOrdersForm } from '../../blocks/orders-form.js';
import { describeProblem } from '../../blocks/words-of.js';
import { ordersRequestFrom } from '../../lookups/parse/command-text.js';
import { type Problem, problem } from '../../lookups/parse/problems.js';
import { offerLookup } from '../answer.js';
import type { SlackDeps } from '../deps.js';
import { sendPrivately } from '../private-reply.js';

export function ordersFormView(w: Words, input: { channelId: string; edition: number }) {
  return renderOrdersForm(w, {
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
function blockOf(problem: Problem): string {
  switch (problem.code) {
    case 'orders_owner':
    case 'orders_one_owner':
      return ORDERS_FORM.owner.block;
    case 'orders_window_reversed':
    case 'orders_window_long':
    case 'orders_filters_need_enhanced':
      return ORDERS_FORM.to.block;
    case 'orders_remark':
      return ORDERS_FORM.remark.block;
    case 'orders_flag':
    case 'orders_flagname':
      return ORDERS_FORM.flag.block;
    default:
      return ORDERS_FORM.size.block;
  }
}

export function registerOrdersForm(app: App, deps: SlackDeps): void {
  app.view(ORDERS_FORM.callbackId, async ({ ack, view, body, client }) => {
    const edition = deps.client.editionFor('paging-orders') ?? 1;
    const parsed = ordersRequestFrom(readForm(view.state.values), edition);
    if (parsed.kind !== 'request') {
      const problems = parsed.kind === 'invalid' ? parsed.problems : [problem('orders_owner')];
      // Slack must have the errors within 3 s: the language already resolved is cached; a slow
      // users.info falls back to the default after 2 s.
      const w = await deps.language.user(body.user.id);
      const errors: Record<string, string> = {};
      for (const p of problems) {
        const block = blockOf(p);
        const text = describeProblem(w, p);
        errors[block] = errors[block] ? `${errors[block]}; ${text}` : text;
      }
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
