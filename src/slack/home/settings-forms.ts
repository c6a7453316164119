/**
 * The App Home's settings (admins only): who may spend, auto-lookup channels, prices per
 * operation and edition, digest subscriptions. Each Edit button opens a form; each change is
 * saved through the settings (audited with who made it) and the admin's Home is published again.
 * Admin rights are checked on every click and every submit, never trusted from the view.
 */
import type { App, ViewOutput } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { ACTIONS, HOME_DIGEST_REMOVE_PATTERN } from '../../blocks/action-ids.js';
import {
  HOME_FORMS,
  parsePriceOption,
  renderAccessModal,
  renderAutoLookupModal,
  renderPricesModal,
} from '../../blocks/home.js';
import type { Words } from '../../blocks/i18n/words.js';
import { currentPrices } from '../../lookups/home-data.js';
import type { AccessPolicy } from '../../lookups/settings.js';
import { autoLookupSettings, MAX_AUTO_CAP } from '../../lookups/unfurls.js';
import { onViewClick } from '../clicks/view-click.js';
import type { SlackDeps } from '../deps.js';
import { publishHome } from './publish.js';

type Values = ViewOutput['state']['values'];
function readAccess(w: Words, values: Values): { policy: AccessPolicy } | { error: [string, string] } {
  const f = HOME_FORMS.access;
  const mode =
    values[f.mode.block]?.[f.mode.action]?.selected_option?.value === 'listed' ? 'listed' : 'everyone';
  const users = values[f.users.block]?.[f.users.action]?.selected_users ?? [];
  const channels = values[f.channels.block]?.[f.channels.action]?.selected_conversations ?? [];
  const groupText = values[f.groups.block]?.[f.groups.action]?.value ?? '';
  const groups = groupText.split(/[\s,]+/).filter(Boolean);
  const bad = groups.filter((g) => !/^S[A-Z0-9]{2,}$/.test(g));
  if (bad.length > 0)
    return { error: [f.groups.block, w.t('home.form.notGroups', { ids: bad.slice(0, 3).join(', ') })] };
  if (mode === 'listed' && users.length + channels.length + groups.length === 0)
    return { error: [f.users.block, w.t('home.form.nameSomeone')] };
  return mode === 'everyone'
    ? { policy: { mode, users: [], groups: [], channels: [] } }
    : { policy: { mode, users, groups, channels } };
}

export function registerSettingsForms(app: App, deps: SlackDeps): void {
  const openForm = (actionId: string, build: (w: Words) => Promise<ModalView>) =>
    onViewClick(app, deps, actionId, async (click) => click.openModal(await build(await click.words())), {
      adminOnly: true,
    });

  openForm(ACTIONS.homeAccess, async (w) => renderAccessModal(w, await deps.lookups.settings.access()));
  openForm(ACTIONS.homeAutoLookup, async (w) =>
    renderAutoLookupModal(
      w,
      Object.entries((await autoLookupSettings(deps.store.settings).get()).channels).map(
        ([channelId, { cap }]) => ({ channelId, cap }),
      ),
    ),
  );
  openForm(ACTIONS.homePrices, async (w) =>
    renderPricesModal(w, await currentPrices(deps.lookups), await deps.lookups.settings.priceOverrides()),
  );

  app.view(HOME_FORMS.access.callbackId, async ({ ack, view, body, client }) => {
    const userId = body.user.id;
    const w = await deps.language.user(userId);
    if (!(await deps.isAdmin(userId))) {
      await ack({
        response_action: 'errors',
        errors: { [HOME_FORMS.access.mode.block]: w.t('home.form.onlyAdmins') },
      });
      return;
    }
    const read = readAccess(w, view.state.values);
    if ('error' in read) {
      await ack({ response_action: 'errors', errors: { [read.error[0]]: read.error[1] } });
      return;
    }
    await ack();
    await deps.lookups.settings.setAccess(read.policy, userId);
    await publishHome(deps, client, userId);
  });

  app.view(HOME_FORMS.autoLookup.callbackId, async ({ ack, view, body, client }) => {
    const f = HOME_FORMS.autoLookup;
    const userId = body.user.id;
    const values = view.state.values;
    const w = await deps.language.user(userId);
    if (!(await deps.isAdmin(userId))) {
      await ack({ response_action: 'errors', errors: { [f.channel.block]: w.t('home.form.onlyAdmins') } });
      return;
    }
    const channelId = values[f.channel.block]?.[f.channel.action]?.selected_conversation ?? null;
    const on = values[f.mode.block]?.[f.mode.action]?.selected_option?.value !== 'off';
    const capText = values[f.cap.block]?.[f.cap.action]?.value?.trim() ?? '';
    const cap = capText === '' ? 20 : Number(capText);
    if (!channelId) {
      await ack({ response_action: 'errors', errors: { [f.channel.block]: w.t('home.form.chooseChannel') } });
      return;
    }
    if (on && !(Number.isInteger(cap) && cap >= 1 && cap <= MAX_AUTO_CAP)) {
      await ack({
        response_action: 'errors',
        errors: { [f.cap.block]: w.t('home.form.capRange', { max: MAX_AUTO_CAP }) },
      });
      return;
    }
    await ack();
    await autoLookupSettings(deps.store.settings).set(channelId, on ? cap : null, userId);
    await publishHome(deps, client, userId);
  });

  app.view(HOME_FORMS.prices.callbackId, async ({ ack, view, body, client }) => {
    const f = HOME_FORMS.prices;
    const userId = body.user.id;
    const values = view.state.values;
    const w = await deps.language.user(userId);
    if (!(await deps.isAdmin(userId))) {
      await ack({ response_action: 'errors', errors: { [f.operation.block]: w.t('home.form.onlyAdmins') } });
      return;
    }
    const option = parsePriceOption(values[f.operation.block]?.[f.operation.action]?.selected_option?.value);
    const pointsText = values[f.points.block]?.[f.points.action]?.value?.trim() ?? '';
    const points = pointsText === '' ? null : Number(pointsText);
    if (!option) {
      await ack({
        response_action: 'errors',
        errors: { [f.operation.block]: w.t('home.form.chooseOperation') },
      });
      return;
    }
    if (points !== null && !(Number.isFinite(points) && points >= 0 && points <= 100_000)) {
      await ack({
        response_action: 'errors',
        errors: { [f.points.block]: w.t('home.form.pointsRange') },
      });
      return;
    }
    await ack();
    const overrides = structuredClone(await deps.lookups.settings.priceOverrides());
    const byEdition = { ...overrides[option.operation] };
    if (points === null) delete byEdition[option.edition];
    else byEdition[option.edition] = points;
    if (Object.keys(byEdition).length > 0) overrides[option.operation] = byEdition;
    else delete overrides[option.operation];
    await deps.lookups.settings.setPriceOverrides(overrides, userId);
    await publishHome(deps, client, userId);
  });

  onViewClick(
    app,
    deps,
    HOME_DIGEST_REMOVE_PATTERN,
    async (click) => {
      const id = Number(click.action.value);
      // As `/orders digest remove` does: the scheduler plans again at once, not at its next look.
      if (Number.isInteger(id) && (await deps.store.digests.remove(id, click.userId)))
        deps.digests?.scheduler.reschedule();
      await click.republishHome();
    },
    { adminOnly: true },
  );
}
