/**
 * "Add digest" on the admins' App Home (issue 6): the button opens the form; a submit is checked
 * with the rules of `/orders digest add` (checkDigestAdd) and added the way the command adds
 * (addDigestSubscription: the scheduler plans again at once, the store audits the admin's id),
 * then the admin's Home is published again. Admin rights are checked on the click and on the
 * submit, never trusted from the view.
 */
import type { App, BlockButtonAction, ViewOutput } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import { HOME_DIGEST_FORM, renderDigestAddModal } from '../../blocks/home-digest-form.js';
import type { SlackDeps } from '../deps.js';
import { addDigestSubscription, unknownShopProblem } from '../digest/command.js';
import { checkDigestAdd, DEFAULT_TIME_ZONE, type DigestAdd, type DigestAddField } from '../digest/parse.js';
import { publishHome } from './publish.js';

type Values = ViewOutput['state']['values'];
type Errors = Record<string, string>;

const ONLY_ADMINS = 'Only platdesk admins can add digests.';
const NOT_ENABLED = 'Order digests are not enabled on this platdesk.';
const f = HOME_DIGEST_FORM;

/** Where each problem of checkDigestAdd is shown. */
const BLOCK_OF: Record<Exclude<DigestAddField, 'shop'>, string> = {
  channel: f.channel.block,
  time: f.time.block,
  timeZone: f.timeZone.block,
};

/** The registered shops a digest can be added for (those with an owner id). */
async function digestShops(deps: SlackDeps): Promise<{ alias: string; ownerId: string }[]> {
  return (await deps.lookups.settings.shops()).shops.flatMap((s) =>
    s.ownerId ? [{ alias: s.alias, ownerId: s.ownerId }] : [],
  );
}

/**
 * The form's answers checked as `/orders digest add` checks them (checkDigestAdd), every problem
 * on the field it concerns; a missing answer says what to choose.
 */
function checkForm(
  values: Values,
): { ok: true; add: DigestAdd; shopBlock: string } | { ok: false; errors: Errors } {
  const alias = values[f.shop.block]?.[f.shop.action]?.selected_option?.value?.trim() ?? '';
  const owner = values[f.owner.block]?.[f.owner.action]?.value?.trim() ?? '';
  const channel = values[f.channel.block]?.[f.channel.action]?.selected_conversation ?? '';
  const time = values[f.time.block]?.[f.time.action]?.selected_time ?? '';
  const timeZone = values[f.timeZone.block]?.[f.timeZone.action]?.selected_option?.value ?? '';
  // A problem with the shop is shown where it came from (the select is absent when no shop is registered).
  const shopBlock = alias !== '' ? f.shop.block : f.owner.block;
  // No channel typed in a channel here: a conversations_select gives the id itself.
  const checked = checkDigestAdd(
    { shop: alias || owner, channel, time, timeZone },
    { channelId: '', channelName: '' },
  );

  const errors: Errors = {};
  if (!checked.ok)
    for (const [field, problem] of Object.entries(checked.problems))
      errors[field === 'shop' ? shopBlock : BLOCK_OF[field as keyof typeof BLOCK_OF]] = problem;
  if (alias === '' && owner === '') errors[f.owner.block] = 'choose a registered shop or type an owner id';
  if (alias !== '' && owner !== '')
    errors[f.owner.block] = 'choose a registered shop or type an owner id, not both';
  if (channel === '') errors[f.channel.block] = 'choose a channel';
  if (time === '') errors[f.time.block] = 'choose a time of day';
  if (timeZone === '') errors[f.timeZone.block] = 'choose a time zone';
  return checked.ok && Object.keys(errors).length === 0
    ? { ok: true, add: checked.add, shopBlock }
    : { ok: false, errors };
}

export function registerDigestForm(app: App, deps: SlackDeps): void {
  app.action<BlockButtonAction>(ACTIONS.homeDigestAdd, async ({ ack, body, client, respond }) => {
    await ack();
    const refusal = !(await deps.isAdmin(body.user.id)) ? ONLY_ADMINS : !deps.digests ? NOT_ENABLED : null;
    if (refusal) {
      await respond({ response_type: 'ephemeral', replace_original: false, text: refusal }).catch(
        () => undefined,
      );
      return;
    }
    await client.views.open({
      trigger_id: body.trigger_id,
      view: renderDigestAddModal({ shops: await digestShops(deps), defaultTimeZone: DEFAULT_TIME_ZONE }),
    });
  });

  app.view(f.callbackId, async ({ ack, view, body, client }) => {
    const userId = body.user.id;
    const digests = deps.digests;
    const refusal = !(await deps.isAdmin(userId)) ? ONLY_ADMINS : !digests ? NOT_ENABLED : null;
    if (refusal || !digests) {
      await ack({ response_action: 'errors', errors: { [f.owner.block]: refusal ?? NOT_ENABLED } });
      return;
    }
    const checked = checkForm(view.state.values);
    if (!checked.ok) {
      await ack({ response_action: 'errors', errors: checked.errors });
      return;
    }
    const added = await addDigestSubscription(deps, digests, checked.add, userId);
    if (added.kind !== 'added') {
      await ack({
        response_action: 'errors',
        errors:
          added.kind === 'unknown_shop'
            ? { [checked.shopBlock]: unknownShopProblem(checked.add.shop) }
            : { [f.channel.block]: `that digest already exists: #${added.subscription.id}` },
      });
      return;
    }
    await ack();
    await publishHome(deps, client, userId);
  });
}
