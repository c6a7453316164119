/**
 * "Add digest" on the admins' App Home (issue 6): the button opens the form; a submit is checked
 * with the rules of `/orders digest add` (checkDigestAdd) and added the way the command adds
 * (addDigestSubscription: the scheduler plans again at once, the store audits the admin's id),
 * then the admin's Home is published again. Admin rights are checked on the click and on the
 * submit, never trusted from the view.
 */
import type { App, ViewOutput } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import {
  DIGEST_FORM_DAYS,
  DIGEST_FORM_FLAGS,
  DIGEST_FORM_STATUSES,
  HOME_DIGEST_FORM,
  renderDigestAddModal,
} from '../../blocks/home-digest-form.js';
import type { Words } from '../../blocks/i18n/words.js';
import { describeDigestProblem } from '../../blocks/words-of.js';
import {
  checkDigestAdd,
  DEFAULT_TIME_ZONE,
  type DigestAdd,
  type DigestAddField,
} from '../../digest/grammar.js';
import { addDigestSubscription } from '../../digest/subscriptions.js';
import { type Locale, toLocale } from '../../lookups/locale.js';
import { onViewClick } from '../clicks/view-click.js';
import type { SlackDeps } from '../deps.js';
import { publishHome } from './publish.js';

type Values = ViewOutput['state']['values'];
type Errors = Record<string, string>;

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
  w: Words,
  values: Values,
): { ok: true; add: DigestAdd<Locale>; shopBlock: string } | { ok: false; errors: Errors } {
  const { t } = w;
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
      errors[field === 'shop' ? shopBlock : BLOCK_OF[field as keyof typeof BLOCK_OF]] = describeDigestProblem(
        w,
        problem,
      );
  if (alias === '' && owner === '') errors[f.owner.block] = t('digestForm.chooseShopOrOwner');
  if (alias !== '' && owner !== '') errors[f.owner.block] = t('digestForm.notBoth');
  if (channel === '') errors[f.channel.block] = t('digestForm.chooseChannel');
  if (time === '') errors[f.time.block] = t('digestForm.chooseTime');
  if (timeZone === '') errors[f.timeZone.block] = t('digestForm.chooseZone');
  // The channel's language, when chosen here ('default' or nothing: the workspace default).
  const locale = toLocale(values[f.language.block]?.[f.language.action]?.selected_option?.value);
  // What `/orders digest add` offers besides (layout, days, flags, statuses), as the command
  // stores them: nothing ticked is null (every day, every order).
  const layout =
    values[f.layout.block]?.[f.layout.action]?.selected_option?.value === 'single' ? 'single' : 'thread';
  const ticked = (block: { block: string; action: string }, allowed: readonly number[]) => {
    const picked = (values[block.block]?.[block.action]?.selected_options ?? [])
      .map((o) => Number(o.value))
      .filter((n) => allowed.includes(n));
    return picked.length > 0 ? [...new Set(picked)].sort((a, b) => a - b) : null;
  };
  const options = {
    layout,
    days: ticked(f.days, DIGEST_FORM_DAYS),
    flags: ticked(f.flags, DIGEST_FORM_FLAGS),
    statuses: ticked(f.statuses, DIGEST_FORM_STATUSES),
  } as const;
  return checked.ok && Object.keys(errors).length === 0
    ? { ok: true, add: { ...checked.add, ...options, ...(locale ? { locale } : {}) }, shopBlock }
    : { ok: false, errors };
}

export function registerDigestForm(app: App, deps: SlackDeps): void {
  onViewClick(
    app,
    deps,
    ACTIONS.homeDigestAdd,
    async (click) => {
      const w = await click.words();
      if (!deps.digests) return click.refuse(w.t('digest.answer.notEnabled'));
      await click.openModal(
        renderDigestAddModal(w, { shops: await digestShops(deps), defaultTimeZone: DEFAULT_TIME_ZONE }),
      );
    },
    { adminOnly: true },
  );

  app.view(f.callbackId, async ({ ack, view, body, client }) => {
    const userId = body.user.id;
    const digests = deps.digests;
    const w = await deps.language.user(userId);
    const notEnabled = w.t('digest.answer.notEnabled');
    const refusal = !(await deps.isAdmin(userId))
      ? w.t('digestForm.onlyAdmins')
      : !digests
        ? notEnabled
        : null;
    if (refusal || !digests) {
      await ack({ response_action: 'errors', errors: { [f.owner.block]: refusal ?? notEnabled } });
      return;
    }
    const checked = checkForm(w, view.state.values);
    if (!checked.ok) {
      await ack({ response_action: 'errors', errors: checked.errors });
      return;
    }
    const added = await addDigestSubscription({ store: deps.store, ...digests }, checked.add, userId);
    if (added.kind !== 'added') {
      await ack({
        response_action: 'errors',
        errors:
          added.kind === 'unknown_shop'
            ? {
                [checked.shopBlock]: w.t('digestProblem.unknown_shop', {
                  shop: checked.add.shop.slice(0, 64),
                }),
              }
            : { [f.channel.block]: w.t('digestForm.exists', { id: added.subscription.id }) },
      });
      return;
    }
    await ack();
    if (checked.add.locale)
      await deps.language.settings.setChannel(added.subscription.channelId, checked.add.locale, userId);
    await publishHome(deps, client, userId);
  });
}
