/**
 * The workspace's plat account on the admins' App Home (distributed mode, issue 24): where lookups
 * are charged and whether the token was accepted, a "Connect plat account" button, and its modal
 * (base URL and token; the token is never shown back).
 */
import type { KnownBlock, ModalView } from '@slack/types';
import type { PlatAccountStatus } from '../lookups/plat-accounts.js';
import { ACTIONS } from './action-ids.js';
import type { Words } from './i18n/words.js';
import { actions, button, header, section } from './kit.js';
import { escapeClip, truncate } from './text.js';

export const PLAT_ACCOUNT_FORM = {
  callbackId: 'platdesk.home.plat_account_form',
  baseUrl: { block: 'plat_base_url', action: 'base_url' },
  token: { block: 'plat_token', action: 'token' },
} as const;

const plain = (text: string, max = 75) => ({ type: 'plain_text' as const, text: truncate(text, max) || '—' });

export function platAccountBlocks(w: Words, status: PlatAccountStatus): KnownBlock[] {
  const { t } = w;
  const url = 'baseUrl' in status ? `\`${escapeClip(status.baseUrl, 200)}\`` : '';
  const text =
    status.state === 'none'
      ? t('install.platAccountNone')
      : status.state === 'default'
        ? t('install.platAccountDefault')
        : status.state === 'unchecked'
          ? t('install.platAccountUnchecked', { url })
          : status.state === 'verified'
            ? t('install.platAccountVerified', { url })
            : t('install.platAccountRefused', {
                url,
                code: escapeClip(status.state === 'refused' ? status.code : '', 40),
              });
  return [
    header(t(status.state === 'none' ? 'install.platAccountFirstStep' : 'install.platAccountHeading')),
    section(text),
    actions([
      button({
        label: t('install.platAccountButton'),
        actionId: ACTIONS.homePlatAccount,
        value: 'connect',
        ...(status.state === 'none' || status.state === 'refused' ? { style: 'primary' as const } : {}),
      }),
      button({
        label: t('install.eraseButton'),
        actionId: ACTIONS.homeEraseData,
        value: 'erase',
        style: 'danger',
      }),
    ]),
  ];
}

/** What a member (not an admin) reads while the workspace has no plat account. */
export function platAccountMemberBlocks(w: Words, status: PlatAccountStatus): KnownBlock[] {
  return status.state === 'none' ? [section(w.t('install.platAccountMemberNone'))] : [];
}

export const ERASE_FORM = { callbackId: 'platdesk.home.erase_form' } as const;

/** The confirmation of an admin's request to delete the workspace's data. */
export function renderEraseModal(w: Words): ModalView {
  const { t } = w;
  return {
    type: 'modal',
    callback_id: ERASE_FORM.callbackId,
    title: plain(t('install.eraseModalTitle'), 24),
    submit: plain(t('install.eraseModalSubmit'), 24),
    close: plain(t('home.form.cancel'), 24),
    blocks: [section(t('install.eraseModalBody'))],
  };
}

export function renderPlatAccountModal(w: Words, current: { baseUrl: string } | null): ModalView {
  const { t } = w;
  const f = PLAT_ACCOUNT_FORM;
  return {
    type: 'modal',
    callback_id: f.callbackId,
    title: plain(t('install.platAccountModalTitle'), 24),
    submit: plain(t('install.platAccountModalSave'), 24),
    close: plain(t('home.form.cancel'), 24),
    blocks: [
      {
        type: 'input',
        block_id: f.baseUrl.block,
        label: plain(t('install.platAccountBaseUrl')),
        hint: plain(t('install.platAccountBaseUrlHint'), 150),
        element: {
          type: 'plain_text_input',
          action_id: f.baseUrl.action,
          max_length: 500,
          ...(current ? { initial_value: current.baseUrl.slice(0, 500) } : {}),
        },
      },
      {
        type: 'input',
        block_id: f.token.block,
        label: plain(t('install.platAccountToken')),
        hint: plain(t('install.platAccountTokenHint'), 150),
        element: { type: 'plain_text_input', action_id: f.token.action, max_length: 500 },
      },
    ],
  };
}
