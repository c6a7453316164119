/**
 * "Connect plat account" on the admins' App Home (distributed mode, issue 24): the button opens a
 * modal for the base URL and the token; an admin's submit stores them for the workspace (the token
 * sealed, store/plat-accounts.ts) and the Home is published again. The plat API has no free call,
 * so the token is checked by the first lookup that uses it, and the Home shows the outcome.
 * Admin rights are checked on the click and on the submit.
 */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/action-ids.js';
import {
  ERASE_FORM,
  PLAT_ACCOUNT_FORM,
  renderEraseModal,
  renderPlatAccountModal,
} from '../../blocks/plat-account.js';
import { platTokenProblem } from '../../lookups/plat-accounts.js';
import type { PlatUrlProblem } from '../../plat/address-guard.js';
import { onViewClick } from '../clicks/view-click.js';
import type { SlackDeps } from '../deps.js';
import { publishHome } from './publish.js';

const URL_PROBLEM_WORDS = {
  form: 'install.platAccountBadUrl',
  https: 'install.platAccountBadUrl',
  address: 'install.platAccountPrivateUrl',
  unresolved: 'install.platAccountUnresolvedUrl',
} as const satisfies Record<PlatUrlProblem, string>;

export function registerPlatAccountForm(app: App, deps: SlackDeps): void {
  onViewClick(
    app,
    deps,
    ACTIONS.homePlatAccount,
    async (click) => {
      // The modal never shows the stored token; the base URL is filled in when there is one.
      const tenant = deps.store.tenant;
      const current = await deps.store.platAccounts.get(tenant).catch(() => null);
      await click.openModal(
        renderPlatAccountModal(await click.words(), current ? { baseUrl: current.baseUrl } : null),
      );
    },
    { adminOnly: true },
  );

  onViewClick(
    app,
    deps,
    ACTIONS.homeEraseData,
    async (click) => click.openModal(renderEraseModal(await click.words())),
    { adminOnly: true },
  );

  app.view(ERASE_FORM.callbackId, async ({ ack, body }) => {
    const userId = body.user.id;
    if (!(await deps.isAdmin(userId))) {
      // The modal has no input to attach an error to: it closes, and nothing is deleted.
      await ack();
      return;
    }
    await ack();
    await deps.installs?.eraseNow(deps.store.tenant, userId);
  });

  app.view(PLAT_ACCOUNT_FORM.callbackId, async ({ ack, view, body, client }) => {
    const f = PLAT_ACCOUNT_FORM;
    const userId = body.user.id;
    const w = await deps.language.user(userId);
    if (!(await deps.isAdmin(userId))) {
      await ack({
        response_action: 'errors',
        errors: { [f.baseUrl.block]: w.t('install.platAccountOnlyAdmins') },
      });
      return;
    }
    const values = view.state.values;
    const baseUrl = (values[f.baseUrl.block]?.[f.baseUrl.action]?.value ?? '').trim().replace(/\/+$/, '');
    const token = (values[f.token.block]?.[f.token.action]?.value ?? '').trim();
    if (platTokenProblem(token)) {
      await ack({
        response_action: 'errors',
        errors: { [f.token.block]: w.t('install.platAccountBadToken') },
      });
      return;
    }
    // https://, and a public address: the workspace's token never goes in clear, and never to this
    // machine or the operator's network (issue 34 M1). Checked again at every connection.
    const urlProblem = deps.installs ? await deps.installs.platUrlProblem(baseUrl) : 'form';
    if (urlProblem) {
      await ack({
        response_action: 'errors',
        errors: { [f.baseUrl.block]: w.t(URL_PROBLEM_WORDS[urlProblem]) },
      });
      return;
    }
    await ack();
    const tenant = deps.store.tenant;
    await deps.store.platAccounts.set(tenant, { baseUrl, token }, userId);
    await deps.store.audit.record({
      actorId: userId,
      action: 'plat_account.set',
      detail: `${tenant} ${baseUrl}`,
    });
    await deps.installs?.accountChanged(tenant);
    await publishHome(deps, client, userId);
  });
}
